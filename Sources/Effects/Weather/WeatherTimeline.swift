import Raster
import Timing

/// Which weathers show at a moment of a sequence, how strongly, and the sky's colors.
///
/// Each change of weather fades, over one second of `easeInOut`, the sky's colors to the new ones
/// in the Oklab-type carrier, and the leaving weather's effects out while the arriving ones fade
/// in (docs/SWIFTUI-SEMANTICS.md, Animation). A change during a fade makes the weather that was arriving the one
/// leaving, at full strength; the one before it vanishes. The sky's color runs add up, as
/// SwiftUI's timing curves do. A sequence starts at time 0 with its first weather and holds
/// its last one; without steps, `weather` holds.
struct WeatherTimeline: Sendable {
  /// Seconds a change takes.
  static let fadeDuration: Double = 1

  let steps: StepTimeline<Weather.Kind>
  let top: AnimationTrack<SIMD4<Double>>
  let bottom: AnimationTrack<SIMD4<Double>>
  /// For a repeating sequence, its length: the steps are looked up at the time within it.
  let cycle: Double?

  /// With `endsOnLoop`, the last weather's own clock reads 0 when the sequence ends (a transition
  /// clip): then the frame after the clip is frame 0 of that weather's loop. Every other weather,
  /// and every weather without it, reads the sequence's time.
  ///
  /// With `repeats`, the sequence plays over and over: the last weather fades into the first as
  /// any change does. The timeline then begins with a step of the last weather one fade long, and
  /// time t is looked up at `fade + (t mod length)`, so time 0 is the start of that fade and the end
  /// of a cycle is the same moment again. The weathers' own clocks keep reading t itself.
  init(
    weather: Weather.Kind, steps: [(weather: Weather.Kind, seconds: Double)], endsOnLoop: Bool = false,
    repeats: Bool = false
  ) {
    let held = steps.isEmpty ? [(weather, 1)] : steps
    var timed = held.map { StepTimeline.Step($0.weather, duration: $0.seconds) }
    let total = timed.reduce(0) { $0 + ($1.duration.isFinite ? max($1.duration, 0) : 0) }
    if endsOnLoop, !steps.isEmpty {
      timed[timed.count - 1].clockOrigin = total
    }
    if repeats, steps.count > 1, total > 0, !endsOnLoop {
      timed.insert(StepTimeline.Step(held[held.count - 1].weather, duration: WeatherTimeline.fadeDuration), at: 0)
      cycle = total
    } else {
      cycle = nil
    }
    self.steps = StepTimeline(steps: timed, fade: WeatherTimeline.fadeDuration, curve: .easeInOut)
    top = self.steps.track { ColorInterpolation.carrier(WeatherTimeline.vector($0.skyColors.top)) }
    bottom = self.steps.track { ColorInterpolation.carrier(WeatherTimeline.vector($0.skyColors.bottom)) }
  }

  /// The weathers whose effects show at `time`, the leaving one first, with their opacity and the
  /// time each one's own clock reads (the sequence's time, but for the last weather of a clip
  /// that ends on its loop).
  func weathers(at time: Double) -> [(weather: Weather.Kind, opacity: Double, time: Double)] {
    let local = lookup(time)
    let moment = steps.moment(at: local)
    // A repeating sequence's weathers read the render's time: its loop plan keeps them whole.
    let own = { (t: Double) in self.cycle == nil ? t : time }
    guard let leaving = moment.leaving, let leavingTime = moment.leavingTime else {
      return [(moment.current, 1, own(moment.currentTime))]
    }
    return [(leaving, 1 - moment.arrival, own(leavingTime)), (moment.current, moment.arrival, own(moment.currentTime))]
  }

  /// The sky's top and bottom colors at `time`.
  func sky(at time: Double) -> (top: Color, bottom: Color) {
    let local = lookup(time)
    let moment = steps.moment(at: local)
    guard moment.leaving != nil else { return moment.current.skyColors }  // no round trip at rest
    return (
      WeatherTimeline.color(ColorInterpolation.color(fromCarrier: top.value(at: local))),
      WeatherTimeline.color(ColorInterpolation.color(fromCarrier: bottom.value(at: local)))
    )
  }

  /// Where `time` falls in the steps: itself, or for a repeating sequence the time within a cycle
  /// after the leading fade.
  private func lookup(_ time: Double) -> Double {
    guard let cycle else { return time }
    return WeatherTimeline.fadeDuration + WeatherMath.wrap(time, over: cycle)
  }

  static func vector(_ c: Color) -> SIMD4<Double> {
    SIMD4(Double(c.red), Double(c.green), Double(c.blue), Double(c.alpha))
  }

  static func color(_ v: SIMD4<Double>) -> Color {
    Color(red: Float(v.x), green: Float(v.y), blue: Float(v.z), alpha: Float(v.w))
  }
}
