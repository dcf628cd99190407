import Foundation
import Testing
import Timing

@testable import Effects

@Suite struct WeatherMathTests {
  @Test(arguments: [-1e-17, 0, 12, -3, 9.999_999, -10, .nan, .infinity, -.infinity])
  func wrapStaysInsideTheTravel(position: Double) {
    let wrapped = WeatherMath.wrap(position, over: 10)
    #expect(wrapped >= 0 && wrapped < 10)
  }

  @Test func wrapSendsTinyNegativeRemaindersToTheStart() {
    #expect(WeatherMath.wrap(-1e-17, over: 10) == 0)
    #expect(WeatherMath.wrap(-3, over: 10) == 7)
    #expect(WeatherMath.wrap(23, over: 10) == 3)
    #expect(WeatherMath.wrap(5, over: 0) == 0)
    #expect(WeatherMath.wrap(5, over: -2) == 0)
    #expect(WeatherMath.wrap(.nan, over: 10) == 0)
  }

  /// The schedule sampled every millisecond over `seconds`, from `start`.
  private func samples(from start: Double = 0, seconds: Double) -> [(t: Double, f: Double)] {
    (0..<Int(seconds * 1000)).map { i in
      let t = start + Double(i) / 1000
      return (t, WeatherMath.flash(at: t))
    }
  }

  @Test func flashIsDarkOutsideTheStrikesAndPeaksMidStrike() {
    // sin(pi) at a strike's end is 1e-16, not 0: allow that much.
    let lit = samples(seconds: 6).filter { t, f in
      let inStrike = (t >= 0.4 && t <= 0.58) || (t >= 0.75 && t <= 0.97)
      return (!inStrike && f > 1e-12) || f < 0 || f > 1
    }
    #expect(lit.isEmpty, "\(lit.prefix(3))")
    #expect(abs(WeatherMath.flash(at: 0.49) - 1) < 1e-12)
    #expect(abs(WeatherMath.flash(at: 0.86) - 1) < 1e-12)
  }

  /// The times at which a flash starts (dark before, lit after).
  private func onsets(from start: Double, seconds: Double) -> [Double] {
    let s = samples(from: start, seconds: seconds)
    return zip(s, s.dropFirst()).compactMap { a, b in a.f == 0 && b.f > 0 ? b.t : nil }
  }

  @Test func atMostTwoStrikesPerCycleAndThreeFlashesASecond() {
    #expect(onsets(from: -0.001, seconds: 6).count == 2)
    let all = onsets(from: -0.001, seconds: 24)
    #expect(all.count == 8)
    let busiest = all.map { t in all.filter { $0 >= t && $0 < t + 1 }.count }.max()!
    #expect(busiest <= 3)
  }

  @Test(arguments: [0.0, 0.45, 0.49, 0.6, 0.8, 0.9, 3.3, 5.999])
  func theScheduleRepeatsEverySixSeconds(t: Double) {
    #expect(abs(WeatherMath.flash(at: t) - WeatherMath.flash(at: t + 6)) < 1e-9)
    #expect(abs(WeatherMath.flash(at: t) - WeatherMath.flash(at: t - 12)) < 1e-9)
  }

  @Test func theBoltsCycleRepeatsWithTheLoop() {
    #expect(WeatherMath.cycle(at: 0.49, cycles: nil) == 0)
    #expect(WeatherMath.cycle(at: 6.49, cycles: nil) == 1)
    #expect(WeatherMath.cycle(at: -0.5, cycles: nil) == -1)
    #expect(WeatherMath.cycle(at: -1e-17, cycles: nil) == 0)  // agrees with the wrapped moment
    #expect(WeatherMath.cycle(at: 12.49, cycles: 2) == 0)
    #expect(WeatherMath.cycle(at: 6.49, cycles: 2) == 1)
    #expect(WeatherMath.cycle(at: -0.5, cycles: 2) == 1)
  }

  @Test func aChangeMidFadeLeavesTheArrivingWeatherAtFullStrength() {
    let timeline = WeatherTimeline(weather: .clearDay, steps: [(.rain, 1), (.snow, 0.5), (.fog, 1)])
    #expect(timeline.weathers(at: 0.5).map(\.weather) == [.rain])
    let mid = timeline.weathers(at: 1.5)
    #expect(mid.map(\.weather) == [.snow, .fog])
    #expect(mid[0].opacity == 1 && mid[1].opacity == 0)
    let later = timeline.weathers(at: 2.0)
    #expect(abs(later[0].opacity - 0.5) < 1e-9 && abs(later[1].opacity - 0.5) < 1e-9)
    #expect(later.allSatisfy { $0.time == 2.0 })  // every weather reads the same time
    #expect(timeline.weathers(at: 2.6).map(\.weather) == [.fog])
    // The same weather twice in a row is no change.
    let held = WeatherTimeline(weather: .clearDay, steps: [(.rain, 1), (.rain, 1)])
    #expect(held.steps.changes.isEmpty)
    #expect(WeatherTimeline(weather: .fog, steps: []).weathers(at: 9).map(\.weather) == [.fog])
    // The sky rests exactly on its colors outside fades.
    #expect(timeline.sky(at: 0.5).top == Weather.Kind.rain.skyColors.top)
    #expect(timeline.sky(at: 9).bottom == Weather.Kind.fog.skyColors.bottom)
  }

  @Test func theInfoDescribesTheEffect() {
    #expect(Weather.info.name == "weather")
    #expect(Weather.info.loopQuantum == 6)
    #expect(Weather.info.defaultFPS == 30)
    #expect(!Weather.info.isTransparent)
    #expect(Weather.defaultFPS(for: .rain) == 60 && Weather.defaultFPS(for: .fog) == 30)
    #expect(EffectRegistry.type(named: "weather") != nil)
    let spec = Weather.info.parameter(named: "sequence")!
    #expect(
      (try? spec.parse("rain:2, clear-night:1.5"))
        == .steps([.init(value: "rain", seconds: 2), .init(value: "clearNight", seconds: 1.5)]))
  }
}
