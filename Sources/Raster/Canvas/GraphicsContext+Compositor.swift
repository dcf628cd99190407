// The compositor behind GraphicsContext's drawing calls: rasterizing flattened lines into a layer
// (or a shrunk one for wide blurs), streaming blurs, and blending layers onto their targets.
// GraphicsContext.swift holds the drawing API these serve.

extension GraphicsContext {
  /// Rasterizes flattened, transformed lines with this context's state.
  func draw(lines: Polylines, shading: Shading, rule: FillRule) {
    guard let bounds = lines.bounds else { return }
    let program = ShadingProgram(shading, transform: transform)
    if filters.isEmpty {
      rasterize(
        lines, program, rule, into: target, origin: (0, 0), opacity: clampedOpacity,
        mode: blendMode, clip: clipMask)
      return
    }
    // Each operation alone: rasterized into a scratch layer with room for the blur to spread,
    // including geometry up to 3 sigma off the canvas (docs/SWIFTUI-SEMANTICS.md, The graphics context), filtered, composited.
    var margin = filterMargin
    // A huge blur (4096 px is a margin of 12288 px a side) around far-off geometry would make the
    // scratch layer hundreds of times the canvas (the raster fuzzer's 84 s, 1.7 GB case). Past
    // 16 canvases, the margin is held to the canvas's longer side: the region stays within 9
    // canvases, and geometry farther out than that no longer shades the canvas. Real blurs never
    // come near this, so their pixels do not change.
    let side = max(target.width, target.height, 64)
    let full = IntRect(covering: bounds.min, bounds.max).insetBy(-margin).intersection(target.bounds.insetBy(-margin))
    if full.width * full.height > 16 * side * side { margin = min(margin, side) }
    let reach = target.bounds.insetBy(-margin)
    let region = IntRect(covering: bounds.min, bounds.max).insetBy(-margin).intersection(reach)
    guard !region.isEmpty else { return }
    if filters.count == 1, case .blur(let radius) = filters[0] {
      let sigma = Self.pixelSigma(radius * transform.lengthScale)
      if GaussianBlur.streams(sigma: sigma) {
        drawShrunk(lines, shading, rule, sigma: sigma, region: region)
        return
      }
    }
    // On a band, the scratch layer holds the region's rows the band's pixels read through the
    // filters; none means the operation changes nothing in the band.
    var rows: Range<Int>? = nil
    if target.isBand {
      guard let reach = filterRowReach else {
        _ = surface.refusesBand()
        return
      }
      rows = layerRows(y0: region.y, height: region.height, reach: reach)
      if let rows, rows.isEmpty { return }
    }
    let scratch = surface.checkout()
    defer { surface.checkin(scratch) }
    scratch.reset(x0: region.x, y0: region.y, width: region.width, height: region.height, band: rows)
    rasterize(
      lines, program, rule, into: scratch, origin: (region.x, region.y), opacity: 1,
      mode: .sourceOver, clip: nil)
    composite(scratch, applyingFilters: true)
  }

  /// One operation whose only filter is a large blur, drawn straight at a smaller scale: the
  /// blur's whole shrink for one convex polygon of one color, `drawnFactor(sigma:)` otherwise.
  ///
  /// The blur of a large sigma works on the operation's pixels shrunk by a power of two, each small
  /// pixel the mean of a square block (`GaussianBlur`). Coverage here is the area inside the path,
  /// so rasterizing the path at 1/n the scale gives the means of n x n blocks directly, for 1/n^2
  /// of the work: a cloud (sigma 84 px at scale 3, shrunk by 16; 28 px at scale 1, shrunk by 4)
  /// is drawn at 1/4 the scale, 1/16 of its pixels, and the full-size pixels are never drawn,
  /// shrunk or read.
  ///
  /// Why not always the whole shrink: coverage is the integral of the winding number clamped to 1
  /// per pixel, so where subpaths overlap (a cloud's puffs) a pixel partly inside two counts the
  /// overlap twice. At full size that is an edge pixel's worth; over a 16-pixel block it shifted a
  /// white cloud by up to 1.8 codes (`ShrunkDrawingTests`). The blur spreads that error over about
  /// sigma^2 pixels, so what bounds it is the block against sigma: `drawnFactor(sigma:)` keeps
  /// blocks at most 4 pixels and at most sigma / 7, within half a code on the tests' overlapping
  /// puffs at every sigma they try. A gradient is sampled at block centers rather than averaged
  /// over blocks: the same for a linear ramp, and under the blur far below a code for a radial one.
  ///
  /// On a band surface the small pixels are drawn, shrunk and blurred once a frame, by the first
  /// band (`BlurredOnce`), and each band enlarges its own rows of them.
  func drawShrunk(_ lines: Polylines, _ shading: Shading, _ rule: FillRule, sigma: Float, region: IntRect) {
    if surface.isBand {
      drawShrunkBand(lines, shading, rule, sigma: sigma, region: region)
      return
    }
    let (small, factor, tint) = drawSmall(lines, shading, rule, sigma: sigma, region: region)
    defer {
      // The blur may spread the drawn pixels in place, past what was drawn: all of them are dirty.
      small.dirty = small.bounds
      surface.checkin(small)
    }
    guard !small.dirty.isEmpty else { return }
    blendBlurredRows(of: region) { rows, columns, blend in
      surface.blur.streamShrunk(
        sigma: sigma, small.pixels, small.width, small.height, drawnFactor: factor, content: small.dirty,
        tint: tint, width: region.width, rows: rows, columns: columns, onto: blend)
    }
  }

