/// What a loop plan tells a clock: the rate each motion runs at, and the layers that crossfade.
public protocol MotionPlan: Sendable {
  /// The loop length in seconds.
  var length: Double { get }
  /// The rate the loop runs `motion` at; the motion's own rate when the plan leaves it alone.
  func plannedRate(for motion: Motion) -> Double
  /// The crossfade window in seconds at the end of the loop for `layer`, or nil when it has none.
  func crossfadeWindow(for layer: String) -> Double?
  /// The plan of one part of the effect that runs on its own clock (one weather of a transition
  /// clip), or nil when the part follows this plan.
  func part(_ name: String) -> (any MotionPlan)?
}

extension MotionPlan {
  public func part(_ name: String) -> (any MotionPlan)? { nil }
}
