import Effects
import Foundation
import Testing
import Video
import _TestSupport

@testable import Loopsmith

/// Every effect, weather and voice state, rendered small into real H.264, HEVC and VP9 (with alpha
/// for the transparent effects), passes `check --against` its own lossless source: no step of the
/// file, the seam first, jumps beyond the source's motion (docs/ENCODING.md, Judging a loop and
/// Loop tuning).
@Suite struct EncodedLoopTests {
  /// The files each case is encoded into, from the same rendered frames.
  static let files = ["h264.mp4", "hevc.mp4", "vp9.webm"]

  @Test(arguments: LoopTests.cases)
  func theEncodedLoopKeepsTheSourcesMotion(effect: String, set: [String: String]) throws {
    let dir = TemporaryDirectory()
    let transparent = effect == "voice-orb" || effect == "blob-morph-loader"
    var r = RenderRequest()
    r.effect = effect
    r.size = transparent ? (64, 64) : (64, 112)
    r.scale = effect == "blob-morph-loader" ? 0.6 : 0.2
    r.fps = 4  // the default loop lengths (up to 120 s) at few frames, to render in a test
    r.threads = 2
    let type = try #require(EffectRegistry.type(named: effect))
    for (k, v) in set { r.parameters[k] = try #require(type.info.parameter(named: k)).parse(v) }
    let source = r  // what `check --against` re-renders: the same effect, values, scale and rate
    r.outputs = [dir.path("h264.mp4"), dir.path("vp9.webm")]
    let rendered = try r.job()
    // HEVC from the same frames: one more output beside H.264's (a request has one --codec).
    var hevc = rendered.outputs[0]
    (hevc.path, hevc.codec) = (dir.path("hevc.mp4"), .hevc)
    try hevc.validate()
    let job = rendered.adding(hevc)
    // Transparent effects keep alpha in WebM (VP9 with alpha) and show over the background in MP4.
    #expect(job.outputs.map(\.carriesAlpha) == [false, transparent, false])
    _ = try RenderPipeline.run(job)

    for file in Self.files {
      let label = "\(effect) \(set) \(file)\(file == "vp9.webm" && transparent ? " (alpha)" : "")"
      // The entry point `check FILE --against EFFECT FLAGS` uses.
      let report = try LoopCheck.run(
        path: dir.path(file), against: .request(source, label: "--against \(effect)"), threads: 2)
      #expect(report.frames == job.frameCount, "\(label)")
      let against = try #require(report.against, "\(label): not compared with its source: \(report.failures)")
      #expect(against.sourceSteps.count == job.frameCount, "\(label)")
      let figures = Self.figures(report, against)
      // With an explicit source every jump fails, inside the loop as at the seam.
      #expect(report.passed, "\(label): \(figures)")
    }
  }

  /// The failures, then the seam's figures and the worst jumps: step, file against source.
  static func figures(_ report: LoopCheck, _ against: LoopCheck.Against) -> String {
    report.failures.joined(separator: " | ")
      + String(
        format: " (seam %.2f against the source's %.2f, threshold %.2f; %d jumps)", report.seamStep,
        against.sourceSteps.last ?? 0, report.judgement.threshold, against.jumps.count)
  }
}

extension RenderJob {
  /// The job with one more output, drawn from the same frames.
  func adding(_ output: OutputSettings) -> RenderJob {
    var job = self
    job.outputs.append(output)
    return job
  }
}
