import Foundation
import Testing
import _TestSupport

@testable import Video

/// `render --audio` makes the sound exactly the loop's length (`--audio-fit`), through the real
/// binary into WebM (Opus), decoded back with libav.
@Suite struct AudioFitTests {
  /// A 16-bit mono WAV at 48 kHz: `seconds` of a tone of `frequency` Hz at half scale.
  static func tone(_ path: String, seconds: Double, frequency: Double) throws {
    let samples = toneSamples(seconds: seconds, frequency: frequency, peak: 16384)
    try wavBytes(samples: samples, rate: 48000).write(to: URL(fileURLWithPath: path))
  }

  /// A 1 s loop at 30 fps of the voice orb with `sound`, into WebM; the run's result and the file.
  static func render(_ dir: TemporaryDirectory, sound: String, _ extra: [String] = []) throws -> (RunResult, String) {
    let out = dir.path("orb.webm")
    let r = try runLoopsmith(
      [
        "render", "voice-orb", "--state", "speaking", "--audio", sound, "-o", out, "--size", "32x32", "--scale", "0.1",
        "--fps", "30",
        "--duration", "1", "--max-speed-change", "1", "--progress", "none",
      ] + extra)
    return (r, out)
  }

  /// The left channel of a decoded stereo file.
  static func left(_ path: String) throws -> [Float] {
    let (samples, channels) = try decodedSamples(path)
    return stride(from: 0, to: samples.count, by: channels).map { samples[$0] }
  }

  @Test func aLongerSoundIsCutAndItsSeamCrossfadedWithANotice() throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("long.wav")
    // 437.25 Hz: a quarter cycle past a whole one at the 1 s cut, so a plain cut would jump from
    // the tone's crest to 0, by 0.35 (mono is mixed to stereo 3 dB down), where neighbouring steps
    // are at most 0.029 plus Opus's coding noise (0.06 measured).
    try Self.tone(wav, seconds: 1.6, frequency: 437.25)
    let (r, out) = try Self.render(dir, sound: wav)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      r.stderr
        == "Note: --audio: \(wav) is longer than the 1 s loop; cut to it, the 50 ms after the cut crossfaded into its start so the seam does not click (--audio-fit)\n"
    )
    let x = try Self.left(out)
    #expect(x.count == 48000)
    guard x.count == 48000 else { return }
    let seam = abs(x[0] - x[47999])
    var neighbours: [Float] = []
    for i in Array(1..<200) + Array(47801..<48000) { neighbours.append(abs(x[i] - x[i - 1])) }
    let largest = neighbours.max() ?? 0
    #expect(largest > 0.02 && largest < 0.1, "the tone's steps: \(largest)")
    #expect(seam <= largest * 1.2, "seam step \(seam) against neighbouring steps up to \(largest)")
    // Past the crossfade the head is the sound's own start.
    #expect(abs(x[4800]) > 0.2 || abs(x[4810]) > 0.2)
  }

  @Test func cutPadsAShorterSoundWithSilence() throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("short.wav")
    try Self.tone(wav, seconds: 0.4, frequency: 440)
    let (r, out) = try Self.render(dir, sound: wav, ["--audio-fit", "cut"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      r.stderr
        == "Note: --audio: \(wav) lasts 0.4 s; padded with 0.6 s of silence to the 1 s loop (--audio-fit loop repeats it)\n"
    )
    let x = try Self.left(out)
    #expect(x.count == 48000)
    #expect((9600..<19200).map { abs(x[$0]) }.max() ?? 0 > 0.3)  // the tone
    #expect((24000..<48000).map { abs(x[$0]) }.max() ?? 1 < 0.01)  // silence after it
  }

  /// The default repeats a shorter sound: no --audio-fit is needed for a seamless loop.
  @Test(arguments: [[], ["--audio-fit", "loop"]])
  func aShorterSoundRepeatsByDefault(extra: [String]) throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("short.wav")
    try Self.tone(wav, seconds: 0.4, frequency: 440)
    let (r, out) = try Self.render(dir, sound: wav, extra)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      r.stderr
        == "Note: --audio: \(wav) lasts 0.4 s; repeated to fill the 1 s loop, each repeat crossfaded over 50 ms (--audio-fit pad plays it once, then silence)\n"
    )
    let x = try Self.left(out)
    #expect(x.count == 48000)
    // Sound throughout, the third repeat included; no silent gap anywhere.
    for start in stride(from: 0, to: 48000 - 480, by: 480) {
      #expect((start..<(start + 480)).map { abs(x[$0]) }.max() ?? 0 > 0.3, "quiet at sample \(start)")
    }
  }

  /// A sound shorter than two crossfades would be all joins: refused, naming what works.
  @Test func aSoundTooShortToRepeatIsRefusedAndWritesNothing() throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("blip.wav")
    try Self.tone(wav, seconds: 0.06, frequency: 440)
    let (r, out) = try Self.render(dir, sound: wav)
    #expect(r.status == 2)
    #expect(
      r.stderr
        == "Error: --audio: \(wav) lasts 0.06 s, too short to repeat with 50 ms crossfades; expected a sound of at least 0.1 s, or --audio-fit pad to play it once a loop\n"
    )
    #expect(!FileManager.default.fileExists(atPath: out))
    let (padded, _) = try Self.render(dir, sound: wav, ["--audio-fit", "pad"])
    #expect(padded.status == 0, "\(padded.stderr)")
  }

  @Test func padRefusesALongerSoundAndWritesNothing() throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("long.wav")
    try Self.tone(wav, seconds: 1.6, frequency: 440)
    let (r, out) = try Self.render(dir, sound: wav, ["--audio-fit", "pad"])
    #expect(r.status == 2)
    #expect(
      r.stderr
        == "Error: --audio: \(wav) is longer than the 1 s loop, and --audio-fit pad never cuts; expected --audio-fit cut or loop, or a --duration as long as the sound\n"
    )
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test func aSoundOfTheLoopsLengthIsLeftAsItIsWithoutANotice() throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("exact.wav")
    try Self.tone(wav, seconds: 1, frequency: 440)
    let (r, out) = try Self.render(dir, sound: wav)
    #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
    #expect(try Self.left(out).count == 48000)
  }

  /// The voice orb follows the sound the file carries: with loop, the repeats.
  @Test func theOrbsLevelFollowsTheRepeats() throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("short.wav")
    try Self.tone(wav, seconds: 0.3, frequency: 440)
    let looped = try AudioLevels.envelope(path: wav, fps: 10, frameCount: 10, fit: .loop)
    let cut = try AudioLevels.envelope(path: wav, fps: 10, frameCount: 10, fit: .cut)
    #expect(looped.allSatisfy { $0 > 0.5 }, "\(looped)")
    #expect(cut.prefix(3).allSatisfy { $0 > 0.5 } && cut.suffix(6).allSatisfy { $0 == 0 }, "\(cut)")
  }

  @Test func aBadFitIsRefused() throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("exact.wav")
    try Self.tone(wav, seconds: 1, frequency: 440)
    let (r, _) = try Self.render(dir, sound: wav, ["--audio-fit", "stretch"])
    #expect(r.status == 2)
    #expect(r.stderr == "Error: --audio-fit: 'stretch' is not valid; expected one of loop, cut, pad\n", "\(r.stderr)")
  }
}
