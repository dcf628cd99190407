import Foundation

/// The bytes of a 16-bit PCM WAV file: `samples` interleaved over `channels` at `rate` Hz. The
/// header's byte rate wraps instead of trapping, so a test can declare an absurd rate.
public func wavBytes(samples: [Int16], rate: Int, channels: Int = 1) -> Data {
  var data = Data()
  func u32(_ v: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { data.append(contentsOf: $0) } }
  func u16(_ v: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian) { data.append(contentsOf: $0) } }
  let bytes = samples.count * 2
  data.append(contentsOf: Array("RIFF".utf8))
  u32(36 + bytes)
  data.append(contentsOf: Array("WAVEfmt ".utf8))
  u32(16)
  u16(1)
  u16(channels)
  u32(rate)
  u32(rate &* channels &* 2 & 0x7FFF_FFFF)
  u16(channels * 2)
  u16(16)
  data.append(contentsOf: Array("data".utf8))
  u32(bytes)
  for s in samples { withUnsafeBytes(of: s.littleEndian) { data.append(contentsOf: $0) } }
  return data
}

/// `seconds` of a sine of `frequency` Hz peaking at `peak` (in 16-bit codes), as samples.
public func toneSamples(seconds: Double, frequency: Double, peak: Double, rate: Int = 48_000) -> [Int16] {
  (0..<Int(seconds * Double(rate))).map {
    Int16(peak * sin(2 * Double.pi * frequency * Double($0) / Double(rate)))
  }
}
