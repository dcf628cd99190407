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

  /// The weather tour at 16x16 and 4 fps slows into its seam at the end of a fade and starts
  /// fast: a stall by the file's steps alone, none beside a source of the same shape (a note
  /// instead), and still one beside a source whose seam moves like its neighbours.
  @Test func aStallShapedSeamTheSourceHasTooIsNoStall() {
    let file = [4.55] + Array(repeating: 4.0, count: 60) + [1.23, 0.57]
    let alone = SeamJudgement.judge(steps: file)
    #expect(alone.stalls && alone.failure?.contains("(a stall)") == true)
    let shaped = SeamJudgement.judge(steps: file, source: [4.45] + Array(repeating: 4.0, count: 60) + [1.31, 0.49])
    #expect(shaped.failure == nil && !shaped.stalls, "\(String(describing: shaped.failure))")
    #expect(shaped.note?.contains("the loop slows into its seam") == true, "\(String(describing: shaped.note))")
    let moving = SeamJudgement.judge(steps: file, source: [4.45] + Array(repeating: 4.0, count: 60) + [1.31, 1.2])
    #expect(moving.stalls && moving.note == nil)
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

  /// The fidelity slack grows with the picture's blocks, from 1 code at 64x112 (28 blocks) by 0.1
  /// code an e-fold: fog's H.264 step of 1.42 codes over a source moving 0.18 (noise in the largest
  /// of 8160 blocks at 1080x1920) passes there and would fail at 64x112, while a release of held
  /// change twice the source's motion and more still fails at full size (the idle orb through VP9
  /// with alpha at 1200x1200: 4.19 against 1.56).
  @Test func theFidelitySlackGrowsWithThePicturesBlocks() {
    #expect(LocalChange.blocks(width: 64, height: 112) == 28)
    #expect(LocalChange.blocks(width: 1080, height: 1920) == 8160)
    #expect(LocalChange.blocks(width: 1200, height: 1200) == 5625)
    #expect(Fidelity.slack(blocks: 9) == 1 && Fidelity.slack(blocks: 28) == 1)
    #expect(abs(Fidelity.slack(blocks: 8160) - 1.567) < 0.001, "\(Fidelity.slack(blocks: 8160))")
    #expect(abs(Fidelity.slack(blocks: 240) - 1.215) < 0.001, "\(Fidelity.slack(blocks: 240))")
    let fog = (file: [1.0, 1.42, 1.1], source: [0.2, 0.18, 0.2])
    #expect(Fidelity.jumps(file: fog.file, source: fog.source, blocks: 28).map(\.index) == [1])
    #expect(Fidelity.jumps(file: fog.file, source: fog.source, blocks: 8160).isEmpty)
    let orb = (file: [2.0, 4.19, 2.1], source: [1.5, 1.56, 1.5])
    #expect(Fidelity.jumps(file: orb.file, source: orb.source, blocks: 5625).map(\.index) == [1])
  }

  /// Block changes on a 20x18 picture (2x2 blocks: 16x16, 4x16, 16x2, 4x2 pixels): a change of
  /// 32 codes on one pixel of each block is that block's mean (32 / its pixels), in every plane it
  /// is made in, and the largest a plane is the largest of its blocks.
  @Test func blockChangesAreEachBlocksMeanDifference() {
    var a = LocalChange.Planes(width: 20, height: 18, alpha: false)
    var b = a
    for (x, y) in [(0, 0), (19, 0), (0, 17), (19, 17)] { b.data[1][y * 20 + x] = 32 }
    b.data[2][5 * 20 + 5] = -8
    a.data[0][17 * 20 + 18] = 4
    #expect(LocalChange.blocks(width: 20, height: 18) == 4)
    let y: [Double] = [0, 0, 0, 0.5]
    let cb: [Double] = [0.125, 0.5, 1, 4]  // 32 codes over 256, 64, 32 and 8 pixels
    let cr: [Double] = [0.03125, 0, 0, 0]
    #expect(LocalChange.blockChanges(a, b, plane: 0) == y)
    #expect(LocalChange.blockChanges(a, b, plane: 1) == cb)
    #expect(LocalChange.blockChanges(a, b, plane: 2) == cr)
    let largest: [Double] = [0.5, 4, 0.03125]
    #expect(LocalChange.largestBlockChange(a, b) == largest)
    #expect(LocalChange.step(a, b) == 4)
  }
}
