import Testing

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
}
