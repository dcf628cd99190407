import Foundation
import Raster
import Timing

/// The timing of the weather: where a moving thing wraps around, when lightning flashes, and the
/// pseudo-random values that place every particle.
public enum WeatherMath {
  /// The seconds after which the lightning schedule repeats.
  public static let lightningCycle: Double = 6

  /// Two strikes close together, as lightning often comes, early in each cycle (seconds into it).
  static let strikes: [(start: Double, duration: Double)] = [(0.4, 0.18), (0.75, 0.22)]

  /// The property of a particle a pseudo-random value decides; raw values are the seed's salts.
  enum Salt: Double { case x = 1, y, size, speed, phase, offset, extra }

  /// A repeatable pseudo-random value in 0..<1 for one particle and one of its properties.
  @inline(__always)
  static func noise(_ index: Int, _ salt: Salt) -> Double { seedNoise(index, salt.rawValue) }

  /// A position moved back inside `0..<travel`, so what leaves one edge comes back at the other.
  /// A travel of 0 or less, or a position that is not a number, gives 0.
  public static func wrap(_ position: Double, over travel: Double) -> Double {
    guard travel > 0, travel.isFinite, position.isFinite else { return 0 }
    let remainder = position.truncatingRemainder(dividingBy: travel)
    guard remainder < 0 else { return remainder }
    let wrapped = remainder + travel
    return wrapped < travel ? wrapped : 0  // -1e-17 + 10 rounds to 10, which belongs at 0
  }

  /// The brightness of the lightning at a moment of its schedule (seconds, as the clock's phase of
  /// the `lightning` motion gives it), from 0 when dark to 1 at the peak of a flash.
  public static func flash(at moment: Double) -> Double {
    let m = wrap(moment, over: lightningCycle)
    for strike in strikes where m >= strike.start && m < strike.start + strike.duration {
      return sin(.pi * (m - strike.start) / strike.duration)
    }
    return 0
  }

  /// Which 6-second cycle of the schedule `moment` falls in; it picks the bolt's shape.
  ///
  /// With `cycles` (the whole cycles a loop holds) the index repeats with the loop, so the bolt
  /// at the end of a loop is the one at its start; without, it counts on as the seed's does.
  public static func cycle(at moment: Double, cycles: Int?) -> Int {
    guard moment.isFinite else { return 0 }
    // From the wrapped moment, so the index and the flash agree at a cycle's very start.
    let whole = ((moment - wrap(moment, over: lightningCycle)) / lightningCycle).rounded()
    let index = Int(max(min(whole, 1e15), -1e15))
    guard let cycles, cycles > 0 else { return index }
    let r = index % cycles
    return r < 0 ? r + cycles : r
  }

  /// Where the clock is in the lightning schedule, and the cycle index for the bolt.
  static func lightning(_ clock: Clock) -> (moment: Double, cycle: Int) {
    let rate = clock.rate(1, period: lightningCycle, layer: "lightning", name: "flash")
    let moment = rate * clock.time
    var cycles: Int?
    if let plan = clock.plan {
      cycles = max(1, Int((rate * plan.length / lightningCycle).rounded()))
    }
    return (moment, cycle(at: moment, cycles: cycles))
  }

  // MARK: - Fades
  // Timing's `UnitCurve.easeInOut` and `ColorInterpolation.mix` replace these two once the
  // `timing` branch is merged into main; until then they live here, private to Weather.

  /// SwiftUI's `.easeInOut` curve: the cubic Bézier through (0.42, 0) and (0.58, 1), progress at
  /// `x` of the way through (clamped to 0...1).
  static func easeInOut(_ x: Double) -> Double {
    guard x > 0 else { return 0 }
    guard x < 1 else { return 1 }
    let (x1, y1, x2, y2) = (0.42, 0.0, 0.58, 1.0)
    func bezier(_ s: Double, _ a: Double, _ b: Double) -> Double {
      let u = 1 - s
      return 3 * u * u * s * a + 3 * u * s * s * b + s * s * s
    }
    // x(s) rises monotonically: Newton from s = x, bisection when a step leaves the bracket.
    var (lo, hi, s) = (0.0, 1.0, x)
    for _ in 0..<30 {
      let error = bezier(s, x1, x2) - x
      if abs(error) < 1e-12 { break }
      if error > 0 { hi = s } else { lo = s }
      let u = 1 - s
      let slope = 3 * u * u * x1 + 6 * u * s * (x2 - x1) + 3 * s * s * (1 - x2)
      let next = slope > 1e-9 ? s - error / slope : .nan
      s = next > lo && next < hi ? next : (lo + hi) / 2
    }
    return bezier(s, y1, y2)
  }

  /// The numbers a SwiftUI color animation lerps (SEMANTICS.md 8.4): 128·cbrt(M1 · linear sRGB)
  /// and 128·alpha.
  static func carrier(_ c: Color) -> SIMD4<Double> {
    func linear(_ v: Float) -> Double {
      let x = Double(v), m = abs(x)
      let l = m <= 0.04045 ? m / 12.92 : pow((m + 0.055) / 1.055, 2.4)
      return x < 0 ? -l : l
    }
    let (r, g, b) = (linear(c.red), linear(c.green), linear(c.blue))
    let l = 0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b
    let m = 0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b
    let s = 0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b
    return SIMD4(128 * cbrt(l), 128 * cbrt(m), 128 * cbrt(s), 128 * Double(c.alpha))
  }

  /// The color a carrier stands for.
  static func color(fromCarrier v: SIMD4<Double>) -> Color {
    func cube(_ x: Double) -> Double { x * x * x }
    let (l, m, s) = (cube(v.x / 128), cube(v.y / 128), cube(v.z / 128))
    let r = 4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s
    let g = -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s
    let b = -0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s
    func encoded(_ x: Double) -> Float {
      let a = abs(x)
      let e = a <= 0.0031308 ? a * 12.92 : 1.055 * pow(a, 1 / 2.4) - 0.055
      return Float(x < 0 ? -e : e)
    }
    return Color(red: encoded(r), green: encoded(g), blue: encoded(b), alpha: Float(v.w / 128))
  }
}
