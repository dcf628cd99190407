import Testing
import Video

@testable import Loopsmith

/// A size in a message is rounded up: a need just over its budget never reads as the budget.
@Suite struct MemoryBudgetMessageTests {
  @Test func aNeedJustOverItsBudgetReadsAsMore() {
    let gib: UInt64 = 1 << 30
    #expect(MemoryBudget.describe(gib) == "1.0 GiB")
    #expect(MemoryBudget.describe(gib + gib / 25) == "1.1 GiB")  // 1.04 GiB read "1.0 GiB" before
    #expect(MemoryBudget.describe(gib + 1) == "1.1 GiB")
    #expect(MemoryBudget.describe(512 << 20) == "512 MiB")
    #expect(MemoryBudget.describe((512 << 20) + 1) == "513 MiB")
    #expect(MemoryBudget.describe(1) == "1 MiB")
  }

  /// libvpx encodes VP9's alpha with a second encoder as large as the first (688 MB peak at
  /// 1080x1920 against 386 MB opaque, measured): the estimate counts it, where today's main left it
  /// out and a transparent WebM ran 37% over --memory-limit.
  @Test func vp9sAlphaEncoderIsCounted() throws {
    func bytes(alpha: Bool) throws -> UInt64 {
      MemoryBudget.encoderBytes(
        try OutputSettings(path: "a.webm", width: 1080, height: 1920, fps: 30, frameCount: 30, keepAlpha: alpha))
    }
    let opaque = try bytes(alpha: false), transparent = try bytes(alpha: true)
    #expect(transparent - opaque >= 1080 * 1920 * 146, "\(opaque) \(transparent)")
  }
}