  /// `drawShrunk` on a band surface: the same small pixels, blurred once for the frame's bands.
  private func drawShrunkBand(_ lines: Polylines, _ shading: Shading, _ rule: FillRule, sigma: Float, region: IntRect) {
    let entry = surface.blurredOnce.nextEntry()
    let key = BlurredOnce.Key(
      kind: 0, sigma: sigma.bitPattern, region: region, rule: rule, points: lines.points.count,
      hash: BlurredOnce.hash(lines.points), shading: shading, transform: transform)
    if entry.key != key {
      entry.key = nil
      let (small, factor, tint) = drawSmall(lines, shading, rule, sigma: sigma, region: region)
      defer { surface.checkin(small) }
      entry.isEmpty = small.dirty.isEmpty
      if !entry.isEmpty {
        (entry.width, entry.height) = surface.blur.shrinkAndBlur(
          sigma: sigma, small.pixels, small.width, small.height, drawnFactor: factor, content: small.dirty,
          tint: tint, into: entry.pixels)
      }
      entry.key = key
    }
    enlarge(entry, sigma: sigma, region: region)
  }

  /// The target's rows of a blurred fill's entry (its small blurred pixels over `region`),
  /// enlarged and blended with this context's opacity, blend mode and clip; nothing for an empty
  /// entry.
  private func enlarge(_ entry: BlurredOnce.Entry, sigma: Float, region: IntRect) {
    guard !entry.isEmpty else { return }
    blendBlurredRows(of: region) { rows, columns, blend in
      surface.blur.enlargeBlurred(
        sigma: sigma, entry.pixels.pointer, entry.width, entry.height, width: region.width, rows: rows,
        columns: columns, onto: blend)
    }
  }

  /// What decides a fill's blurred pixels on a band surface whose only filter is a large blur
  /// (`drawShrunkBand`), before its path is flattened; nil for any other fill.
  func blurredSource(_ path: Path, _ shading: Shading, _ rule: FillRule) -> BlurredOnce.FillSource? {
    guard surface.isBand, filters.count == 1, case .blur(let radius) = filters[0] else { return nil }
    let sigma = Self.pixelSigma(radius * transform.lengthScale)
    guard GaussianBlur.streams(sigma: sigma) else { return nil }
    return BlurredOnce.FillSource(
      elements: path.elements, transform: transform, shading: shading, rule: rule, sigma: sigma.bitPattern)
  }

  /// A band's fill of `source` whose small blurred pixels an earlier band of the frame made
  /// (`BlurredOnce.note`): its rows enlarged onto the target, as `drawShrunkBand` does with
  /// that entry, without flattening the path again. The effect makes the same calls in every
  /// band, and flattening each cloud's four ellipses once a band (only to find the entry by its
  /// points, and the region by their bounds) was a tenth of a cloudy frame. False, and nothing
  /// taken, when no such entry is next.
  func enlargeKept(_ source: BlurredOnce.FillSource) -> Bool {
    guard let entry = surface.blurredOnce.nextEntry(madeFor: source), let key = entry.key else { return false }
    enlarge(entry, sigma: Float(bitPattern: source.sigma), region: key.region)
    return true
  }

