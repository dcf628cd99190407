import Foundation

/// How a color animates from one to another: through the Oklab-type carrier SwiftUI's resolved
/// colors animate in (docs/SWIFTUI-SEMANTICS.md, Animation), not straight through sRGB.
///
/// Colors are straight (not premultiplied) gamma-encoded sRGB, `SIMD4(r, g, b, a)`. The carrier is
/// 128·cbrt(M1 · linear sRGB) for the color and 128·a for the alpha; a mix lerps carriers. Values
/// outside 0...1 (extended sRGB, or a spring's overshoot) pass through sign-symmetrically.
public enum ColorInterpolation {
  // Linear sRGB to LMS: docs/SWIFTUI-SEMANTICS.md, Animation, from runtime-observed Color.Resolved data.
  static let toLMS = (
    SIMD3(0.4122214708, 0.5363325363, 0.0514459929),
    SIMD3(0.2119034982, 0.6806995451, 0.1073969566),
    SIMD3(0.0883024619, 0.2817188376, 0.6299787005)
  )
  static let fromLMS = (
    SIMD3(4.0767416621, -3.3077115913, 0.2309699292),
    SIMD3(-1.2684380046, 2.6097574011, -0.3413193965),
    SIMD3(-0.0041960863, -0.7034186147, 1.7076147010)
  )

  /// The color `t` of the way from `a` to `b`: `a` at 0 and `b` at 1 exactly, beyond them for t
  /// outside 0...1. A `t` that is not a number gives `a`.
  public static func mix(_ a: SIMD4<Double>, _ b: SIMD4<Double>, _ t: Double) -> SIMD4<Double> {
    guard t.isFinite, t != 0 else { return a }
    if t == 1 || a == b { return b }  // a round trip through the carrier would be a few ulps off
    let (ca, cb) = (carrier(a), carrier(b))
    return color(fromCarrier: ca + (cb - ca) * t)
  }

  /// The carrier of a color: the numbers an animation lerps.
  public static func carrier(_ color: SIMD4<Double>) -> SIMD4<Double> {
    let linear = SIMD3(decode(color.x), decode(color.y), decode(color.z))
    let lms = SIMD3((toLMS.0 * linear).sum(), (toLMS.1 * linear).sum(), (toLMS.2 * linear).sum())
    return SIMD4(128 * cbrt(lms.x), 128 * cbrt(lms.y), 128 * cbrt(lms.z), 128 * color.w)
  }

  /// The color a carrier stands for.
  public static func color(fromCarrier carrier: SIMD4<Double>) -> SIMD4<Double> {
    let root = SIMD3(carrier.x, carrier.y, carrier.z) / 128
    let lms = root * root * root
    let linear = SIMD3((fromLMS.0 * lms).sum(), (fromLMS.1 * lms).sum(), (fromLMS.2 * lms).sum())
    return SIMD4(encode(linear.x), encode(linear.y), encode(linear.z), carrier.w / 128)
  }

  /// The sRGB transfer function, gamma-encoded to linear, mirrored for negative values.
  static func decode(_ v: Double) -> Double {
    let m = abs(v)
    let linear = m <= 0.04045 ? m / 12.92 : pow((m + 0.055) / 1.055, 2.4)
    return v < 0 ? -linear : linear
  }

  /// Linear to gamma-encoded sRGB, mirrored for negative values.
  static func encode(_ v: Double) -> Double {
    let m = abs(v)
    let encoded = m <= 0.0031308 ? m * 12.92 : 1.055 * pow(m, 1 / 2.4) - 0.055
    return v < 0 ? -encoded : encoded
  }
}
