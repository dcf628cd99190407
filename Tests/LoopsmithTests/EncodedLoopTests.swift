import Effects
import Foundation
import Testing
import Video
import _TestSupport

@testable import Loopsmith

/// Every effect, weather and voice state, rendered small into real H.264 and VP9, passes `check`:
/// the seam is an ordinary step after encoding too.
@Suite struct EncodedLoopTests {
  @Test(arguments: LoopTests.cases)
  func theEncodedLoopPassesCheck(effect: String, set: [String: String]) throws {
    let dir = TemporaryDirectory()
    var r = RenderRequest()
    r.effect = effect
    r.size = effect == "voice-orb" || effect == "blob-morph-loader" ? (64, 64) : (64, 112)
    r.scale = effect == "blob-morph-loader" ? 0.6 : 0.2
    r.fps = 4  // the default loop lengths (up to 126 s) at few frames, to render in a test
    r.threads = 2
    r.outputs = [dir.path("loop.mp4"), dir.path("loop.webm")]
    let type = try #require(EffectRegistry.type(named: effect))
    for (k, v) in set { r.parameters[k] = try #require(type.info.parameter(named: k)).parse(v) }
    let job = try r.job()
    _ = try RenderPipeline.run(job)
    for file in ["loop.mp4", "loop.webm"] {
      let report = try LoopCheck.run(path: dir.path(file))
      #expect(report.passed, "\(effect) \(set) \(file): \(report.failures), ratio \(report.seamRatio)")
      #expect(report.frames == job.frameCount)
    }
  }
}
