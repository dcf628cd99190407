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
    let profile = surface.entering(.discs)
    defer { profile?.leave() }
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
    let profile = surface.entering(.discs)
    defer { profile?.leave() }
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

  /// Eight pixels from memory, transposed to a vector a channel (`chints_load_pixels8`: eight
  /// shuffles), as the YUV conversion loads them.
  @_transparent init(loading p: UnsafePointer<Pixel>) {
    var v = (Lanes(), Lanes(), Lanes(), Lanes())
    withUnsafeMutableBytes(of: &v) {
      chints_load_pixels8(
        UnsafeRawPointer(p).assumingMemoryBound(to: Float.self), $0.baseAddress!.assumingMemoryBound(to: Float.self))
    }
    (r, g, b, a) = v
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
  ///
  /// A row is held a plane a channel (`RowPlanes`, a few KB: it stays in the L1 cache) and each
  /// disc is shaded over its chunks of the row in one tight loop, its constants in registers:
  /// the chunks wholly inside its rim without coverage, the rim's with it. Every pixel goes
  /// through the same operations in the same order as when each chunk took every disc in turn,
  /// so the same bits; that order (a chunk at a time, every disc) kept too much live to stay in
  /// registers and spent most of its time spilling and reloading.
  static func draw(
    _ moments: [GraphicsContext.FusedDiscs], weights: [Float], mode: BlendMode, opacity: Float, onto layer: Layer,
    base: Pixel?
  ) -> IntRect {
    switch mode {
    case .screen: draw(ScreenLanes.self, moments, weights: weights, opacity: opacity, onto: layer, base: base)
    case .sourceOver: draw(SourceOverLanes.self, moments, weights: weights, opacity: opacity, onto: layer, base: base)
    }
  }

  private static func draw<K: LaneBlendKernel>(
    _: K.Type, _ moments: [GraphicsContext.FusedDiscs], weights: [Float], opacity: Float, onto layer: Layer,
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
    var ends = [Int](repeating: 0, count: moments.count)
    let allSegments = moments.flatMap(\.segments)
    let segments = UnsafeMutablePointer<Falloff.Segment>.allocate(capacity: max(allSegments.count, 1))
    defer { segments.deallocate() }
    segments.initialize(from: allSegments, count: allSegments.count)
    // Each segment's terms in `K`'s form eight lanes wide, read from memory in the loops: built
    // there from a segment's four channels, the compiler split the lanes into halves.
    let terms = UnsafeMutablePointer<Pixels8>.allocate(capacity: max(2 * allSegments.count, 1))
    defer { terms.deallocate() }
    for (i, segment) in allSegments.enumerated() {
      (terms + 2 * i).initialize(to: Pixels8(repeating: K.offset(segment)))
      (terms + 2 * i + 1).initialize(to: Pixels8(repeating: K.slope(segment)))
    }
    var segmentBases: [Int] = []
    var segmentCount = 0
    for m in moments {
      segmentBases.append(segmentCount)
      segmentCount += m.segments.count
    }
    // The row a plane a channel: what the discs blend onto (`held`), the pixels read (without a
    // base), the moments mixed (with more than one).
    let planes = RowPlanes(width: width, held: true, start: base == nil, mixed: moments.count > 1)
    defer { planes.deallocate() }
    let opaque = base.map { $0.w == 1 } ?? false
    // With a base every chunk starts from it (tested once a loop, not unwrapped a chunk).
    let fromBase = base != nil
    let baseStart = Pixels8(repeating: base ?? .zero), baseHeld = K.hold(baseStart)
    // Over an opaque base a kernel that keeps pixels opaque never reads or writes the held
    // alpha; it stays what the base holds, which is what a plane not read gives (0: `hold` of
    // alpha 1 for the screen), so that plane is neither filled nor read.
    let heldAlpha = !(opaque && K.keepsOpaque) || baseHeld.a != Lanes(repeating: 0)
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
        // The pixels read, a plane a channel; the row's last few through eight of scratch.
        var x = rowLo
        while x < rowHi {
          planes.storeStart(Pixels8(loading: chunkSource(dest, x: x, width: width, tail: tail)), at: x)
          x += 8
        }
      }
      var first = 0
      for m in 0..<moments.count {
        // The moment starts from the pixels, held as `K` blends onto them.
        var x = rowLo
        while x < rowHi {
          planes.storeHeld(fromBase ? baseHeld : K.hold(planes.start(at: x)), at: x, alpha: heldAlpha)
          x &+= 8
        }
        for k in first..<ends[m] {
          shadeRow(
            K.self, rowDiscs[k], from: rowLo, segments: segments, terms: terms, opacity: opacity, opaque: opaque,
            planes)
        }
        first = ends[m]
        // The moment's pixels back from how `K` held them, mixed by weight when there are more.
        x = rowLo
        while x < rowHi {
          let start = fromBase ? baseStart : planes.start(at: x)
          let p = K.release(
            planes.held(at: x, alpha: heldAlpha), held: fromBase ? baseHeld : K.hold(start), start: start)
          if moments.count == 1 {
            store(p, dest, x: x, width: width, tail: tail)
          } else {
            var mixed = m == 0 ? start : planes.mixed(at: x)
            mixed.mix(p, weight: weights[m], first: m == 0)
            planes.storeMixed(mixed, at: x)
          }
          x += 8
        }
      }
      if moments.count > 1 {
        var x = rowLo
        while x < rowHi {
          store(planes.mixed(at: x), dest, x: x, width: width, tail: tail)
          x += 8
        }
      }
    }
    return touched
  }

  /// The eight pixels of the row from column `x`: in place, or the row's last few in `tail`
  /// (zero past the row).
  @inline(__always) private static func chunkSource(
    _ row: UnsafeMutablePointer<Pixel>, x: Int, width: Int, tail: UnsafeMutablePointer<Pixel>
  ) -> UnsafePointer<Pixel> {
    let count = min(8, width - x)
    if count == 8 { return UnsafePointer(row + x) }
    tail.update(repeating: .zero, count: 8)
    tail.update(from: row + x, count: count)
    return UnsafePointer(tail)
  }

  /// Eight pixels written at column `x` of the row, the row's last few through `tail`.
  @inline(__always) private static func store(
    _ p: Pixels8, _ row: UnsafeMutablePointer<Pixel>, x: Int, width: Int, tail: UnsafeMutablePointer<Pixel>
  ) {
    let count = min(8, width - x)
    if count == 8 {
      p.store(row + x)
    } else {
      p.store(tail)
      (row + x).update(from: tail, count: count)
    }
  }

  /// One disc over the chunks of its row from the first at or after `from` (a multiple of
  /// eight): the rim's chunks with coverage, the ones wholly inside without, each loop with the
  /// disc's constants hoisted.
  @inline(__always)
  private static func shadeRow<K: LaneBlendKernel>(
    _: K.Type, _ r: RowDisc, from: Int, segments: UnsafePointer<Falloff.Segment>,
    terms: UnsafeMutablePointer<Pixels8>, opacity: Float, opaque: Bool,
    _ planes: RowPlanes
  ) {
    let lo = max(r.lo & ~7, from), hi = r.hi
    // The chunks x with innerLo <= x and x + 8 <= innerHi, as a range of chunk starts.
    var inLo = hi, inHi = hi
    if r.innerLo <= r.innerHi {
      inLo = min(max((r.innerLo + 7) & ~7, lo), hi)
      inHi = max(min(r.innerHi - 8, hi - 1), inLo - 8)
      inHi = inHi < inLo ? inLo : min((inHi & ~7) + 8, hi)
    }
    let s = segments + r.segmentBase, t = terms + 2 * r.segmentBase
    // Each case its own loops, its tests decided here, not a chunk at a time: opaque pixels
    // under a kernel that keeps them opaque (no alpha read or written), and a disc of one
    // segment at full opacity (Color Orbs' orbs: no segment chosen, no opacity applied inside).
    let simple = r.disc.segments.count == 1 && opacity == 1
    @inline(__always) func runs(opacity: Float, opaque: Bool, simple: Bool) {
      shadeRun(K.self, r, lo..<inLo, inside: false, s, t, opacity: opacity, opaque: opaque, simple: simple, planes)
      shadeRun(K.self, r, inLo..<inHi, inside: true, s, t, opacity: opacity, opaque: opaque, simple: simple, planes)
      shadeRun(K.self, r, inHi..<hi, inside: false, s, t, opacity: opacity, opaque: opaque, simple: simple, planes)
    }
    switch (opaque && K.keepsOpaque, simple) {
    case (true, true): runs(opacity: 1, opaque: true, simple: true)
    case (true, false): runs(opacity: opacity, opaque: true, simple: false)
    default: runs(opacity: opacity, opaque: opaque, simple: false)
    }
  }

  /// One disc over the chunks starting in `columns` (from a multiple of eight), in the row's
  /// planes; `inside`: they lie wholly inside its rim; `simple`: the disc has one segment and
  /// `opacity` is 1.
  @_transparent
  private static func shadeRun<K: LaneBlendKernel>(
    _: K.Type, _ r: RowDisc, _ columns: Range<Int>, inside: Bool, _ segments: UnsafePointer<Falloff.Segment>,
    _ terms: UnsafeMutablePointer<Pixels8>, opacity: Float, opaque: Bool, simple: Bool, _ planes: RowPlanes
  ) {
    guard !columns.isEmpty else { return }
    let d = r.disc
    let a0 = terms[2 * d.segments.lowerBound], b0 = terms[2 * d.segments.lowerBound + 1]
    let more = !simple && d.segments.count > 1
    let keepAlpha = !(opaque && K.keepsOpaque)
    var x = columns.lowerBound
    while x < columns.upperBound {
      var h = planes.held(at: x, alpha: keepAlpha)
      shade(
        K.self, r, x: x, inside: inside, first: (a0, b0), more: more, segments: segments, opacity: opacity,
        opaque: opaque, onto: &h)
      planes.storeHeld(h, at: x, alpha: keepAlpha)
      x &+= 8
    }
  }

  /// One disc shaded over eight pixels of its row and blended onto `h` (held as `K` holds it):
  /// the coverage from the distance to the rim (`discCoverage`; 1 where the eight lie wholly
  /// inside it: `inside`, which may be false where they do, to the same bits), the color from
  /// the falloff's segment at that distance (`first`, the first segment's terms; `more`: the
  /// disc has more segments).
  @_transparent
  private static func shade<K: LaneBlendKernel>(
    _: K.Type, _ r: RowDisc, x: Int, inside: Bool, first: (a: Pixels8, b: Pixels8), more: Bool,
    segments: UnsafePointer<Falloff.Segment>, opacity: Float, opaque: Bool, onto h: inout Pixels8
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
    var (a, b) = first
    if more {
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
    }
    var v = Pixels8(r: a.r + b.r * held, g: a.g + b.g * held, b: a.b + b.b * held, a: zero)
    if !(opaque && K.keepsOpaque) { v.a = a.a + b.a * held }
    if !(inside && opacity == 1) { v = K.cover(v, alpha) }  // times 1 is the same bits
    K.blend(v, &h, opaque: opaque)
  }
}

