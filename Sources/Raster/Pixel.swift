import Foundation

/// One pixel: red, green, blue and alpha, premultiplied, in gamma-encoded sRGB
/// (docs/SWIFTUI-SEMANTICS.md, Compositing).
public typealias Pixel = SIMD4<Float>

/// One channel of eight neighbouring pixels, for the hot loops that work a span at a time.
///
/// The vector width of the hot loops is chosen here and nowhere else: eight floats, one AVX2
/// register (the x86-64-v3 build; docs/PERFORMANCE.md). `LaneBits` and `LaneBytes` are its
/// integer companions of the same width. The span kernels (the radial gradient's table
/// positions, the YUV conversion's eight-pixel transposes) are written for eight lanes.
public typealias Lanes = SIMD8<Float>
/// `Lanes`' bit patterns, one 32-bit word a lane.
public typealias LaneBits = SIMD8<UInt32>
/// One byte a lane of `Lanes`: eight 8-bit samples.
public typealias LaneBytes = SIMD8<UInt8>

/// A color as SwiftUI resolves it: straight (not premultiplied) gamma-encoded sRGB and an alpha.
///
/// Components may leave 0...1 on their way through color filters; they are clamped only at output.
public struct Color: Hashable, Sendable, CustomStringConvertible {
  public var red: Float
  public var green: Float
  public var blue: Float
  public var alpha: Float

  public init(red: Float, green: Float, blue: Float, alpha: Float = 1) {
    (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
  }

  /// A color from 0-255 sRGB components, as the system palette tables give them.
  public init(rgb255 r: Int, _ g: Int, _ b: Int, alpha: Float = 1) {
    self.init(red: Float(r) / 255, green: Float(g) / 255, blue: Float(b) / 255, alpha: alpha)
  }

  public static let clear = Color(red: 0, green: 0, blue: 0, alpha: 0)  // transparent black, as SwiftUI's
  public static let white = Color(red: 1, green: 1, blue: 1)
  public static let black = Color(red: 0, green: 0, blue: 0)

  /// The same color with its alpha multiplied by `amount`, as SwiftUI's `opacity(_:)`.
  public func opacity(_ amount: Double) -> Color {
    var copy = self
    copy.alpha *= Float(amount)
    return copy
  }

  /// The premultiplied pixel of this color.
  ///
  /// Total, as Skia's paint colors: alpha is clamped to 0...1 and components to -4...4 (far
  /// beyond extended sRGB), and a component that is not a number counts as 0, so no NaN or
  /// infinity reaches a blend.
  public var premultiplied: Pixel {
    let c = bounded
    return Pixel(c.red * c.alpha, c.green * c.alpha, c.blue * c.alpha, c.alpha)
  }

  /// This color with alpha held to 0...1, components to -4...4, and a component that is not a
  /// number as 0; the same color, bit for bit, when it is already in range.
  public var bounded: Color {
    @inline(__always) func held(_ v: Float, _ lo: Float, _ hi: Float) -> Float {
      v > lo ? (v < hi ? v : hi) : (v == lo ? lo : (v < lo ? lo : 0))
    }
    return Color(red: held(red, -4, 4), green: held(green, -4, 4), blue: held(blue, -4, 4), alpha: held(alpha, 0, 1))
  }

  /// `#RRGGBB` or `#RRGGBBAA`, rounded to 8 bits.
  public var hex: String {
    func byte(_ v: Float) -> String {
      let b = Int((min(max(v, 0), 1) * 255).rounded())
      let digits = String(b, radix: 16)
      return digits.count == 1 ? "0" + digits : digits
    }
    return "#" + byte(red) + byte(green) + byte(blue) + (alpha < 1 ? byte(alpha) : "")
  }

  public var description: String { hex }
}
