/// What a voice assistant is doing, as the seed's `VoiceOrbState`.
public enum VoiceOrbState: String, CaseIterable, Hashable, Sendable, Codable {
  case idle, listening, thinking, speaking
}

/// States one after another, each held for some seconds, for clips that show the orb change:
/// `listening:2,thinking:1.5,speaking:3`.
///
/// The first state holds before time 0 and the last one after the end, so a clip may start or
/// run past the steps and the orb stays settled there.
public struct VoiceOrbSequence: Hashable, Sendable, Codable {
  public struct Step: Hashable, Sendable, Codable {
    public var state: VoiceOrbState
    /// How long the state holds; 0 or less, or not a number, skips the step.
    public var seconds: Double
    public init(_ state: VoiceOrbState, seconds: Double) { (self.state, self.seconds) = (state, seconds) }
  }

  public var steps: [Step]

  public init(_ steps: [Step]) { self.steps = steps }

  /// The seconds the steps last together.
  public var duration: Double { held.reduce(0) { $0 + $1.seconds } }

  /// The steps that last a while.
  private var held: [Step] { steps.filter { $0.seconds.isFinite && $0.seconds > 0 } }

  /// The moments the state changes, and to what, in order. A step of the same state as the one
  /// before continues it: no change.
  public var changes: [(time: Double, state: VoiceOrbState)] {
    var out: [(Double, VoiceOrbState)] = []
    var time = 0.0
    let held = held
    var current = held.first?.state
    for step in held {
      if step.state != current {
        out.append((time, step.state))
        current = step.state
      }
      time += step.seconds
    }
    return out
  }

  /// The state at `time`: idle for no steps.
  public func state(at time: Double) -> VoiceOrbState {
    var state = held.first?.state ?? .idle
    for change in changes where change.time <= time { state = change.state }
    return state
  }
}
