import CHints

// Gradient discs: radial gradients that fade out at their end radius, each filling the disc it
// fades over (Color Orbs' orbs), drawn together a row at a time instead of one full pass each.

/// A radial gradient filling the disc of its end radius: what
/// `fill(Path(ellipseIn: Rect(center: center, radius: endRadius)), with: .radialGradient(gradient,
/// center: center, startRadius: startRadius, endRadius: endRadius))` draws.
public struct GradientDisc: Sendable {
  public var gradient: Gradient
  public var center: Point
  public var startRadius: Float
  public var endRadius: Float

  public init(_ gradient: Gradient, center: Point, startRadius: Float = 0, endRadius: Float) {
    (self.gradient, self.center, self.startRadius, self.endRadius) = (gradient, center, startRadius, endRadius)
  }

  /// The fill this disc stands for.
  public var path: Path { Path(ellipseIn: Rect(center: center, radius: endRadius)) }
  public var shading: Shading {
    .radialGradient(gradient, center: center, startRadius: startRadius, endRadius: endRadius)
  }
}

extension GraphicsContext {
  /// Fills each disc in turn, as one `fill(disc.path, with: disc.shading)` each, with this
  /// context's state.
  ///
  /// When the discs can be drawn together (`fusedDiscs`), they are (`DiscRows`): eight pixels at
  /// a time are read once, transposed to a vector a channel, every disc that reaches them is
  /// shaded and blended on in order, and they are written once, where one fill a disc would
  /// stream the whole target through memory once a disc. A disc touches only the pixels inside
  /// its end radius (beyond it its gradient is transparent: blending nothing), and rows and
  /// spans no disc reaches are not touched at all.
  ///
  /// The colors come from the gradient's stops (`Falloff`, a multiply-add a channel) instead of
  /// the fill's table, within 2e-5 of the gradient (`DiscFalloffTests`); the coverage differs on
  /// the rim: the fills cover the flattened ellipse's exact area (its Béziers bulge past the
  /// circle by 0.027% of the radius), this the disc's, from each pixel center's distance to the
  /// rim (1 inside, falling to 0 half a pixel outside). Discs are drawn together only when their
  /// gradients have faded enough at the rim for that to move no pixel by more than half an 8-bit
  /// code (`rimCoverageError`; `GradientDiscTests`): the soft orbs of Color Orbs from 360x640
  /// pixels up.
  public func fill(discs: [GradientDisc]) {
    guard let fused = fusedDiscs(discs) else {
      for disc in discs { fill(disc.path, with: disc.shading) }
      return
    }
    fillFused(fused)
  }

  /// How far the coverage of a rim pixel of a disc of `radius` pixels may differ between the
  /// fused fill and the flattened ellipse's: 0.12-0.37 measured for radii of 2 to 1300 pixels,
  /// growing with the Béziers' bulge (`GradientDiscTests`). Deeper than a pixel inside the rim
  /// both are 1, beyond half a pixel outside both are 0.
  static func rimCoverageError(radius: Float) -> Float { 0.2 + 3e-4 * radius }

  /// Whether `fill(discs:)` draws `discs` together (`fusedDiscs`).
  func fusesDiscs(_ discs: [GradientDisc]) -> Bool { fusedDiscs(discs) != nil }

