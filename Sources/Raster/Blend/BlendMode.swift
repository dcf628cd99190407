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
}

enum SourceOverKernel: BlendKernel {
  @inline(__always) static func blend(_ s: Pixel, _ d: Pixel) -> Pixel {
    let keep = Pixel(repeating: 1 - s.w)
    return s + d * keep
  }

  @inline(__always) static func blend(pairs s: Lanes, _ d: Lanes) -> Lanes {
    s + d * (1 - chints_alpha_pairs8(s))
  }
}

enum ScreenKernel: BlendKernel {
  @inline(__always) static func blend(_ s: Pixel, _ d: Pixel) -> Pixel { s + d - s * d }
  @inline(__always) static func blend(pairs s: Lanes, _ d: Lanes) -> Lanes { s + d - s * d }
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
    // Two pixels a vector (`blend(pairs:)`), the odd last one alone: the same bits as one at a time.
    let (from, to) = (UnsafeRawPointer(src), UnsafeMutableRawPointer(dest))
    let o = Lanes(repeating: opacity)
    for j in 0..<(count / 2) {
      let at = j * 32
      var s = from.loadUnaligned(fromByteOffset: at, as: Lanes.self)
      if opacity != 1 { s *= o }
      to.storeBytes(
        of: K.blend(pairs: s, to.loadUnaligned(fromByteOffset: at, as: Lanes.self)), toByteOffset: at, as: Lanes.self)
    }
    if count % 2 == 1 {
      let s = src[count - 1]
      dest[count - 1] = K.blend(opacity == 1 ? s : s * opacity, dest[count - 1])
    }
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

/// Blends `source` times `mask` (a clip's coverage a pixel) onto `dest`, then times `opacity`
/// where it is not 1: the products in that order, as blending a row first multiplied by the mask
/// would, two pixels a vector (`blend(pairs:)`), so the same bits without the masked row written.
@inline(__always)
func blendSpan(
  _ mode: BlendMode, count: Int, dest: UnsafeMutablePointer<Pixel>, source: UnsafePointer<Pixel>,
  mask: UnsafePointer<Float>, opacity: Float
) {
  switch mode {
  case .sourceOver: blendMaskedSpan(SourceOverKernel.self, count, dest, source, mask, opacity)
  case .screen: blendMaskedSpan(ScreenKernel.self, count, dest, source, mask, opacity)
  }
}

@inline(__always)
private func blendMaskedSpan<K: BlendKernel>(
  _: K.Type, _ count: Int, _ dest: UnsafeMutablePointer<Pixel>, _ src: UnsafePointer<Pixel>,
  _ mask: UnsafePointer<Float>, _ opacity: Float
) {
  let (from, to) = (UnsafeRawPointer(src), UnsafeMutableRawPointer(dest))
  let o = Lanes(repeating: opacity)
  for j in 0..<(count / 2) {
    let at = j * 32
    let m = Lanes(lowHalf: Pixel(repeating: mask[2 * j]), highHalf: Pixel(repeating: mask[2 * j + 1]))
    var s = from.loadUnaligned(fromByteOffset: at, as: Lanes.self) * m
    if opacity != 1 { s *= o }
    to.storeBytes(
      of: K.blend(pairs: s, to.loadUnaligned(fromByteOffset: at, as: Lanes.self)), toByteOffset: at, as: Lanes.self)
  }
  if count % 2 == 1 {
    let i = count - 1
    var s = src[i] * mask[i]
    if opacity != 1 { s *= opacity }
    dest[i] = K.blend(s, dest[i])
  }
}
