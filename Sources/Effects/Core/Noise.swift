import Foundation

/// A repeatable pseudo-random value in 0..<1 for one item and one property: the seeds' hash,
/// `fract(sin(i * 127.1 + salt * 311.7) * 43758.5453)`, in Double as they compute it.
@inline(__always)
public func seedNoise(_ index: Int, _ salt: Double) -> Double {
  let v = sin(Double(index) * 127.1 + salt * 311.7) * 43_758.5453
  return v - v.rounded(.down)
}