  /// The discs in the target's pixels when `fill(discs:)` may draw them together, else nil:
  /// nothing applies but the opacity and blend mode (no filter, no clip), the transform keeps
  /// circles circles on the pixel grid (a scale, the same on both axes, and a translation), and
  /// each gradient is transparent from its end radius on (its last stop has alpha 0), mixes its
  /// stops premultiplied at distinct locations (so it is straight pieces `Falloff` evaluates),
  /// and is faint enough over the pixel inside its rim that the rim's coverage moves no channel
  /// by more than half a code (two rims crossing on one pixel: one code).
  func fusedDiscs(_ discs: [GradientDisc]) -> FusedDiscs? {
    guard surface.fusesDiscs, filters.isEmpty, clipMask == nil, transform.isFinite,
      transform.b == 0, transform.c == 0, abs(transform.a) == abs(transform.d), transform.a != 0
    else { return nil }
    let scale = abs(transform.a)
    let opacity = clampedOpacity
    var fused = FusedDiscs()
    for disc in discs {
      guard disc.center.x.isFinite, disc.center.y.isFinite, disc.startRadius.isFinite, disc.endRadius.isFinite,
        disc.startRadius >= 0, disc.endRadius > disc.startRadius,
        disc.gradient.stops.last.map({ $0.color.alpha == 0 }) ?? false,
        let falloff = Falloff(disc.gradient)
      else { return nil }
      let radius = disc.endRadius * scale
      let span = (disc.endRadius - disc.startRadius) * scale
      guard radius.isFinite, span > 0, span.isFinite else { return nil }
      // The colors drawn within a pixel of the rim: t from 1 - 1 / (span in pixels) to 1. The
      // gradient is straight between its stops, so its largest channel there is at an end of
      // that range or at a stop inside it.
      let band = max(1 - 1 / span, 0)
      var faint: Float = 0
      for t in [band, 1] + disc.gradient.stops.map(\.location).filter({ $0 > band }) {
        let c = disc.gradient.color(at: t)
        faint = max(faint, abs(c.x), abs(c.y), abs(c.z), abs(c.w))
      }
      guard faint * opacity * Self.rimCoverageError(radius: radius) <= 0.5 / 255 else { return nil }
      let c = transform.apply(disc.center)
      let first = fused.segments.count
      let start = disc.startRadius * scale
      fused.segments += falloff.segments.map { $0.overDistance(start: start, span: span) }
      let (low, high) = (start + falloff.low * span, start + falloff.high * span)
      fused.discs.append(
        PixelDisc(
          cx: c.x, cy: c.y, radius: radius, low: low, high: high, heldInside: low > 0 || high < radius,
          segments: first..<fused.segments.count))
    }
    return fused
  }

  /// Discs resolved to the target's pixels, their falloffs' segments in one array (the hot loop
  /// reads them through one pointer, with no reference to count).
  struct FusedDiscs {
    var discs: [PixelDisc] = []
    var segments: [Falloff.Segment] = []
  }

  /// One disc resolved to the target's pixels.
  struct PixelDisc {
    /// The center and the end radius in pixels.
    let cx: Float, cy: Float, radius: Float
    /// The distance from the center is held to low...high (the first and last stops' locations,
    /// in pixels: the gradient's padding); `heldInside` when that can change a distance inside
    /// the rim (not for Color Orbs' falloffs, from the center to the rim).
    let low: Float, high: Float, heldInside: Bool
    /// Its falloff's segments in `FusedDiscs.segments`, in order of location, as functions of
    /// the distance in pixels (`Falloff.Segment.overDistance`).
    let segments: Range<Int>
  }

  private func fillFused(_ fused: FusedDiscs) {
    let opacity = clampedOpacity
    guard opacity > 0, !fused.discs.isEmpty else { return }
    let layer = target
    // A layer whose pixels are one color not written yet (a frame's base color, or clear) is
    // written here a row at a time, the discs blended on while the row is in cache: every row,
    // since this settles the whole layer.
    let pending = layer.pendingFill
    guard !DiscRows.reached([fused], in: layer).isEmpty else { return }
    layer.pendingFill = nil
    let touched = DiscRows.draw(
      [fused], weights: [1], mode: blendMode, opacity: opacity, onto: layer, base: pending)
    layer.dirty = layer.dirty.union(pending == nil || pending == .zero ? touched : layer.bounds)
  }

