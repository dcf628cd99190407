/// A value that is given new targets at known moments and animates to each, read at any time.
///
/// The value at a time is a pure function of the changes before it: frames render in parallel and
/// in any order, so nothing carries over from one reading to the next. The changes are walked once,
/// when the track is made, into segments that each hold what still runs; a reading finds its
/// segment by bisection and adds up those runs in closed form.
///
/// A change to the target it already has does nothing, as SwiftUI animates only values that
/// changed. Changes at the same moment apply in the order given; changes out of order are sorted by
/// time first, keeping that order among equal times.
public struct AnimationTrack<Value: AnimatableValue>: Sendable {
  /// A new target at a moment, and how to get there.
  public struct Change: Sendable {
    public var time: Double
    public var target: Value
    public var animation: Animation
    public init(time: Double, target: Value, animation: Animation) {
      (self.time, self.target, self.animation) = (time, target, animation)
    }
  }

  /// One run that has not finished: it is what the value still lacks from its target.
  enum Run: Sendable {
    /// A spring from `displacement` at `velocity`, started at `start`.
    case spring(Spring, start: Double, displacement: Value, velocity: Value)
    /// A curve that moves by `delta` over `duration` from `start`.
    case curve(UnitCurve, duration: Double, start: Double, delta: Value)
  }

  /// From `start` on until the next segment: the target and the runs still going.
  struct Segment: Sendable {
    var start: Double
    var target: Value
    var runs: [Run]
  }

  /// The value before any change.
  public let initial: Value
  /// The changes, sorted by time.
  public let changes: [Change]
  let segments: [Segment]

  public init(initial: Value, changes: [Change]) {
    self.initial = initial
    let sorted = changes.enumerated()
      .filter { $0.element.time.isFinite }
      .sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
      .map(\.element)
    self.changes = sorted
    var segments: [Segment] = []
    var current = Segment(start: -.infinity, target: initial, runs: [])
    for change in sorted where change.target != current.target {
      let t = change.time
      var runs = current.runs.filter { !Self.isFinished($0, at: t) }
      switch change.animation {
      case .none:
        runs = []
      case .timingCurve(let curve, let duration):
        if duration > 0 {
          runs.append(.curve(curve, duration: duration, start: t, delta: change.target - current.target))
        }
      case .spring(let spring):
        // Merge: start from what shows now and how fast it moves, toward the new target.
        let shown = Self.value(target: current.target, runs: runs, at: t)
        let velocity = Self.velocity(runs: runs, at: t)
        runs = [.spring(spring, start: t, displacement: shown - change.target, velocity: velocity)]
      }
      current = Segment(start: t, target: change.target, runs: runs)
      segments.append(current)
    }
    self.segments = segments
  }

  /// One target after another, each reached with the same animation.
  public init(initial: Value, targets: [(time: Double, target: Value)], animation: Animation) {
    self.init(initial: initial, changes: targets.map { Change(time: $0.time, target: $0.target, animation: animation) })
  }

  /// The value shown at `time`. A time that is not a number reads as before any change.
  public func value(at time: Double) -> Value {
    guard let segment = segment(at: time) else { return initial }
    return Self.value(target: segment.target, runs: segment.runs, at: time)
  }

  /// How fast the value changes at `time`, in its units a second.
  public func velocity(at time: Double) -> Value {
    guard let segment = segment(at: time) else { return .zero }
    return Self.velocity(runs: segment.runs, at: time)
  }

  /// The target the value is heading for at `time`.
  public func target(at time: Double) -> Value {
    segment(at: time)?.target ?? initial
  }

  /// The last segment starting at or before `time`.
  private func segment(at time: Double) -> Segment? {
    guard time.isFinite || time == .infinity else { return nil }
    var (low, high) = (0, segments.count)  // first segment starting after time
    while low < high {
      let mid = (low + high) / 2
      if segments[mid].start <= time { low = mid + 1 } else { high = mid }
    }
    return low == 0 ? nil : segments[low - 1]
  }

  static func isFinished(_ run: Run, at time: Double) -> Bool {
    switch run {
    case .spring(let spring, let start, _, _): time - start > spring.settlingTime
    case .curve(_, let duration, let start, _): time - start >= duration
    }
  }

  static func value(target: Value, runs: [Run], at time: Double) -> Value {
    var value = target
    for run in runs {
      switch run {
      case .spring(let spring, let start, let u0, let v0):
        let r = spring.response(after: time - start)
        value = value + u0.scaled(by: r.a) + v0.scaled(by: r.b)
      case .curve(let curve, let duration, let start, let delta):
        let p = (time - start) / duration
        if p < 1 { value = value - delta.scaled(by: 1 - curve.value(at: p)) }
      }
    }
    return value
  }

  static func velocity(runs: [Run], at time: Double) -> Value {
    var velocity = Value.zero
    for run in runs {
      switch run {
      case .spring(let spring, let start, let u0, let v0):
        let r = spring.response(after: time - start)
        velocity = velocity + u0.scaled(by: r.c) + v0.scaled(by: r.d)
      case .curve(let curve, let duration, let start, let delta):
        let p = (time - start) / duration
        if p >= 0, p < 1 { velocity = velocity + delta.scaled(by: curve.velocity(at: p) / duration) }
      }
    }
    return velocity
  }
}
