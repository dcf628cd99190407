import Foundation
import Raster
import Testing
import Timing
import _TestSupport

@testable import Effects

/// A loop plan that runs every motion a whole number of cycles in `length` seconds.
private struct WholeCycles: MotionPlan {
  let length: Double
  func plannedRate(for motion: Motion) -> Double {
    (motion.rate * length / motion.period).rounded() * motion.period / length
  }
  func crossfadeWindow(for layer: String) -> Double? { nil }
}

/// Renders the weather effect at `time` into a `width x height` point frame at `scale`.
private func render(
  _ values: [String: String], at time: Double, width: Double = 90, height: Double = 160, scale: Float = 0.5,
  environment: RenderEnvironment = RenderEnvironment(), plan: (any MotionPlan)? = nil,
  recorder: MotionRecorder? = nil
) -> Image {
  var given: [String: ParameterValue] = [:]
  for (name, text) in values { given[name] = try! Weather.info.parameter(named: name)!.parse(text) }
  let effect = Weather(values: ParameterValues(specs: Weather.info.parameters, given: given), environment: environment)
  let image = Image(width: Int(width * Double(scale)), height: Int(height * Double(scale)))
  var context = Surface(image: image, scale: scale).context()
  effect.draw(in: &context, clock: Clock(time: time, plan: plan, recorder: recorder))
  return image
}

/// The gradient's color at the center of pixel row `row` of a frame `rows` pixels tall.
private func skyColor(_ kind: Weather.Kind, row: Int, rows: Int) -> Pixel {
  let (top, bottom) = kind.skyColors
  let t = (Float(row) + 0.5) / Float(rows)
  return top.premultiplied + (bottom.premultiplied - top.premultiplied) * t
}

/// The smallest difference, over the pixels of `row`, between a pixel and the bare sky there.
private func skyError(_ image: Image, _ kind: Weather.Kind, row: Int) -> Float {
  let expected = skyColor(kind, row: row, rows: image.height)
  return (0..<image.width).map { x in
    let d = image[x, row] - expected
    return max(abs(d.x), abs(d.y), abs(d.z), abs(d.w))
  }.min()!
}

private func meanBrightness(_ image: Image) -> Float {
  var sum: Float = 0
  for i in 0..<image.count { sum += image.pixels[i].x + image.pixels[i].y + image.pixels[i].z }
  return sum / Float(3 * image.count)
}

@Suite struct WeatherRenderTests {
  @Test(arguments: Weather.Kind.allCases)
  func framesAreOpaqueNumbers(kind: Weather.Kind) {
    for time in [0.0, 0.49, 3.3] {
      let image = render(["weather": kind.rawValue], at: time)
      for i in 0..<image.count {
        let p = image.pixels[i]
        guard p.x.isFinite, p.y.isFinite, p.z.isFinite, abs(p.w - 1) < 1e-4 else {
          Issue.record("\(kind) at \(time): pixel \(i) is \(p)")
          return
        }
      }
    }
  }

