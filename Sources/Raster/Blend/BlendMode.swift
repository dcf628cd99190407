import CHints

/// How a drawing combines with what is under it (premultiplied, docs/SWIFTUI-SEMANTICS.md, Compositing).
public enum BlendMode: Sendable, Hashable {
  /// `s + d (1 - as)`.
  case sourceOver
  /// `s + d - s d`, per channel and for alpha.
  case screen
}

protocol BlendKernel {
  static func blend(_ s: Pixel, _ d: Pixel) -> Pixel
  /// `blend` of two pixels at once, held as eight lanes (r, g, b, a | r, g, b, a): the same
  /// operations lane by lane, so the same bits.
  static func blend(pairs s: Lanes, _ d: Lanes) -> Lanes
  /// Whether a clear source leaves the pixel under it as it is (`d * (1 - 0) + 0` and
  /// `0 + d - 0 * d` are `d`, but for a -0 made +0), so that a run of clear source pixels may be
  /// skipped: true for the blend modes, false for a kernel that writes.
  static var clearKeepsUnder: Bool { get }
}

enum SourceOverKernel: BlendKernel {
  @inline(__always) static func blend(_ s: Pixel, _ d: Pixel) -> Pixel {
    let keep = Pixel(repeating: 1 - s.w)
    return s + d * keep
  }

  @inline(__always) static func blend(pairs s: Lanes, _ d: Lanes) -> Lanes {
    s + d * (1 - chints_alpha_pairs8(s))
  }

  static var clearKeepsUnder: Bool { true }
}

/// `K` onto a clear pixel, whatever the destination holds: for rows written whole that clearing
/// would have made clear (`RowBlend.ontoClear`). The same operations on a clear `d`, so the same
/// bits, and the old pixel is never read.
enum OntoClearKernel<K: BlendKernel>: BlendKernel {
  @inline(__always) static func blend(_ s: Pixel, _ d: Pixel) -> Pixel { K.blend(s, .zero) }
  @inline(__always) static func blend(pairs s: Lanes, _ d: Lanes) -> Lanes { K.blend(pairs: s, Lanes(repeating: 0)) }
  static var clearKeepsUnder: Bool { false }
}

enum ScreenKernel: BlendKernel {
  @inline(__always) static func blend(_ s: Pixel, _ d: Pixel) -> Pixel { s + d - s * d }
  @inline(__always) static func blend(pairs s: Lanes, _ d: Lanes) -> Lanes { s + d - s * d }
  static var clearKeepsUnder: Bool { true }
}

/// Calls `body` with each index of `0..<count` but those in runs of eight whose coverage is all
/// zero or less, which blend nothing at any opacity (never negative): a thin shape's row is mostly
/// such runs (a rain streak crosses a few pixels of a row whose coverage spans the frame).
@inline(__always)
private func forEachCovered(_ cov: UnsafePointer<Float>, _ count: Int, _ body: (Int) -> Void) {
  var i = 0
  while i + 8 <= count {
    let eight = UnsafeRawPointer(cov + i).loadUnaligned(as: SIMD8<Float>.self)
    if !all(eight .<= 0) {  // NaN is not skipped, as one at a time
      for j in i..<(i + 8) { body(j) }
    }
    i += 8
  }
  while i < count {
    body(i)
    i += 1
  }
}

/// Blends a span of pixels onto `dest`. Both modes are linear in the source, so scaling the source
/// by coverage is exact. The mode is picked once per span, never per pixel.
@inline(__always)
func blendSpan(
  _ mode: BlendMode, count: Int, dest: UnsafeMutablePointer<Pixel>,
  coverage: UnsafePointer<Float>?, solid: Pixel, source: UnsafePointer<Pixel>?, opacity: Float
) {
  switch mode {
  case .sourceOver:
    blendSpan(SourceOverKernel.self, count, dest, coverage, solid, source, opacity)
  case .screen:
    blendSpan(ScreenKernel.self, count, dest, coverage, solid, source, opacity)
  }
}

@inline(__always)
private func blendSpan<K: BlendKernel>(
  _: K.Type, _ count: Int, _ dest: UnsafeMutablePointer<Pixel>, _ coverage: UnsafePointer<Float>?,
  _ solid: Pixel, _ source: UnsafePointer<Pixel>?, _ opacity: Float
) {
  switch (coverage, source) {
  case (let cov?, let src?):
    forEachCovered(cov, count) { i in
      let a = cov[i] * opacity
      if a <= 0 { return }
      dest[i] = K.blend(src[i] * a, dest[i])
    }
  case (let cov?, nil):
    forEachCovered(cov, count) { i in
      let a = cov[i] * opacity
      if a <= 0 { return }
      dest[i] = K.blend(solid * a, dest[i])
    }
  case (nil, let src?):
    blendSourceSpan(K.self, count, dest, src, nil, opacity)
  case (nil, nil):
    let s = solid * opacity
    let s2 = Lanes(lowHalf: s, highHalf: s)
    let to = UnsafeMutableRawPointer(dest)
    for j in 0..<(count / 2) {
      let at = j * 32
      to.storeBytes(
        of: K.blend(pairs: s2, to.loadUnaligned(fromByteOffset: at, as: Lanes.self)), toByteOffset: at, as: Lanes.self)
    }
    if count % 2 == 1 { dest[count - 1] = K.blend(s, dest[count - 1]) }
  }
}

