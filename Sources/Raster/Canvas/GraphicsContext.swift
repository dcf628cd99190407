/// Draws into a surface the way SwiftUI's `GraphicsContext` does: a value whose state (transform,
/// opacity, blend mode, filters, clip) is copied with it, so `var glow = context` makes a context
/// whose changes leave the original alone while both draw into the same layer, in call order
/// (docs/SWIFTUI-SEMANTICS.md, The graphics context).
public struct GraphicsContext {
  let surface: Surface
  let target: Layer
  /// User space (points) to the target's pixels.
  public var transform: Transform
  /// Multiplies the alpha of everything drawn.
  public var opacity: Double = 1
  public var blendMode: BlendMode = .sourceOver
  public private(set) var filters: [Filter] = []
  var clipMask: ClipMask?

  init(surface: Surface, target: Layer, transform: Transform) {
    self.surface = surface
    self.target = target
    self.transform = transform
  }

  /// The size of the drawing area in points.
  public var size: (width: Double, height: Double) { surface.size }

  /// Pixels per point.
  public var displayScale: Float { surface.scale }

  public mutating func translateBy(x: Double, y: Double) {
    transform = transform.concatenating(.translation(Float(x), Float(y)))
  }

  public mutating func rotate(by radians: Double) {
    transform = transform.concatenating(.rotation(radians))
  }

  public mutating func scaleBy(x: Double, y: Double) {
    transform = transform.concatenating(.scale(Float(x), Float(y)))
  }