  /// Where the weather leaves the sky bare, it shows the seed's colors. Each frame is chosen so
  /// that the row checked is out of the effects' reach: a wide, low frame for the sun, a tall one
  /// for clouds (they stay in the upper part) and fog (it stays below the top).
  @Test(arguments: [
    (Weather.Kind.clearDay, 400.0, 160.0, Float(0.25), true, true),
    (.clearNight, 90, 160, 0.5, true, true),
    (.cloudy, 90, 1600, 0.1, false, true),
    (.rain, 90, 1600, 0.1, false, true),
    (.thunderstorm, 90, 1600, 0.1, false, true),
    (.snow, 90, 160, 0.5, true, true),
    (.fog, 90, 1600, 0.1, true, false),
  ])
  func theSkyHasTheSeedsColors(
    kind: Weather.Kind, width: Double, height: Double, scale: Float,
    top: Bool, bottom: Bool
  ) {
    let image = render(["weather": kind.rawValue], at: 3.3, width: width, height: height, scale: scale)
    if top { #expect(skyError(image, kind, row: 0) <= 2.0 / 255, "\(kind) top") }
    if bottom { #expect(skyError(image, kind, row: image.height - 1) <= 2.0 / 255, "\(kind) bottom") }
  }

  /// The brightest pixel of a clear day: near the sun, in the top trailing corner.
  private func brightest(rightToLeft: Bool) -> (x: Double, y: Double) {
    let image = render(
      ["weather": "clearDay"], at: 3.3, width: 400, height: 300, scale: 0.25,
      environment: RenderEnvironment(rightToLeft: rightToLeft))
    var best = (x: 0, y: 0, v: -Float.infinity)
    for y in 0..<image.height {
      for x in 0..<image.width {
        let p = image[x, y]
        if p.x + p.y + p.z > best.v { best = (x, y, p.x + p.y + p.z) }
      }
    }
    return (Double(best.x) / Double(image.width), Double(best.y) / Double(image.height))
  }

  @Test func theSunGlowsInTheTopTrailingCorner() {
    let ltr = brightest(rightToLeft: false)
    #expect(ltr.x > 0.7 && ltr.y < 0.4, "\(ltr)")
    let rtl = brightest(rightToLeft: true)
    #expect(rtl.x < 0.3 && rtl.y < 0.4, "\(rtl)")
  }

  @Test func lightningBrightensTheStormOnlyWithoutReduceMotion() {
    let flash = meanBrightness(render(["weather": "thunderstorm"], at: 0.49))
    let dark = meanBrightness(render(["weather": "thunderstorm"], at: 3.3))
    let still = meanBrightness(
      render(
        ["weather": "thunderstorm"], at: 0.49,
        environment: RenderEnvironment(reduceMotion: true)))
    #expect(flash > dark + 0.2)
    #expect(flash > still + 0.2)
  }

  @Test func aFadesMidpointSkyLiesBetweenItsEnds() {
    // Night and snow are both sparse: the median of the top row is the sky.
    func topSky(at time: Double) -> Pixel {
      let image = render(["sequence": "clearNight:2,snow:2"], at: time)
      let row = (0..<image.width).map { image[$0, 0] }
      return row.sorted { $0.x + $0.y + $0.z < $1.x + $1.y + $1.z }[row.count / 2]
    }
    let (start, mid, end) = (topSky(at: 1), topSky(at: 2.5), topSky(at: 3.5))
    for c in 0..<3 {
      #expect(min(start[c], end[c]) + 0.01 < mid[c] && mid[c] < max(start[c], end[c]) - 0.01, "channel \(c)")
    }
    // Halfway in time is halfway along easeInOut, and the carrier mix decides the color.
    let a = WeatherTimeline.vector(Weather.Kind.clearNight.skyColors.top)
    let b = WeatherTimeline.vector(Weather.Kind.snow.skyColors.top)
    let expected = WeatherTimeline.color(ColorInterpolation.mix(a, b, 0.5)).premultiplied
    let gradient = skyColor(.snow, row: 0, rows: 80) - Weather.Kind.snow.skyColors.top.premultiplied
    #expect(abs(mid.x - expected.x) < 3.0 / 255 + abs(gradient.x))
    #expect(abs(mid.z - expected.z) < 3.0 / 255 + abs(gradient.z))
  }

  @Test(arguments: Weather.Kind.allCases)
  func aLoopPlanMakesTheLastFrameTheFirst(kind: Weather.Kind) {
    let plan = WholeCycles(length: 12)
    for start in kind == .thunderstorm ? [0.0, 0.49, 0.8] : [0.0] {
      let first = render(["weather": kind.rawValue], at: start, plan: plan)
      let again = render(["weather": kind.rawValue], at: start + plan.length, plan: plan)
      #expect(largestDifference(first, again) < 1e-3, "\(kind) at \(start)")
    }
    // Without the plan the seed's rates do not come round in 12 s: the test can tell.
    let unplanned = render(["weather": kind.rawValue], at: 12)
    #expect(largestDifference(render(["weather": kind.rawValue], at: 0), unplanned) > 1e-2)
  }

  private func largestDifference(_ a: Image, _ b: Image) -> Float {
    var worst: Float = 0
    for i in 0..<a.count {
      let d = a.pixels[i] - b.pixels[i]
      worst = max(worst, abs(d.x), abs(d.y), abs(d.z), abs(d.w))
    }
    return worst
  }

  /// The loop planner's own plan at its default length for the weather: quantized rates, and
  /// crossfaded clouds and fog where their slow drift cannot be quantized.
  @Test(arguments: Weather.Kind.allCases)
  func theDefaultPlanLoops(kind: Weather.Kind) throws {
    let recorder = MotionRecorder()
    _ = render(["weather": kind.rawValue], at: 0, recorder: recorder)
    #expect(!recorder.motions.isEmpty)
    if kind == .thunderstorm {
      #expect(recorder.motions.contains { $0.layer == "lightning" && $0.kind == .schedule })
    }
    let fps = Weather.defaultFPS(for: kind)
    let length = try LoopPlanner.defaultLength(motions: recorder.motions, fps: fps, lengthQuantum: 6)
    let plan = try LoopPlanner.plan(motions: recorder.motions, length: length, fps: fps, lengthQuantum: 6)
    #expect(length.truncatingRemainder(dividingBy: 6) == 0)
    let first = render(["weather": kind.rawValue], at: 0, plan: plan)
    let again = render(["weather": kind.rawValue], at: length, plan: plan)
    #expect(largestDifference(first, again) < 2e-3, "\(kind) over \(length) s")
  }

  @Test func reduceMotionHoldsTheEffectsButStillFadesTheWeather() {
    let still = RenderEnvironment(reduceMotion: true)
    let rain = render(["weather": "rain"], at: 0)
    let held = render(["weather": "rain"], at: 3.3, environment: still)
    #expect(largestDifference(rain, held) < 1e-6)
    // Halfway through a change the sky is neither weather's, though nothing else moves.
    let fading = render(["sequence": "rain:2,clearNight:2"], at: 2.5, environment: still)
    let before = render(["sequence": "rain:2,clearNight:2"], at: 0, environment: still)
    #expect(largestDifference(fading, before) > 0.02)
  }
}

/// The rain's streaks drawn in bands leave out the ones that miss the band
/// (`WeatherRain.Streaks`), and the bands are the whole frame's bits: here the rain is scaled
/// into the middle of the frame, so its outermost streaks bound the paths inside the frame and
/// every band leaves some out.
@Suite struct RainBandTests {
  /// The rain of a 200x400 pt screen at a quarter scale, 30 px from the left and 40 from the
  /// top of a 120x200 px frame, at `time`.
  static func rain(_ context: inout GraphicsContext, at time: Double) {
    context.translateBy(x: 30, y: 40)
    context.scaleBy(x: 0.25, y: 0.25)
    WeatherRain.draw(in: &context, size: (200, 400), clock: Clock(time: time), drops: 170)
  }

  @Test(arguments: [0.0, 0.37, 1.9])
  func bandsAreTheWholeFramesBits(time: Double) {
    let (width, height) = (120, 200)
    let (whole, assembled, banded) = drawWholeAndInBands(width: width, height: height, bandRows: 16) {
      Self.rain(&$0, at: time)
    }
    #expect(banded)
    let (a, b) = (channelBits(whole), channelBits(assembled))
    let differing = (0..<a.count).filter { a[$0] != b[$0] }
    #expect(differing.count == 0, "the first differing channel is at \(differing.first ?? -1)")
    // Streaks show, and only inside the frame: the rain's paths are bounded inside it.
    #expect((0..<whole.count).filter { whole.pixels[$0].w > 0 }.count > 500)
    #expect((0..<width).allSatisfy { whole[$0, 0] == .zero && whole[$0, height - 1] == .zero })
  }

  /// On a band, a streak far from it is left out, but the outermost ones stay.
  @Test func aBandLeavesOutTheStreaksThatMissIt() {
    let starts = (0..<9).map { SIMD2(Double($0) * 20, Double($0) * 40) }
    let band = Surface(width: 200, height: 400, bandRows: 40, scale: 1)
    band.drawBand(160..<200)
    let context = band.context()
    var near = WeatherRain.Streaks(drops: starts, isNear: true, transform: context.transform)
    for (index, start) in starts.enumerated() where index % 3 == 0 { near.add(start, on: context) }
    // Near drops 0, 3, 6 at y 0, 120, 240: 0 and 240 are outermost, 120 (to 138) misses rows
    // 160-199 by more than two pixels.
    let moves = near.path.elements.compactMap { if case .move(let p) = $0 { p } else { nil } }
    #expect(moves == [Point(0, 0), Point(120, 240)])
  }
}
