/// Values that follow one another, each held for a while, with a fade at every change: the
/// weather background's sequence of weathers (docs/SWIFTUI-SEMANTICS.md, Animation).
///
/// At a change the old value is drawn at 1 − e(p) under the new one at e(p), where e is the fade's
/// curve (1 s easeInOut) and p the time since the change over the fade's length. A change while a
/// fade still runs makes the arriving value the leaving one at full opacity, and the older one
/// vanishes, as the seed does. A step with the same value as the one before it changes nothing.
/// Before the first step the first value shows; after the last, the last stays.
///
/// Own clocks: the seed redraws each weather from its own `TimelineView`, so a weather that fades
/// out goes on moving; all of them read the one wall clock, whose origin (2001) means nothing to
/// what shows. So each step reads `time − clockOrigin`, with every origin 0 by default: all values
/// on the sequence's time, as in the seed. A clip that must end on the first frame of a value's
/// loop moves that value's origin to the clip's end, which looks no less like the original.
public struct StepTimeline<Value: Equatable & Sendable>: Sendable {
  /// A value held for `duration` seconds.
  public struct Step: Sendable {
    public var value: Value
    public var duration: Double
    /// The moment, on the sequence's time, at which this value's own clock reads 0.
    public var clockOrigin: Double
    public init(_ value: Value, duration: Double, clockOrigin: Double = 0) {
      (self.value, self.duration, self.clockOrigin) = (value, duration, clockOrigin)
    }
  }

  /// What shows at one moment.
  public struct Moment: Sendable {
    /// The value arriving or shown, and the index of its step.
    public var current: Value
    public var currentStep: Int
    /// Its own clock's time.
    public var currentTime: Double
    /// The value fading out under it, if a fade runs.
    public var leaving: Value?
    public var leavingStep: Int?
    public var leavingTime: Double?
    /// How far the fade has gone, e(p) from 0 to 1: the current value's opacity; the leaving one's
    /// is 1 − arrival. 1 when no fade runs.
    public var arrival: Double
  }

  public let steps: [Step]
  /// The length of each fade in seconds.
  public let fade: Double
  /// The curve each fade follows.
  public let curve: UnitCurve
  /// When each step starts: the sum of the durations before it.
  public let starts: [Double]
  /// The steps at which the value changes, with their start times; step 0 is never one.
  public let changes: [(time: Double, step: Int)]

  /// Steps of zero or negative length, or lengths that are not numbers, last 0 s. No steps at all
  /// is a programming error.
  public init(steps: [Step], fade: Double = 1, curve: UnitCurve = .easeInOut) {
    precondition(!steps.isEmpty, "StepTimeline needs at least one step")
    self.steps = steps
    self.fade = fade.isFinite ? max(fade, 0) : 1
    self.curve = curve
    starts = startTimes(steps.map(\.duration))
    var changes: [(time: Double, step: Int)] = []
    var shown = 0
    for index in steps.indices.dropFirst() where steps[index].value != steps[shown].value {
      changes.append((starts[index], index))
      shown = index
    }
    self.changes = changes
  }

  /// The total of the steps' durations.
  public var duration: Double {
    starts.last! + (steps.last!.duration.isFinite ? max(steps.last!.duration, 0) : 0)
  }

  /// What shows at `time`. A time that is not a number reads as 0.
  public func moment(at time: Double) -> Moment {
    let t = time.isNaN ? 0 : time
    // The last change at or before t; the first step stands before any change.
    var (low, high) = (0, changes.count)
    while low < high {
      let mid = (low + high) / 2
      if changes[mid].time <= t { low = mid + 1 } else { high = mid }
    }
    let index = low - 1
    let current = index >= 0 ? changes[index].step : 0
    var moment = Moment(
      current: steps[current].value, currentStep: current, currentTime: t - steps[current].clockOrigin,
      leaving: nil, leavingStep: nil, leavingTime: nil, arrival: 1)
    guard index >= 0 else { return moment }
    let elapsed = t - changes[index].time
    guard fade > 0, elapsed < fade else { return moment }
    let previous = index >= 1 ? changes[index - 1].step : 0
    moment.leaving = steps[previous].value
    moment.leavingStep = previous
    moment.leavingTime = t - steps[previous].clockOrigin
    moment.arrival = curve.value(at: elapsed / fade)
    return moment
  }

  /// A property of the values that animates with the fade at every change, such as the sky's colors
  /// (`.animation(fade, value: weather)`): a timing curve, so a change mid-fade adds its own run on
  /// top of the one still going (docs/SWIFTUI-SEMANTICS.md, Animation). Animate colors in `ColorInterpolation`'s
  /// carrier and convert back.
  public func track<V: AnimatableValue>(_ property: (Value) -> V) -> AnimationTrack<V> {
    let animation: Animation = fade > 0 ? .timingCurve(curve, duration: fade) : .none
    return AnimationTrack(
      initial: property(steps[0].value),
      changes: changes.map { .init(time: $0.time, target: property(steps[$0.step].value), animation: animation) })
  }
}
