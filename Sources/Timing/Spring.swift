import Foundation

/// A spring that pulls an animated value to its target, described the way SwiftUI's
/// `Spring(duration:bounce:)` is: how long it takes to settle, and how much it overshoots.
///
/// Mass is 1, stiffness (2π / duration)², damping 4π (1 − bounce) / duration for a bounce of 0 or
/// more and 4π / (duration (1 + bounce)) below 0 (docs/SWIFTUI-SEMANTICS.md, Animation). A bounce of 0 is critically
/// damped: the value arrives as fast as it can without overshooting. Durations of 0 or less, or
/// that are not numbers, count as 0.5 s; bounces are kept within −0.99...0.99.
public struct Spring: Hashable, Sendable, Codable {
  /// Seconds the spring takes to settle, roughly: its period when undamped.
  public let duration: Double
  /// How much it overshoots, from −1 (sluggish) through 0 (critically damped) to 1 (no damping).
  public let bounce: Double

  public init(duration: Double = 0.5, bounce: Double = 0) {
    self.duration = duration.isFinite && duration > 0 ? duration : 0.5
    self.bounce = bounce.isFinite ? min(max(bounce, -0.99), 0.99) : 0
  }

  /// The mass on the spring: 1.
  public var mass: Double { 1 }
  /// How hard the spring pulls per unit of displacement: (2π / duration)².
  public var stiffness: Double { (2 * .pi / duration) * (2 * .pi / duration) }
  /// How hard it brakes per unit of velocity.
  public var damping: Double {
    bounce >= 0 ? 4 * .pi * (1 - bounce) / duration : 4 * .pi / (duration * (1 + bounce))
  }

  /// The displacement from the target and the velocity `time` seconds after the spring starts
  /// from displacement `displacement` at velocity `velocity`. Both are linear in the start, so
  /// this gives the weights: displacement = a·u0 + b·v0 and velocity = c·u0 + d·v0.
  /// Times of 0 or less give the start itself.
  public func response(after time: Double) -> (a: Double, b: Double, c: Double, d: Double) {
    guard time > 0 else { return (1, 0, 0, 1) }
    guard time.isFinite else { return (0, 0, 0, 0) }
    let omega = 2 * .pi / duration  // undamped angular frequency, sqrt(stiffness / mass)
    let zeta = damping / (2 * omega)  // damping ratio: 1 − bounce for bounce ≥ 0
    let t = time
    if abs(zeta - 1) < 1e-9 {
      // Critically damped: u(t) = (u0 + (v0 + ω u0) t) e^(−ω t).
      let e = exp(-omega * t)
      return ((1 + omega * t) * e, t * e, -omega * omega * t * e, (1 - omega * t) * e)
    } else if zeta < 1 {
      // Underdamped: a decaying oscillation at ωd = ω sqrt(1 − ζ²).
      let wd = omega * (1 - zeta * zeta).squareRoot()
      let decay = zeta * omega
      let e = exp(-decay * t)
      let (cosine, sine) = (cos(wd * t), sin(wd * t))
      let a = e * (cosine + decay / wd * sine)
      let b = e * sine / wd
      let c = -e * (wd + decay * decay / wd) * sine
      let d = e * (cosine - decay / wd * sine)
      return (a, b, c, d)
    } else {
      // Overdamped: two decaying exponentials with rates r1 > r2 (both negative).
      let root = (zeta * zeta - 1).squareRoot()
      let r1 = -omega * (zeta - root)
      let r2 = -omega * (zeta + root)
      let (e1, e2) = (exp(r1 * t), exp(r2 * t))
      let span = r2 - r1
      // u = C1 e1 + C2 e2 with C2 = (v0 − r1 u0) / (r2 − r1), C1 = u0 − C2.
      let a = e1 + (e2 - e1) * (-r1 / span)
      let b = (e2 - e1) / span
      let c = r1 * e1 + (r2 * e2 - r1 * e1) * (-r1 / span)
      let d = (r2 * e2 - r1 * e1) / span
      return (a, b, c, d)
    }
  }

  /// The displacement from the target `time` seconds after starting at `displacement` with
  /// `velocity`.
  public func displacement(after time: Double, from displacement: Double, velocity: Double = 0) -> Double {
    let r = response(after: time)
    return r.a * displacement + r.b * velocity
  }

  /// The velocity `time` seconds after starting at `displacement` with `velocity`.
  public func velocity(after time: Double, from displacement: Double, velocity: Double = 0) -> Double {
    let r = response(after: time)
    return r.c * displacement + r.d * velocity
  }

  /// Seconds after which any start has shrunk below a 1e-12 part of itself: the spring is done.
  var settlingTime: Double {
    let omega = 2 * .pi / duration
    let zeta = damping / (2 * omega)
    // The slowest decay rate: ζω below critical, ω(ζ − sqrt(ζ² − 1)) above. e^(−28) < 1e-12,
    // and the extra 1 + ωt factor of the critical case costs a few more seconds' worth: use 40.
    let rate = zeta <= 1 ? zeta * omega : omega * (zeta - (zeta * zeta - 1).squareRoot())
    return 40 / rate
  }
}