  /// What `drawBlended(weights:)` draws when moment `i` fills the whole drawing area with `base`
  /// and then `discs[i]` with `mode` (`fill(discs:)`): a crossfade of Color Orbs.
  ///
  /// On a target nothing is drawn on yet, with nothing to apply (the case where `drawBlended`
  /// draws its first moment straight into the target and adds the others in from a layer), with
  /// an opaque base and every moment's discs fused, every moment is shaded a row at a time
  /// from the base color, mixed by weight and written once: no layer is cleared, filled or read.
  /// The same sums in the same order as `drawBlended`'s, so the same bits. Otherwise it is that
  /// `drawBlended`.
  public func fill(base: Color, blendedDiscs discs: [[GradientDisc]], weights: [Double], mode: BlendMode) {
    let rect = Path(rect: Rect(x: 0, y: 0, width: size.width, height: size.height))
    func drawMoments() {
      drawBlended(weights: weights) { i, context in
        context.fill(rect, with: .color(base))
        context.blendMode = mode
        context.fill(discs: discs[i])
      }
    }
    var inner = GraphicsContext(surface: surface, target: target, transform: transform)
    inner.blendMode = mode
    let clamped = weights.map { $0 >= 0 && $0 <= 1 ? $0 : ($0 > 0 ? min($0, 1) : 0) }
    guard discs.count == weights.count, weights.count > 1, target.dirty.isEmpty, filters.isEmpty,
      clipMask == nil, opacity == 1, blendMode == .sourceOver, let before = target.pendingFill,
      base.premultiplied.w == 1
    else { return drawMoments() }
    var moments: [FusedDiscs] = []
    for d in discs {
      guard let f = inner.fusedDiscs(d) else { return drawMoments() }
      moments.append(f)
    }
    // The base over the whole target is only noted (`Layer.pendingFill`) when it covers every
    // pixel: fill it as the first moment does, and take it back when it did not.
    inner.blendMode = .sourceOver
    inner.fill(rect, with: .color(base))
    guard let color = target.pendingFill, color == base.premultiplied else {
      (target.pendingFill, target.dirty) = (before, .empty)
      return drawMoments()
    }
    target.pendingFill = nil
    _ = DiscRows.draw(
      moments, weights: clamped.map { Float($0) }, mode: mode, opacity: 1, onto: target, base: color)
    target.dirty = target.bounds
  }
}

/// A gradient whose stops mix premultiplied as straight pieces of t: a multiply-add a channel
/// instead of a table's two reads and a lerp. Stops that lie on the line through their
/// neighbours to within a millionth (a two-thousandth of an 8-bit code) are dropped: Color Orbs'
/// falloffs (alpha 0.9, 0.45, 0 at 0, 0.5, 1) are one straight piece.
struct Falloff {
  /// From location `from` on, until the next segment's, the premultiplied color `a + b t`.
  struct Segment {
    let from: Float
    let a: Pixel, b: Pixel
    /// 1 - (a + b t) as `oneMinusA + minusB t`: what a screen blend multiplies by (`ScreenLanes`).
    let oneMinusA: Pixel, minusB: Pixel

    init(from: Float, a: Pixel, b: Pixel) {
      (self.from, self.a, self.b) = (from, a, b)
      (oneMinusA, minusB) = (Pixel(repeating: 1) - a, -b)
    }

    /// This segment of a disc whose t runs from 0 at `start` pixels from its center over `span`
    /// pixels, as a function of the distance instead of t: `a + b t` with t = (d - start) /
    /// span, one multiply-add a channel from the distance with no t computed.
    func overDistance(start: Float, span: Float) -> Segment {
      let slope = b / Pixel(repeating: span)
      return Segment(from: start + from * span, a: a - slope * Pixel(repeating: start), b: slope)
    }
  }

  let segments: [Segment]
  /// The first and last stops' locations: t is held to them (the gradient's padding).
  let low: Float, high: Float

  /// Nil when the gradient mixes straight colors (not straight pieces), or has no stops or two
  /// at one location (a step).
  init?(_ gradient: Gradient) {
    guard gradient.alphaInterpolation == .premultiplied, let first = gradient.stops.first else { return nil }
    let stops = gradient.stops.map { (t: $0.location, c: $0.color.premultiplied) }
    (low, high) = (first.location, stops[stops.count - 1].t)
    guard stops.count > 1 else {
      segments = [Segment(from: low, a: stops[0].c, b: .zero)]
      return
    }
    for i in 1..<stops.count where !(stops[i].t > stops[i - 1].t) { return nil }
    // Keep the first stop, and each later one unless the line from the last kept to its next
    // passes within a millionth of it and of every stop dropped since.
    var kept = [stops[0]]
    var dropped: [(t: Float, c: Pixel)] = []
    for i in 1..<stops.count - 1 {
      let p = kept[kept.count - 1], q = stops[i + 1]
      let onLine = (dropped + [stops[i]]).allSatisfy { m in
        let line: Pixel = p.c + (q.c - p.c) * ((m.t - p.t) / (q.t - p.t))
        let d: Pixel = line - m.c
        return max(max(abs(d.x), abs(d.y)), max(abs(d.z), abs(d.w))) <= 1e-6
      }
      if onLine {
        dropped.append(stops[i])
      } else {
        kept.append(stops[i])
        dropped = []
      }
    }
    kept.append(stops[stops.count - 1])
    segments = (0..<kept.count - 1).map { i in
      let p = kept[i], q = kept[i + 1]
      let b = (q.c - p.c) / (q.t - p.t)
      return Segment(from: p.t, a: p.c - b * p.t, b: b)
    }
  }
}

