import Testing

@testable import Loopsmith

/// The seam rule on the step series it was calibrated on (docs/ENCODING.md, Judging a loop): the
/// last step is the seam, the first is the step out of frame 0.
@Suite struct SeamJudgeTests {
  /// H.264 rain at 64x112 with its last frame repeating the first: the seam is encoder noise just
  /// above half its smaller neighbour, so only the median clause calls it a stall.
  @Test func aRepeatedFrameUnderItsNoiseIsAStall() {
    let steps = [0.605] + Array(repeating: 1.0, count: 100) + [0.787, 0.3047]
    #expect(0.3047 >= SeamJudgement.stallFraction * 0.605, "the half rule alone would let it through")
    let judgement = SeamJudgement.judge(steps: steps)
    #expect(judgement.failure?.contains("stall") == true, "\(String(describing: judgement.failure))")
  }

  /// A rain-to-snow sequence: fast passages raise the median, the calm seam sits between a calm
  /// step and a fast one. Not a stall, and not a jump.
  @Test func aCalmSeamInAFastLoopPasses() {
    let steps = [12.44] + Array(repeating: 6.0, count: 60) + [2.02, 1.94]
    let judgement = SeamJudgement.judge(steps: steps)
    #expect(1.94 < SeamJudgement.stallMedianFactor * 6, "the median clause alone would call it a stall")
    #expect(judgement.failure == nil, "\(String(describing: judgement.failure))")
  }

  /// VP9 clear night at 4 fps: the encoder holds a slow picture and catches up beside the seam, so
  /// one neighbour barely moves; the seam of 0.00 is not a stall.
  @Test func aHeldPictureBesideTheSeamIsNotAStall() {
    let steps = [0.28] + Array(repeating: 0.88, count: 40) + [0.98, 0.0]
    #expect(SeamJudgement.judge(steps: steps).failure == nil)
  }

  /// A seam six times an ordinary step jumps, however noisy the other steps.
  @Test func aSeamSixTimesTheMedianJumps() {
    let steps = [1.0, 1.2, 0.8] + Array(repeating: 1.0, count: 40) + [6.0]
    #expect(SeamJudgement.judge(steps: steps).failure?.contains("jumps at the seam") == true)
  }
}
