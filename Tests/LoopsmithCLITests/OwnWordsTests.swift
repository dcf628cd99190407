import Foundation
import Testing
import _TestSupport

@testable import Effects

/// Inputs and outputs answered in their own words: a full stdout is an error, not exit 0; a level
/// file with Windows line ends reads as the same levels.
@Suite struct OwnWordsTests {
  /// Runs the binary with stdout on /dev/full.
  static func intoFullDisk(_ arguments: [String], in directory: URL? = nil) throws -> RunResult {
    let process = Process()
    process.executableURL = loopsmithBinary()
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
    process.standardOutput = full
    let err = Pipe()
    process.standardError = err
    try process.run()
    return try collect(process, stdout: nil, stderr: err, seconds: 300)
  }

  static let commands: [[String]] = [
    ["list"], ["--version"], ["help"], ["help", "render"], ["render", "--help"], ["schema"],
    ["plan", "weather", "--weather", "rain"], ["doctor"],
    ["render", "color-orbs", "--size", "32x56", "--time", "0", "-o", "still.png", "--json", "--quiet"],
  ]

  @Test(arguments: commands)
  func aCommandWhoseStdoutCannotBeWrittenFails(args: [String]) throws {
    let dir = TemporaryDirectory("own-words")
    let r = try Self.intoFullDisk(args, in: dir.url)
    #expect(r.status == 1, "\(args): status \(r.status): \(r.stderr)")
    #expect(r.stderr.hasSuffix("Error: stdout: cannot write: No space left on device\n"), "\(args): \(r.stderr)")
  }

  @Test func levelsWithWindowsLineEndsReadAsTheSameLevels() throws {
    let lf = "time,level\n0,0.1\n0.5,0.8\n1,0.3\n"
    let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
    let a = try LevelTrack(csv: lf)
    let b = try LevelTrack(csv: crlf)
    #expect(b.times == [0, 0.5, 1])
    #expect(a.times == b.times && a.levels == b.levels)
    // And through the binary: the two files draw the same frames.
    let dir = TemporaryDirectory("own-words-levels")
    try lf.write(toFile: dir.path("lf.csv"), atomically: true, encoding: .utf8)
    try crlf.write(toFile: dir.path("crlf.csv"), atomically: true, encoding: .utf8)
    for name in ["lf", "crlf"] {
      let r = try runLoopsmith(
        [
          "render", "voice-orb", "--levels", "\(name).csv", "--size", "32x56", "--fps", "4", "--duration", "1", "-o",
          "\(name).y4m", "--quiet",
        ], in: dir.url)
      #expect(r.status == 0, "\(name): \(r.stderr)")
    }
    let frames = try ["lf", "crlf"].map { try Data(contentsOf: dir.url.appendingPathComponent("\($0).y4m")) }
    #expect(!frames[0].isEmpty && frames[0] == frames[1])
  }

  /// A sound of `channels` channels, each a tone, as a 16-bit WAV with no channel mask (libav
  /// names no layout for 9-15 or 17-64 channels, so swr could not mix them down).
  static func manyChannelWAV(_ channels: Int) -> Data {
    let tone = toneSamples(seconds: 1, frequency: 440, peak: 8000)
    return wavBytes(samples: tone.flatMap { Array(repeating: $0, count: channels) }, rate: 48_000, channels: channels)
  }

  @Test(arguments: [9, 15, 17, 64])
  func aSoundWithChannelsLibavNamesNoLayoutForIsMixedDown(channels: Int) throws {
    let dir = TemporaryDirectory("own-words-channels")
    try Self.manyChannelWAV(channels).write(to: dir.url.appendingPathComponent("many.wav"))
    let r = try runLoopsmith(
      [
        "render", "voice-orb", "--state", "speaking", "--audio", "many.wav", "--size", "32x56", "--fps", "4",
        "--duration", "1", "--background", "#000000", "-o", "orb.mp4", "--quiet",
      ], in: dir.url)
    #expect(r.status == 0, "\(channels) channels: \(r.stderr)")
    guard r.status == 0 else { return }
    let (samples, decodedChannels) = try decodedSamples(dir.path("orb.mp4"))
    #expect(decodedChannels == 2)
    // Every channel carried the same tone at 8000/32768, so the mean is that tone again.
    let peak = samples.map(abs).max() ?? 0
    #expect(peak > 0.2 && peak < 0.3, "\(channels) channels: peak \(peak)")
  }

