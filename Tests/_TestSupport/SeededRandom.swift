/// Numbers from a 64-bit linear congruential generator (Knuth's MMIX constants): the same
/// sequence for the same seed, so the tests' random pixels are the same on every run and machine.
public struct SeededRandom {
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  private mutating func step() -> UInt64 {
    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
    return state
  }

  /// A float in 0..<1: the state's top 24 bits.
  public mutating func next() -> Float { Float(step() >> 40) / Float(1 << 24) }

  /// A whole number in 0..<2^31: the state's top 31 bits.
  public mutating func nextInt() -> Int { Int(step() >> 33) }
}
