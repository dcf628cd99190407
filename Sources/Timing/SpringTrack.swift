/// A number a spring pulls toward targets that change at known moments, such as the voice orb's
/// energy, retargeted every 160 ms.
///
/// Each change starts the spring again from the value shown and its velocity then
/// (docs/SWIFTUI-SEMANTICS.md, Animation), so the value never jumps and never stops short. Read at
/// any time, in any order.
public struct SpringTrack: Sendable {
  public let spring: Spring
  let track: AnimationTrack<Double>

  /// A value that starts at `initial` and is pulled to each target from its moment on.
  public init(spring: Spring, initial: Double, changes: [(time: Double, target: Double)]) {
    self.spring = spring
    track = AnimationTrack(initial: initial, targets: changes, animation: .spring(spring))
  }

  /// The value at `time`.
  public func value(at time: Double) -> Double { track.value(at: time) }
  /// Its velocity at `time`, in units a second.
  public func velocity(at time: Double) -> Double { track.velocity(at: time) }
  /// The target it is heading for at `time`.
  public func target(at time: Double) -> Double { track.target(at: time) }
}
