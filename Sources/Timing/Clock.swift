import Foundation

/// One periodic motion of an effect's layer: something that advances `rate` units a second and
/// repeats every `period` units (2π for a turning angle, a travel for a position that wraps,
/// 6 s for the lightning schedule).
public struct Motion: Hashable, Sendable, Codable {
  /// The layer the motion belongs to, as `loopsmith plan` lists it (`rain.far`, `orbs`).
  public var layer: String
  /// What moves, within the layer (`x`, `sway`, `flash`).
  public var name: String
  /// Units a second, as the seed has it (speed parameters included).
  public var rate: Double
  /// Units per cycle.
  public var period: Double
  /// Whether the layer is soft and blurred enough to hide a tail crossfade.
  public var soft: Bool

  public init(layer: String, name: String, rate: Double, period: Double, soft: Bool = false) {
    (self.layer, self.name, self.rate, self.period, self.soft) = (layer, name, rate, period, soft)
  }

  /// Cycles a second.
  public var frequency: Double { period > 0 ? rate / period : 0 }
}

/// What a loop plan tells a clock: the rate each motion runs at, and the layers that crossfade.
public protocol MotionPlan: Sendable {
  /// The loop length in seconds.
  var length: Double { get }
  /// The rate the loop runs `motion` at; the motion's own rate when the plan leaves it alone.
  func plannedRate(for motion: Motion) -> Double
  /// The crossfade window in seconds at the end of the loop for `layer`, or nil when it has none.
  func crossfadeWindow(for layer: String) -> Double?
}

/// Collects the motions an effect reads while it draws one frame, so that a plan can be made
/// from the drawing code itself and can never drift from it.
public final class MotionRecorder: @unchecked Sendable {
  private let lock = NSLock()
  private var seen: [Motion] = []
  private var keys: Set<Motion> = []

  public init() {}

  func record(_ motion: Motion) {
    lock.lock()
    defer { lock.unlock() }
    if keys.insert(motion).inserted { seen.append(motion) }
  }

  /// The motions in the order they were first read.
  public var motions: [Motion] {
    lock.lock()
    defer { lock.unlock() }
    return seen
  }
}

/// The time an effect draws at, and the rates its motions run at.
///
/// Effects never read a bare rate: they ask the clock, which hands back the seed's rate when no
/// loop is planned, or the rate a loop plan chose so that the motion repeats with the loop.
public struct Clock: Sendable {
  /// Seconds since the start of the loop (or of the effect), as Double: see SEMANTICS.md 0.
  public let time: Double
  public let plan: (any MotionPlan)?
  public let recorder: MotionRecorder?

  public init(time: Double, plan: (any MotionPlan)? = nil, recorder: MotionRecorder? = nil) {
    self.time = time
    self.plan = plan
    self.recorder = recorder
  }

  /// The same clock at another time.
  public func at(_ time: Double) -> Clock { Clock(time: time, plan: plan, recorder: recorder) }

  /// The rate to use for a motion that the seed runs at `rate` units a second with a cycle of
  /// `period` units. A rate that is not a number, or a period of 0 or less, is left as it is.
  public func rate(
    _ rate: Double, period: Double, layer: String, name: String, soft: Bool = false
  ) -> Double {
    guard rate.isFinite, period.isFinite, period > 0 else { return rate }
    let motion = Motion(layer: layer, name: name, rate: rate, period: period, soft: soft)
    recorder?.record(motion)
    return plan?.plannedRate(for: motion) ?? rate
  }

  /// How far a motion has gone at this clock's time: `rate(...) * time`.
  public func phase(
    _ rate: Double, period: Double, layer: String, name: String, soft: Bool = false
  ) -> Double {
    self.rate(rate, period: period, layer: layer, name: name, soft: soft) * time
  }

  /// The clocks a layer is drawn at and their weights, which add up to 1.
  ///
  /// One clock at weight 1, except in the crossfade window at the end of a loop for a layer the
  /// plan crossfades: there the layer is also drawn one loop earlier, so that at the loop's end it
  /// has become its own frame 0. The weight of the earlier clock rises with a smoothstep.
  public func samples(for layer: String) -> [(clock: Clock, weight: Double)] {
    guard let plan, let window = plan.crossfadeWindow(for: layer), window > 0 else {
      return [(self, 1)]
    }
    let start = plan.length - window
    guard time > start else { return [(self, 1)] }
    let x = min(max((time - start) / window, 0), 1)
    let w = x * x * (3 - 2 * x)
    return [(self, 1 - w), (at(time - plan.length), w)]
  }
}
