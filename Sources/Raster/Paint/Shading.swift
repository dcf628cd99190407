import CHints

/// What a fill or stroke paints with, as `GraphicsContext.Shading`. Points are in the drawing's
/// user space, mapped by the context's transform like the path.
public enum Shading: Sendable, Equatable {
  case color(Color)
  /// `t = dot(p - start, end - start) / |end - start|²`, padded beyond the ends.
  case linearGradient(Gradient, start: Point, end: Point)
  /// `t = (|p - center| - startRadius) / (endRadius - startRadius)`, padded.
  case radialGradient(Gradient, center: Point, startRadius: Float, endRadius: Float)
}

/// A shading resolved for one drawing operation in pixel space: the kind of work per pixel and
/// what it needs, computed once.
struct ShadingProgram {
  enum Kind {
    case solid(Pixel)
    /// t = ax * x + ay * y + c at pixel centers.
    case linear(ax: Float, ay: Float, c: Float)
    /// `linear` with ax = 0 (the weather's sky) and opaque stops: one color a row, the table's
    /// two entries around it computed from the gradient as the table would hold them, so a band
    /// of rows builds no 1025-entry table.
    case vertical(ay: Float, c: Float, gradient: Gradient)
    /// u = inverse(p) - center in user space; t = (|u| - r0) * invSpan.
    case radial(inverse: Transform, center: Point, r0: Float, invSpan: Float)
  }

  let kind: Kind
  let table: [Pixel]
  /// The pixels outside which it paints exactly clear, or nil when it may paint anywhere: a
  /// radial gradient whose last stop is clear (every channel 0) paints clear from its end
  /// radius out (t >= 1 takes the table's last entry, `a + (0 - a) * 1`, which is 0). A blend
  /// of clear changes no pixel (`d * 1` and `d + 0 - 0 * d` are `d`), so a fill shades and
  /// blends only inside (`GraphicsContext.rasterize`): the sun's glow, whose gradient ends at
  /// 0.56 of its disk's radius. The end circle's bounding box in pixels, two pixels wider a
  /// side against the rounding of the distance.
  var support: IntRect? = nil

  init(_ shading: Shading, transform: Transform) {
    switch shading {
    case .color(let c):
      kind = .solid(c.premultiplied)
      table = []
    case .linearGradient(let g, let start, let end):
      // t is affine in user space, and user space is affine in pixel space: compose them once.
      let d = end - start
      let len2 = (d * d).sum()
      guard len2 > 0, let inv = transform.inverted else {
        table = GradientTable(g).entries
        kind = .linear(ax: 0, ay: 0, c: 0)  // a zero-length gradient shows its first color
        return
      }
      let gx = d.x / len2, gy = d.y / len2
      let ax = gx * inv.a + gy * inv.b
      let ay = gx * inv.c + gy * inv.d
      let c = gx * (inv.tx - start.x) + gy * (inv.ty - start.y)
      if ax == 0 && !g.stops.isEmpty && g.stops.allSatisfy({ $0.color.alpha == 1 }) {
        // Opaque stops make every entry opaque (isOpaque), as the table would show.
        table = []
        kind = .vertical(ay: ay, c: c, gradient: g)
        return
      }
      table = GradientTable(g).entries
      kind = .linear(ax: ax, ay: ay, c: c)
    case .radialGradient(let g, let center, let r0, let r1):
      table = GradientTable(g).entries
      let span = r1 - r0
      guard let inv = transform.inverted, span != 0, span.isFinite else {
        kind = .radial(inverse: .identity, center: center, r0: 0, invSpan: 0)
        return
      }
      kind = .radial(inverse: inv, center: center, r0: r0, invSpan: 1 / span)
      if span > 0, r1.isFinite, table.last == .zero {
        // The image of a circle of radius r1 is an ellipse whose half extents are r1 times the
        // lengths of the transform's rows.
        let c = transform.apply(center)
        let hx = r1 * (transform.a * transform.a + transform.c * transform.c).squareRoot() + 2
        let hy = r1 * (transform.b * transform.b + transform.d * transform.d).squareRoot() + 2
        // A center or transform that is not a number paints the first stop everywhere: no support.
        if hx.isFinite && hy.isFinite && c.x.isFinite && c.y.isFinite {
          support = IntRect(covering: Point(c.x - hx, c.y - hy), Point(c.x + hx, c.y + hy))
        }
      }
    }
  }

  /// One premultiplied color everywhere.
  init(solid: Pixel) {
    kind = .solid(solid)
    table = []
  }

  /// Whether every color it paints is opaque.
  var isOpaque: Bool {
    switch kind {
    case .solid(let p): p.w == 1
    case .vertical: true
    case .linear, .radial: !table.isEmpty && table.allSatisfy { $0.w == 1 }
    }
  }

  var isSolid: Bool {
    if case .solid = kind { return true }
    return false
  }

