import Foundation
import Testing
import _TestSupport

@testable import Video

/// A 16-bit PCM WAV file of `samples` (-1...1) on every channel.
func writeWAV(_ path: String, samples: [Double], rate: Int = 48000, channels: Int = 1) throws {
  let codes = samples.flatMap { s in [Int16](repeating: Int16(max(-1, min(1, s)) * 32767), count: channels) }
  try wavBytes(samples: codes, rate: rate, channels: channels).write(to: URL(fileURLWithPath: path))
}

@Suite struct AudioLevelsTests {
  /// Half a second of silence, then a sine of amplitude 0.05 (RMS -29 dBFS, level 0.525).
  @Test(arguments: [1, 2]) func levelsFollowTheLoudness(channels: Int) throws {
    let folder = TemporaryDirectory()
    let rate = 48000
    let samples = (0..<rate).map { i in i < rate / 2 ? 0 : 0.05 * sin(Double(i) * 2 * .pi * 440 / Double(rate)) }
    try writeWAV(folder.path("v.wav"), samples: samples, channels: channels)
    let levels = try AudioLevels.envelope(path: folder.path("v.wav"), fps: 10, frameCount: 12)
    #expect(levels.count == 12)
    #expect(levels[0..<5].allSatisfy { $0 == 0 })
    let expected = (20 * log10(0.05 / 2.squareRoot()) + 50) / 40
    #expect(levels[5..<10].allSatisfy { abs($0 - expected) < 0.02 }, "\(levels)")
    #expect(levels[10...].allSatisfy { $0 == 0 })  // after the sound ends
  }

  @Test func missingCorruptAndSilentAudioAreNamed() throws {
    let folder = TemporaryDirectory()
    #expect(throws: VideoError.self) { try AudioLevels.envelope(path: folder.path("none.wav"), fps: 30, frameCount: 3) }
    try Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(
      to: URL(fileURLWithPath: folder.path("bad.wav")))
    #expect(throws: VideoError.self) { try AudioLevels.envelope(path: folder.path("bad.wav"), fps: 30, frameCount: 3) }
    try writeWAV(folder.path("quiet.wav"), samples: [Double](repeating: 0, count: 4800))
    #expect {
      try AudioLevels.envelope(path: folder.path("quiet.wav"), fps: 30, frameCount: 3)
    } throws: { error in
      guard case VideoError.invalidSettings(let message) = error else { return false }
      return message.contains("silent")
    }
  }

  @Test func aVideoWithoutSoundHasNoAudioStream() throws {
    let folder = TemporaryDirectory()
    try write(try settings(folder.path("a.webm"), frames: 2)) { _ in testImage() }
    #expect(throws: VideoError.self) { try AudioLevels.envelope(path: folder.path("a.webm"), fps: 25, frameCount: 2) }
  }
}

@Suite struct AudioMuxTests {
  @Test(arguments: ["a.mp4", "a.webm"]) func soundIsCutToTheVideo(_ name: String) throws {
    let folder = TemporaryDirectory()
    let rate = 44100
    // 2 s of sound under a 0.4 s video: the audio is cut, the video stays N/fps.
    try writeWAV(folder.path("v.wav"), samples: (0..<(2 * rate)).map { 0.2 * sin(Double($0) * 0.05) }, rate: rate)
    var s = try settings(folder.path(name), fps: 25, frames: 10)
    s.audio = AudioTrack(path: folder.path("v.wav"))
    try write(s) { testImage(frame: $0) }
    let (info, frames) = try decodeAll(folder.path(name))
    #expect(info.hasAudio && info.streamCount == 2)
    #expect(frames.count == 10 && info.frameCount == 10)
    #expect(abs((info.formatDuration ?? 0) - 0.4) < 0.03, "\(String(describing: info.formatDuration))")
    if let stream = info.streamDuration { #expect(abs(stream - 0.4) < 1e-6) }
    #expect((info.streamStartTime ?? 0) == 0)
    #expect(files(in: folder.url.path) == [name, "v.wav"])
    if let keep = ProcessInfo.processInfo.environment["KEEP_DIR"] {  // for a look with ffprobe
      try? FileManager.default.removeItem(atPath: keep + "/audio-" + name)
      try FileManager.default.copyItem(atPath: folder.path(name), toPath: keep + "/audio-" + name)
    }
  }

  @Test func aMissingSoundFileIsNamedAndLeavesNothing() throws {
    let folder = TemporaryDirectory()
    var s = try settings(folder.path("a.mp4"), frames: 2)
    s.audio = AudioTrack(path: folder.path("none.wav"))
    #expect { try VideoWriter(s) } throws: { error in
      // A missing input file is bad input the user can fix (exit status 2), not an I/O failure.
      guard case VideoError.invalidSettings(let message) = error else { return false }
      return message.hasSuffix("none.wav: no such audio file")
    }
    #expect(files(in: folder.url.path).isEmpty)
  }
}
