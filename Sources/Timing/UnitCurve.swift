import Foundation

/// How far an animation has come for how far its time has gone, both from 0 to 1: a cubic Bezier
/// from (0, 0) to (1, 1) through two control points, as SwiftUI's `UnitCurve` and CSS have it.
///
/// Progress below 0 counts as 0, above 1 as 1, and progress that is not a number as 0. The ends
/// are exact: 0 gives 0 and 1 gives 1, so a finished animation lands on its target.
public struct UnitCurve: Hashable, Sendable, Codable {
  /// The first control point; its x is kept within 0...1 so that time never runs backwards.
  public let startControl: SIMD2<Double>
  /// The second control point; its x is kept within 0...1 as well.
  public let endControl: SIMD2<Double>

  public init(startControl: SIMD2<Double>, endControl: SIMD2<Double>) {
    // An x outside 0...1 would make the curve fold back on itself in time: no single answer.
    func tame(_ p: SIMD2<Double>) -> SIMD2<Double> {
      SIMD2(p.x.isFinite ? min(max(p.x, 0), 1) : 0, p.y.isFinite ? p.y : 0)
    }
    self.startControl = tame(startControl)
    self.endControl = tame(endControl)
  }

  /// Starts slowly, speeds up, and slows down again: control points (0.42, 0) and (0.58, 1).
  public static let easeInOut = UnitCurve(startControl: SIMD2(0.42, 0), endControl: SIMD2(0.58, 1))
  /// Starts slowly and ends at full speed: (0.42, 0) and (1, 1).
  public static let easeIn = UnitCurve(startControl: SIMD2(0.42, 0), endControl: SIMD2(1, 1))
  /// Starts at full speed and slows down: (0, 0) and (0.58, 1).
  public static let easeOut = UnitCurve(startControl: SIMD2(0, 0), endControl: SIMD2(0.58, 1))
  /// The same speed throughout: progress is the time itself.
  public static let linear = UnitCurve(startControl: SIMD2(1.0 / 3, 1.0 / 3), endControl: SIMD2(2.0 / 3, 2.0 / 3))

  /// The progress of the animation when `time` of it, from 0 to 1, has gone.
  public func value(at time: Double) -> Double {
    guard time > 0 else { return 0 }  // NaN lands here too
    guard time < 1 else { return 1 }
    if self == .linear { return time }
    return Self.bezier(solve(time), startControl.y, endControl.y)
  }

  /// How fast the progress changes with time at `time`: dy/dx, 0 outside the curve.
  public func velocity(at time: Double) -> Double {
    guard time >= 0, time <= 1 else { return 0 }  // NaN too
    if self == .linear { return 1 }
    let s = solve(time)
    let dx = Self.slope(s, startControl.x, endControl.x)
    let dy = Self.slope(s, startControl.y, endControl.y)
    // dx is 0 only where a control x sits at an end (ease-out at s = 0): the curve is vertical.
    return dx > 0 ? dy / dx : (dy == 0 ? 0 : .infinity)
  }

  /// The curve parameter s whose x is `x`: Newton steps, falling back on bisection when a step
  /// leaves the bracket or the slope vanishes. x(s) rises monotonically because both control x
  /// lie in 0...1, so the bracket [0, 1] always holds exactly one answer.
  private func solve(_ x: Double) -> Double {
    let (x1, x2) = (startControl.x, endControl.x)
    var (low, high) = (0.0, 1.0)
    var s = x
    for _ in 0..<64 {
      let error = Self.bezier(s, x1, x2) - x
      if abs(error) < 1e-14 { return s }
      if error < 0 { low = s } else { high = s }
      let slope = Self.slope(s, x1, x2)
      var next = slope > 1e-12 ? s - error / slope : .nan
      if !(next > low && next < high) { next = (low + high) / 2 }  // NaN fails the test too
      if next == s { return s }
      s = next
    }
    return s
  }

  /// One coordinate of the cubic Bezier from 0 to 1 with control values p1 and p2 at s.
  private static func bezier(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
    let a = 1 + 3 * p1 - 3 * p2
    let b = 3 * p2 - 6 * p1
    let c = 3 * p1
    return ((a * s + b) * s + c) * s
  }

  /// d/ds of `bezier`.
  private static func slope(_ s: Double, _ p1: Double, _ p2: Double) -> Double {
    let a = 1 + 3 * p1 - 3 * p2
    let b = 3 * p2 - 6 * p1
    let c = 3 * p1
    return (3 * a * s + 2 * b) * s + c
  }
}
