import Raster

/// Which weathers show at a moment of a sequence, how strongly, and the sky's colors.
///
/// Each change of weather fades, over one second of `easeInOut`, the sky's colors to the new ones
/// and the leaving weather's effects out while the arriving ones fade in (SEMANTICS.md 8.4-8.5).
/// A change during a fade makes the weather that was arriving the one leaving, at full strength;
/// the one before it vanishes. The sky's color animations add up, as SwiftUI's timing curves do
/// (SEMANTICS.md 8.2). A sequence starts at time 0 with its first weather and holds its last one.
struct WeatherTimeline: Sendable {
  /// Seconds a change takes.
  static let fadeDuration: Double = 1

  /// The weather shown before any change.
  let initial: Weather.Kind
  /// The changes: when each starts (seconds) and the weather it brings, in time order, never
  /// bringing the weather already showing (SwiftUI's `onChange` sees no change then).
  let changes: [(time: Double, weather: Weather.Kind)]

  /// A timeline for `weather` alone when `steps` is empty, else for the steps one after another.
  init(weather: Weather.Kind, steps: [(weather: Weather.Kind, seconds: Double)]) {
    guard let first = steps.first else {
      initial = weather
      changes = []
      return
    }
    initial = first.weather
    var changes: [(time: Double, weather: Weather.Kind)] = []
    var start = first.seconds
    var showing = first.weather
    for step in steps.dropFirst() {
      if step.weather != showing { changes.append((start, step.weather)) }
      showing = step.weather
      start += step.seconds
    }
    self.changes = changes
  }

  /// The weathers whose effects show at `time` and their opacity, the leaving one first.
  func weathers(at time: Double) -> [(weather: Weather.Kind, opacity: Double)] {
    guard let k = changes.lastIndex(where: { $0.time <= time }) else { return [(initial, 1)] }
    let arrival = WeatherMath.easeInOut((time - changes[k].time) / WeatherTimeline.fadeDuration)
    let arriving = changes[k].weather
    guard arrival < 1 else { return [(arriving, 1)] }
    let leaving = k > 0 ? changes[k - 1].weather : initial
    return [(leaving, 1 - arrival), (arriving, arrival)]
  }

  /// The sky's top and bottom colors at `time`.
  func sky(at time: Double) -> (top: Color, bottom: Color) {
    var top = WeatherMath.carrier(initial.skyColors.top)
    var bottom = WeatherMath.carrier(initial.skyColors.bottom)
    var previous = initial
    for change in changes {
      guard change.time <= time else { break }
      // Each change adds its own run from the old target to the new one.
      let progress = WeatherMath.easeInOut((time - change.time) / WeatherTimeline.fadeDuration)
      top += (WeatherMath.carrier(change.weather.skyColors.top) - WeatherMath.carrier(previous.skyColors.top)) * progress
      bottom += (WeatherMath.carrier(change.weather.skyColors.bottom) - WeatherMath.carrier(previous.skyColors.bottom)) * progress
      previous = change.weather
    }
    if changes.isEmpty || changes[0].time > time { return initial.skyColors }
    if let last = changes.last, time >= last.time + WeatherTimeline.fadeDuration {
      return last.weather.skyColors  // every run has ended: the target itself, no round trip
    }
    return (WeatherMath.color(fromCarrier: top), WeatherMath.color(fromCarrier: bottom))
  }
}