/// Eight neighbouring pixels, a vector a channel.
struct Pixels8 {
  var r: Lanes, g: Lanes, b: Lanes, a: Lanes

  @inline(__always) init(r: Lanes, g: Lanes, b: Lanes, a: Lanes) { (self.r, self.g, self.b, self.a) = (r, g, b, a) }

  /// Eight copies of `p`.
  @inline(__always) init(repeating p: Pixel) {
    (r, g, b, a) = (Lanes(repeating: p.x), Lanes(repeating: p.y), Lanes(repeating: p.z), Lanes(repeating: p.w))
  }

  /// Eight pixels from memory, transposed to a vector a channel (as the YUV conversion loads them).
  @_transparent init(loading p: UnsafePointer<Pixel>) {
    let (p0, p1, p2, p3, p4, p5, p6, p7) = (p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7])
    r = Lanes(lowHalf: SIMD4(p0.x, p1.x, p2.x, p3.x), highHalf: SIMD4(p4.x, p5.x, p6.x, p7.x))
    g = Lanes(lowHalf: SIMD4(p0.y, p1.y, p2.y, p3.y), highHalf: SIMD4(p4.y, p5.y, p6.y, p7.y))
    b = Lanes(lowHalf: SIMD4(p0.z, p1.z, p2.z, p3.z), highHalf: SIMD4(p4.z, p5.z, p6.z, p7.z))
    a = Lanes(lowHalf: SIMD4(p0.w, p1.w, p2.w, p3.w), highHalf: SIMD4(p4.w, p5.w, p6.w, p7.w))
  }

  /// One moment of a crossfade mixed in, as `drawBlended` mixes its layers: the first moment
  /// times its weight, each next one times its own added.
  @_transparent mutating func mix(_ p: Pixels8, weight: Float, first: Bool) {
    let w = Lanes(repeating: weight)
    if first {
      self = Pixels8(r: p.r * w, g: p.g * w, b: p.b * w, a: p.a * w)
    } else {
      r += p.r * w
      g += p.g * w
      b += p.b * w
      a += p.a * w
    }
  }

  /// Transposed back and written as eight pixels (`chints_store_pixels8`: twelve shuffles).
  @_transparent func store(_ p: UnsafeMutablePointer<Pixel>) {
    chints_store_pixels8(UnsafeMutableRawPointer(p).assumingMemoryBound(to: Float.self), r, g, b, a)
  }
}

/// The blend modes on eight pixels a channel at a time, on the pixels held in the form each
/// blends in cheapest (`hold`, `release`).
protocol LaneBlendKernel {
  /// Whether `blend` leaves opaque pixels opaque without reading the color's alpha.
  static var keepsOpaque: Bool { get }
  /// A segment's color at distance d (`Falloff.Segment.overDistance`) is `offset + slope d` in
  /// this kernel's terms (`blend`).
  static func offset(_ s: Falloff.Segment) -> Pixel
  static func slope(_ s: Falloff.Segment) -> Pixel
  /// `d` in the form `blend` works on.
  static func hold(_ d: Pixels8) -> Pixels8
  /// Blends `v`, a fully covered color in this kernel's terms (`offset`, `slope`), onto `h`;
  /// with `opaque` the pixels under it are opaque and stay so (their alpha is not computed).
  static func blend(_ v: Pixels8, _ h: inout Pixels8, opaque: Bool)
  /// `v` covered by `alpha` (0...1), in this kernel's terms.
  static func cover(_ v: Pixels8, _ alpha: Lanes) -> Pixels8
  /// The pixels `h` holds, `start` (what `hold` was given, held as `held`) where nothing changed.
  static func release(_ h: Pixels8, held: Pixels8, start: Pixels8) -> Pixels8
}