  /// The fill drawn small for `drawShrunk`: at 1/factor of the target's pixels over `region`
  /// (`drawnFactor(sigma:)`), into a pool layer the caller checks in. A fill of one color is
  /// drawn in opaque white, its coverage, and that color returned as the tint the blur gives
  /// its blurred coverage (`GaussianBlur.blurTinted`: one channel blurred, not four).
  private func drawSmall(
    _ lines: Polylines, _ shading: Shading, _ rule: FillRule, sigma: Float, region: IntRect
  ) -> (small: Layer, factor: Int, tint: Pixel?) {
    // One convex polygon of one color has no overlap to count twice: its coverage at the blur's
    // whole shrink is the block means exactly, so it is drawn there and not shrunk at all.
    let exact = if case .color = shading { lines.isOneConvexPolygon } else { false }
    let factor = exact ? GaussianBlur.shrinkFactor(sigma: sigma) : Self.drawnFactor(sigma: sigma)
    let inverse = 1 / Float(factor)  // a power of two: scaling by it is exact
    let dw = (region.width + factor - 1) / factor, dh = (region.height + factor - 1) / factor
    // Target pixels to drawn pixels: the region's corner to (0, 0), then 1/factor.
    let toSmall = Transform(
      a: inverse, b: 0, c: 0, d: inverse, tx: -Float(region.x) * inverse, ty: -Float(region.y) * inverse)
    surface.shrunkLines.removeAll()
    surface.shrunkLines.runs.append(contentsOf: lines.runs)
    for p in lines.points { surface.shrunkLines.points.append(toSmall.apply(p)) }
    let small = surface.checkout()
    small.reset(x0: 0, y0: 0, width: dw, height: dh)
    var program = ShadingProgram(shading, transform: toSmall.concatenating(transform))
    var tint: Pixel? = nil
    if case .solid(let color) = program.kind {
      (tint, program) = (color, ShadingProgram(solid: Pixel(1, 1, 1, 1)))
    }
    rasterize(surface.shrunkLines, program, rule, into: small, origin: (0, 0), opacity: 1, mode: .sourceOver, clip: nil)
    return (small, factor, tint)
  }

  /// Blends a blur of `region`'s pixels onto the target where it lands (`blendRegion`), with
  /// this context's opacity, blend mode and clip: `rows(rows, columns, blend)` blends those rows
  /// and columns of the blur (in the region's coordinates) as `blend` says, as `GaussianBlur`'s
  /// streams and `enlargeBlurred` do.
  private func blendBlurredRows(of region: IntRect, _ rows: (Range<Int>, Range<Int>, RowBlend) -> Void) {
    guard opacity > 0, let lands = blendRegion(region, onto: target, clip: clipMask) else { return }
    let columns = (lands.x - region.x)..<(lands.maxX - region.x)
    let blend = RowBlend(
      onto: target, at: lands, top: region.y, mode: blendMode, opacity: clampedOpacity, clip: clipMask)
    rows((lands.y - region.y)..<(lands.maxY - region.y), columns, blend)
    target.dirty = target.dirty.union(lands.offsetBy(-target.x0, -target.y0))
  }

  /// Where `rect` (in the image's pixels) lands on `dest`'s stored rows (all of them, or a
  /// band's), inside the clip and what of `dest` is seen (`Layer.visible`); nil when nowhere.
  func blendRegion(_ rect: IntRect, onto dest: Layer, clip: ClipMask?) -> IntRect? {
    var region = rect.intersection(dest.stored.offsetBy(dest.x0, dest.y0))
    if let clip { region = region.intersection(clip.rect) }
    if let seen = dest.visible { region = region.intersection(seen) }
    return region.isEmpty ? nil : region
  }

  /// Pixels a blur filter may spread an operation by: 3 sigma per blur, summed.
  private var filterMargin: Int {
    var sigma: Float = 0
    for case .blur(let r) in filters { sigma += Self.pixelSigma(r * transform.lengthScale) }
    return Int((3 * sigma).rounded(.up))
  }

