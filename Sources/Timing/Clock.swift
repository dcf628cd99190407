import Foundation

/// The time an effect draws at, and the rates its motions run at.
///
/// Effects never read a bare rate: they ask the clock, which hands back the seed's rate when no
/// loop is planned, or the rate a loop plan chose so that the motion repeats with the loop.
/// Every phase is `rate × time`, so at time 0 each motion is where the seed has it at 0, and frame
/// 0 of a loop is the original's frame at 0.
public struct Clock: Sendable {
  /// Seconds since the start of the loop (or of the effect), as Double: see
  /// docs/SWIFTUI-SEMANTICS.md, Units, coordinates and time.
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

  /// The clock of one part of the effect that keeps its own loop, such as one weather of a
  /// transition clip: the same time, under the plan the part's own loop has, so that the part
  /// moves in the clip exactly as in its loop file. A plan without parts applies to every part.
  public func part(_ name: String) -> Clock {
    guard let own = plan?.part(name) else { return self }
    return Clock(time: time, plan: own, recorder: recorder)
  }

  /// The rate to use for a motion that the seed runs at `rate` units a second with a cycle of
  /// `period` units. A rate that is not a number, or a period of 0 or less, is left as it is.
  public func rate(
    _ rate: Double, period: Double, layer: String, name: String, soft: Bool = false,
    kind: Motion.Kind = .turn
  ) -> Double {
    guard rate.isFinite, period.isFinite, period > 0 else { return rate }
    let motion = Motion(layer: layer, name: name, rate: rate, period: period, soft: soft, kind: kind)
    recorder?.record(motion)
    return plan?.plannedRate(for: motion) ?? rate
  }

  /// How far a motion has gone at this clock's time: `rate(...) * time`.
  public func phase(
    _ rate: Double, period: Double, layer: String, name: String, soft: Bool = false,
    kind: Motion.Kind = .turn
  ) -> Double {
    self.rate(rate, period: period, layer: layer, name: name, soft: soft, kind: kind) * time
  }

  /// The time to read a timetable at that repeats every `cycle` seconds, such as the lightning
  /// schedule: this clock's time, which a plan keeps running at exactly 1 second a second.
  public func scheduleTime(cycle: Double, layer: String, name: String) -> Double {
    phase(1, period: cycle, layer: layer, name: name, kind: .schedule)
  }

  /// The clocks a layer is drawn at and their weights, which add up to 1.
  ///
  /// One clock at weight 1, except in the crossfade window at the end of a loop for a layer the
  /// plan crossfades: there the layer is also drawn one loop earlier, so that at the loop's end it
  /// has become its own frame 0. The weight of the earlier clock rises with a smoothstep, from 0 at
  /// the window's start to nearly 1 on the loop's last frame; its slope is 0 at both ends, so the
  /// blend starts and lands without a kink.
  ///
  /// A crossfaded layer runs at its own rates and never repeats by itself, so its clocks are taken
  /// at the time within the loop: a clip longer than one loop, or starting before 0, repeats the
  /// loop for that layer too. Other layers keep this clock, whose planned rates repeat anyway.
  public func samples(for layer: String) -> [(clock: Clock, weight: Double)] {
    guard let plan, let window = plan.crossfadeWindow(for: layer), window > 0,
      plan.length > 0, plan.length.isFinite, time.isFinite
    else {
      return [(self, 1)]
    }
    let length = plan.length
    var local = time - (time / length).rounded(.down) * length
    if local >= length || local < 0 { local = 0 }  // -1e-17 + length rounds to length: that is 0
    let start = length - min(window, length)
    guard local > start else { return [(at(local), 1)] }
    let x = min(max((local - start) / window, 0), 1)
    let w = x * x * (3 - 2 * x)
    return [(at(local), 1 - w), (at(local - length), w)]
  }
}
