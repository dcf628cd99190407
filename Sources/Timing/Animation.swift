/// How a value moves to a new target, as SwiftUI's `Animation` says it.
///
/// A spring merges with what runs already: it starts from the value shown and the velocity it has
/// (docs/SWIFTUI-SEMANTICS.md, Animation). A timing curve does not merge: it adds its own run from the old target to
/// the new one on top of whatever still runs.
public enum Animation: Hashable, Sendable {
  /// No animation: the value jumps to its target, and anything running stops.
  case none
  /// A spring pulls the value to its target.
  case spring(Spring)
  /// The value follows `curve` to its target over `duration` seconds.
  case timingCurve(UnitCurve, duration: Double)

  /// `.easeInOut(duration: d)`: SwiftUI's default curve.
  public static func easeInOut(duration: Double) -> Animation { .timingCurve(.easeInOut, duration: duration) }
  /// `.linear(duration: d)`.
  public static func linear(duration: Double) -> Animation { .timingCurve(.linear, duration: duration) }
  /// `.spring(duration: d, bounce: b)`.
  public static func spring(duration: Double = 0.5, bounce: Double = 0) -> Animation {
    .spring(Spring(duration: duration, bounce: bounce))
  }
}
