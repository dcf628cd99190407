import Foundation

/// One pixel: red, green, blue and alpha, premultiplied, in gamma-encoded sRGB (SEMANTICS.md 2.1).
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
  public var premultiplied: Pixel {
    Pixel(red * alpha, green * alpha, blue * alpha, alpha)
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