  /// The one color of row `y` of a vertical gradient (`.vertical`, the only kind it takes):
  /// what `shade` writes into every pixel of the row.
  func rowColor(_ y: Int) -> Pixel {
    guard case .vertical(let ay, let c, let gradient) = kind else { preconditionFailure("not one color a row") }
    return GradientTable.lookup(ay * (Float(y) + 0.5) + c, in: gradient)
  }

  /// Writes `count` pixels of one color two at a time (32-byte stores, where `update(repeating:)`
  /// stores one pixel at a time).
  @inline(__always) static func fill(_ out: UnsafeMutablePointer<Pixel>, with color: Pixel, count: Int) {
    let pair = Lanes(lowHalf: color, highHalf: color)
    let raw = UnsafeMutableRawPointer(out)
    var i = 0
    // A cache line (four pixels) an iteration, then a pair.
    while i &+ 4 <= count {
      raw.storeBytes(of: pair, toByteOffset: i &* 16, as: Lanes.self)
      raw.storeBytes(of: pair, toByteOffset: i &* 16 &+ 32, as: Lanes.self)
      i &+= 4
    }
    if i &+ 2 <= count {
      raw.storeBytes(of: pair, toByteOffset: i &* 16, as: Lanes.self)
      i &+= 2
    }
    if i < count { out[i] = color }
  }

  /// The premultiplied colors of pixels `x ..< x + count` of row `y`, sampled at pixel centers,
  /// into `out[0 ..< count]`; only `out[first...]` is asked for, and a gradient leaves out the
  /// eights of pixels before `first`'s (each pixel the bits the whole span gives it: the same
  /// eights; a radial gradient's lanes from the span's start, a linear one's from their own
  /// columns).
  func shade(row y: Int, x: Int, count: Int, into out: UnsafeMutablePointer<Pixel>, from first: Int = 0) {
    let py = Float(y) + 0.5
    switch kind {
    case .solid(let p):
      out.update(repeating: p, count: count)
    case .vertical:
      Self.fill(out, with: rowColor(y), count: count)
    case .linear(let ax, let ay, let c):
      table.withUnsafeBufferPointer { t in
        let base = t.baseAddress!
        let rowTerm = ay * py
        if ax == 0 {
          // A vertical gradient (the weather sky): one color a row.
          Self.fill(out, with: GradientTable.lookup(ax * (Float(x) + 0.5) + rowTerm + c, base), count: count)
          return
        }
        // t = ax * (x + 0.5) + ay * (y + 0.5) + c at each pixel's own center, eight at a time:
        // the positions in vector lanes, then one lookup a pixel. Each pixel's t depends on its
        // column alone, not on where the span starts (a running sum's rounding grew along it).
        let steps = Lanes(0, 1, 2, 3, 4, 5, 6, 7), half = Lanes(repeating: 0.5)
        let slope = Lanes(repeating: ax), rows = Lanes(repeating: rowTerm), offset = Lanes(repeating: c)
        var i = first / 8 * 8
        while i + 8 <= count {
          // Whole columns below 2^24 and their centers are exact as floats, so each lane's
          // center is the scalar tail's `Float(x + i) + 0.5`.
          let centers = (Lanes(repeating: Float(x + i)) + steps) + half
          let (index, fraction) = GradientTable.positions(slope * centers + rows + offset)
          GradientTable.lookup8(index, fraction, base, into: out + i)
          i += 8
        }
        while i < count {
          out[i] = GradientTable.lookup(ax * (Float(x + i) + 0.5) + rowTerm + c, base)
          i += 1
        }
      }
    case .radial(let inv, let center, let r0, let invSpan):
      table.withUnsafeBufferPointer { t in
        // u(x) = u0 + x * du, both in user space relative to the center. Eight pixels at a time:
        // the distances and table positions in vector lanes, then one lookup a pixel.
        let p0 = inv.apply(Point(Float(x) + 0.5, py)) - center
        let du = Point(inv.a, inv.b)
        let steps = Lanes(0, 1, 2, 3, 4, 5, 6, 7)
        let ux0 = Lanes(repeating: p0.x), uy0 = Lanes(repeating: p0.y)
        let dux = Lanes(repeating: du.x), duy = Lanes(repeating: du.y)
        let start = Lanes(repeating: r0), scale = Lanes(repeating: invSpan)
        let base = t.baseAddress!
        var i = first / 8 * 8
        while i + 8 <= count {
          let k = steps + Lanes(repeating: Float(i))
          let ux = ux0 + k * dux
          let uy = uy0 + k * duy
          let r2 = ux * ux + uy * uy
          let r = chints_sqrt8(r2)  // one `sqrtps`; `squareRoot()` calls the C library's a lane
          let (index, fraction) = GradientTable.positions((r - start) * scale)
          GradientTable.lookup8(index, fraction, base, into: out + i)
          i += 8
        }
        while i < count {
          let k = Float(i)
          let ux = p0.x + k * du.x, uy = p0.y + k * du.y
          let r = (ux * ux + uy * uy).squareRoot()
          out[i] = GradientTable.lookup((r - r0) * invSpan, base)
          i += 1
        }
      }
    }
  }
}
