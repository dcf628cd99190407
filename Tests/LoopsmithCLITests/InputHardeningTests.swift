import Foundation
import Testing
import _TestSupport

/// Hostile input files through the real binary: FIFOs, devices, absurd headers, NUL in names,
/// renders that would not fit in memory. Each is one line on stderr, exit 2, nothing written.
@Suite struct InputHardeningTests {
  static let small = ["--size", "32x32", "--fps", "10", "--duration", "1", "--scale", "0.1", "--quiet"]

  /// A WAV of 16-bit mono samples (a quiet sawtooth, not silence) that claims `rate` Hz.
  static func wav(rate: Int, samples: Int = 4000) -> Data {
    wavBytes(samples: (0..<samples).map { Int16(truncatingIfNeeded: ($0 * 37) % 2000 + 64535) }, rate: rate)
  }

  /// Runs the binary, stopping it (by its pid) if it has not ended within `seconds`: a FIFO that
  /// hangs a run must fail the test, not the suite.
  static func run(
    _ arguments: [String], in directory: URL, seconds: Double = 180
  ) throws -> (status: Int32, stderr: String, timedOut: Bool) {
    let process = Process()
    process.executableURL = loopsmithBinary()
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let err = Pipe()
    process.standardError = err
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    do {
      let r = try collect(process, stdout: nil, stderr: err, seconds: seconds)
      return (r.status, r.stderr, false)
    } catch let error as ChildTimedOut {
      return (-1, error.stderrTail, true)
    }
  }

