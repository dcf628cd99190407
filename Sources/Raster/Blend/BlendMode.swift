/// How a drawing combines with what is under it (premultiplied, docs/SWIFTUI-SEMANTICS.md, Compositing).
public enum BlendMode: Sendable, Hashable {
  /// `s + d (1 - as)`.
  case sourceOver
  /// `s + d - s d`, per channel and for alpha.
  case screen
}

protocol BlendKernel {
  static func blend(_ s: Pixel, _ d: Pixel) -> Pixel
}

enum SourceOverKernel: BlendKernel {
  @inline(__always) static func blend(_ s: Pixel, _ d: Pixel) -> Pixel {
    let keep = Pixel(repeating: 1 - s.w)
    return s + d * keep
  }
}

enum ScreenKernel: BlendKernel {
  @inline(__always) static func blend(_ s: Pixel, _ d: Pixel) -> Pixel { s + d - s * d }
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
    for i in 0..<count {
      let a = cov[i] * opacity
      if a <= 0 { continue }
      dest[i] = K.blend(src[i] * a, dest[i])
    }
  case (let cov?, nil):
    for i in 0..<count {
      let a = cov[i] * opacity
      if a <= 0 { continue }
      dest[i] = K.blend(solid * a, dest[i])
    }
  case (nil, let src?):
    if opacity == 1 {
      for i in 0..<count { dest[i] = K.blend(src[i], dest[i]) }
    } else {
      for i in 0..<count { dest[i] = K.blend(src[i] * opacity, dest[i]) }
    }
  case (nil, nil):
    let s = solid * opacity
    for i in 0..<count { dest[i] = K.blend(s, dest[i]) }
  }
}