/// Source over, as `SourceOverKernel`'s arithmetic, channel by channel: the same bits.
enum SourceOverLanes: LaneBlendKernel {
  static var keepsOpaque: Bool { false }
  @inline(__always) static func offset(_ s: Falloff.Segment) -> Pixel { s.a }
  @inline(__always) static func slope(_ s: Falloff.Segment) -> Pixel { s.b }
  @inline(__always) static func hold(_ d: Pixels8) -> Pixels8 { d }
  @inline(__always) static func blend(_ s: Pixels8, _ d: inout Pixels8, opaque: Bool) {
    let keep = Lanes(repeating: 1) - s.a
    d.r = s.r + d.r * keep
    d.g = s.g + d.g * keep
    d.b = s.b + d.b * keep
    d.a = s.a + d.a * keep
  }
  @inline(__always) static func cover(_ v: Pixels8, _ alpha: Lanes) -> Pixels8 {
    Pixels8(r: v.r * alpha, g: v.g * alpha, b: v.b * alpha, a: v.a * alpha)
  }
  @inline(__always) static func release(_ h: Pixels8, held: Pixels8, start: Pixels8) -> Pixels8 { h }
}

/// Screen, `s + d - s d`, as `1 - (1 - s)(1 - d)`: the pixels are held as `1 - d` and each disc
/// multiplies them by `1 - s` (computed from the falloff as `1 - a - b t`), two operations a
/// channel where `s + d - s d` took four; `1 - d` is taken back once a chunk. Within a few units
/// of the float's last place of `ScreenKernel`'s arithmetic (`DiscFalloffTests`); a pixel no disc
/// changes keeps its bits, and an opaque pixel stays exactly opaque.
enum ScreenLanes: LaneBlendKernel {
  static var keepsOpaque: Bool { true }
  @inline(__always) static func offset(_ s: Falloff.Segment) -> Pixel { s.oneMinusA }
  @inline(__always) static func slope(_ s: Falloff.Segment) -> Pixel { s.minusB }
  @inline(__always) static func hold(_ d: Pixels8) -> Pixels8 {
    let one = Lanes(repeating: 1)
    return Pixels8(r: one - d.r, g: one - d.g, b: one - d.b, a: one - d.a)
  }
  @inline(__always) static func blend(_ u: Pixels8, _ q: inout Pixels8, opaque: Bool) {
    q.r *= u.r
    q.g *= u.g
    q.b *= u.b
    if !opaque { q.a *= u.a }  // opaque: 0 stays 0
  }
  /// 1 - (1 - v) alpha.
  @inline(__always) static func cover(_ v: Pixels8, _ alpha: Lanes) -> Pixels8 {
    let clear = Lanes(repeating: 1) - alpha
    return Pixels8(r: clear + v.r * alpha, g: clear + v.g * alpha, b: clear + v.b * alpha, a: clear + v.a * alpha)
  }
  @inline(__always) static func release(_ q: Pixels8, held: Pixels8, start: Pixels8) -> Pixels8 {
    let one = Lanes(repeating: 1)
    var d = Pixels8(r: one - q.r, g: one - q.g, b: one - q.b, a: one - q.a)
    d.r.replace(with: start.r, where: q.r .== held.r)
    d.g.replace(with: start.g, where: q.g .== held.g)
    d.b.replace(with: start.b, where: q.b .== held.b)
    d.a.replace(with: start.a, where: q.a .== held.a)
    return d
  }
}

/// The rows of `fill(discs:)` and of its crossfade: every moment's discs shaded and blended onto
/// eight pixels at a time, a vector a channel, the moments mixed by weight, each pixel read (or
/// started from the pending base color) and written once.
enum DiscRows {
  /// One disc that reaches the current row: its columns there and its vertical distance squared.
  struct RowDisc {
    var lo: Int, hi: Int
    /// The columns whose coverage is 1 (a pixel and a half inside the rim, and a pixel more):
    /// a chunk wholly among them needs no coverage.
    var innerLo: Int, innerHi: Int
    var dy2: Float
    var disc: GraphicsContext.PixelDisc
    /// Where its moment's segments start in the segments of all moments.
    var segmentBase: Int
  }

  /// The rows of `layer` some disc of `moments` reaches, one pixel of margin past each rim:
  /// pixels outside them are beyond every rim, where every gradient is transparent.
  static func reached(_ moments: [GraphicsContext.FusedDiscs], in layer: Layer) -> IntRect {
    var reached = IntRect.empty
    for m in moments {
      for d in m.discs {
        let reach = d.radius + 1
        reached = reached.union(
          IntRect(covering: Point(d.cx - reach, d.cy - reach), Point(d.cx + reach, d.cy + reach)))
      }
    }
    return reached.intersection(layer.stored)  // on a band, the band's rows
  }

