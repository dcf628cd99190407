import Foundation
import Raster
import Testing
import Video
import _TestSupport

@testable import Loopsmith

/// `check` judges a GIF on what a viewer sees: luma (and alpha) step by step, and each chroma
/// plane, which its palette's dither moves, against the file's own chroma steps
/// (docs/ENCODING.md, Judging a loop). A real seam still fails: here the Color Orbs' frames from
/// a 10 s stretch of their 12 s loop, so the last frame is from 9.9 s, not 11.9 s.
@Suite struct DitheredSeamTests {
  /// The orbs' frames at `times` into a GIF at 10 fps, 64x112, checked on its own.
  func checkOrbs(times: [Double]) throws -> LoopCheck {
    try checkFrames(of: try job("color-orbs", size: (64, 112), fps: 10, output: "orbs.gif"), at: times, as: "orbs.gif")
  }

  @Test func theLoopPassesOnItsLumaAndItsChromaAgainstItsOwnDither() throws {
    let report = try checkOrbs(times: (0..<120).map { Double($0) / 10 })
    #expect(report.passed, "\(report.failures)")
    let note = report.notes.first { $0.hasPrefix("a palette's dither") }
    #expect(note?.contains("Cb over black") == true, "\(report.notes)")
  }

  @Test func aLastFrameFromAnotherTimeStillJumpsAtTheSeam() throws {
    let report = try checkOrbs(times: (0..<100).map { Double($0) / 10 })
    #expect(!report.passed)
    // Luma jumps: the failure of the steps `check` judges, not of a chroma plane alone.
    #expect(
      report.failures.contains { $0.hasPrefix("seam ratio") && $0.contains("jumps at the seam") },
      "\(report.failures)")
  }

  @Test func paletteFilesAreTheDitheredOnes() throws {
    #expect(LoopCheck.isChroma("Cb over white") && LoopCheck.isChroma("Cr") && !LoopCheck.isChroma("Y over black"))
    #expect(!LoopCheck.isChroma("alpha"))
  }
}
