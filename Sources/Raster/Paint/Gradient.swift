/// Colors at locations from 0 to 1, as SwiftUI's `Gradient`.
public struct Gradient: Sendable, Hashable {
  public struct Stop: Sendable, Hashable {
    public var color: Color
    public var location: Float
    public init(color: Color, location: Float) { (self.color, self.location) = (color, location) }
  }

  /// How colors mix between stops where alpha changes (docs/SWIFTUI-SEMANTICS.md, Compositing:
  /// undocumented; premultiplied keeps fades to `.clear` free of the grey band that straight
  /// interpolation draws).
  public enum AlphaInterpolation: Sendable, Hashable {
    case premultiplied
    case straight
  }

  public var stops: [Stop]
  public var alphaInterpolation: AlphaInterpolation

  /// Stops in the given order; locations are clamped to 0...1 and kept non-decreasing, and
  /// colors are made total as `Color.premultiplied` makes them (straight interpolation reads them).
  public init(stops: [Stop], alphaInterpolation: AlphaInterpolation = .premultiplied) {
    var last: Float = 0
    self.stops = stops.map { stop in
      let loc = stop.location.isFinite ? max(min(max(stop.location, 0), 1), last) : last
      last = loc
      return Stop(color: stop.color.bounded, location: loc)
    }
    self.alphaInterpolation = alphaInterpolation
  }

  /// Colors spaced evenly, location i / (n - 1), as `Gradient(colors:)`.
  public init(colors: [Color], alphaInterpolation: AlphaInterpolation = .premultiplied) {
    let n = colors.count
    self.init(
      stops: colors.enumerated().map { i, c in
        Stop(color: c, location: n > 1 ? Float(i) / Float(n - 1) : 0)
      }, alphaInterpolation: alphaInterpolation)
  }

  /// The premultiplied color at `t`, the end colors beyond the first and last stops (pad).
  public func color(at t: Float) -> Pixel {
    guard let first = stops.first else { return .zero }
    if !(t > first.location) { return first.color.premultiplied }
    let last = stops[stops.count - 1]
    if t >= last.location { return last.color.premultiplied }
    var i = 1
    while stops[i].location < t { i += 1 }
    let a = stops[i - 1], b = stops[i]
    let span = b.location - a.location
    let f = span > 0 ? (t - a.location) / span : 1
    switch alphaInterpolation {
    case .premultiplied:
      return a.color.premultiplied + (b.color.premultiplied - a.color.premultiplied) * f
    case .straight:
      let ca = Pixel(a.color.red, a.color.green, a.color.blue, a.color.alpha)
      let cb = Pixel(b.color.red, b.color.green, b.color.blue, b.color.alpha)
      let m = ca + (cb - ca) * f
      return Pixel(m.x * m.w, m.y * m.w, m.z * m.w, m.w)
    }
  }
}

/// A gradient sampled into a table, so that a pixel costs one multiply-add and one lerp.
///
/// 1024 entries with linear interpolation between them reproduce a piecewise-linear gradient
/// exactly except in the one entry that holds a stop, where the error is below 1/1024 of the
/// color step across it.
struct GradientTable {
  static let size = 1024
  var entries: [Pixel]

  init(_ gradient: Gradient) {
    let n = GradientTable.size
    entries = (0...n).map { gradient.color(at: Float($0) / Float(n)) }
  }

  /// The color at `t`, padded: below 0 and NaN (a gradient under a degenerate transform) give
  /// the first entry, above 1 the last.
  @inline(__always) static func lookup(_ t: Float, _ base: UnsafePointer<Pixel>) -> Pixel {
    lookupClamped(position(t), base)
  }

  /// `lookup` in the table of `gradient` without building it: the two entries around `t` made
  /// as `init` makes them, so the same color (one color a row of a vertical gradient).
  static func lookup(_ t: Float, in gradient: Gradient) -> Pixel {
    let (i, f) = entry(position(t))
    let n = Float(GradientTable.size)
    let a = gradient.color(at: Float(i) / n), b = gradient.color(at: Float(i + 1) / n)
    return a + (b - a) * f
  }

  /// `t` padded to 0...1 (NaN to 0) as a table position.
  @inline(__always) private static func position(_ t: Float) -> Float {
    let clamped: Float = t > 0 ? (t < 1 ? t : 1) : 0  // the same two compares as min(max()), and NaN is 0
    return clamped * Float(GradientTable.size)
  }

  /// The entry below table position `x` (in 0...size) and the fraction towards the next.
  @inline(__always) private static func entry(_ x: Float) -> (index: Int, fraction: Float) {
    let i = min(Int(x), GradientTable.size - 1)
    return (i, x - Float(i))
  }

  /// `lookup`'s table entries and fractions for eight positions `t` at once: the index of the
  /// entry below and the fraction towards the next, with `lookup`'s padding (below 0 and NaN the
  /// first entry, above 1 the last).
  @inline(__always) static func positions(_ t: Lanes) -> (index: LaneBits, fraction: Lanes) {
    let zero = Lanes(repeating: 0), one = Lanes(repeating: 1)
    let magic = Lanes(repeating: 8_388_608), last = Lanes(repeating: Float(size - 1))
    var v = t
    v.replace(with: zero, where: .!(v .> zero))  // and NaN, as lookup's min(max(t, 0), 1)
    v.replace(with: one, where: v .> one)
    // lookupClamped's index and fraction, eight lanes at once: the floor by adding and removing
    // 2^23 (exact on 0...size) instead of a checked conversion a lane.
    let pos = v * Lanes(repeating: Float(size))
    var whole = (pos + magic) - magic
    whole.replace(with: whole - one, where: whole .> pos)
    whole.replace(with: last, where: whole .> last)
    return (unsafeBitCast(whole + magic, to: LaneBits.self) & 0x7F_FFFF, pos - whole)
  }

  /// Eight pixels' colors from their table entries and fractions (`positions`): `a + (b - a) *
  /// fraction` a pixel as `lookupClamped` makes it, two pixels a vector, the same operations lane
  /// for lane, so the same bits.
  @inline(__always) static func lookup8(
    _ index: LaneBits, _ fraction: Lanes, _ base: UnsafePointer<Pixel>, into out: UnsafeMutablePointer<Pixel>
  ) {
    let raw = UnsafeMutableRawPointer(out)
    for pair in 0..<4 {
      let k0 = Int(index[2 * pair]), k1 = Int(index[2 * pair + 1])
      let a = Lanes(lowHalf: base[k0], highHalf: base[k1])
      let b = Lanes(lowHalf: base[k0 + 1], highHalf: base[k1 + 1])
      let f = Lanes(lowHalf: Pixel(repeating: fraction[2 * pair]), highHalf: Pixel(repeating: fraction[2 * pair + 1]))
      raw.storeBytes(of: a + (b - a) * f, toByteOffset: pair &* 32, as: Lanes.self)
    }
  }

  /// The color at table position `x`, already in 0...size (and a number: `lookup` sees to it).
  @inline(__always) static func lookupClamped(_ x: Float, _ base: UnsafePointer<Pixel>) -> Pixel {
    let (i, f) = entry(x)
    let a = base[i], b = base[i + 1]
    return a + (b - a) * f
  }
}
