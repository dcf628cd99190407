import Effects
import Foundation
import Raster
import Testing
import Timing
import Video
import _TestSupport

@testable import Loopsmith

/// A transition clip at 36x64 px, scale 0.1, 10 fps.
func clipJob(_ effect: String, _ transition: String, duration: Double? = nil) throws -> RenderJob {
  var r = RenderRequest()
  r.effect = effect
  r.size = (36, 64)
  r.scale = 0.1
  r.fps = 10
  r.duration = duration
  r.threads = 1
  r.outputs = ["clip.mp4"]
  r.transition = transition
  return try r.job()
}

/// The largest difference of any channel of any pixel.
func largestStep(_ a: Image, _ b: Image) -> Float {
  var worst: Float = 0
  for i in 0..<a.count { worst = max(worst, (a.pixels[i] - b.pixels[i]).max(), (b.pixels[i] - a.pixels[i]).max()) }
  return worst
}

@Suite struct TransitionTests {
  static let cases: [(String, String, String, String)] = [
    ("weather", "weather", "rain", "snow"), ("weather", "weather", "clearDay", "thunderstorm"),
    ("weather", "weather", "fog", "cloudy"), ("voice-orb", "state", "idle", "speaking"),
    ("voice-orb", "state", "speaking", "thinking"),
  ]

  /// The clip's frame 0 is loop A's frame 0, and its frame N (one past its last) is loop B's
  /// frame 0: exactly for weather, whose arriving weather's clock reads 0 there; within a quarter
  /// code for the orb, whose blobs have turned whole turns.
  @Test(arguments: cases)
  func theClipStartsOnLoopAAndEndsJustBeforeLoopB(effect: String, parameter: String, from: String, to: String) throws {
    let clip = try clipJob(effect, "\(from):\(to)")
    let loopA = try job(effect, [parameter: from], fps: 10)
    let loopB = try job(effect, [parameter: to], fps: 10)
    let transition = try #require(clip.transition)
    #expect(transition.fromLoop == loopA.plan?.length && transition.toLoop == loopB.plan?.length)
    if effect == "weather" {
      #expect(clip.frameCount == 60)  // 6 s: the shortest multiple of the lightning cycle
      #expect(transition.change == 2.5)
    } else {
      #expect(clip.frameCount == loopA.frameCount)  // one whole loop of the blobs
    }
    #expect(checksum(frame(clip, 0)) == checksum(frame(loopA, 0)), "\(from)->\(to): frame 0")
    let end = frame(clip, clip.frameCount), zeroB = frame(loopB, 0)
    if effect == "weather" {
      #expect(checksum(end) == checksum(zeroB), "\(from)->\(to): frame N is not B's frame 0")
    } else {
      #expect(largestStep(end, zeroB) < 1.0 / 1024, "\(from)->\(to): frame N differs from B's frame 0")
    }
    // The step from the clip's last frame into B's frame 0 is one of B's own steps: the clip's last
    // frame is B's last frame (crossfaded layers included).
    let lastB = frame(loopB, loopB.frameCount - 1)
    #expect(largestStep(frame(clip, clip.frameCount - 1), lastB) < 1.0 / 256, "\(from)->\(to): last frame")
    // And the clip really changes: the middle is neither end.
    let middle = frame(clip, clip.frameCount / 2)
    #expect(checksum(middle) != checksum(frame(loopA, 0)) && checksum(middle) != checksum(zeroB))
  }

  @Test func eachWeatherOfAClipKeepsThePlanOfItsOwnLoop() throws {
    let clip = try clipJob("weather", "rain:snow")
    let plan = try #require(clip.plan)
    #expect(plan.parts["rain"] == (try job("weather", ["weather": "rain"], fps: 10)).plan)
    #expect(plan.parts["snow"] == (try job("weather", ["weather": "snow"], fps: 10)).plan)
    #expect(plan.rows.contains { $0.layer == "snow/snow.near" } && plan.rows.contains { $0.layer == "rain/rain.far" })
  }

  @Test func aLongerClipIsAWholeMultipleOfTheLightningCycle() throws {
    let clip = try clipJob("weather", "thunderstorm:rain", duration: 12)
    #expect(clip.frameCount == 120 && clip.transition?.change == 5.5)
    #expect(
      checksum(frame(clip, clip.frameCount)) == checksum(frame(try job("weather", ["weather": "rain"], fps: 10), 0)))
  }

  @Test func aVoiceClipHoldsOneLevel() throws {
    var r = RenderRequest()
    (r.effect, r.transition, r.levels, r.outputs) = ("voice-orb", "idle:speaking", "levels.csv", ["clip.mp4"])
    #expect {
      _ = try r.job()
    } throws: { error in
      "\(error)".contains("--levels: a transition clip holds one --level")
    }
  }

  @Test(
    arguments: [
      ("weather", "rain:rain", nil, "--transition: 'rain:rain' changes nothing"),
      ("weather", "rain", nil, "--transition: 'rain' is not valid; expected FROM:TO"),
      ("weather", "rain:sleet", nil, "--transition: 'rain:sleet' is not valid"),
      ("color-orbs", "a:b", nil, "--transition: color-orbs has nothing to change between"),
      ("weather", "rain:snow", 10, "--duration: a weather transition lasts a whole multiple of 6 s"),
      ("voice-orb", "idle:speaking", 5, "--duration: a voice-orb transition lasts a whole multiple of 10 s"),
    ] as [(String, String, Double?, String)])
  func aBadTransitionSaysWhatWasExpected(effect: String, transition: String, duration: Double?, message: String) {
    #expect {
      _ = try clipJob(effect, transition, duration: duration)
    } throws: { error in
      "\(error)".contains(message)
    }
  }

  /// A clip does not loop, so it gets no seam work: x264's seam zones (written into the file's
  /// SEI with the rest of its options) and AV1's loop-closing encode are for loops only.
  @Test func aClipGetsNoSeamZonesOrLoopClosingEncode() throws {
    let dir = TemporaryDirectory()
    var clip = RenderRequest()
    (clip.effect, clip.size, clip.scale, clip.fps, clip.threads) = ("weather", (64, 112), 0.2, 4, 1)
    clip.transition = "rain:snow"
    var loop = clip
    loop.transition = nil
    try loop.setParameter("weather", to: "rain")
    for (request, name, loops) in [(clip, "clip.mp4", false), (loop, "loop.mp4", true)] {
      var r = request
      r.outputs = [dir.path(name)]
      #expect(try r.job().outputs[0].loops == loops, "\(name)")
      r.codec = "av1"
      #expect(try r.job().outputs[0].loopClosingFrames == (loops ? 16 : 0), "\(name) in AV1")
      try Renderer.render(request, to: dir.path(name))
      let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: dir.path(name))), as: UTF8.self)
      let options = try #require(text.range(of: "x264 - core"), "\(name)")
      #expect(text[options.lowerBound...].prefix(2000).contains("zones=") == loops, "\(name)")
    }
  }
}