  /// Coverage of `lines` (target pixel coordinates) shaded and blended into `layer`, whose pixel
  /// (0, 0) sits at `origin` of the target.
  func rasterize(
    _ lines: Polylines, _ program: ShadingProgram, _ rule: FillRule, into layer: Layer,
    origin: (Int, Int), opacity: Float, mode: BlendMode, clip: ClipMask?
  ) {
    if clip == nil, let box = lines.rectangle {
      rasterize(rectangle: box, program, into: layer, origin: origin, opacity: opacity, mode: mode)
      return
    }
    guard let b = lines.bounds else { return }
    var region = IntRect(covering: b.min, b.max).intersection(layer.bounds.offsetBy(origin.0, origin.1))
    if let clip { region = region.intersection(clip.rect) }
    guard !region.isEmpty, opacity > 0 else { return }
    // The region's rows the layer stores (on a band, the band's; the region stays the whole
    // shape's, so the coverage of each row is the same).
    let stored = layer.storedRows((region.y - origin.1)..<(region.maxY - origin.1))
    var kept = (stored.lowerBound + origin.1 - region.y)..<(stored.upperBound + origin.1 - region.y)
    // Outside the shading's support nothing changes: rows there are not kept, and each row's
    // columns there not shaded or blended (the region, and so every coverage, stays the shape's).
    var columns = region.x..<region.maxX
    if let support = program.support {
      kept = kept.clamped(to: (support.y - region.y)..<(support.maxY - region.y))
      columns = columns.clamped(to: support.x..<support.maxX)
    }
    guard !kept.isEmpty, !columns.isEmpty else { return }
    let cov = surface.coverage
    cov.reset(x0: region.x, y0: region.y, width: region.width, height: region.height, rows: kept)
    cov.add(lines)
    let (covRow, src) = surface.rows(region.width)
    let solid: Pixel
    if case .solid(let p) = program.kind { solid = p } else { solid = .zero }
    var touched = IntRect.empty
    for y in kept {
      guard let span = cov.span(row: y) else { continue }
      let ty = region.y + y
      // The span's pixels inside the columns, `skip` of them left out on the left; its coverage
      // is resolved (which clears the row's cells for the next shape), and its shading made, as
      // for the whole span, so each pixel's bits are too.
      cov.resolve(row: y, span: span, rule: rule, into: covRow)
      let start = region.x + span.lowerBound
      let x = max(start, columns.lowerBound), skip = x - start
      let n = min(start + span.count, columns.upperBound) - x
      guard n > 0 else { continue }
      let covRow = covRow + skip
      if let clip {
        let m = clip.row(ty) + (x - clip.rect.x)
        for i in 0..<n { covRow[i] *= m[i] }
      }
      let dest = layer.row(ty - origin.1, columns: (x - origin.0)..<(x - origin.0 + n)) + (x - origin.0)
      if y + 2 < kept.upperBound { prefetchForBlend(dest + 2 * layer.width, count: n) }
      if program.isSolid {
        blendSpan(mode, count: n, dest: dest, coverage: covRow, solid: solid, source: nil, opacity: opacity)
      } else {
        program.shade(row: ty, x: start, count: skip + n, into: src, from: skip)
        blendSpan(mode, count: n, dest: dest, coverage: covRow, solid: .zero, source: src + skip, opacity: opacity)
      }
      touched = touched.union(IntRect(x: x - origin.0, y: ty - origin.1, width: n, height: 1))
    }
    layer.dirty = layer.dirty.union(touched)
  }