  /// Draws `moments` onto `layer`, mixed by `weights` (one moment: as it is). With `base`, every
  /// pixel starts from that color and every row is written; without, the pixels are read and
  /// only the columns some disc reaches are written. Returns the columns the discs reach, row by
  /// row: the pixels they may change.
  static func draw(
    _ moments: [GraphicsContext.FusedDiscs], weights: [Float], mode: BlendMode, opacity: Float, onto layer: Layer,
    base: Pixel?
  ) -> IntRect {
    let width = layer.width
    let reached = reached(moments, in: layer)
    if base == nil && reached.isEmpty { return .empty }
    let rows = base == nil ? reached.y..<reached.maxY : layer.rows
    // A pixel no disc reaches: the base, mixed by weight as the moments are.
    var plain = Pixel.zero
    if let base {
      plain = moments.count == 1 ? base : base * Pixel(repeating: weights[0])
      for w in weights.dropFirst() { plain += base * Pixel(repeating: w) }
    }
    // Every moment's discs that reach the current row, in order, moment `m`'s up to `ends[m]`;
    // every moment's segments one after the other.
    let total = moments.reduce(0) { $0 + $1.discs.count }
    let rowDiscs = UnsafeMutablePointer<RowDisc>.allocate(capacity: max(total, 1))
    defer { rowDiscs.deallocate() }
    let ends = UnsafeMutableBufferPointer<Int>.allocate(capacity: moments.count)
    defer { ends.deallocate() }
    let mixWeights = UnsafeMutableBufferPointer<Float>.allocate(capacity: moments.count)
    defer { mixWeights.deallocate() }
    _ = mixWeights.initialize(from: weights)
    let allSegments = moments.flatMap(\.segments)
    let segments = UnsafeMutablePointer<Falloff.Segment>.allocate(capacity: max(allSegments.count, 1))
    defer { segments.deallocate() }
    segments.initialize(from: allSegments, count: allSegments.count)
    var segmentBases: [Int] = []
    var segmentCount = 0
    for m in moments {
      segmentBases.append(segmentCount)
      segmentCount += m.segments.count
    }
    let tail = UnsafeMutablePointer<Pixel>.allocate(capacity: 8)
    defer { tail.deallocate() }
    var touched = IntRect.empty
    for ty in rows {
      let py = Float(ty) + 0.5
      // Each disc's columns on this row: the chord through the pixel centers, widened a pixel.
      var rowLo = width, rowHi = 0, n = 0
      for (m, moment) in moments.enumerated() {
        let segmentBase = segmentBases[m]
        for d in moment.discs {
          let dy = py - d.cy
          let reach = d.radius + 1
          guard abs(dy) < reach else { continue }
          let half = (reach * reach - dy * dy).squareRoot() + 1
          let lo = Int(min(max(d.cx - half, 0), Float(width)).rounded(.down))
          let hi = Int(min(max(d.cx + half, 0), Float(width)).rounded(.up))
          guard lo < hi else { continue }
          var innerLo = Int.max, innerHi = Int.min
          let inner = d.radius - 1.5
          if abs(dy) < inner {
            let halfIn = (inner * inner - dy * dy).squareRoot() - 1
            if halfIn > 0 {
              innerLo = Int((d.cx - halfIn).rounded(.up))
              innerHi = Int((d.cx + halfIn).rounded(.down))
            }
          }
          rowDiscs[n] = RowDisc(
            lo: lo, hi: hi, innerLo: innerLo, innerHi: innerHi, dy2: dy * dy, disc: d, segmentBase: segmentBase)
          n += 1
          rowLo = min(rowLo, lo)
          rowHi = max(rowHi, hi)
        }
        ends[m] = n
      }
      let dest = layer.pixels + (ty - layer.rows.lowerBound) * width
      // What the discs change on this row (the columns chunks hold beyond it keep their pixels).
      if rowLo < rowHi { touched = touched.union(IntRect(x: rowLo, y: ty, width: rowHi - rowLo, height: 1)) }
      if base != nil {
        if rowLo >= rowHi {
          dest.update(repeating: plain, count: width)
          continue
        }
        // Chunks of eight start at multiples of eight: the columns a chunk holds beyond every
        // disc's span are beyond every rim, where the discs blend nothing.
        rowLo &= ~7
        dest.update(repeating: plain, count: rowLo)
        (dest + rowHi).update(repeating: plain, count: width - rowHi)
      } else {
        guard rowLo < rowHi else { continue }
        rowLo &= ~7
        if ty + 2 < rows.upperBound { prefetchForBlend(dest + 2 * width + rowLo, count: rowHi - rowLo) }
      }
      var x = rowLo
      while x < rowHi {
        // Two whole chunks at a time where the second is needed: two independent chains a disc
        // for the CPU to overlap, and the disc's scalar work shared.
        if x &+ 16 <= width && x &+ 8 < rowHi {
          switch mode {
          case .screen:
            pair(ScreenLanes.self, at: dest + x, x: x, base: base, rowDiscs, ends, segments, mixWeights, opacity)
          case .sourceOver:
            pair(SourceOverLanes.self, at: dest + x, x: x, base: base, rowDiscs, ends, segments, mixWeights, opacity)
          }
          x += 16
          continue
        }
        // Whole chunks in place (their columns past `rowHi` are beyond every rim); the row's
        // last few pixels through eight of scratch.
        let count = min(8, width - x)
        let at = count == 8 ? dest + x : tail
        if count < 8 {
          tail.update(repeating: base ?? .zero, count: 8)
          if base == nil { tail.update(from: dest + x, count: count) }
        }
        switch mode {
        case .screen:
          chunk(ScreenLanes.self, at: at, x: x, base: base, rowDiscs, ends, segments, mixWeights, opacity)
        case .sourceOver:
          chunk(SourceOverLanes.self, at: at, x: x, base: base, rowDiscs, ends, segments, mixWeights, opacity)
        }
        if count < 8 { (dest + x).update(from: tail, count: count) }
        x += 8
      }
    }
    return touched
  }

