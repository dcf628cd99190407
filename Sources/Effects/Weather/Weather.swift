import Foundation
import Raster
import Timing

/// An animated sky for a kind of weather: sun, stars, clouds, rain, storm, snow or fog.
///
/// Changing weather (a `sequence`) fades the sky and its effects into the new ones. Lightning
/// follows a fixed schedule of at most two flashes every six seconds, never more than three a
/// second. With Reduce Motion on, everything holds still and lightning never flashes. The sun sits
/// in the top trailing corner, so it moves to the left in a right-to-left layout.
public struct Weather: Effect {
  public static let info = EffectInfo(
    name: "weather",
    summary: "An animated sky for a kind of weather: sun, stars, clouds, rain, storm, snow or fog.",
    parameters: [
      ParameterSpec(
        "weather", .choice(Kind.allCases.map(\.rawValue)), default: .choice(Kind.clearDay.rawValue),
        help: "The weather to draw."),
      ParameterSpec(
        "sequence", .steps(Kind.allCases.map(\.rawValue)), default: .steps([]),
        help: "Weathers one after another, each for its seconds, fading into the next; empty holds `weather`."),
      ParameterSpec(
        "repeat", .flag, default: .flag(false),
        help:
          "Play the sequence over and over, the last weather fading into the first (the seed demo's tour); loops hold whole sequences."
      ),
    ],
    isTransparent: false,
    defaultFPS: 30,
    loopQuantum: WeatherMath.lightningCycle,
    transition: TransitionSpec(parameter: "weather", settle: WeatherTimeline.fadeDuration, ownClocks: true))

  /// The frames a second the seed draws `weather` at: 60 for rain, thunderstorm and snow, else 30.
  public static func defaultFPS(for weather: Kind) -> Int { weather.framesPerSecond }

  /// A sequence draws at the fastest rate any of its weathers needs.
  public static func defaultFPS(for values: ParameterValues) -> Int {
    let kinds = values.steps("sequence").map(\.value) + [values.choice("weather")]
    return kinds.compactMap { Kind(rawValue: $0) }.map(defaultFPS(for:)).max() ?? info.defaultFPS
  }

  public func endingOnLoop() -> Weather {
    var clip = self
    clip.endsOnLoop = true
    return clip
  }

  /// The weather to draw when there is no sequence.
  public var weather: Kind
  /// Weathers one after another and how long each shows, in seconds; empty holds `weather`.
  public var sequence: [(weather: Kind, seconds: Double)]
  /// Whether the sequence plays over and over, the last weather fading into the first.
  public var repeats: Bool
  /// Right-to-left layout and Reduce Motion.
  public var environment: RenderEnvironment

  /// Whether the sequence is a transition clip that ends on the last weather's loop: that
  /// weather's own clock reads 0 when the sequence ends, so the frame after the clip is frame 0 of
  /// its loop (a render job with a transition sets it).
  public var endsOnLoop = false {
    didSet { timeline = WeatherTimeline(weather: weather, steps: sequence, endsOnLoop: endsOnLoop, repeats: repeats) }
  }

  private(set) var timeline: WeatherTimeline

  public init(values: ParameterValues, environment: RenderEnvironment) {
    weather = Kind(rawValue: values.choice("weather")) ?? .clearDay
    sequence = values.steps("sequence").compactMap { step in
      Kind(rawValue: step.value).map { ($0, step.seconds) }
    }
    repeats = values.flag("repeat")
    self.environment = environment
    timeline = WeatherTimeline(weather: weather, steps: sequence, repeats: repeats)
  }

  /// A repeating sequence loops over whole sequences and whole lightning cycles: the least common
  /// multiple of its length and 6 s (the demo's tour, 7 x 1.8 s, gives 126 s).
  public static func loopQuantum(for values: ParameterValues) -> Double? {
    let total = values.steps("sequence").reduce(0) { $0 + $1.seconds }
    guard values.flag("repeat"), total > 0 else { return info.loopQuantum }
    // In milliseconds, where both are whole: lcm(a, b) = a / gcd(a, b) * b.
    let a = Int((total * 1000).rounded()), b = Int(WeatherMath.lightningCycle * 1000)
    func gcd(_ x: Int, _ y: Int) -> Int { y == 0 ? x : gcd(y, x % y) }
    let (product, overflow) = (a / gcd(a, b)).multipliedReportingOverflow(by: b)
    return overflow ? nil : Double(product) / 1000
  }

  public func draw(in context: inout GraphicsContext, clock: Clock) {
    let sky = timeline.sky(at: clock.time)
    WeatherSky.draw(in: context, top: sky.top, bottom: sky.bottom)
    // Every weather reads its own clock, the sequence's time unless a clip ends on its loop, so
    // the one leaving goes on moving while it fades, under the plan of its own loop. With Reduce
    // Motion the effects hold their time-0 still, but a change of weather still fades, as the seed
    // pauses only its timelines: a caller may pass the real time for a sequence.
    for (weather, opacity, time) in timeline.weathers(at: clock.time) where opacity > 0 {
      let effectsClock = clock.part(weather.rawValue).at(environment.reduceMotion ? 0 : time)
      drawEffects(of: weather, opacity: opacity, in: context, clock: effectsClock)
    }
  }

  /// The canvases of one weather, each faded on its own (docs/SWIFTUI-SEMANTICS.md, View modifiers).
  private func drawEffects(of weather: Kind, opacity: Double, in context: GraphicsContext, clock: Clock) {
    let size = context.size
    switch weather {
    case .clearDay:
      WeatherSun.draw(
        in: context, opacity: opacity, size: size, clock: clock,
        rightToLeft: environment.rightToLeft)
    case .clearNight:
      Weather.canvas(context, opacity) { WeatherStars.draw(in: &$0, size: size, clock: clock) }
    case .cloudy:
      WeatherClouds.draw(in: context, opacity: opacity, size: size, clock: clock, color: .white, alpha: 0.5)
    case .rain:
      WeatherClouds.draw(in: context, opacity: opacity, size: size, clock: clock, color: .white, alpha: 0.25)
      Weather.canvas(context, opacity) { WeatherRain.draw(in: &$0, size: size, clock: clock, drops: 110) }
    case .thunderstorm:
      WeatherClouds.draw(in: context, opacity: opacity, size: size, clock: clock, color: .black, alpha: 0.5)
      if !environment.reduceMotion {
        Weather.canvas(context, opacity) { WeatherLightning.draw(in: &$0, size: size, clock: clock) }
      }
      Weather.canvas(context, opacity) { WeatherRain.draw(in: &$0, size: size, clock: clock, drops: 170) }
    case .snow:
      Weather.canvas(context, opacity) { WeatherSnow.draw(in: &$0, size: size, clock: clock) }
    case .fog:
      WeatherFog.draw(in: context, opacity: opacity, size: size, clock: clock)
    }
  }
}

extension Weather {
  /// Draws one canvas: straight onto the context at full opacity, else into a layer composited once
  /// with `opacity`, as SwiftUI fades a canvas as a whole.
  static func canvas(_ context: GraphicsContext, _ opacity: Double, _ draw: (inout GraphicsContext) -> Void) {
    if opacity >= 1 {
      var direct = context
      draw(&direct)
    } else {
      var faded = context
      faded.opacity *= opacity
      faded.drawLayer(draw)
    }
  }
}
