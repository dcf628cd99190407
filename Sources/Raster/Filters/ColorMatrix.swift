import CHints
import Foundation

/// A map of straight gamma-encoded RGB: `out = M * rgb + offset`, alpha kept
/// (docs/SWIFTUI-SEMANTICS.md, View modifiers).
public struct ColorMatrix: Sendable, Hashable {
  public var r: SIMD4<Float>  // (m00, m01, m02, offset)
  public var g: SIMD4<Float>
  public var b: SIMD4<Float>

  public init(r: SIMD4<Float>, g: SIMD4<Float>, b: SIMD4<Float>) { (self.r, self.g, self.b) = (r, g, b) }

  public static let identity = ColorMatrix(r: [1, 0, 0, 0], g: [0, 1, 0, 0], b: [0, 0, 1, 0])

  /// `brightness(b)`: adds `b` to red, green and blue.
  public static func brightness(_ amount: Double) -> ColorMatrix {
    let a = Float(amount)
    return ColorMatrix(r: [1, 0, 0, a], g: [0, 1, 0, a], b: [0, 0, 1, a])
  }

  /// `saturation(s)`: SVG feColorMatrix saturate; 1 leaves colors alone, 0 is grey.
  public static func saturation(_ amount: Double) -> ColorMatrix {
    let s = Float(amount)
    return ColorMatrix(
      r: [0.213 + 0.787 * s, 0.715 - 0.715 * s, 0.072 - 0.072 * s, 0],
      g: [0.213 - 0.213 * s, 0.715 + 0.285 * s, 0.072 - 0.072 * s, 0],
      b: [0.213 - 0.213 * s, 0.715 - 0.715 * s, 0.072 + 0.928 * s, 0])
  }

  /// `hueRotation(θ)`: SVG feColorMatrix hueRotate; positive angles move red toward yellow.
  public static func hueRotation(radians: Double) -> ColorMatrix {
    let c = Float(cos(radians)), s = Float(sin(radians))
    return ColorMatrix(
      r: [0.213 + 0.787 * c - 0.213 * s, 0.715 - 0.715 * c - 0.715 * s, 0.072 - 0.072 * c + 0.928 * s, 0],
      g: [0.213 - 0.213 * c + 0.143 * s, 0.715 + 0.285 * c + 0.140 * s, 0.072 - 0.072 * c - 0.283 * s, 0],
      b: [0.213 - 0.213 * c - 0.787 * s, 0.715 - 0.715 * c + 0.715 * s, 0.072 + 0.928 * c + 0.072 * s, 0])
  }

  /// `self` after `inner`: applying the result equals applying `inner`, then `self`.
  public func concatenating(_ inner: ColorMatrix) -> ColorMatrix {
    func row(_ m: SIMD4<Float>) -> SIMD4<Float> {
      let col = { (i: Int) in m.x * inner.r[i] + m.y * inner.g[i] + m.z * inner.b[i] }
      return SIMD4(col(0), col(1), col(2), col(3) + m.w)
    }
    return ColorMatrix(r: row(r), g: row(g), b: row(b))
  }

  /// The matrix applied to one premultiplied pixel: the straight color `rgb / a` mapped and
  /// premultiplied again, `(M * rgb / a + offset) * a` (docs/SWIFTUI-SEMANTICS.md, View
  /// modifiers), computed as `M * rgb + offset * a`, with no division: within 4e-7 of that
  /// formula in double precision, alphas down to 1e-6 included (`PaintTests`). A pixel whose alpha
  /// is not above 0 (or not a number) is clear.
  @inline(__always) public func apply(_ p: Pixel) -> Pixel {
    let a = p.w
    guard a > 0 else { return .zero }
    @inline(__always) func channel(_ m: SIMD4<Float>) -> Float { m.x * p.x + m.y * p.y + m.z * p.z + m.w * a }
    return Pixel(channel(r), channel(g), channel(b), a)
  }

  /// `apply` on each of `count` pixels at `row`, in place, eight at a time as a vector a channel
  /// (the rest one at a time). The same operations lane by lane as `apply`, in the same order, so
  /// the same bits: a layer's filter (the voice orb's hue rotation) over a whole band.
  func apply(row: UnsafeMutablePointer<Pixel>, count: Int) {
    var x = 0
    while x + 8 <= count {
      let p = Pixels8(loading: row + x)
      @inline(__always) func channel(_ m: SIMD4<Float>) -> Lanes {
        let sum =
          Lanes(repeating: m.x) * p.r + Lanes(repeating: m.y) * p.g + Lanes(repeating: m.z) * p.b
          + Lanes(repeating: m.w) * p.a
        return chints_where_positive8(sum, p.a)
      }
      Pixels8(r: channel(r), g: channel(g), b: channel(b), a: chints_where_positive8(p.a, p.a)).store(row + x)
      x += 8
    }
    while x < count {
      row[x] = apply(row[x])
      x += 1
    }
  }
}

/// An effect applied to each drawing operation of a context (docs/SWIFTUI-SEMANTICS.md, The graphics context).
public enum Filter: Sendable, Hashable {
  /// A Gaussian blur whose radius is its standard deviation, in the context's user units.
  case blur(radius: Float)
  case colorMatrix(ColorMatrix)
}