  /// The eight pixels at `at` (column `x` of the row) with every moment's discs that reach them
  /// blended on, mixed by weight, written back (stored here, not returned: the optimizer keeps
  /// this call, and a returned chunk went through memory).
  @inline(__always)
  private static func chunk<K: LaneBlendKernel>(
    _: K.Type, at: UnsafeMutablePointer<Pixel>, x: Int, base: Pixel?, _ rowDiscs: UnsafeMutablePointer<RowDisc>,
    _ ends: UnsafeMutableBufferPointer<Int>, _ segments: UnsafePointer<Falloff.Segment>,
    _ weights: UnsafeMutableBufferPointer<Float>, _ opacity: Float
  ) {
    let start = base.map { Pixels8(repeating: $0) } ?? Pixels8(loading: at)
    let held = K.hold(start)
    let opaque = base.map { $0.w == 1 } ?? false
    var mixed = start
    var first = 0
    for m in 0..<ends.count {
      var h = held
      for k in first..<ends[m] where rowDiscs[k].lo < x &+ 8 && rowDiscs[k].hi > x {
        let r = rowDiscs[k]
        let inside = x >= r.innerLo && x &+ 8 <= r.innerHi
        shade(
          K.self, r, x: x, inside: inside, segments: segments + r.segmentBase, opacity: opacity, opaque: opaque,
          onto: &h)
      }
      first = ends[m]
      let p = K.release(h, held: held, start: start)
      if ends.count == 1 {
        p.store(at)
        return
      }
      mixed.mix(p, weight: weights[m], first: m == 0)
    }
    mixed.store(at)
  }

  /// `chunk` over the sixteen pixels at `at`: each disc that reaches either eight shaded over
  /// both (where it does not reach, its coverage is 0 and it blends nothing, to the bit), so
  /// the same bits as two chunks.
  private static func pair<K: LaneBlendKernel>(
    _: K.Type, at: UnsafeMutablePointer<Pixel>, x: Int, base: Pixel?, _ rowDiscs: UnsafeMutablePointer<RowDisc>,
    _ ends: UnsafeMutableBufferPointer<Int>, _ segments: UnsafePointer<Falloff.Segment>,
    _ weights: UnsafeMutableBufferPointer<Float>, _ opacity: Float
  ) {
    let start0 = base.map { Pixels8(repeating: $0) } ?? Pixels8(loading: at)
    let start1 = base.map { Pixels8(repeating: $0) } ?? Pixels8(loading: at + 8)
    let held0 = K.hold(start0), held1 = K.hold(start1)
    let opaque = base.map { $0.w == 1 } ?? false
    var mixed0 = start0, mixed1 = start1
    var first = 0
    for m in 0..<ends.count {
      var h0 = held0, h1 = held1
      for k in first..<ends[m] where rowDiscs[k].lo < x &+ 16 && rowDiscs[k].hi > x {
        let r = rowDiscs[k]
        let inside = x >= r.innerLo && x &+ 16 <= r.innerHi
        let s = segments + r.segmentBase
        shade(K.self, r, x: x, inside: inside, segments: s, opacity: opacity, opaque: opaque, onto: &h0)
        shade(K.self, r, x: x &+ 8, inside: inside, segments: s, opacity: opacity, opaque: opaque, onto: &h1)
      }
      first = ends[m]
      let p0 = K.release(h0, held: held0, start: start0), p1 = K.release(h1, held: held1, start: start1)
      if ends.count == 1 {
        p0.store(at)
        p1.store(at + 8)
        return
      }
      mixed0.mix(p0, weight: weights[m], first: m == 0)
      mixed1.mix(p1, weight: weights[m], first: m == 0)
    }
    mixed0.store(at)
    mixed1.store(at + 8)
  }

