import Raster
import Timing

/// Which weathers show at a moment of a sequence, how strongly, and the sky's colors.
///
/// Each change of weather fades, over one second of `easeInOut`, the sky's colors to the new ones
/// in the Oklab-type carrier, and the leaving weather's effects out while the arriving ones fade
/// in (SEMANTICS.md 8.4-8.5). A change during a fade makes the weather that was arriving the one
/// leaving, at full strength; the one before it vanishes. The sky's color runs add up, as
/// SwiftUI's timing curves do (8.2). A sequence starts at time 0 with its first weather and holds
/// its last one; without steps, `weather` holds.
struct WeatherTimeline: Sendable {
  /// Seconds a change takes.
  static let fadeDuration: Double = 1

  let steps: StepTimeline<Weather.Kind>
  let top: AnimationTrack<SIMD4<Double>>
  let bottom: AnimationTrack<SIMD4<Double>>

  /// With `endsOnLoop`, the last weather's own clock reads 0 when the sequence ends (a transition
  /// clip): then the frame after the clip is frame 0 of that weather's loop. Every other weather,
  /// and every weather without it, reads the sequence's time.
  init(weather: Weather.Kind, steps: [(weather: Weather.Kind, seconds: Double)], endsOnLoop: Bool = false) {
    let held = steps.isEmpty ? [(weather, 1)] : steps
    var timed = held.map { StepTimeline.Step($0.weather, duration: $0.seconds) }
    if endsOnLoop, !steps.isEmpty {
      timed[timed.count - 1].clockOrigin = timed.reduce(0) { $0 + ($1.duration.isFinite ? max($1.duration, 0) : 0) }
    }
    self.steps = StepTimeline(steps: timed, fade: WeatherTimeline.fadeDuration, curve: .easeInOut)
    top = self.steps.track { ColorInterpolation.carrier(WeatherTimeline.vector($0.skyColors.top)) }
    bottom = self.steps.track { ColorInterpolation.carrier(WeatherTimeline.vector($0.skyColors.bottom)) }
  }

  /// The weathers whose effects show at `time`, the leaving one first, with their opacity and the
  /// time each one's own clock reads (the sequence's time, but for the last weather of a clip
  /// that ends on its loop).
  func weathers(at time: Double) -> [(weather: Weather.Kind, opacity: Double, time: Double)] {
    let moment = steps.moment(at: time)
    guard let leaving = moment.leaving, let leavingTime = moment.leavingTime else {
      return [(moment.current, 1, moment.currentTime)]
    }
    return [(leaving, 1 - moment.arrival, leavingTime), (moment.current, moment.arrival, moment.currentTime)]
  }

  /// The sky's top and bottom colors at `time`.
  func sky(at time: Double) -> (top: Color, bottom: Color) {
    let moment = steps.moment(at: time)
    guard moment.leaving != nil else { return moment.current.skyColors }  // no round trip at rest
    return (
      WeatherTimeline.color(ColorInterpolation.color(fromCarrier: top.value(at: time))),
      WeatherTimeline.color(ColorInterpolation.color(fromCarrier: bottom.value(at: time)))
    )
  }

  static func vector(_ c: Color) -> SIMD4<Double> {
    SIMD4(Double(c.red), Double(c.green), Double(c.blue), Double(c.alpha))
  }

  static func color(_ v: SIMD4<Double>) -> Color {
    Color(red: Float(v.x), green: Float(v.y), blue: Float(v.z), alpha: Float(v.w))
  }
}
