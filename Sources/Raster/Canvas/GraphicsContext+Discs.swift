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
  /// When the discs can be drawn together (`fusedDiscs`), they are: each row of the target is
  /// read once, every disc that reaches it is shaded and blended onto it in order while it is in
  /// cache, and written once, where one fill a disc would stream the whole target through memory
  /// once a disc. A disc touches only the pixels inside its end radius (beyond it its gradient is
  /// transparent: blending nothing), and rows and spans no disc reaches are not touched at all.
  ///
  /// The colors are the same bits as one fill a disc's; the coverage differs on the rim: the
  /// fills cover the flattened ellipse's exact area (its Béziers bulge past the circle by 0.027%
  /// of the radius), this the disc's, from each pixel center's distance to the rim (1 inside,
  /// falling to 0 half a pixel outside). Discs are drawn together only when their gradients have
  /// faded enough at the rim for that to move no pixel by more than half an 8-bit code
  /// (`rimCoverageError`; `GradientDiscTests`): the soft orbs of Color Orbs from 360x640 pixels up.
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
  /// each gradient is transparent from its end radius on (its last stop has alpha 0) and faint
  /// enough over the pixel inside it that the rim's coverage moves no channel by more than half
  /// a code (two rims crossing on one pixel: one code).
  func fusedDiscs(_ discs: [GradientDisc]) -> [PixelDisc]? {
    guard surface.fusesDiscs, filters.isEmpty, clipMask == nil, transform.isFinite,
      transform.b == 0, transform.c == 0, abs(transform.a) == abs(transform.d), transform.a != 0
    else { return nil }
    let scale = abs(transform.a)
    let opacity = clampedOpacity
    var fused: [PixelDisc] = []
    for disc in discs {
      guard disc.center.x.isFinite, disc.center.y.isFinite, disc.startRadius.isFinite, disc.endRadius.isFinite,
        disc.startRadius >= 0, disc.endRadius > disc.startRadius,
        disc.gradient.stops.last.map({ $0.color.alpha == 0 }) ?? false
      else { return nil }
      let program = ShadingProgram(disc.shading, transform: transform)
      let radius = disc.endRadius * scale
      // The table entries drawn within a pixel of the rim: t from 1 - 1 / (span in pixels) to 1.
      let band = 1 / ((disc.endRadius - disc.startRadius) * scale)
      let first = max(Int(((1 - band) * Float(GradientTable.size)).rounded(.down)), 0)
      var faint: Float = 0
      for e in program.table[first...] { faint = max(faint, abs(e.x), abs(e.y), abs(e.z), abs(e.w)) }
      guard faint * opacity * Self.rimCoverageError(radius: radius) <= 0.5 / 255 else { return nil }
      let c = transform.apply(disc.center)
      fused.append(PixelDisc(program: program, cx: c.x, cy: c.y, radius: radius, pixelsPerUnit: scale))
    }
    return fused
  }

  /// One disc resolved to the target's pixels.
  struct PixelDisc {
    let program: ShadingProgram
    /// The center and radius in pixels, and pixels per unit of user space.
    let cx: Float, cy: Float, radius: Float, pixelsPerUnit: Float
  }

  private func fillFused(_ pixelDiscs: [PixelDisc]) {
    let opacity = clampedOpacity
    guard opacity > 0, !pixelDiscs.isEmpty else { return }
    let layer = target
    let width = layer.width
    // The rows any disc reaches, one pixel of margin past each rim: pixels outside every span
    // below are beyond every rim, where every gradient is transparent, whatever rounding the
    // shading's own distances carry.
    var reached = IntRect.empty
    for d in pixelDiscs {
      let reach = d.radius + 1
      reached = reached.union(IntRect(covering: Point(d.cx - reach, d.cy - reach), Point(d.cx + reach, d.cy + reach)))
    }
    reached = reached.intersection(layer.stored)  // on a band, the band's rows
    guard !reached.isEmpty else { return }
    // A layer whose pixels are one color not written yet (a frame's base color, or clear) is
    // written here a row at a time, the discs blended on while the row is in cache: every row,
    // since this settles the whole layer.
    let pending = layer.pendingFill
    layer.pendingFill = nil
    let rows = pending == nil ? reached.y..<reached.maxY : layer.rows
    let mode = blendMode
    var touched = IntRect.empty
    var spans = [(lo: Int, hi: Int)](repeating: (0, 0), count: pixelDiscs.count)
    for ty in rows {
      let py = Float(ty) + 0.5
      // Each disc's columns on this row: the chord through the pixel centers, widened a pixel.
      var rowLo = width, rowHi = 0
      for (k, d) in pixelDiscs.enumerated() {
        let dy = py - d.cy
        let reach = d.radius + 1
        guard abs(dy) < reach else {
          spans[k] = (0, 0)
          continue
        }
        let half = (reach * reach - dy * dy).squareRoot() + 1
        let lo = Int(min(max(d.cx - half, 0), Float(width)).rounded(.down))
        let hi = Int(min(max(d.cx + half, 0), Float(width)).rounded(.up))
        spans[k] = (lo, hi)
        if lo < hi {
          rowLo = min(rowLo, lo)
          rowHi = max(rowHi, hi)
        }
      }
      let dest = layer.pixels + (ty - layer.rows.lowerBound) * width  // settled above, or written whole below
      if let pending { dest.update(repeating: pending, count: width) }
      guard rowLo < rowHi else { continue }
      if pending == nil, ty + 2 < rows.upperBound {
        prefetchForBlend(dest + 2 * width + rowLo, count: rowHi - rowLo)
      }
      for (k, d) in pixelDiscs.enumerated() where spans[k].lo < spans[k].hi {
        switch mode {
        case .sourceOver:
          d.blend(SourceOverKernel.self, row: ty, columns: spans[k].lo..<spans[k].hi, onto: dest, opacity: opacity)
        case .screen:
          d.blend(ScreenKernel.self, row: ty, columns: spans[k].lo..<spans[k].hi, onto: dest, opacity: opacity)
        }
      }
      touched = touched.union(IntRect(x: rowLo, y: ty, width: rowHi - rowLo, height: 1))
    }
    layer.dirty = layer.dirty.union(pending == nil || pending == .zero ? touched : layer.bounds)
  }
}