  /// `rasterize` for an axis-aligned rectangle (the sky, a base color): its coverage is known
  /// without accumulating edges, 1 inside and the overlap on its border pixels, so whole rows
  /// inside blend their source as it is. The same coverage as the general path; a rectangle on
  /// whole pixels gives the same bits.
  func rasterize(
    rectangle box: (min: Point, max: Point), _ program: ShadingProgram, into layer: Layer, origin: (Int, Int),
    opacity: Float, mode: BlendMode
  ) {
    let region = IntRect(covering: box.min, box.max).intersection(layer.bounds.offsetBy(origin.0, origin.1))
    guard !region.isEmpty, opacity > 0, box.max.x > box.min.x, box.max.y > box.min.y else { return }
    // The overlap of pixel [v, v + 1) with [lo, hi]; columns innerX0..<innerX1 lie wholly inside.
    @inline(__always) func overlap(_ v: Int, _ lo: Float, _ hi: Float) -> Float {
      max(min(Float(v + 1), hi) - max(Float(v), lo), 0)
    }
    let innerX0 = max(Int(box.min.x.rounded(.up)), region.x)
    let innerX1 = max(min(Int(box.max.x.rounded(.down)), region.maxX), innerX0)
    // Opaque color over every pixel of a layer still to be cleared (or filled with one color):
    // written as it is, without clearing or reading the old pixels (over anything, source-over
    // of an opaque color is the color); one color is not even written, only noted as pending, for
    // the next drawing to write (`Layer.pendingFill`).
    // `pendingFill` is asked last: asking writes any pending rows (the sky), which a fill that
    // cannot take this path (translucent, as the lightning's flash, or not over every pixel)
    // leaves to its own blending, row by row.
    let whole = layer.bounds.offsetBy(origin.0, origin.1)
    if mode == .sourceOver && opacity == 1 && program.isOpaque
      && innerX0 == whole.x && innerX1 == whole.maxX && region == whole
      && box.min.y <= Float(whole.y) && box.max.y >= Float(whole.maxY) && layer.pendingFill != nil
    {
      layer.dirty = layer.bounds
      if case .solid(let color) = program.kind {
        layer.pendingFill = color
        return
      }
      if case .vertical = program.kind {
        // One color a row (the sky): noted for each row, written when a row is asked for, so a
        // row nothing else draws on is converted from its color without being written.
        layer.fillRows { program.rowColor($0 + origin.1) }
        return
      }
      layer.pendingFill = nil  // settled by covering every pixel
      let rows = layer.storedRows((region.y - origin.1)..<(region.maxY - origin.1))
      for ty in (rows.lowerBound + origin.1)..<(rows.upperBound + origin.1) {
        program.shade(row: ty, x: region.x, count: region.width, into: layer.row(ty - origin.1) + (region.x - origin.0))
      }
      return
    }
    let (covRow, src) = surface.rows(region.width)
    let solid: Pixel
    if case .solid(let p) = program.kind { solid = p } else { solid = .zero }
    var touched = IntRect.empty
    let rows = layer.storedRows((region.y - origin.1)..<(region.maxY - origin.1))
    for ty in (rows.lowerBound + origin.1)..<(rows.upperBound + origin.1) {
      let cy = overlap(ty, box.min.y, box.max.y)
      guard cy > 0 else { continue }
      let dest =
        layer.row(ty - origin.1, columns: (region.x - origin.0)..<(region.maxX - origin.0)) + (region.x - origin.0)
      if ty + 2 < rows.upperBound + origin.1 { prefetchForBlend(dest + 2 * layer.width, count: region.width) }
      let source: UnsafeMutablePointer<Pixel>? = program.isSolid ? nil : src
      if let source { program.shade(row: ty, x: region.x, count: region.width, into: source) }
      // Columns [a, b) of the region: on the border with their coverage, inside as they are.
      func blend(_ a: Int, _ b: Int, border: Bool) {
        guard a < b else { return }
        if border {
          for i in a..<b { covRow[i] = cy * overlap(region.x + i, box.min.x, box.max.x) }
        }
        blendSpan(
          mode, count: b - a, dest: dest + a, coverage: border ? UnsafePointer(covRow + a) : nil, solid: solid,
          source: source.map { UnsafePointer($0 + a) }, opacity: opacity)
      }
      if cy < 1 {
        blend(0, region.width, border: true)
      } else {
        blend(0, innerX0 - region.x, border: true)
        blend(innerX0 - region.x, innerX1 - region.x, border: false)
        blend(innerX1 - region.x, region.width, border: true)
      }
      touched = touched.union(IntRect(x: region.x - origin.0, y: ty - origin.1, width: region.width, height: 1))
    }
    layer.dirty = layer.dirty.union(touched)
  }

