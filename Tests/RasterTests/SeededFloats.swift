/// Floats in 0..<1 from a 64-bit linear congruential generator (Knuth's MMIX constants, the top
/// 24 bits of the state): the same sequence for the same seed, so the tests' random pixels are
/// the same on every run and machine.
struct SeededFloats {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> Float {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return Float(state >> 40) / Float(1 << 24)
  }
}
