/// States that follow one another with an energy that goes with each, where every change picks its
/// animation as the voice orb's does (docs/SWIFTUI-SEMANTICS.md, Animation): when the energy changes, everything moves
/// with the energy's spring; when only the state changes, with the state's curve.
///
/// The orb's `.animation(.spring(duration: 0.35), value: energy)` sits inside its
/// `.animation(.easeInOut(duration: 0.5), value: state)`, and the inner one wins when its value
/// changed. So listening to speaking at the same level eases the hue over half a second, while
/// any level change, or a change to idle or thinking, springs. The first step shows without
/// animation.
public struct StateTimeline<State: Equatable & Sendable>: Sendable {
  /// A state and its energy, held for `duration` seconds.
  public struct Step: Sendable {
    public var state: State
    public var energy: Double
    public var duration: Double
    public init(_ state: State, energy: Double, duration: Double) {
      (self.state, self.energy, self.duration) = (state, energy, duration)
    }
  }

  public let steps: [Step]
  /// The animation when the energy changes: `.spring(duration: 0.35)` for the voice orb.
  public let energyAnimation: Animation
  /// The animation when only the state changes: `.easeInOut(duration: 0.5)`.
  public let stateAnimation: Animation
  /// When each step starts: the sum of the durations before it.
  public let starts: [Double]

  /// Steps of zero or negative length, or lengths that are not numbers, last 0 s. No steps at all
  /// is a programming error.
  public init(
    steps: [Step], energyAnimation: Animation = .spring(duration: 0.35),
    stateAnimation: Animation = .easeInOut(duration: 0.5)
  ) {
    precondition(!steps.isEmpty, "StateTimeline needs at least one step")
    (self.steps, self.energyAnimation, self.stateAnimation) = (steps, energyAnimation, stateAnimation)
    starts = startTimes(steps.map(\.duration))
  }

  /// The animation the change into step `index` runs with, or nil when nothing changes (and for
  /// step 0, which shows as it is).
  public func animation(into index: Int) -> Animation? {
    guard index > 0, index < steps.count else { return nil }
    let (before, after) = (steps[index - 1], steps[index])
    if before.energy != after.energy { return energyAnimation }  // exact, as SwiftUI compares
    if before.state != after.state { return stateAnimation }
    return nil
  }

  /// The step showing at `time`: the last one starting at or before it.
  public func step(at time: Double) -> Int {
    var (low, high) = (1, starts.count)
    while low < high {
      let mid = (low + high) / 2
      if starts[mid] <= time { low = mid + 1 } else { high = mid }
    }
    return low - 1
  }

  /// The energy as drawn: the spring at every energy change.
  public var energy: AnimationTrack<Double> { track { _, energy in energy } }

  /// Any property of state and energy as drawn (scale, saturation, hue, blob reach), each change
  /// animated as the step's transaction says.
  public func track<V: AnimatableValue>(_ property: (State, Double) -> V) -> AnimationTrack<V> {
    var changes: [AnimationTrack<V>.Change] = []
    for index in steps.indices.dropFirst() {
      guard let animation = animation(into: index) else { continue }
      changes.append(
        .init(time: starts[index], target: property(steps[index].state, steps[index].energy), animation: animation))
    }
    return AnimationTrack(initial: property(steps[0].state, steps[0].energy), changes: changes)
  }
}