  /// Applies this context's filters to `layer` (if asked), then blends it onto the target with
  /// this context's opacity, blend mode and clip.
  ///
  /// A layer holding a band of its rows (band rendering) must hold the rows the filters read
  /// around the target's band (`filterRowReach`): each blur makes the rows the filters after it
  /// read. A layer drawn without them (a filtered mesh's) asks for the whole frame.
  func composite(_ layer: Layer, applyingFilters: Bool) {
    if applyingFilters && !filters.isEmpty && layer.isBand {
      let needed = filterRowReach.map { layerRows(y0: layer.y0, height: layer.height, reach: $0) ?? 0..<layer.height }
      let holdsThem = needed.map { layer.storedRows($0) == $0 } ?? false
      if !holdsThem && surface.refusesBand() { return }
    }
    if applyingFilters && !filters.isEmpty && !layer.dirty.isEmpty {
      for (index, filter) in filters.enumerated() {
        // A large blur that is the last filter goes straight onto the target a row at a time:
        // the blurred layer is never written out whole and read back.
        if case .blur(let radius) = filter, index == filters.count - 1,
          GaussianBlur.streams(sigma: Self.pixelSigma(radius * transform.lengthScale))
        {
          streamBlur(layer, sigma: Self.pixelSigma(radius * transform.lengthScale))
          return
        }
        switch filter {
        case .blur(let radius):
          let sigma = Self.pixelSigma(radius * transform.lengthScale)
          if layer.isBand {
            // The rows the later filters read; this blur reads its reach around them.
            let after = filterRowReach(from: index + 1) ?? 0
            let rows = layerRows(y0: layer.y0, height: layer.height, reach: after) ?? 0..<layer.height
            let reach = GaussianBlur.rowReach(sigma: sigma)
            let read = max(rows.lowerBound - reach, 0)..<min(rows.upperBound + reach, layer.height)
            precondition(layer.storedRows(read) == read, "a band's layer holds rows \(layer.rows), not \(read)")
            surface.blur.apply(sigma: sigma, to: layer.base, width: layer.width, height: layer.height, rows: rows)
          } else {
            surface.blur.apply(sigma: sigma, to: layer.pixels, width: layer.width, height: layer.height)
          }
          layer.dirty = layer.bounds
        case .colorMatrix(let m):
          let d = layer.dirty
          for y in d.y..<d.maxY { m.apply(row: layer.row(y) + d.x, count: d.width) }
        }
      }
    }
    blendLayer(layer, onto: target, mode: blendMode, opacity: clampedOpacity, clip: clipMask)
  }

  /// The blur of `layer` by `sigma`, blended onto the target with this context's opacity, blend
  /// mode and clip as `blendLayer` would blend the blurred layer, without writing it: the layer
  /// keeps its unblurred pixels (and its dirty rectangle, which is what `reset` clears).
  func streamBlur(_ layer: Layer, sigma: Float) {
    let opacity = clampedOpacity
    // The blur reaches the whole layer: the region is its bounds, as after `apply`.
    guard let region = blendRegion(layer.bounds, of: layer, onto: target, clip: clipMask), opacity > 0 else { return }
    let rows = (region.y - layer.y0)..<(region.maxY - layer.y0)
    let columns = (region.x - layer.x0)..<(region.maxX - layer.x0)
    surface.blur.stream(
      sigma: sigma, layer.base, width: layer.width, height: layer.height, content: layer.dirty,
      rows: rows, columns: columns,
      onto: RowBlend(onto: target, at: region, top: layer.y0, mode: blendMode, opacity: opacity, clip: clipMask))
    target.dirty = target.dirty.union(region.offsetBy(-target.x0, -target.y0))
  }

  /// Where `rect` of `layer` lands on `dest` (in the image's pixels), inside the clip; nil when nowhere.
  func blendRegion(_ rect: IntRect, of layer: Layer, onto dest: Layer, clip: ClipMask?) -> IntRect? {
    blendRegion(rect.offsetBy(layer.x0, layer.y0), onto: dest, clip: clip)
  }

  /// Blends the dirty part of `layer` onto `dest` (both placed by their origins).
  func blendLayer(_ layer: Layer, onto dest: Layer, mode: BlendMode, opacity: Float, clip: ClipMask?) {
    guard let region = blendRegion(layer.dirty, of: layer, onto: dest, clip: clip), opacity > 0 else { return }
    let blend = RowBlend(onto: dest, at: region, top: 0, mode: mode, opacity: opacity, clip: clip)
    for y in region.y..<region.maxY {
      blend.blend(layer.row(y - layer.y0) + (region.x - layer.x0), row: y, count: region.width, rowsEnd: region.maxY)
    }
    dest.dirty = dest.dirty.union(region.offsetBy(-dest.x0, -dest.y0))
  }
}

extension GraphicsContext {
  /// The block a fill under a streamed blur of `sigma` pixels is drawn at (`drawShrunk`): a power
  /// of two dividing the blur's shrink, at most 4 and at most sigma / 7 (a cloud at scale 1,
  /// sigma 28, is drawn at 1/4; a blur of sigma 6, shrunk by 2, at full size).
  static func drawnFactor(sigma: Float) -> Int {
    var factor = min(GaussianBlur.shrinkFactor(sigma: sigma), 4)
    while factor > 1 && Float(factor) * 7 > sigma { factor /= 2 }
    return factor
  }
}