  static func expectOneLine(
    _ r: (status: Int32, stderr: String, timedOut: Bool), _ message: String, status: Int32 = 2, _ what: String
  ) {
    #expect(!r.timedOut, "\(what): still running after the deadline")
    #expect(r.status == status, "\(what): \(r.stderr)")
    #expect(
      r.stderr.hasPrefix("Error: ") && r.stderr.hasSuffix("\n") && r.stderr.split(separator: "\n").count == 1,
      "\(what): \(r.stderr)")
    #expect(r.stderr.contains(message), "\(what): \(r.stderr)")
  }

  // MARK: - FIFOs and devices never hang or get read

  @Test(arguments: [
    (
      ["render", "voice-orb", "--audio", "pipe", "-o", "out.mp4"],
      "--audio: pipe: is a FIFO (named pipe); expected a regular audio file"
    ),
    (
      ["render", "voice-orb", "--levels", "pipe", "-o", "out.mp4"],
      "--levels: pipe: is a FIFO (named pipe); expected a regular levels file"
    ),
    (["render", "pipe.json", "-o", "out.mp4"], "pipe.json: is a FIFO (named pipe); expected a regular preset file"),
    (
      ["render", "audio-pipe.json", "-o", "out.mp4"],
      "--audio: pipe: is a FIFO (named pipe); expected a regular audio file"
    ),
    (
      ["render", "levels-pipe.json", "-o", "out.mp4"],
      "--levels: pipe: is a FIFO (named pipe); expected a regular levels file"
    ),
    (["check", "pipe"], "pipe: is a FIFO (named pipe); expected a regular video file"),
    (["check", "out.mp4", "--then", "pipe"], "--then: pipe: is a FIFO (named pipe); expected a regular video file"),
    (
      ["render", "voice-orb", "--audio", "/dev/zero", "-o", "out.mp4"],
      "--audio: /dev/zero: is a character device; expected a regular audio file"
    ),
    (["check", "/dev/null"], "/dev/null: is a character device; expected a regular video file"),
  ])
  func aFIFOOrADeviceNamedAsInputIsRefusedAtOnce(args: [String], message: String) throws {
    let dir = TemporaryDirectory()
    #expect(mkfifo(dir.path("pipe"), 0o644) == 0)
    #expect(mkfifo(dir.path("pipe.json"), 0o644) == 0)
    try Data(#"{"effect": "voice-orb", "audio": "pipe"}"#.utf8).write(
      to: URL(fileURLWithPath: dir.path("audio-pipe.json")))
    try Data(#"{"effect": "voice-orb", "levels": "pipe"}"#.utf8).write(
      to: URL(fileURLWithPath: dir.path("levels-pipe.json")))
    if args.contains("--then") {
      let made = try Self.run(["render", "color-orbs", "-o", "out.mp4"] + Self.small, in: dir.url)
      #expect(made.status == 0, "\(made.stderr)")
    }
    let before = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
    let r = try Self.run(args + (args[0] == "render" ? Self.small : []), in: dir.url, seconds: 60)
    Self.expectOneLine(r, message, args.joined(separator: " "))
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == before)
  }

  // MARK: - Rates, sizes and counts from a file are bounded

  @Test(arguments: [(2_147_483_647, "2147483647 Hz"), (1, "1 Hz"), (999, "999 Hz")])
  func aWAVWithAnAbsurdRateIsRefusedBeforeAnythingIsAllocated(rate: Int, said: String) throws {
    let dir = TemporaryDirectory()
    try Self.wav(rate: rate).write(to: URL(fileURLWithPath: dir.path("odd.wav")))
    for args in [
      ["render", "voice-orb", "--audio", "odd.wav", "-o", "out.mp4"],
      ["render", "voice-orb", "--audio", "odd.wav", "-o", "out.webm"],
    ] {
      let r = try Self.run(args + Self.small, in: dir.url)
      Self.expectOneLine(
        r, "--audio: odd.wav: the audio declares \(said); expected 1000 to 768000 Hz", args.joined(separator: " "))
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["odd.wav"])
  }

  @Test func aWAVAtAnOrdinaryRateStillDrivesTheOrb() throws {
    let dir = TemporaryDirectory()
    try Self.wav(rate: 8000, samples: 8000).write(to: URL(fileURLWithPath: dir.path("voice.wav")))
    // Speaking, since the resting orb follows no level (and `render` would say so).
    let r = try Self.run(
      ["render", "voice-orb", "--state", "speaking", "--audio", "voice.wav", "-o", "out.mp4"] + Self.small, in: dir.url)
    #expect(r.status == 0, "\(r.stderr)")
    // Only the note that the orb's alpha is drawn over black in an MP4.
    #expect(
      r.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("Note: voice-orb is transparent") }, "\(r.stderr)")
    let size = try FileManager.default.attributesOfItem(atPath: dir.path("out.mp4"))[.size] as? Int ?? 0
    #expect(size > 0)
  }

  @Test func aVideoDeclaringAHugePictureIsRefusedByCheck() throws {
    // 67 bytes that promise 16384x8192 frames: decoding one would take GBs.
    let dir = TemporaryDirectory()
    let y4m = "YUV4MPEG2 W16384 H8192 F30:1 Ip A1:1 C420jpeg\nFRAME\n" + String(repeating: "x", count: 16)
    try Data(y4m.utf8).write(to: URL(fileURLWithPath: dir.path("huge.y4m")))
    let r = try Self.run(["check", "huge.y4m"], in: dir.url)
    Self.expectOneLine(
      r, "huge.y4m: the video declares 16384x8192 pixels; expected at most 35389440 pixels (8192x4320)", "check")
  }

  // MARK: - Names

  @Test func anOutputNameHoldingANULIsRefused() throws {
    let dir = TemporaryDirectory()
    try Data(#"{"effect": "color-orbs", "outputs": ["shared.mp4\u0000.webm"]}"#.utf8).write(
      to: URL(fileURLWithPath: dir.path("nul.json")))
    let r = try Self.run(["render", "nul.json"] + Self.small, in: dir.url)
    Self.expectOneLine(r, "holds a NUL character", "render nul.json")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["nul.json"])
  }

  @Test func anInputNameHoldingANULIsRefused() throws {
    let dir = TemporaryDirectory()
    try Data("0,0.5\n".utf8).write(to: URL(fileURLWithPath: dir.path("a.csv")))
    try Data(#"{"effect": "voice-orb", "levels": "a.csv\u0000.json"}"#.utf8).write(
      to: URL(fileURLWithPath: dir.path("nul.json")))
    let r = try Self.run(["render", "nul.json", "-o", "out.mp4"] + Self.small, in: dir.url)
    Self.expectOneLine(r, "nul.json: 'levels': a path with a NUL character", "render nul.json")
  }

  // MARK: - One memory budget

  @Test func eightLargeOutputsExceedTheBudgetBeforeAnyWork() throws {
    let dir = TemporaryDirectory()
    let outputs = (0..<8).flatMap { ["-o", "out\($0).mp4"] }
    let r = try Self.run(
      ["render", "color-orbs", "--size", "4096x4096", "--memory-limit", "8G"] + outputs, in: dir.url)
    Self.expectOneLine(r, "--memory-limit: 4096x4096 with 8 outputs needs", "eight outputs")
    #expect(r.stderr.contains("the memory budget is 8.0 GiB: raise it with --memory-limit"), "\(r.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).isEmpty)
    // The same render with one output fits the same budget.
    let one = try Self.run(
      [
        "render", "color-orbs", "--size", "64x64", "--fps", "10", "--duration", "1", "--quiet", "--memory-limit", "8G",
        "-o", "one.mp4",
      ], in: dir.url)
    #expect(one.status == 0, "\(one.stderr)")
  }

  @Test(arguments: ["12Q", "0", "-1G", "G", "1.5.5G", "0.001M", "0x10M", "1K", "99999999999999999999G"])
  func aBadMemoryLimitIsRefused(value: String) throws {
    let dir = TemporaryDirectory()
    let r = try Self.run(["render", "color-orbs", "--memory-limit", value, "-o", "out.mp4"] + Self.small, in: dir.url)
    Self.expectOneLine(r, "--memory-limit: '\(value)'", value)
  }

  // MARK: - Noise and non-finite geometry

  @Test func aTinyScaleRendersInsteadOfTrapping() throws {
    let dir = TemporaryDirectory()
    for scale in ["1e-20", "1e-30"] {
      let r = try Self.run(
        [
          "render", "color-orbs", "--size", "32x32", "--fps", "10", "--duration", "1", "--quiet", "--scale", scale,
          "-o", "out.mp4",
        ], in: dir.url)
      #expect(r.status == 0, "--scale \(scale): \(r.stderr)")
    }
    // Below Float's normal range the scale would reach the canvas as 0 or a subnormal: refused.
    let r = try Self.run(
      ["render", "color-orbs", "--scale", "1e-45", "-o", "tiny.mp4"]
        + Self.small.filter { $0 != "0.1" && $0 != "--scale" }, in: dir.url)
    Self.expectOneLine(r, "--scale: '1e-45' is not valid; expected a number above 0", "--scale 1e-45")
  }

  static let hasSVTAV1 = FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libSvtAv1Enc.so.1")

  @Test(.enabled(if: hasSVTAV1, "needs libSvtAv1Enc")) func quietAV1PrintsNothing() throws {
    let dir = TemporaryDirectory()
    let r = try Self.run(
      [
        "render", "color-orbs", "--codec", "av1", "-o", "out.webm", "--size", "64x64", "--fps", "10", "--duration", "1",
        "--quiet",
      ], in: dir.url)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.isEmpty, "\(r.stderr)")
  }
}