  /// Adds a filter that every later drawing operation goes through, one operation at a time.
  ///
  /// Total: a blur radius that is not a number or not above 0 blurs nothing, a color matrix
  /// holding a value that is not finite is left out (as Skia drops such a filter), and its
  /// values are held to -1024...1024, so no product of colors overflows.
  public mutating func addFilter(_ filter: Filter) {
    switch filter {
    case .blur(let radius):
      filters.append(.blur(radius: radius > 0 ? radius : 0))
    case .colorMatrix(let m):
      let values = [m.r, m.g, m.b]
      guard values.allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite && $0.w.isFinite }) else { return }
      let bound = SIMD4<Float>(repeating: 1024)
      func held(_ row: SIMD4<Float>) -> SIMD4<Float> { pointwiseMin(pointwiseMax(row, -bound), bound) }
      filters.append(.colorMatrix(ColorMatrix(r: held(m.r), g: held(m.g), b: held(m.b))))
    }
  }

  /// A blur's sigma in pixels made total: not a number or below a millionth of a pixel (whose
  /// kernel divides by 2σ² = 0) gives 0, and it is held to 4096 pixels, beyond which a blur of
  /// any canvas is its mean colour.
  static func pixelSigma(_ sigma: Float) -> Float { sigma >= 1e-6 ? min(sigma, 4096) : 0 }

  /// The opacity as a Float in 0...1 (not a number counts as 0).
  var clampedOpacity: Float { opacity > 0 ? Float(min(opacity, 1)) : 0 }

  // MARK: - Fill and stroke

  /// Fills the inside of `path` with `shading`.
  public func fill(_ path: Path, with shading: Shading, rule: FillRule = .nonZero) {
    let profile = surface.entering(work(of: shading))
    defer { profile?.leave() }
    if missesBand(path) { return }
    let source = blurredSource(path, shading, rule)
    if let source, enlargeKept(source) { return }
    let position = surface.blurredOnce.position
    surface.lines.removeAll()
    path.flatten(transform: transform, into: &surface.lines)
    surface.lines.sanitize()
    draw(lines: surface.lines, shading: shading, rule: rule)
    if let source { surface.blurredOnce.note(source, from: position) }
  }

  /// Strokes `path` with butt caps and miter joins (SwiftUI's `stroke(_:with:lineWidth:)`).
  public func stroke(_ path: Path, with shading: Shading, style: StrokeStyle) {
    let profile = surface.entering(work(of: shading))
    defer { profile?.leave() }
    surface.lines.removeAll()
    surface.outline.removeAll()
    // Widen in device space: the flattened points are already transformed, so the half width is
    // the user width times the transform's length scale.
    path.flatten(transform: transform, into: &surface.lines)
    surface.lines.sanitize()
    // A width that is not a number, or not above 0, strokes nothing; a huge one is held to the reach.
    let width = style.lineWidth * transform.lengthScale
    guard width > 0 else { return }
    let hw = min(width, Polylines.reach) / 2
    let miter: Float = style.miterLimit >= 1 ? min(style.miterLimit, 1000) : 1
    surface.lines.stroked(halfWidth: hw, miterLimit: miter, into: &surface.outline)
    surface.outline.sanitize()
    draw(lines: surface.outline, shading: shading, rule: .nonZero)
  }

  public func stroke(_ path: Path, with shading: Shading, lineWidth: Double) {
    stroke(path, with: shading, style: StrokeStyle(lineWidth: Float(lineWidth)))
  }

  /// The kind of work a fill or stroke of `shading` is (`DrawProfile`).
  func work(of shading: Shading) -> DrawProfile.Work {
    guard filters.isEmpty else { return .filteredFills }
    if case .color = shading { return .fills }
    return .gradientFills
  }

  /// Runs the drawing calls of a layer's content, charging the time between them to the
  /// effect's code (`DrawProfile`).
  @inline(__always) func effectCode(_ content: () -> Void) {
    guard let profile = surface.profile else { return content() }
    profile.measure(.effect, content)
  }

  /// Whether `path`, filled with this context's state, cannot touch a stored row of a band: its
  /// points and control points (the curves lie within their hull) are all more than a pixel
  /// above or below the band. Such a fill changes no stored pixel, and is not flattened once a
  /// band. Never true on a whole frame, or with a filter (which must reach `refusesBand`).
  func missesBand(_ path: Path) -> Bool {
    guard target.isBand, filters.isEmpty else { return false }
    var lo = Float.infinity, hi = -Float.infinity
    @inline(__always) func add(_ p: Point) {
      let y = transform.apply(p).y
      lo = min(lo, y)
      hi = max(hi, y)
    }
    for element in path.elements {
      switch element {
      case .move(let p), .line(let p): add(p)
      case .quad(let c, let p):
        add(c)
        add(p)
      case .cubic(let c1, let c2, let p):
        add(c1)
        add(c2)
        add(p)
      case .close: break
      }
    }
    // Not finite (NaN compares false): left to the flattening, which knows what to do.
    guard lo.isFinite && hi.isFinite else { return false }
    return hi < Float(target.rows.lowerBound) - 1 || lo > Float(target.rows.upperBound) + 1
  }

  /// Whether a fill inside `rect` (user space, with this context's state) can change no stored
  /// pixel: on a band, its corners all lie more than two pixels above or below the band (a
  /// pixel more than `missesBand(_:)` asks, for the rounding of a shape's own points). An
  /// effect may skip such a shape, and the arithmetic that places it, on that band. Never true
  /// on a whole frame, or with a filter.
  public func missesBand(_ rect: Rect) -> Bool {
    guard target.isBand, filters.isEmpty else { return false }
    let a = transform.apply(Point(rect.minX, rect.minY)).y, b = transform.apply(Point(rect.maxX, rect.minY)).y
    let c = transform.apply(Point(rect.minX, rect.maxY)).y, d = transform.apply(Point(rect.maxX, rect.maxY)).y
    let lo = min(a, b, c, d), hi = max(a, b, c, d)
    guard lo.isFinite && hi.isFinite else { return false }
    return hi < Float(target.rows.lowerBound) - 2 || lo > Float(target.rows.upperBound) + 2
  }

  // MARK: - Clip

  /// Intersects the clip with the inside of `path`; later operations are masked after filtering.
  public mutating func clip(to path: Path, rule: FillRule = .nonZero) {
    let profile = surface.entering(.clips)
    defer { profile?.leave() }
    surface.lines.removeAll()
    path.flatten(transform: transform, into: &surface.lines)
    surface.lines.sanitize()  // a path that is not finite clips everything away
    var rect = IntRect.empty
    if let b = surface.lines.bounds {
      rect = IntRect(covering: b.min, b.max).intersection(target.bounds)
    }
    if let old = clipMask { rect = rect.intersection(old.rect) }
    // A rectangle on whole pixels covers each pixel inside it wholly, 1 by either rule (and 1
    // times a solid clip before it is 1): the mask its coverage would make, not computed.
    let whole = { (v: Float) in v.rounded() == v }
    if let box = surface.lines.rectangle, whole(box.min.x), whole(box.min.y), whole(box.max.x), whole(box.max.y),
      clipMask?.solid ?? true
    {
      clipMask = ClipMask(rect: rect, within: target.isBand ? target.rows : nil, solid: true)
      return
    }
    let mask = ClipMask(rect: rect, within: target.isBand ? target.rows : nil)
    if !rect.isEmpty {
      let cov = surface.coverage
      let kept = (mask.rows.lowerBound - rect.y)..<(mask.rows.upperBound - rect.y)
      cov.reset(x0: rect.x, y0: rect.y, width: rect.width, height: rect.height, rows: kept)
      cov.add(surface.lines)
      for y in kept {
        guard let span = cov.span(row: y) else { continue }
        let out = mask.row(rect.y + y)
        cov.resolve(row: y, span: span, rule: rule, into: out + span.lowerBound)
        if let old = clipMask {
          let prior = old.row(rect.y + y) + (rect.x - old.rect.x)
          for x in span { out[x] *= prior[x] }
        }
      }
    }
    clipMask = mask
  }

  // MARK: - Layers

  /// Draws what `content` draws into a fresh transparent layer, then composites that layer as one
  /// operation with this context's filters, opacity, blend mode and clip
  /// (docs/SWIFTUI-SEMANTICS.md, The graphics context).
  public func drawLayer(_ content: (inout GraphicsContext) -> Void) {
    let profile = surface.entering(.layers)
    defer { profile?.leave() }
    if composesAsDrawn {
      var inner = GraphicsContext(surface: surface, target: target, transform: transform)
      effectCode { content(&inner) }
      return
    }
    guard let rows = compositedBand else { return }
    drawInLayer(rows: rows, content)
  }

  /// `drawLayer` of content that draws with source-over only (fills and strokes at their own
  /// opacity, each with its own filters, no other blend mode, no layer of its own): where this
  /// context composites plainly (no filter, clip or opacity, source-over), the layer over the
  /// target is its operations over the target one by one, since source-over is associative, so
  /// they are drawn straight onto the target, with no layer to clear, fill and blend. The same to
  /// float rounding (a code at most, on few pixels: `aSourceOverGroupDrawsStraight`). A faded
  /// weather canvas (clouds, fog) keeps its layer: its opacity applies to the group as a whole.
  public func drawSourceOverLayer(_ content: (inout GraphicsContext) -> Void) {
    guard filters.isEmpty && clipMask == nil && opacity == 1 && blendMode == .sourceOver else {
      drawLayer(content)
      return
    }
    var inner = GraphicsContext(surface: surface, target: target, transform: transform)
    effectCode { content(&inner) }
  }

  /// `content` drawn into a pool layer of the target's size that stores `rows` (nil: all of
  /// them), composited with this context's filters.
  private func drawInLayer(rows: Range<Int>?, _ content: (inout GraphicsContext) -> Void) {
    let layer = surface.checkout()
    defer { surface.checkin(layer) }
    layer.reset(x0: 0, y0: 0, width: target.width, height: target.height, band: rows, visible: seenOfLayers)
    var inner = GraphicsContext(surface: surface, target: layer, transform: transform)
    effectCode { content(&inner) }
    composite(layer, applyingFilters: true)
  }

  /// What of a layer the size of the target composited here can be seen (`Layer.visible`): the
  /// clip's rect, within what of the target is seen; nil (all of it) when a filter reads around
  /// a pixel (a blur spreads what lies outside the clip into it) or the target is placed off
  /// (0, 0). The voice orb's blurred blobs, each spread 3 sigma past the disk they are clipped
  /// to, are blended into each moment of their crossfade (`drawBlended`) only over the disk's
  /// box (docs/PERFORMANCE.md, What made it faster), and those moments mixed only there.
  var seenOfLayers: IntRect? {
    guard rowFilter != nil, target.x0 == 0, target.y0 == 0 else { return nil }
    guard let clip = clipMask else { return target.visible }
    return target.visible.map { $0.intersection(clip.rect) } ?? clip.rect
  }

  /// The rows a layer the size of the target stores: the target's band, or nil for all.
  var band: Range<Int>? { target.isBand ? target.rows : nil }

  /// The rows a layer the size of the target stores to be composited with this context's
  /// filters: the target's band and the rows the filters read above and below it
  /// (`filterRowReach`), nil for all of them; nil, after noting that the frame needs drawing
  /// whole (`Surface.refusesBand`), when the filters cannot be drawn in bands.
  var filteredBand: Range<Int>?? {
    guard target.isBand else { return .some(nil) }
    guard let reach = filterRowReach else {
      _ = surface.refusesBand()
      return nil
    }
    return .some(layerRows(y0: 0, height: target.height, reach: reach))
  }

  /// The rows a layer the size of the target stores to be composited here as it is drawn
  /// (`drawLayer`, `drawBlended`): `filteredBand`'s, and on a band surface, when no filter reads
  /// around them and a clip holds the composite to some rows, only those: nothing drawn outside
  /// the clip's rows lands. A layer drawn whole in a band's first pass (the voice orb's, inside
  /// its shadowed layer) then stores the clipped disk's rows, not every row its blurred blobs
  /// spread to. On a whole frame it stays whole: a layer storing some rows is a band, and a
  /// filter that cannot be drawn in bands draws nothing onto one there.
  var compositedBand: Range<Int>?? {
    guard let rows = filteredBand else { return nil }
    guard surface.isBand, filters.isEmpty, let clip = clipMask else { return rows }
    return .some((rows ?? 0..<target.height).clamped(to: clip.rect.y..<clip.rect.maxY))
  }

  /// On a band, the rows of a layer placed at row `y0` of the target and `height` rows tall that
  /// hold the target's stored rows and `reach` rows above and below them, in the layer's rows:
  /// nil for all of them (also on a whole frame). Empty when none of them lie in the layer.
  func layerRows(y0: Int, height: Int, reach: Int) -> Range<Int>? {
    guard target.isBand else { return nil }
    let lo = max(target.rows.lowerBound - reach - y0, 0)
    let hi = max(min(target.rows.upperBound + reach - y0, height), lo)
    return lo == 0 && hi == height ? nil : lo..<hi
  }

  /// The rows above and below a band that this context's filters read (band rendering: the
  /// margin a filtered layer is drawn with), the blurs' `GaussianBlur.rowReach` summed; nil when
  /// the filters cannot be drawn in bands: a large blur before another filter, which blurs its
  /// whole layer (`GaussianBlur.apply`).
  var filterRowReach: Int? { filterRowReach(from: 0) }

  /// `filterRowReach` of the filters from `start` on.
  func filterRowReach(from start: Int) -> Int? {
    var reach = 0
    for (index, filter) in filters.enumerated() where index >= start {
      guard case .blur(let radius) = filter else { continue }
      let sigma = Self.pixelSigma(radius * transform.lengthScale)
      if GaussianBlur.streams(sigma: sigma) && index != filters.count - 1 { return nil }
      reach += GaussianBlur.rowReach(sigma: sigma)
    }
    return reach
  }

  /// Draws `content` once per weight into its own layer, mixes the layers by weight (a true
  /// crossfade: `Σ wᵢ Lᵢ` in premultiplied color), then composites the mix as one operation.
  /// Weights are held to 0...1, and one that is not a number counts as 0.
  public func drawBlended(weights: [Double], _ content: (Int, inout GraphicsContext) -> Void) {
    guard !weights.isEmpty else { return }
    let profile = surface.entering(.layers)
    defer { profile?.leave() }
    let weights = Self.held(weights)
    if weights.count == 1 {
      drawLayer { content(0, &$0) }
      return
    }
    if composesAsDrawn {
      mixInPlace(weights: weights, content)
      return
    }
    guard let rows = compositedBand else { return }
    let layers = weights.map { _ in surface.checkout() }
    defer { layers.forEach(surface.checkin) }
    let seen = seenOfLayers
    for (i, layer) in layers.enumerated() {
      layer.reset(x0: 0, y0: 0, width: target.width, height: target.height, band: rows, visible: seen)
      var inner = GraphicsContext(surface: surface, target: layer, transform: transform)
      effectCode { content(i, &inner) }
    }
    let mix = layers[0]
    let w0 = Pixel(repeating: Float(weights[0]))
    var dirty = mix.dirty
    for layer in layers.dropFirst() { dirty = dirty.union(layer.dirty) }
    for y in dirty.y..<dirty.maxY {
      let out = mix.row(y)
      for x in dirty.x..<dirty.maxX { out[x] *= w0 }
    }
    for (layer, w) in zip(layers.dropFirst(), weights.dropFirst()) {
      let wv = Pixel(repeating: Float(w))
      for y in layer.dirty.y..<layer.dirty.maxY {
        let out = mix.row(y), src = layer.row(y)
        for x in layer.dirty.x..<layer.dirty.maxX { out[x] += src[x] * wv }
      }
    }
    mix.dirty = dirty
    composite(mix, applyingFilters: true)
  }

  /// Crossfade weights held to 0...1, one that is not a number as 0 (`drawBlended`).
  static func held(_ weights: [Double]) -> [Double] {
    weights.allSatisfy({ $0 >= 0 && $0 <= 1 }) ? weights : weights.map { $0 > 0 ? min($0, 1) : 0 }
  }

  /// Whether a layer composited here would land exactly as it was drawn: nothing is drawn on the
  /// target yet (clear outside its dirty part, which is empty) and this context changes nothing
  /// when compositing (no filter, clip or opacity, source-over). A layer over nothing is the
  /// layer, to the bit, so content may then be drawn straight into the target: no 33 MB layer to
  /// clear, fill and copy (a crossfade frame of the aurora or the orbs at 1080x1920).
  var composesAsDrawn: Bool {
    target.dirty.isEmpty && filters.isEmpty && clipMask == nil && opacity == 1 && blendMode == .sourceOver
  }

  /// `drawBlended` of two or more moments onto an empty target with nothing to apply: the first
  /// is drawn straight into the target and weighted there, the others through one layer each in
  /// turn, added in. The same sums, in the same order, as mixing in a layer and compositing it
  /// over nothing.
  private func mixInPlace(weights: [Double], _ content: (Int, inout GraphicsContext) -> Void) {
    var first = GraphicsContext(surface: surface, target: target, transform: transform)
    effectCode { content(0, &first) }
    let w0 = Pixel(repeating: Float(weights[0]))
    let drawn = target.dirty
    for y in drawn.y..<drawn.maxY {
      let out = target.row(y)
      for x in drawn.x..<drawn.maxX { out[x] *= w0 }
    }
    let layer = surface.checkout()
    defer { surface.checkin(layer) }
    for (i, w) in weights.enumerated().dropFirst() {
      layer.reset(x0: 0, y0: 0, width: target.width, height: target.height, band: band)
      var inner = GraphicsContext(surface: surface, target: layer, transform: transform)
      effectCode { content(i, &inner) }
      let wv = Pixel(repeating: Float(w))
      for y in layer.dirty.y..<layer.dirty.maxY {
        let out = target.row(y), src = layer.row(y)
        for x in layer.dirty.x..<layer.dirty.maxX { out[x] += src[x] * wv }
      }
      target.dirty = target.dirty.union(layer.dirty)
    }
  }

  /// Draws `content` into a layer and a shadow of it behind: the layer's alpha blurred by
  /// `radius` (a Gaussian sigma in user units, docs/SWIFTUI-SEMANTICS.md, View modifiers) and tinted by `color`.
  public func drawLayer(shadow color: Color, radius: Double, _ content: (inout GraphicsContext) -> Void) {
    let profile = surface.entering(.shadows)
    defer { profile?.leave() }
    let sigma = Self.pixelSigma(Float(radius) * transform.lengthScale)
    if surface.isBand {
      drawBand(shadow: color, sigma: sigma, content)
      return
    }
    let layer = surface.checkout()
    defer { surface.checkin(layer) }
    layer.reset(x0: 0, y0: 0, width: target.width, height: target.height)
    var inner = GraphicsContext(surface: surface, target: layer, transform: transform)
    effectCode { content(&inner) }
    let margin = Int((3 * sigma).rounded(.up))
    let region = layer.dirty.insetBy(-margin)
    if !region.isEmpty && color.alpha > 0 && GaussianBlur.streams(sigma: sigma) {
      // A large shadow is blurred from the layer's alpha shrunk, straight onto the view.
      let both = surface.checkout()
      defer { surface.checkin(both) }
      both.reset(x0: 0, y0: 0, width: target.width, height: target.height)
      let reach = region.intersection(both.bounds)
      let rows = (reach.y - region.y)..<(reach.maxY - region.y)
      let columns = (reach.x - region.x)..<(reach.maxX - region.x)
      surface.blur.streamShadow(
        sigma: sigma, layer.pixels, stride: layer.width, content: layer.dirty, region: region,
        tint: color.premultiplied, rows: rows, columns: columns,
        onto: RowBlend(onto: both, at: reach, top: region.y, mode: .sourceOver, opacity: 1, clip: nil))
      both.dirty = reach
      blendLayer(layer, onto: both, mode: .sourceOver, opacity: 1, clip: nil)
      composite(both, applyingFilters: true)
    } else if !region.isEmpty && color.alpha > 0 {
      let shade = surface.checkout()
      defer { surface.checkin(shade) }
      shade.reset(x0: region.x, y0: region.y, width: region.width, height: region.height)
      Self.tintAlpha(of: layer, color.premultiplied, into: shade.base, region: region)
      shade.dirty = shade.bounds
      surface.blur.apply(sigma: sigma, to: shade.pixels, width: shade.width, height: shade.height)
      // The shadow and the layer are one view: composite them together, so a filter on this
      // context (the voice orb's color filters) sees both.
      let both = surface.checkout()
      defer { surface.checkin(both) }
      both.reset(x0: 0, y0: 0, width: target.width, height: target.height)
      blendLayer(shade, onto: both, mode: .sourceOver, opacity: 1, clip: nil)
      blendLayer(layer, onto: both, mode: .sourceOver, opacity: 1, clip: nil)
      composite(both, applyingFilters: true)
    } else {
      composite(layer, applyingFilters: true)
    }
  }

  /// A shadow's pixels before its blur: `tint` times the alpha of `layer`'s drawn pixels, written
  /// into `out`, whose row 0 and column 0 are `region`'s corner, `region.width` pixels a row
  /// (the rest of it left as it was: clear).
  private static func tintAlpha(
    of layer: Layer, _ tint: Pixel, into out: UnsafeMutablePointer<Pixel>, region: IntRect
  ) {
    let src = layer.dirty
    for y in src.y..<src.maxY {
      let from = layer.row(y)
      let to = out + (y - region.y) * region.width - region.x
      for x in src.x..<src.maxX { to[x] = tint * from[x].w }
    }
  }

  /// `drawLayer(shadow:radius:_:)` on a band surface, to the same bits. The shadow's region and
  /// blur come from the whole layer: the first band draws the content whole, blurs its shadow
  /// small (or, not streamed, at full size within its region) once for the frame's bands
  /// (`BlurredOnce`), and every band composites its rows of that kept content over its rows of
  /// the shadow; later bands skip the entries of the content's own blurred operations. (Drawing
  /// the content's rows again in each band drew it twice a frame.) With no shadow to draw, the
  /// content is composited as it is, its filters applied in place, and later bands draw their
  /// rows of it.
  private func drawBand(shadow color: Color, sigma: Float, _ content: (inout GraphicsContext) -> Void) {
    guard let rows = filteredBand else { return }
    let tint = color.premultiplied
    let entry = surface.blurredOnce.nextEntry()
    let key = BlurredOnce.Key(
      kind: 1, sigma: sigma.bitPattern, region: .empty, rule: nil, points: 0,
      hash: BlurredOnce.hash([Point(tint.x, tint.y), Point(tint.z, tint.w)]))
    let first = entry.key != key
    if !first && entry.isEmpty {
      drawInLayer(rows: rows, content)
      return
    }
    let layer = entry.content
    let streams = GaussianBlur.streams(sigma: sigma)
    if first {
      entry.key = nil
      layer.reset(x0: 0, y0: 0, width: target.width, height: target.height)
      let start = surface.blurredOnce.position
      var inner = GraphicsContext(surface: surface, target: layer, transform: transform)
      effectCode { content(&inner) }
      entry.contentEntries = surface.blurredOnce.position - start
      let margin = Int((3 * sigma).rounded(.up))
      let region = layer.dirty.insetBy(-margin)
      (entry.region, entry.isEmpty) = (region, region.isEmpty || !(color.alpha > 0))
      if !entry.isEmpty {
        if streams {
          (entry.width, entry.height) = surface.blur.shadowShrinkAndBlur(
            sigma: sigma, layer.base, stride: layer.width, content: layer.dirty, region: region, tint: tint,
            into: entry.pixels)
        } else {
          // The tinted alpha within the region, blurred whole (as a layer of the region's size).
          let shade = entry.pixels.reserve(max(region.width * region.height, 1))
          shade.update(repeating: .zero, count: region.width * region.height)
          Self.tintAlpha(of: layer, tint, into: shade, region: region)
          surface.blur.apply(sigma: sigma, to: shade, width: region.width, height: region.height)
          (entry.width, entry.height) = (region.width, region.height)
        }
      }
      entry.key = key
    } else {
      surface.blurredOnce.skip(entry.contentEntries)
    }
    guard !entry.isEmpty else {
      composite(layer, applyingFilters: true)
      return
    }
    if streams, entry.width > 0, entry.height > 0, let matrix = rowFilter {
      compositeShadowRows(of: layer, entry, sigma: sigma, band: rows, matrix: matrix)
      return
    }
    let both = surface.checkout()
    defer { surface.checkin(both) }
    both.reset(x0: 0, y0: 0, width: target.width, height: target.height, band: rows)
    let region = entry.region
    let reach = region.intersection(both.stored)
    if !reach.isEmpty {
      let rows = (reach.y - region.y)..<(reach.maxY - region.y)
      let columns = (reach.x - region.x)..<(reach.maxX - region.x)
      let blend = RowBlend(onto: both, at: reach, top: region.y, mode: .sourceOver, opacity: 1, clip: nil)
      if streams {
        surface.blur.enlargeBlurred(
          sigma: sigma, entry.pixels.pointer, entry.width, entry.height, width: region.width, rows: rows,
          columns: columns, onto: blend)
      } else {
        for y in rows {
          let row = entry.pixels.pointer + y * region.width + columns.lowerBound
          blend.blend(row, row: y, count: columns.count, rowsEnd: rows.upperBound)
        }
      }
      both.dirty = both.dirty.union(reach)
    }
    blendLayer(layer, onto: both, mode: .sourceOver, opacity: 1, clip: nil)
    composite(both, applyingFilters: true)
  }

  /// This context's filters when a composite can apply them to each row as it is blended: none
  /// (`.some(nil)`), or one color matrix, which reads only the pixel it changes; nil for any blur.
  private var rowFilter: ColorMatrix?? {
    if filters.isEmpty { return .some(nil) }
    if filters.count == 1, case .colorMatrix(let m) = filters[0] { return .some(m) }
    return nil
  }

  /// `drawBand(shadow:)`'s composite for a streamed shadow, a row at a time: each row of the
  /// shadow's reach in the band is enlarged into a row (as blended onto a clear one), the kept
  /// content's row blended over it, the color matrix (if any) applied and the row blended onto
  /// the target. These are the operations the band-sized layer went through (cleared, the shadow
  /// blended, the content blended, the filter applied in place, `blendLayer`), in the same order
  /// on the same values, so the same bits, without clearing that layer and writing and reading it
  /// back three times (docs/PERFORMANCE.md, Band rendering: the voice orb).
  private func compositeShadowRows(
    of layer: Layer, _ entry: BlurredOnce.Entry, sigma: Float, band rows: Range<Int>?, matrix: ColorMatrix?
  ) {
    // The layer it stood for: the target's size from (0, 0), storing the band's rows.
    let kept = rows.map { max($0.lowerBound, 0)..<max(min($0.upperBound, target.height), max($0.lowerBound, 0)) }
    let stored = IntRect(
      x: 0, y: kept?.lowerBound ?? 0, width: target.width, height: kept?.count ?? target.height)
    let region = entry.region
    let reach = region.intersection(stored)
    guard !reach.isEmpty else { return }
    // The content lies inside the shadow's region (its drawn pixels widened by 3 sigma), so every
    // row of it in the band is a row of the reach.
    let content = layer.dirty.intersection(stored)
    let out = clampedOpacity > 0 ? blendRegion(reach, onto: target, clip: clipMask) : nil
    let onto = out.map {
      var blend = RowBlend(onto: target, at: $0, top: 0, mode: blendMode, opacity: clampedOpacity, clip: clipMask)
      // The first drawing on a transparent canvas (the voice orb's band) over all of what its
      // clear would clear: its rows are blended onto clear pixels, not cleared first and read
      // back (`Layer.claimClear`).
      blend.ontoClear = target.claimClear(within: $0.offsetBy(-target.x0, -target.y0))
      return blend
    }
    // Each row of the shadow is blended onto `row` as onto a clear row, never cleared or read.
    let row = surface.compositeRow.reserve(reach.width)
    surface.blur.enlargeBlurred(
      sigma: sigma, entry.pixels.pointer, entry.width, entry.height, width: region.width,
      rows: (reach.y - region.y)..<(reach.maxY - region.y), columns: (reach.x - region.x)..<(reach.maxX - region.x),
      onto: RowBlend(row: { _ in row }, mode: .sourceOver, opacity: 1, prefetchStride: nil, ontoClear: true)
    ) { y in
      let frameRow = y + region.y
      if !content.isEmpty && content.y <= frameRow && frameRow < content.maxY {
        blendSpan(
          .sourceOver, count: content.width, dest: row + (content.x - reach.x), coverage: nil, solid: .zero,
          source: layer.row(frameRow) + content.x, opacity: 1)
      }
      if let out, let onto, out.y <= frameRow && frameRow < out.maxY {
        let pixels = row + (out.x - reach.x)
        matrix?.apply(row: pixels, count: out.width)
        onto.blend(pixels, row: frameRow, count: out.width, rowsEnd: out.maxY)
      }
    }
    if let out { target.dirty = target.dirty.union(out.offsetBy(-target.x0, -target.y0)) }
  }
}
