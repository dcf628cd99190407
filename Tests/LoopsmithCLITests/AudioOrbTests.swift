import Foundation
import Testing
import Video
import _TestSupport

/// A 16-bit mono WAV: `silent` seconds of silence, then `loud` seconds of a 440 Hz tone at -6 dBFS.
func writeWAV(to path: String, silent: Double, loud: Double, rate: Int = 48_000) throws {
  let samples =
    [Int16](repeating: 0, count: Int(silent * Double(rate)))
    + toneSamples(seconds: loud, frequency: 440, peak: 16_000, rate: rate)
  try wavBytes(samples: samples, rate: rate).write(to: URL(fileURLWithPath: path))
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
