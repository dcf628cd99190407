import Effects
import Foundation
import Testing
import Video
import _TestSupport

@testable import Loopsmith

/// Every effect, weather and voice state, rendered small into real H.264, HEVC, VP9 (with alpha
/// for the transparent effects) and AV1, passes `check --against` its own lossless source: no step
/// of the file, the seam first, jumps beyond the source's motion (docs/ENCODING.md, Judging a loop
/// and Loop tuning).
@Suite struct EncodedLoopTests {
  /// The files each case is encoded into, from the same rendered frames.
  static let files = ["h264.mp4", "hevc.mp4", "vp9.webm", "av1.mp4"]

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
    // HEVC and AV1 from the same frames: more outputs beside H.264's (a request has one --codec).
    var hevc = rendered.outputs[0]
    (hevc.path, hevc.codec) = (dir.path("hevc.mp4"), .hevc)
    try hevc.validate()
    var av1 = rendered.outputs[0]
    (av1.path, av1.codec) = (dir.path("av1.mp4"), .av1)
    try av1.validate()
    let job = rendered.adding(hevc).adding(av1)
    // Transparent effects keep alpha in WebM (VP9 with alpha) and show over the background in MP4.
    #expect(job.outputs.map(\.carriesAlpha) == [false, transparent, false, false])
    _ = try RenderPipeline.run(job)

    var sourceSteps: [Double] = []
    for file in Self.files {
      let label = "\(effect) \(set) \(file)\(file == "vp9.webm" && transparent ? " (alpha)" : "")"
      if file == "av1.mp4" {
        // The same source at the same size and rate as H.264's: its steps are reused rather than
        // rendered a fourth time, and judged as `check --against` judges them (Fidelity.jumps).
        let report = try LoopCheck.run(path: dir.path(file), threads: 2)
        #expect(report.frames == job.frameCount, "\(label)")
        try #require(sourceSteps.count == report.steps.count, "\(label)")
        let blocks = LocalChange.blocks(width: job.width, height: job.height)
        let jumps = Fidelity.jumps(file: report.steps, source: sourceSteps, blocks: blocks)
        let against = LoopCheck.Against(
          source: "--against \(effect)", sourceSteps: sourceSteps, jumps: jumps, slack: Fidelity.slack(blocks: blocks))
        let shown = LoopCheck.describe(jumps, frames: report.frames)
        #expect(report.passed && jumps.isEmpty, "\(label): \(shown) \(Self.figures(report, against))")
        continue
      }
      // The entry point `check FILE --against EFFECT FLAGS` uses.
      let report = try LoopCheck.run(
        path: dir.path(file), against: .request(source, label: "--against \(effect)"), threads: 2)
      #expect(report.frames == job.frameCount, "\(label)")
      let against = try #require(report.against, "\(label): not compared with its source: \(report.failures)")
      #expect(against.sourceSteps.count == job.frameCount, "\(label)")
      if sourceSteps.isEmpty { sourceSteps = against.sourceSteps }
      let figures = Self.figures(report, against)
      // With an explicit source every jump fails, inside the loop as at the seam.
      #expect(report.passed, "\(label): \(figures)")
    }
  }

  /// The voice orb's idle loop at 64x112 and its own 30 f/s through AV1: before the loop-closing
  /// encode and the tuning of docs/ENCODING.md (Loop tuning) its seam stepped 2.65 codes against
  /// the source's 0.65 (the last frames held, then the key frame), and 8 of its 300 steps jumped,
  /// by up to 0.41 codes over their threshold. The seam must pass. Inside the loop SVT-AV1 at this
  /// size decides chaotically where the source barely moves: the kept tuning left the worst step
  /// 0.03 codes under its threshold, and a source that changed by one code on 3 of its 3.2 million
  /// samples (a blur's float rounding) made step 33->34 jump 0.19 over it. So at most one step may
  /// jump, by less than a quarter of a code: the untuned encode (8 jumps) fails that too.
  @Test func theIdleOrbAt30fpsKeepsItsSeamInAV1() throws {
    let dir = TemporaryDirectory()
    var r = RenderRequest()
    r.effect = "voice-orb"
    r.parameters["state"] = try #require(VoiceOrb.info.parameter(named: "state")).parse("idle")
    (r.size, r.scale, r.fps, r.threads) = ((64, 112), 0.2, 30, 2)
    let source = r
    (r.codec, r.outputs) = ("av1", [dir.path("idle.mp4")])
    let job = try r.job()
    #expect(job.frameCount == 300)
    _ = try RenderPipeline.run(job)
    let report = try LoopCheck.run(
      path: dir.path("idle.mp4"), against: .request(source, label: "--against voice-orb"), threads: 2)
    let against = try #require(report.against, "not compared with its source: \(report.failures)")
    let figures = Self.figures(report, against)
    let inside = against.jumps.filter { !$0.isSeam }
    #expect(!against.jumps.contains { $0.isSeam }, "\(figures)")
    #expect(report.judgement.failure == nil, "\(figures)")
    #expect(report.failures.filter { !$0.contains("jump beyond the source's motion") }.isEmpty, "\(figures)")
    #expect(inside.count <= 1, "\(figures)")
    for jump in inside {
      #expect(jump.file - (Fidelity.factor * jump.source + against.slack) < 0.25, "\(figures)")
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
