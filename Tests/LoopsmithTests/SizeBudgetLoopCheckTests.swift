import Foundation
import Testing
import Video
import _TestSupport

@testable import Loopsmith

/// `--max-bytes` keeps only a try that passes the loop check: a loop cut short of its period (the
/// broken loop BrokenLoopTests check) fits at every quality and fails the check at each, so the
/// render fails and writes nothing; the whole loop under the same budget passes and is written.
/// A render cannot make such a loop through the command line (every loop it plans is whole), so
/// this runs SizeBudget itself, with real encodes and the real check.
@Suite struct SizeBudgetLoopCheckTests {
  /// The rain loop (12 s at 10 fps, 120 frames) into `path`, cut to its first `frames` frames.
  func rain(frames: Int, path: String) throws -> RenderJob {
    let whole = try job("weather", ["weather": "rain"], size: (64, 112), fps: 10, output: path)
    #expect(whole.frameCount == 120)
    var settings = whole.outputs[0]
    settings.frameCount = frames
    var cut = whole
    (cut.frameCount, cut.outputs, cut.threads) = (frames, [settings], 2)
    cut.maxBytes = 10 * 1024 * 1024
    return cut
  }

  @Test func everyFittingQualityFailingTheCheckFailsTheRenderAndTheWholeLoopPasses() throws {
    let dir = TemporaryDirectory()
    let broken = dir.path("broken.mp4")
    do {
      _ = try SizeBudget.run(try rain(frames: 100, path: broken), progress: nil)
      Issue.record("a loop cut at 10 s of 12 s was written")
    } catch let failure as RenderFailure {
      let text = failure.message
      let crf = try #require(VideoCodec.h264.spec.quality).defaultValue
      #expect(text.hasPrefix("--max-bytes 10.00 MB: \(broken) fits at crf \(crf)"), "\(text)")
      // The asked quality and the lowest were both judged, and the reason is the check's own.
      #expect(text.contains("and at crf 51 but fails the loop check at each"), "\(text)")
      #expect(text.contains("seam"), "\(text)")
      #expect(!text.contains("\n"))
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).isEmpty)

    let whole = dir.path("whole.mp4")
    let result = try SizeBudget.run(try rain(frames: 120, path: whole), progress: nil)
    #expect(result.notes.count == 1 && result.notes[0].contains("the loop check passed"), "\(result.notes)")
    #expect(try LoopCheck.run(path: whole, against: .tag).passed)
  }
}
