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
    // A schedule keeps its exact timing: a plan only accepts loops of whole 6 s cycles.
    let moment = clock.scheduleTime(cycle: lightningCycle, layer: "lightning", name: "flash")
    var cycles: Int?
    if let plan = clock.plan {
      cycles = max(1, Int((plan.length / lightningCycle).rounded()))
    }
    return (moment, cycle(at: moment, cycles: cycles))
  }
}