  /// A 32-bit float WAV of a tone in which `broken` samples are NaN, +Inf and -Inf in turn.
  static func floatWAV(broken: Int) -> Data {
    var samples = toneSamples(seconds: 1, frequency: 440, peak: 0.25 * 32768).map { Float($0) / 32768 }
    let bad: [Float] = [.nan, .infinity, -.infinity]
    for i in 0..<broken { samples[1000 + i * 37] = bad[i % 3] }
    var data = Data()
    func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { data.append(contentsOf: $0) } }
    func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { data.append(contentsOf: $0) } }
    data.append(contentsOf: Array("RIFF".utf8))
    u32(36 + samples.count * 4)
    data.append(contentsOf: Array("WAVEfmt ".utf8))
    u32(16)
    u16(3)  // IEEE float
    u16(1)
    u32(48_000)
    u32(48_000 * 4)
    u16(4)
    u16(32)
    data.append(contentsOf: Array("data".utf8))
    u32(samples.count * 4)
    for s in samples { withUnsafeBytes(of: s.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
    return data
  }

  /// The encoders refuse NaN and infinities (today's main failed in avcodec_send_frame and named the
  /// output): NaN plays as silence and infinities as full scale, in the sound and in the orb's levels.
  @Test(arguments: ["orb.mp4", "orb.webm"])
  func aFloatSoundWithNaNAndInfinitiesRenders(output: String) throws {
    let dir = TemporaryDirectory("own-words-nan")
    try Self.floatWAV(broken: 30).write(to: dir.url.appendingPathComponent("nan.wav"))
    let r = try runLoopsmith(
      [
        "render", "voice-orb", "--state", "speaking", "--audio", "nan.wav", "--size", "32x56", "--fps", "4",
        "--duration", "1", "--background", "#000000", "-o", output, "--quiet",
      ], in: dir.url)
    #expect(r.status == 0, "\(output): \(r.stderr)")
    guard r.status == 0 else { return }
    let (samples, _) = try decodedSamples(dir.path(output))
    #expect(!samples.isEmpty && samples.allSatisfy { $0.isFinite })
    #expect((samples.map(abs).max() ?? 0) > 0.2)
  }

  /// A preset named, described and writing a file with escape sequences (a title change, a screen
  /// clear, colours): nothing of them reaches the terminal, on stdout or stderr, from batch, plan,
  /// render or a missing file's error; the file itself keeps its name.
  @Test func escapeSequencesInNamesAndDescriptionsNeverReachTheTerminal() throws {
    let dir = TemporaryDirectory("own-words-escapes")
    let name = "p\u{1B}[2Jx.json"
    let preset =
      #"{"version":1,"description":"\u001b]0;owned\u0007\u001b[31mred","effect":"aurora-mesh","outputs":["\u001b[31m.y4m"]}"#
    try preset.write(toFile: dir.path(name), atomically: true, encoding: .utf8)
    let runs = [
      ["batch", ".", "--out", "out", "--dry-run"],
      ["batch", ".", "--out", "out", "--size", "32x56", "--fps", "2", "--duration", "1"],
      ["plan", name], ["render", name, "--size", "32x56", "--fps", "2", "--duration", "1", "-o", "a.y4m"],
      ["render", "n\u{1B}[5mo.json"], ["check", "m\u{1B}[5mo.mp4"],
    ]
    for args in runs {
      let r = try runLoopsmith(args, in: dir.url)
      #expect(
        !(r.stdout + r.stderr).unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 },
        "\(args): \(r.stdout)\(r.stderr)")
      #expect(!r.stderr.isEmpty || !r.stdout.isEmpty, "\(args) said nothing")
    }
    #expect(FileManager.default.fileExists(atPath: dir.path("out/\u{1B}[31m.y4m")))
  }

  /// A preset just under the 1 MiB bound whose key, parameter name, effect or value is the whole
  /// file: one short line naming it and its length (today's main printed 900 KB, and spent 16 s
  /// of edit distance looking for a key the megabyte one might be a typo of).
  @Test(arguments: ["key", "parameter", "effect", "value"])
  func aMegabyteNameIsQuotedShort(place: String) throws {
    let huge = String(repeating: "q", count: 900_000)
    let preset: [String: Any] =
      switch place {
      case "key": ["version": 1, "effect": "weather", "outputs": ["a.y4m"], huge: 1]
      case "parameter": ["version": 1, "effect": "weather", "outputs": ["a.y4m"], "parameters": [huge: 1]]
      case "effect": ["version": 1, "effect": huge, "outputs": ["a.y4m"]]
      default: ["version": 1, "effect": "weather", "outputs": ["a.y4m"], "parameters": ["weather": huge]]
      }
    let dir = TemporaryDirectory("own-words-huge")
    try JSONSerialization.data(withJSONObject: preset).write(to: dir.url.appendingPathComponent("p.json"))
    let r = try runLoopsmith(["plan", "p.json"], in: dir.url)
    #expect(r.status == 2)
    #expect(r.stderr.hasPrefix("Error: ") && r.stderr.count < 400, "\(place): \(r.stderr.prefix(300))")
    #expect(r.stderr.contains("qqqqq…(") && r.stderr.contains("characters)"), "\(place): \(r.stderr.prefix(300))")
  }

  /// The orb follows a level only while it listens or speaks: given one while it rests or thinks,
  /// `render` says the level changes nothing (today's main said nothing), and the frames are indeed
  /// those of no level; while it speaks, no such note and the frames differ.
  @Test func aLevelTheStateIgnoresIsNamed() throws {
    let dir = TemporaryDirectory("own-words-ignored-level")
    try "time,level\n0,0.1\n0.5,0.9\n1,0.2\n".write(toFile: dir.path("l.csv"), atomically: true, encoding: .utf8)
    try Self.manyChannelWAV(2).write(to: dir.url.appendingPathComponent("s.wav"))
    let tiny = ["--size", "32x32", "--fps", "4", "--duration", "1", "--background", "black"]
    func render(_ extra: [String], _ output: String) throws -> String {
      let r = try runLoopsmith(["render", "voice-orb"] + extra + tiny + ["-o", output], in: dir.url)
      #expect(r.status == 0, "\(extra): \(r.stderr)")
      return r.stderr
    }
    let ignoring = "changes nothing in state"
    #expect(
      try render(["--state", "idle", "--levels", "l.csv"], "idle-levels.y4m").contains(
        "Note: --levels \(ignoring) idle: the orb follows a level only while it listens or speaks"))
    #expect(
      try render(["--state", "thinking", "--audio", "s.wav"], "thinking-audio.mp4").contains(
        "Note: --audio's level \(ignoring) thinking"))
    #expect(
      try render(["--set", "sequence=idle:0.5,thinking:0.5", "--level", "0.7"], "seq.y4m").contains(
        "Note: the level \(ignoring) idle and thinking"))
    _ = try render(["--state", "idle"], "idle.y4m")
    let speaking = try render(["--state", "speaking", "--levels", "l.csv"], "speaking-levels.y4m")
    #expect(!speaking.contains(ignoring), "\(speaking)")
    _ = try render(["--state", "speaking"], "speaking.y4m")
    let bytes = try ["idle-levels", "idle", "speaking-levels", "speaking"].map {
      try Data(contentsOf: dir.url.appendingPathComponent("\($0).y4m"))
    }
    #expect(bytes[0] == bytes[1], "the idle orb ignores the level")
    #expect(bytes[2] != bytes[3], "the speaking orb follows it")
  }

  /// `--poster p.gif` names the poster's formats (today's main said "render takes one effect or
  /// preset; got 2: color-orbs p.gif"); a preset after a bare --poster is still a preset.
  @Test func aPosterInAnotherFormatIsNamedAsThePoster() throws {
    let dir = TemporaryDirectory("own-words-poster")
    let tiny = ["--size", "32x56", "--fps", "2", "--duration", "1", "-o", "c.mp4"]
    let gif = try runLoopsmith(["render", "color-orbs"] + tiny + ["--poster", "p.gif"], in: dir.url)
    #expect(gif.status == 2)
    #expect(
      gif.stderr
        == "Error: --poster: 'p.gif' is not a still's path; expected one ending in .png, .jpg, .jpeg, .webp (an animated .gif is -o p.gif)\n"
    )
    let text = try runLoopsmith(["render", "color-orbs"] + tiny + ["--poster", "p.txt"], in: dir.url)
    #expect(text.status == 2 && text.stderr.contains("'p.txt' is not a still's path"), "\(text.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.path("c.mp4")))
    try #"{"version":1,"effect":"color-orbs","outputs":["o.mp4"]}"#.write(
      toFile: dir.path("o.json"), atomically: true, encoding: .utf8)
    let preset = try runLoopsmith(
      ["render", "--poster", "o.json", "--size", "32x56", "--fps", "2", "--duration", "1", "--quiet"], in: dir.url)
    #expect(preset.status == 0, "\(preset.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir.path("renders/o.png")))
  }
}
