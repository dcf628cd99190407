import Foundation
import Testing
import Video
import _TestSupport

/// A 16-bit mono WAV: `silent` seconds of silence, then `loud` seconds of a 440 Hz tone at -6 dBFS.
func writeWAV(to path: String, silent: Double, loud: Double, rate: Int = 48_000) throws {
  var samples: [Int16] = Array(repeating: 0, count: Int(silent * Double(rate)))
  for i in 0..<Int(loud * Double(rate)) {
    samples.append(Int16(16_000 * sin(2 * Double.pi * 440 * Double(i) / Double(rate))))
  }
  var data = Data()
  func append<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
  data.append(contentsOf: Array("RIFF".utf8)); append(UInt32(36 + samples.count * 2))
  data.append(contentsOf: Array("WAVEfmt ".utf8)); append(UInt32(16)); append(UInt16(1)); append(UInt16(1))
  append(UInt32(rate)); append(UInt32(rate * 2)); append(UInt16(2)); append(UInt16(16))
  data.append(contentsOf: Array("data".utf8)); append(UInt32(samples.count * 2))
  for s in samples { append(s) }
  try data.write(to: URL(fileURLWithPath: path))
}

@Suite struct AudioOrbTests {
  /// The voice orb follows the loudness of `--audio` frame by frame, and the sound is muxed in.
  @Test func theOrbIsLargerOnLoudFramesThanOnSilentOnes() throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("voice.wav"), out = dir.path("orb.webm")
    try writeWAV(to: wav, silent: 1, loud: 1)
    let r = try runLoopsmith([
      "render", "voice-orb", "--state", "listening", "--audio", wav, "-o", out, "--size", "64x64",
      "--scale", "0.2", "--fps", "10", "--duration", "2", "--max-speed-change", "1", "--quiet",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let reader = try VideoReader(path: out)
    #expect(reader.info.hasAudio)
    var covered: [Int] = []
    while let frame = try reader.nextFrame() {
      var n = 0
      for i in 0..<frame.count where frame.pixels[i].w > 0.5 { n += 1 }
      covered.append(n)
    }
    #expect(covered.count == 20)
    // Frame 8 (0.8 s) is silent; frame 18 (1.8 s) has had 0.8 s of tone for the spring to follow.
    #expect(covered[18] > covered[8], "pixels of the orb: \(covered)")
  }

  @Test func aCorruptAudioFileIsBadInputAndLeavesNothing() throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("noise.wav"), out = dir.path("orb.webm")
    try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: wav))
    let r = try runLoopsmith([
      "render", "voice-orb", "--audio", wav, "-o", out, "--size", "32x32", "--scale", "0.1", "--quiet",
    ])
    #expect(r.status == 2)
    #expect(r.stderr.hasPrefix("Error: --audio: ") && r.stderr.contains("noise.wav"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out))
  }
}