/// The coverage of a pixel whose center lies `distance` pixels from the center of a disc of
/// `radius` pixels: its distance inside the rim plus half a pixel, held to 0...1.
@inline(__always) func discCoverage(distance: Float, radius: Float) -> Float {
  min(max(radius + 0.5 - distance, 0), 1)
}

extension GraphicsContext.PixelDisc {
  /// Shades this disc over `columns` of row `y` and blends it onto `row` (the row's first pixel)
  /// with `opacity`: `rasterize`'s shading and `blendSpan`'s blending of a coverage and a source
  /// span in one loop, eight pixels at a time, with no span written between them.
  @inline(__always)
  func blend<K: BlendKernel>(
    _: K.Type, row y: Int, columns: Range<Int>, onto row: UnsafeMutablePointer<Pixel>, opacity: Float
  ) {
    guard case .radial(let inv, let center, let r0, let invSpan) = program.kind else { return }
    program.table.withUnsafeBufferPointer { t in
      let base = t.baseAddress!
      let dest = row + columns.lowerBound
      let count = columns.count
      // As `ShadingProgram.shade`: u(x) = u0 + x du in user space, relative to the center.
      let p0 = inv.apply(Point(Float(columns.lowerBound) + 0.5, Float(y) + 0.5)) - center
      let du = Point(inv.a, inv.b)
      let steps = Lanes(0, 1, 2, 3, 4, 5, 6, 7)
      let ux0 = Lanes(repeating: p0.x), uy0 = Lanes(repeating: p0.y)
      let dux = Lanes(repeating: du.x), duy = Lanes(repeating: du.y)
      let start = Lanes(repeating: r0), scale = Lanes(repeating: invSpan)
      // Coverage from the distance in pixels: the user distance times the transform's scale.
      let rim = Lanes(repeating: radius + 0.5), toPixels = Lanes(repeating: pixelsPerUnit)
      let zero = Lanes(repeating: 0), one = Lanes(repeating: 1), alpha = Lanes(repeating: opacity)
      var i = 0
      while i + 8 <= count {
        let k = steps + Lanes(repeating: Float(i))
        let ux = ux0 + k * dux
        let uy = uy0 + k * duy
        let r = (ux * ux + uy * uy).squareRoot()
        var c = rim - r * toPixels
        c.replace(with: zero, where: c .< zero)
        c.replace(with: one, where: c .> one)
        let a = c * alpha  // blendSpan's coverage times opacity
        if any(a .> zero) {
          let (index, fraction) = GradientTable.positions((r - start) * scale)
          for lane in 0..<8 where a[lane] > 0 {
            let e = Int(index[lane])
            let lo = base[e], hi = base[e + 1]
            let s = lo + (hi - lo) * fraction[lane]
            dest[i + lane] = K.blend(s * a[lane], dest[i + lane])
          }
        }
        i += 8
      }
      while i < count {
        let k = Float(i)
        let ux = p0.x + k * du.x, uy = p0.y + k * du.y
        let r = (ux * ux + uy * uy).squareRoot()
        let a = discCoverage(distance: r * pixelsPerUnit, radius: radius) * opacity
        if a > 0 {
          dest[i] = K.blend(GradientTable.lookup((r - r0) * invSpan, base) * a, dest[i])
        }
        i += 1
      }
    }
  }
}
