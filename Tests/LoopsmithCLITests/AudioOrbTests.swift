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

  /// The seam's step and the median of the other steps from `check --json` (which must pass) for
  /// a 3 s listening orb following `wav`, rendered through the real binary into H.264.
  static func seamAndMedian(
    _ dir: TemporaryDirectory, _ wav: String, _ extra: [String] = []
  ) throws -> (
    seam: Double, median: Double, stderr: String
  ) {
    let out = dir.path("orb.mp4")
    let r = try runLoopsmith(
      [
        "render", "voice-orb", "--state", "listening", "--audio", wav, "-o", out, "--size", "64x64", "--scale", "0.25",
        "--fps", "30", "--duration", "3", "--max-speed-change", "1", "--background", "black", "--progress", "none",
      ] + extra)
    #expect(r.status == 0, "\(r.stderr)")
    let check = try runLoopsmith(["check", out, "--json"])
    #expect(check.status == 0, "\(check.stdout)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any])
    let row = try #require((json["files"] as? [[String: Any]])?.first)
    return (try #require(row["seam"] as? Double), try #require(row["median"] as? Double), r.stderr)
  }

  /// A sound shorter than the loop repeats by default, so the orb is as loud at the loop's end as
  /// at frame 0 (seam 3.54 codes, median step 3.79). Padded with silence, as it was, the orb was
  /// quiet at the end and loud at frame 0: the seam stepped 46.1 codes (median 3.15), check failed.
  @Test func aShortSoundLoopsWithThePicture() throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("short.wav")
    try wavBytes(samples: toneSamples(seconds: 0.7, frequency: 440, peak: 16_000), rate: 48_000)
      .write(to: URL(fileURLWithPath: wav))
    let (seam, median, stderr) = try Self.seamAndMedian(dir, wav)
    #expect(stderr.contains("repeated to fill the 3 s loop"), "\(stderr)")
    #expect(seam <= 1.5 * median, "seam \(seam) against the median step \(median)")
  }

  /// A voice that swells and fades three times a second over the whole loop: the orb's spring
  /// comes into frame 0 from the loop's end (the looping level track; seam 3.50 codes, median
  /// 4.09), where it once started settled on the first level and stepped 9.08 codes (median 4.10).
  @Test func theOrbSpringsAcrossTheSeamAsInsideTheLoop() throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("voice.wav")
    let samples = (0..<(3 * 48_000)).map { i -> Int16 in
      let t = Double(i) / 48_000
      return Int16(16_000 * (0.55 + 0.45 * sin(2 * Double.pi * 3 * t)) * sin(2 * Double.pi * 440 * t))
    }
    try wavBytes(samples: samples, rate: 48_000).write(to: URL(fileURLWithPath: wav))
    let (seam, median, stderr) = try Self.seamAndMedian(dir, wav)
    #expect(stderr.isEmpty, "\(stderr)")
    #expect(seam <= 1.5 * median, "seam \(seam) against the median step \(median)")
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