  /// One disc shaded over eight pixels of its row and blended onto `h` (held as `K` holds it):
  /// the coverage from the distance to the rim (`discCoverage`; 1 where the eight lie wholly
  /// inside it: `inside`, which may be false where they do, to the same bits), the color from
  /// the falloff's segment at that distance.
  @_transparent  // always inlined: called from `chunk` once and from `pair` twice
  private static func shade<K: LaneBlendKernel>(
    _: K.Type, _ r: RowDisc, x: Int, inside: Bool, segments: UnsafePointer<Falloff.Segment>, opacity: Float,
    opaque: Bool, onto h: inout Pixels8
  ) {
    let d = r.disc
    let zero = Lanes(repeating: 0), one = Lanes(repeating: 1)
    let centers = Lanes(0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5)
    let dx = centers + Lanes(repeating: Float(x) - d.cx)
    let distance = chints_sqrt8(dx * dx + Lanes(repeating: r.dy2))  // not `squareRoot()`: a call a lane
    // Wholly inside the rim the coverage is 1, to the bit, and the alpha the opacity.
    var alpha = Lanes(repeating: opacity)
    if !inside {
      var c = Lanes(repeating: d.radius + 0.5) - distance
      c.replace(with: zero, where: c .< zero)
      c.replace(with: one, where: c .> one)
      alpha = c * alpha
      guard any(alpha .> zero) else { return }
    }
    // The falloff's segments are functions of the distance (`Falloff.Segment.overDistance`).
    var held = distance
    if !inside || d.heldInside {
      let low = Lanes(repeating: d.low), high = Lanes(repeating: d.high)
      held.replace(with: low, where: held .< low)
      held.replace(with: high, where: held .> high)
    }
    let s0 = segments[d.segments.lowerBound]
    var a = Pixels8(repeating: K.offset(s0)), b = Pixels8(repeating: K.slope(s0))
    for i in d.segments.dropFirst() {
      let s = segments[i]
      let on = held .>= Lanes(repeating: s.from)
      let sa = K.offset(s), sb = K.slope(s)
      a.r.replace(with: Lanes(repeating: sa.x), where: on)
      a.g.replace(with: Lanes(repeating: sa.y), where: on)
      a.b.replace(with: Lanes(repeating: sa.z), where: on)
      a.a.replace(with: Lanes(repeating: sa.w), where: on)
      b.r.replace(with: Lanes(repeating: sb.x), where: on)
      b.g.replace(with: Lanes(repeating: sb.y), where: on)
      b.b.replace(with: Lanes(repeating: sb.z), where: on)
      b.a.replace(with: Lanes(repeating: sb.w), where: on)
    }
    var v = Pixels8(r: a.r + b.r * held, g: a.g + b.g * held, b: a.b + b.b * held, a: zero)
    if !(opaque && K.keepsOpaque) { v.a = a.a + b.a * held }
    if !(inside && opacity == 1) { v = K.cover(v, alpha) }  // times 1 is the same bits
    K.blend(v, &h, opaque: opaque)
  }
}

/// The coverage of a pixel whose center lies `distance` pixels from the center of a disc of
/// `radius` pixels: its distance inside the rim plus half a pixel, held to 0...1.
@inline(__always) func discCoverage(distance: Float, radius: Float) -> Float {
  min(max(radius + 0.5 - distance, 0), 1)
}