/// A row of pixels held a plane a channel, eight-aligned and padded to whole chunks of eight:
/// what `DiscRows` blends onto (`held`), the row's pixels as read (`start`), the moments of a
/// crossfade mixed (`mixed`). A plane is a row's width of floats, 4.3 KB at 1080 pixels.
struct RowPlanes {
  private let memory: UnsafeMutableRawPointer
  /// Floats a plane (the width rounded up to a chunk).
  private let stride: Int
  private let heldPlanes: UnsafeMutablePointer<Float>
  private let startPlanes: UnsafeMutablePointer<Float>
  private let mixedPlanes: UnsafeMutablePointer<Float>

  init(width: Int, held: Bool, start: Bool, mixed: Bool) {
    let stride = (width + 7) & ~7
    let count = max([held, start, mixed].filter { $0 }.count, 1) * 4 * stride
    let memory = UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<Float>.stride, alignment: 64)
    let floats = memory.bindMemory(to: Float.self, capacity: count)
    // Each set wanted takes the next four planes; one not wanted is never read.
    var next = floats
    var planes: [UnsafeMutablePointer<Float>] = []
    for wanted in [held, start, mixed] {
      planes.append(wanted ? next : floats)
      if wanted { next += 4 * stride }
    }
    (self.memory, self.stride) = (memory, stride)
    (heldPlanes, startPlanes, mixedPlanes) = (planes[0], planes[1], planes[2])
  }

  func deallocate() { memory.deallocate() }

  @_transparent private func load(_ planes: UnsafeMutablePointer<Float>, _ x: Int, alpha: Bool) -> Pixels8 {
    let p = UnsafeRawPointer(planes + x)
    let step = stride * MemoryLayout<Float>.stride
    return Pixels8(
      r: p.load(as: Lanes.self), g: p.load(fromByteOffset: step, as: Lanes.self),
      b: p.load(fromByteOffset: 2 * step, as: Lanes.self),
      a: alpha ? p.load(fromByteOffset: 3 * step, as: Lanes.self) : Lanes(repeating: 0))
  }

  @_transparent private func store(_ v: Pixels8, _ planes: UnsafeMutablePointer<Float>, _ x: Int, alpha: Bool) {
    let p = UnsafeMutableRawPointer(planes + x)
    let step = stride * MemoryLayout<Float>.stride
    p.storeBytes(of: v.r, as: Lanes.self)
    p.storeBytes(of: v.g, toByteOffset: step, as: Lanes.self)
    p.storeBytes(of: v.b, toByteOffset: 2 * step, as: Lanes.self)
    if alpha { p.storeBytes(of: v.a, toByteOffset: 3 * step, as: Lanes.self) }
  }

  /// The eight held pixels from column `x` (a multiple of eight); without `alpha`, their alpha
  /// is neither read nor written (0 read: a kernel keeping opaque pixels opaque never reads it).
  @_transparent func held(at x: Int, alpha: Bool) -> Pixels8 { load(heldPlanes, x, alpha: alpha) }
  @_transparent func storeHeld(_ v: Pixels8, at x: Int, alpha: Bool) { store(v, heldPlanes, x, alpha: alpha) }
  @_transparent func start(at x: Int) -> Pixels8 { load(startPlanes, x, alpha: true) }
  @_transparent func storeStart(_ v: Pixels8, at x: Int) { store(v, startPlanes, x, alpha: true) }
  @_transparent func mixed(at x: Int) -> Pixels8 { load(mixedPlanes, x, alpha: true) }
  @_transparent func storeMixed(_ v: Pixels8, at x: Int) { store(v, mixedPlanes, x, alpha: true) }
}

/// The coverage of a pixel whose center lies `distance` pixels from the center of a disc of
/// `radius` pixels: its distance inside the rim plus half a pixel, held to 0...1.
@inline(__always) func discCoverage(distance: Float, radius: Float) -> Float {
  min(max(radius + 0.5 - distance, 0), 1)
}
