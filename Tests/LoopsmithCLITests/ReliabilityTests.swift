import Foundation
import Testing
import _TestSupport

/// Every class of bad input, interrupts and a full disk, driven through the real binary: one
/// stderr line, the right status, the error in the `--json` summary, and nothing left behind.
@Suite struct ReliabilityTests {
  /// Small render flags, so a case that gets as far as rendering stays fast.
  static let small = ["--size", "32x32", "--fps", "10", "--duration", "1", "--scale", "0.1"]

  /// The input files the cases name, written once; each case's folder links to them.
  static let fixtures: TemporaryDirectory = {
    let dir = TemporaryDirectory("loopsmith-fixtures")
    try! writeFixtures(in: dir)
    return dir
  }()

  static func linkFixtures(into dir: TemporaryDirectory) throws {
    for name in try FileManager.default.contentsOfDirectory(atPath: fixtures.url.path) {
      try FileManager.default.createSymbolicLink(atPath: dir.path(name), withDestinationPath: fixtures.path(name))
    }
  }

  static func writeFixtures(in dir: TemporaryDirectory) throws {
    func write(_ name: String, _ bytes: [UInt8]) throws {
      try Data(bytes).write(to: URL(fileURLWithPath: dir.path(name)))
    }
    func text(_ name: String, _ s: String) throws { try write(name, Array(s.utf8)) }
    try text("empty.json", "")
    try text("truncated.json", #"{"effect": "color-orbs", "fps": "#)
    try write("not-utf8.json", [0xFF, 0xFE] + Array(#"{"effect":"color-orbs"}"#.utf8))
    try text("deep.json", String(repeating: "[", count: 100_000))
    try text("huge.json", #"{"effect":"color-orbs","description":""# + String(repeating: "a", count: 1 << 21) + #""}"#)
    try text("wrong-type.json", #"{"effect": 5}"#)
    try text("array.json", "[1, 2]")
    try text("unknown-key.json", #"{"effect":"color-orbs","sped":1}"#)
    try text("version.json", #"{"effect":"color-orbs","version":2}"#)
    try text("huge-fps.json", #"{"effect":"color-orbs","fps":1e300}"#)
    try text("huge-size.json", #"{"effect":"color-orbs","size":[1e300,5]}"#)
    try text("nan-duration.json", #"{"effect":"color-orbs","duration":"nan"}"#)
    try text("unknown-parameter.json", #"{"effect":"color-orbs","parameters":{"sped":1}}"#)
    try text("wrong-colors.json", #"{"effect":"color-orbs","parameters":{"colors":[1,2]}}"#)
    // Random bytes named .wav, a readable WAV of silence, and level files that say nothing.
    // Seeded: unseeded bytes now and then probed as some other format, and the message changed.
    var random = SeededRandom(seed: 47)
    try write("corrupt.wav", (0..<4096).map { _ in UInt8(random.nextInt() % 256) })
    try write("corrupt.mp4", (0..<4096).map { _ in UInt8(random.nextInt() % 256) })
    try write("empty.mp4", [])
    try write("silent.wav", wav(samples: 8000))
    try text("bad-levels.json", "[[0, 1], [1]]")
    try text("header-only.csv", "seconds,level\n")
    try text("bad-levels.csv", "0,0.5\nloud,1\n")
    try FileManager.default.createSymbolicLink(atPath: dir.path("zero.json"), withDestinationPath: "/dev/zero")
    try FileManager.default.createDirectory(atPath: dir.path("folder"), withIntermediateDirectories: false)
    try FileManager.default.createDirectory(atPath: dir.path("folder.mp4"), withIntermediateDirectories: false)
  }

  /// A mono 16-bit 8 kHz WAV of `samples` zeros.
  static func wav(samples: Int) -> [UInt8] {
    [UInt8](wavBytes(samples: [Int16](repeating: 0, count: samples), rate: 8000))
  }

  static let cases: [(args: [String], status: Int32, message: String)] = [
    // Unknown names.
    (["frobnicate"], 2, "Unknown command 'frobnicate'; expected one of render, batch, list, plan, check, schema"),
    (["render", "color-orbs", "-o", "out.mp4", "--bogus"], 2, "Unknown option '--bogus'"),
    (["render", "color-orb", "-o", "out.mp4"], 2, "unknown effect 'color-orb'; expected one of color-orbs"),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--set", "nope=1"], 2,
      "unknown parameter 'nope' for color-orbs; expected one of"
    ),
    (
      ["render", "weather", "--weather", "hail", "-o", "out.mp4"], 2,
      "--weather: 'hail' is not valid; expected one of clearDay"
    ),
    (
      ["render", "voice-orb", "--state", "shouting", "-o", "out.webm"], 2,
      "--state: 'shouting' is not valid; expected one of idle"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--codec", "divx"], 2,
      "--codec: 'divx' is not valid; expected one of h264"
    ),
    (["render", "color-orbs", "-o", "out.avi"], 2, "'out.avi' has no known extension; expected one of .mp4"),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--codec", "vp9"], 2,
      "--codec: 'vp9' cannot go into out.mp4; a .mp4 file holds h264 or hevc or av1"
    ),
    // Missing values.
    (["render", "color-orbs", "-o"], 2, "Missing value for '-o'; expected path"),
    (["render", "color-orbs", "-o", "out.mp4", "--size"], 2, "Missing value for '--size'; expected WxH"),
    (["render", "color-orbs", "-o", "out.mp4", "--set"], 2, "Missing value for '--set'; expected name=value"),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--set", "speed"], 2, "--set: 'speed' is not valid; expected name=value"
    ),
    (["render"], 2, "render needs an effect or a preset file"),
    (["check"], 2, "check needs a video file; expected one or more paths"),
    (["plan"], 2, "plan needs one effect or preset file"),
    // Colors in every wrong form.
    (
      ["render", "color-orbs", "-o", "out.mp4", "--set", "colors="], 2,
      "--set colors: '' is not valid ('' is not a color); expected 1 to 16"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--set", "colors=red,,blue"], 2,
      "--set colors: 'red,,blue' is not valid"
    ),
    (["render", "color-orbs", "-o", "out.mp4", "--set", "colors=#GGGGGG"], 2, "'#GGGGGG' is not valid"),
    // ff2d55 is #ff2d55 (the # may be left out); a sixth letter that is no hex digit is not.
    (
      ["render", "color-orbs", "-o", "out.mp4", "--set", "colors=ff2d5g"], 2,
      "'ff2d5g' is not valid ('ff2d5g' is not a color)"
    ),
    (["render", "color-orbs", "-o", "out.mp4", "--set", "colors=#ff2d"], 2, "'#ff2d' is not valid"),
    (["render", "color-orbs", "-o", "out.mp4", "--set", "colors=#ff2d55ff00"], 2, "'#ff2d55ff00' is not valid"),
    (["render", "color-orbs", "-o", "out.mp4", "--set", "colors=#+fffff"], 2, "'#+fffff' is not valid"),
    (
      [
        "render", "color-orbs", "-o", "out.mp4", "--set",
        "colors=" + Array(repeating: "red", count: 17).joined(separator: ","),
      ], 2, "expected 1 to 16"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--background", "#12"], 2,
      "--background: '#12' is not valid; expected transparent"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--background", "transparent"], 2, "transparency cannot be kept in h264"
    ),
    // NaN, infinity, negative, zero and huge numbers.
    (["render", "color-orbs", "-o", "out.mp4", "--size", "nanx32"], 2, "--size: 'nanx32' is not valid; expected WxH"),
    (["render", "color-orbs", "-o", "out.mp4", "--size", "0x32"], 2, "--size: '0x32' is not valid"),
    (["render", "color-orbs", "-o", "out.mp4", "--size", "-2x32"], 2, "--size: '-2x32' is not valid"),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--size", "9223372036854775807x9223372036854775807"], 2,
      "each side from 1 to 8192"
    ),
    (["render", "color-orbs", "-o", "out.mp4", "--size", "8192x8192"], 2, "at most 16777216 pixels"),
    (
      ["render", "color-orbs", "--size", "4096x4096", "--memory-limit", "4G"]
        + (0..<16).flatMap { ["-o", "out\($0).mov"] }, 2,
      "; the memory budget is 4.0 GiB: raise it with --memory-limit, or use fewer outputs"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--fps", "nan"], 2, "--fps: 'nan' is not valid; expected a whole number"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--fps", "-1"], 2,
      "--fps: '-1' is not valid; expected a whole number from 1 to 240"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--fps", "99999999999999999999"], 2,
      "--fps: '99999999999999999999' is not valid"
    ),
    (["render", "color-orbs", "-o", "out.mp4", "--fps", "241"], 2, "from 1 to 240"),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--duration", "inf"], 2,
      "--duration: 'inf' is not valid; expected a decimal number, like 2.5"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--duration", "0"], 2,
      "--duration: '0' is not valid; expected seconds above 0"
    ),
    (["render", "color-orbs", "-o", "out.mp4", "--duration", "1e300"], 2, "at most 3600"),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--crf", "-inf"], 2,
      "--crf: '-inf' is not valid; expected a whole number"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--crf", "0"] + small, 2,
      "--crf: '0' is not valid for h264 (out.mp4); expected a whole number from 1 to 51"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--crf", "52"] + small, 2,
      "--crf: '52' is not valid for h264 (out.mp4); expected a whole number from 1 to 51"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--threads", "0"], 2,
      "--threads: '0' is not valid; expected a whole number from 1 to 256"
    ),
    (["render", "color-orbs", "-o", "out.mp4", "--threads", "1e9"], 2, "--threads: '1e9' is not valid"),
    (["render", "color-orbs", "-o", "out.mp4", "--encoder-threads", "65"], 2, "--encoder-threads: '65' is not valid"),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--scale", "nan"], 2,
      "--scale: 'nan' is not valid; expected a decimal number, like 2.5"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--scale", "0"], 2,
      "--scale: '0' is not valid; expected a number above 0"
    ),
    (["render", "color-orbs", "-o", "out.mp4", "--scale", "1e308"], 2, "--scale: '1e+308' is not valid"),
    (
      ["render", "voice-orb", "-o", "out.webm", "--level", "nan"], 2,
      "--level: 'nan' is not valid; expected a number from 0 to 1"
    ),
    (["render", "voice-orb", "-o", "out.webm", "--level", "-1"], 2, "--level: '-1' is not valid"),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--set", "speed=inf"], 2,
      "--set speed: 'inf' is not valid; expected a number from 0"
    ),
    (["render", "color-orbs", "-o", "out.mp4", "--set", "speed=1e400"], 2, "--set speed: '1e400' is not valid"),
    (
      ["render", "color-orbs", "-o", "out.png", "--time", "-1"], 2, "--time: '-1' is not valid; expected seconds from 0"
    ),
    (["render", "color-orbs", "-o", "out.png", "--time", "nan"], 2, "--time: 'nan' is not valid"),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--bit-depth", "12"], 2,
      "--bit-depth: '12' is not valid; expected 8 or 10"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--max-speed-change", "-0.5"], 2,
      "--max-speed-change: '-0.5' is not valid"
    ),
    // Sizes a 4:2:0 codec cannot hold, fps a format cannot hold, loops that cannot close.
    (
      ["render", "color-orbs", "-o", "out.mp4", "--size", "33x32", "--fps", "10", "--duration", "1"], 2,
      "h264 stores 4:2:0 color and needs an even width and height; try 34x32"
    ),
    (
      ["render", "color-orbs", "-o", "out.webm", "--size", "32x31", "--fps", "10", "--duration", "1"], 2,
      "needs an even width and height"
    ),
    (
      ["render", "color-orbs", "-o", "out.gif", "--size", "32x32", "--fps", "30", "--duration", "1"], 2,
      "GIF frame delays are whole hundredths of a second"
    ),
    (
      ["render", "color-orbs", "-o", "out.mp4", "--fps", "10", "--duration", "0.01", "--size", "32x32"], 2,
      "--duration: A 0.01 s loop at 10 fps is 0.1 frames"
    ),
    (
      ["render", "weather", "--weather", "thunderstorm", "--duration", "7", "-o", "out.mp4"], 2,
      "not a whole multiple of 6 s"
    ),
    (["render", "color-orbs", "-o", "out.mp4", "-o", "out.png"], 2, "a PNG still cannot share a render"),
    // Preset files: empty, truncated, not UTF-8, deeply nested, huge, wrong-typed, unknown keys.
    (["render", "empty.json", "-o", "out.mp4"], 2, "empty.json: empty file; expected a JSON object"),
    (["render", "zero.json", "-o", "out.mp4"], 2, "zero.json: is a character device; expected a regular preset file"),
    (["render", "truncated.json", "-o", "out.mp4"], 2, "truncated.json: not valid JSON"),
    (["render", "not-utf8.json", "-o", "out.mp4"], 2, "not-utf8.json: not UTF-8 text; expected a JSON object"),
    (["render", "deep.json", "-o", "out.mp4"], 2, "deep.json: not valid JSON"),
    (["plan", "deep.json"], 2, "deep.json: not valid JSON"),
    (["render", "huge.json", "-o", "out.mp4"], 2, "huge.json: 2097192 bytes; expected a preset file of at most 1 MiB"),
    (["render", "wrong-type.json", "-o", "out.mp4"], 2, "wrong-type.json: 'effect': expected a string"),
    (["render", "array.json", "-o", "out.mp4"], 2, "array.json: expected a JSON object at the top level"),
    (["render", "unknown-key.json", "-o", "out.mp4"], 2, "unknown-key.json: unknown key 'sped'"),
    (["render", "version.json", "-o", "out.mp4"], 2, "version.json: 'version': expected 1"),
    (["render", "huge-fps.json", "-o", "out.mp4"], 2, "huge-fps.json: 'fps': expected a whole number"),
    (["render", "huge-size.json", "-o", "out.mp4"], 2, "huge-size.json: 'size': expected \"WxH\" or [width, height]"),
    (["render", "nan-duration.json", "-o", "out.mp4"], 2, "nan-duration.json: 'duration': expected a number"),
    (["render", "unknown-parameter.json", "-o", "out.mp4"], 2, "unknown key 'parameters.sped'. Did you mean 'speed'?"),
    (["render", "wrong-colors.json", "-o", "out.mp4"], 2, "wrong-colors.json: 'parameters.colors'"),
    (["render", "missing.json", "-o", "out.mp4"], 2, "missing.json: no such preset file"),
    (["render", "folder.json", "-o", "out.mp4"], 2, "folder.json: no such preset file"),
    // Audio and level files: missing, a folder, corrupt, silent, for the wrong effect, unparsable.
    (
      ["render", "voice-orb", "--audio", "missing.wav", "-o", "out.mp4"] + small, 2,
      "--audio: missing.wav: no such audio file"
    ),
    (
      ["render", "voice-orb", "--audio", "folder", "-o", "out.mp4"] + small, 2,
      "--audio: folder: is a folder; expected a regular audio file"
    ),
    (
      ["render", "voice-orb", "--audio", "corrupt.wav", "-o", "out.mp4"] + small, 2,
      "--audio: corrupt.wav: "
    ),
    (
      ["render", "voice-orb", "--audio", "silent.wav", "-o", "out.mp4"] + small, 2,
      "--audio: silent.wav: the audio is silent; expected a voice recording"
    ),
    (
      ["render", "color-orbs", "--audio", "silent.wav", "-o", "out.mp4"] + small, 2,
      "--audio: only the voice-orb effect follows a level; got color-orbs"
    ),
    (
      ["render", "voice-orb", "--levels", "missing.csv", "-o", "out.mp4"] + small, 2,
      "--levels: missing.csv: no such levels file"
    ),
    (
      ["render", "voice-orb", "--levels", "/dev/zero", "-o", "out.mp4"] + small, 2,
      "--levels: /dev/zero: is a character device; expected a regular levels file"
    ),
    (
      ["render", "voice-orb", "--levels", "empty.json", "-o", "out.mp4"] + small, 2,
      "--levels: empty.json: empty file; expected a JSON or CSV file of time and level"
    ),
    (
      ["render", "voice-orb", "--levels", "bad-levels.json", "-o", "out.mp4"] + small, 2,
      "--levels: bad-levels.json: expected a JSON list of [seconds, level] pairs"
    ),
    (["render", "voice-orb", "--levels", "bad-levels.csv", "-o", "out.mp4"] + small, 2, "--levels: bad-levels.csv:"),
    (
      ["render", "voice-orb", "--levels", "header-only.csv", "-o", "out.mp4"] + small, 2,
      "--levels: header-only.csv: no levels"
    ),
    // Outputs into a missing folder or onto a folder.
    (["render", "color-orbs", "-o", "missing/out.mp4"] + small, 1, "missing/out.mp4: folder"),
    (["render", "color-orbs", "-o", "folder.mp4"] + small, 1, "folder.mp4: is a directory; expected a file path"),
    (["render", "color-orbs", "-o", "folder"] + small, 2, "'folder' has no known extension"),
    // check on missing, corrupt and empty files, a folder and audio.
    (["check", "missing.mp4"], 2, "missing.mp4: no such video file"),
    (["check", "folder.mp4"], 2, "folder.mp4: is a folder; expected a regular video file"),
    (["check", "corrupt.mp4"], 2, "corrupt.mp4: not a format libav recognizes; expected an MP4, MOV, WebM"),
    (["check", "empty.mp4"], 2, "empty.mp4: libav cannot read it as QuickTime / MOV (Invalid data found"),
    (
      ["check", "silent.wav"], 2,
      "silent.wav: libav reads it as WAV / WAVE (Waveform Audio) (wav), which is not read here"
    ),
    (["list", "extra"], 2, "list takes no arguments; got 'extra'"),
  ]

  @Test(arguments: cases)
  func badInputIsOneLineAStatusAndNothingWritten(args: [String], status: Int32, message: String) throws {
    let dir = TemporaryDirectory()
    try Self.linkFixtures(into: dir)
    let before = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
    // Only render has --quiet; every command has --json. A render gets the small flags it lacks,
    // so a case that is checked late (after planning at the default size) stays fast.
    var extra = ["--json"]
    if args.first == "render" {
      extra += ["--quiet"]
      for i in stride(from: 0, to: Self.small.count, by: 2) where !args.contains(Self.small[i]) {
        extra += [Self.small[i], Self.small[i + 1]]
      }
    }
    let r = try runLoopsmith(args + extra, in: dir.url)
    #expect(r.status == status, "\(args): \(r.stderr)")
    let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    #expect(lines.count == 1 && r.stderr.hasSuffix("\n"), "\(args): \(r.stderr)")
    #expect(r.stderr.hasPrefix("Error: ") && r.stderr.contains(message), "\(args): \(r.stderr)")
    // The summary carries the same error and status.
    let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
    #expect(summary?["status"] as? String == "error", "\(args): \(r.stdout)")
    #expect(summary?["exitCode"] as? Int == Int(status))
    #expect((summary?["error"] as? String).map { r.stderr == "Error: \($0)\n" } == true, "\(args): \(r.stdout)")
    // Nothing new: no output, no temporary.
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == before, "\(args)")
  }

  @Test func aFailedRenderLeavesTheOldFileAtThePathAsItWas() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("out.mp4")
    try Data("old".utf8).write(to: URL(fileURLWithPath: out))
    let r = try runLoopsmith(["render", "color-orbs", "-o", out, "--crf", "0", "--quiet"] + Self.small)
    #expect(r.status == 2)
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "old")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["out.mp4"])
  }

  // MARK: - A read-only folder

  /// Root writes into a read-only folder anyway, so root runs the binary as `nobody` through
  /// setpriv; without setpriv the case cannot be made and is skipped.
  static let canDropToNobody = getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

  @Test(
    .enabled(
      if: canDropToNobody, "root needs /usr/bin/setpriv to render as nobody; root may write to a read-only folder"))
  func anOutputIntoAReadOnlyFolderFailsWithThePathAndLeavesNothing() throws {
    let dir = TemporaryDirectory()
    let folder = dir.path("read-only")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    let out = folder + "/out.mp4"
    try Data("old".utf8).write(to: URL(fileURLWithPath: out))
    chmod(out, 0o644)
    chmod(folder, 0o555)
    chmod(dir.url.path, 0o755)
    defer { chmod(folder, 0o755) }
    var command = [loopsmithBinary().path, "render", "color-orbs", "-o", out, "--quiet"] + Self.small
    if getuid() == 0 { command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command }
    let r = try run(command)
    #expect(r.status == 1, "\(r.stderr)")
    #expect(r.stderr == "Error: \(out): cannot create a file in \(folder): Permission denied\n")
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "old")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.mp4"])
  }

  @Test(
    .enabled(if: canDropToNobody, "root needs /usr/bin/setpriv to run as nobody; root reads any file"),
    arguments: [
      (["render", "locked.json", "-o", "out.mp4"], "locked.json: cannot open the preset file: Permission denied"),
      (
        ["render", "voice-orb", "--audio", "locked.wav", "-o", "out.mp4"],
        "--audio: locked.wav: cannot open the audio file: Permission denied"
      ),
      (
        ["render", "voice-orb", "--levels", "locked.csv", "-o", "out.mp4"],
        "--levels: locked.csv: cannot open the levels file: Permission denied"
      ),
    ])
  func anUnreadableInputFileIsBadInputNamingIt(args: [String], message: String) throws {
    let dir = TemporaryDirectory()
    chmod(dir.url.path, 0o777)
    try Data(#"{"effect":"color-orbs"}"#.utf8).write(to: URL(fileURLWithPath: dir.path("locked.json")))
    try Data(Self.wav(samples: 800)).write(to: URL(fileURLWithPath: dir.path("locked.wav")))
    try Data("0,0.5\n1,1\n".utf8).write(to: URL(fileURLWithPath: dir.path("locked.csv")))
    for name in ["locked.json", "locked.wav", "locked.csv"] { chmod(dir.path(name), 0o000) }
    var command = [loopsmithBinary().path] + args + ["--quiet"] + Self.small
    if getuid() == 0 { command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command }
    let r = try run(command, in: dir.url)
    #expect(r.status == 2, "\(r.stderr)")
    #expect(
      r.stderr.hasPrefix("Error: ") && r.stderr.contains(message) && r.stderr.split(separator: "\n").count == 1,
      "\(r.stderr)")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == [
        "locked.csv", "locked.json", "locked.wav",
      ])
  }

  // MARK: - Signals

  @Test(arguments: [
    (SIGINT, Int32(130), "Error: interrupted\n"), (SIGTERM, Int32(143), "Error: terminated (signal 15)\n"),
    (SIGHUP, Int32(129), "Error: terminated (signal 1)\n"),
  ])
  func aSignalStopsARenderPromptlyAndLeavesTheOldFile(signal: Int32, status: Int32, message: String) throws {
    let dir = TemporaryDirectory()
    let out = dir.path("loop.mp4")
    try Data("old".utf8).write(to: URL(fileURLWithPath: out))
    // A ten-minute loop at 32x32: long enough to be running whenever the signal comes.
    let process = Process()
    process.executableURL = loopsmithBinary()
    process.arguments = [
      "render", "color-orbs", "-o", out, "--size", "32x32", "--fps", "30", "--duration", "600", "--scale", "0.1",
      "--threads", "1", "--quiet",
    ]
    let err = Pipe()
    process.standardError = err
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    // Wait for the temporary file: the render is then encoding.
    let deadline = Date().addingTimeInterval(60)
    while try !FileManager.default.contentsOfDirectory(atPath: dir.url.path).contains(where: {
      $0.hasSuffix(".loopsmith-tmp")
    }) {
      try #require(Date() < deadline && process.isRunning, "the render never started")
      usleep(20_000)
    }
    usleep(300_000)
    let sent = Date()
    kill(process.processIdentifier, signal)
    let errText = try collect(process, stdout: nil, stderr: err).stderr
    let took = Date().timeIntervalSince(sent)
    #expect(process.terminationReason == .exit)
    #expect(process.terminationStatus == status)
    #expect(errText == message)
    #expect(took < 5, "took \(took) s to stop")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["loop.mp4"])
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "old")
  }

  // MARK: - A full disk

  /// Whether this process may mount a tmpfs (root in most sandboxes and CI containers).
  static let canMountTmpfs: Bool = {
    let probe = TemporaryDirectory("loopsmith-mount-probe")
    guard run(["/bin/mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.url.path]).status == 0 else {
      return false
    }
    return run(["/bin/umount", probe.url.path]).status == 0
  }()

  @Test(
    .enabled(if: canMountTmpfs, "mounting a 64 KiB tmpfs needs root (mount -t tmpfs); ENOSPC cannot be made here"),
    arguments: ["loop.y4m", "loop.mp4", "loop.gif"])
  func aFullDiskNamesThePathExitsOneAndLeavesNoPartialFile(name: String) throws {
    let dir = TemporaryDirectory()
    let disk = dir.path("disk")
    try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: false)
    #expect(Self.run(["/bin/mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", disk]).status == 0)
    defer { _ = Self.run(["/bin/umount", disk]) }
    let out = disk + "/" + name
    try Data("old".utf8).write(to: URL(fileURLWithPath: out))
    let quality = name.hasSuffix(".mp4") ? ["--crf", "1"] : []  // near-lossless: far past 64 KiB
    let r = try runLoopsmith(
      [
        "render", "color-orbs", "-o", out, "--size", "128x128", "--fps", "10", "--duration", "2", "--scale", "0.25",
        "--quiet", "--json",
      ] + quality)
    #expect(r.status == 1, "\(r.stderr)")
    #expect(r.stderr.hasPrefix("Error: \(out): ") && r.stderr.contains("No space left on device"), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1)
    #expect(r.stdout.contains("No space left on device"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: disk) == [name])
    #expect(try String(contentsOfFile: out, encoding: .utf8) == "old")
  }

  // MARK: - Helpers

  /// Runs a command to its end, with both pipes drained.
  struct Finished { var status: Int32; var stdout: String; var stderr: String }

  @discardableResult
  static func run(_ command: [String], in directory: URL? = nil) -> Finished {
    let process = Process()
    if let directory { process.currentDirectoryURL = directory }
    process.executableURL = URL(fileURLWithPath: command[0])
    process.arguments = Array(command.dropFirst())
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    do { try process.run() } catch { return Finished(status: -1, stdout: "", stderr: "\(error)") }
    do {
      let r = try collect(process, stdout: out, stderr: err)
      return Finished(status: r.status, stdout: r.stdout, stderr: r.stderr)
    } catch { return Finished(status: -1, stdout: "", stderr: "\(error)") }
  }

  func run(_ command: [String], in directory: URL? = nil) throws -> Finished { Self.run(command, in: directory) }
}