/// Blends `source` times `mask` (a clip's coverage a pixel), if any, onto `dest`, then times
/// `opacity` where it is not 1: the products in that order, as blending a row first multiplied by
/// the mask would, two pixels a vector (`blend(pairs:)`), so the same bits without the masked row
/// written. With `ontoClear`, as onto clear pixels (`OntoClearKernel`): `dest` is only written.
@inline(__always)
func blendSpan(
  _ mode: BlendMode, count: Int, dest: UnsafeMutablePointer<Pixel>, source: UnsafePointer<Pixel>,
  mask: UnsafePointer<Float>?, opacity: Float, ontoClear: Bool = false
) {
  switch (mode, ontoClear) {
  case (.sourceOver, false): blendSourceSpan(SourceOverKernel.self, count, dest, source, mask, opacity)
  case (.screen, false): blendSourceSpan(ScreenKernel.self, count, dest, source, mask, opacity)
  case (.sourceOver, true): blendSourceSpan(OntoClearKernel<SourceOverKernel>.self, count, dest, source, mask, opacity)
  case (.screen, true): blendSourceSpan(OntoClearKernel<ScreenKernel>.self, count, dest, source, mask, opacity)
  }
}

@inline(__always)
private func blendSourceSpan<K: BlendKernel>(
  _: K.Type, _ count: Int, _ dest: UnsafeMutablePointer<Pixel>, _ src: UnsafePointer<Pixel>,
  _ mask: UnsafePointer<Float>?, _ opacity: Float
) {
  let from = UnsafeRawPointer(src)
  blendPairs(
    K.self, 0..<count, onto: dest, mask: mask, opacity: opacity,
    pair: { x in from.loadUnaligned(fromByteOffset: x &* 16, as: Lanes.self) }, one: { x in src[x] })
}

/// The source blends' loop: pixels `range` of a source that `pair(x)` makes two at a time
/// (pixels x and x + 1 as eight lanes, r, g, b, a | r, g, b, a) and `one(x)` alone (an odd last
/// one), each times `mask[x]` if there is a mask, then times `opacity` where it is not 1 (the
/// products in that order), blended onto `dest[x]` by `K` (`blend(pairs:)`): the same bits as one
/// pixel at a time. A source read from memory (`blendSpan`) and one made as it is blended (a
/// blur's enlarged rows, `GaussianBlur.blendRuns`) share it.
@inline(__always)
func blendPairs<K: BlendKernel>(
  _: K.Type, _ range: Range<Int>, onto dest: UnsafeMutablePointer<Pixel>, mask: UnsafePointer<Float>?,
  opacity: Float, pair: (Int) -> Lanes, one: (Int) -> Pixel
) {
  // One loop for each case, so that no pixel tests for a mask or an opacity (`pairLoop` is
  // inlined with them known).
  switch (mask, opacity != 1) {
  case (let mask?, true): pairLoop(K.self, range, dest, mask, opacity, pair, one)
  case (let mask?, false): pairLoop(K.self, range, dest, mask, nil, pair, one)
  case (nil, true): pairLoop(K.self, range, dest, nil, opacity, pair, one)
  case (nil, false): pairLoop(K.self, range, dest, nil, nil, pair, one)
  }
}

/// `blendPairs` with a mask or not, and an opacity to multiply by or not.
@inline(__always)
private func pairLoop<K: BlendKernel>(
  _: K.Type, _ range: Range<Int>, _ dest: UnsafeMutablePointer<Pixel>, _ mask: UnsafePointer<Float>?,
  _ opacity: Float?, _ pair: (Int) -> Lanes, _ one: (Int) -> Pixel
) {
  let to = UnsafeMutableRawPointer(dest)
  var x = range.lowerBound
  while x &+ 2 <= range.upperBound {
    var s = pair(x)
    if let mask { s *= Lanes(lowHalf: Pixel(repeating: mask[x]), highHalf: Pixel(repeating: mask[x &+ 1])) }
    if let opacity { s *= Lanes(repeating: opacity) }
    to.storeBytes(
      of: K.blend(pairs: s, to.loadUnaligned(fromByteOffset: x &* 16, as: Lanes.self)), toByteOffset: x &* 16,
      as: Lanes.self)
    x &+= 2
  }
  if x < range.upperBound {
    var s = one(x)
    if let mask { s *= mask[x] }
    if let opacity { s *= opacity }
    dest[x] = K.blend(s, dest[x])
  }
}
