import Foundation
import Testing
import _TestSupport

/// `render`'s progress on stderr through the real binary: plain lines, JSON lines, and the live
/// line on a pseudo-terminal.
@Suite struct ProgressTests {
  static let tiny = ["--size", "16x16", "--scale", "0.05", "--fps", "10", "--duration", "2"]

  @Test func plainLinesWhenStderrIsNotATerminal() throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(["render", "color-orbs", "-o", dir.path("a.mp4")] + Self.tiny)
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stderr.split(separator: "\n").map(String.init)
    #expect(!r.stderr.contains("\r") && !r.stderr.contains("\u{1B}"))
    // The first frame's line at once: percent, frames, frames a second, time left.
    let first = try #require(lines.first)
    #expect(
      first.range(of: #"^a\.mp4 +\d+% \d+/20 frames, [0-9.]+ fps, \d+:\d\d left$"#, options: .regularExpression) != nil,
      "\(first)")
    let last = try #require(lines.last)
    #expect(
      last.range(of: #"^a\.mp4: 20/20 frames, done in [0-9.]+ s \([0-9.]+ fps\)$"#, options: .regularExpression) != nil,
      "\(last)")
  }

  @Test func jsonLinesForCI() throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(["render", "color-orbs", "-o", dir.path("a.mp4"), "--progress", "json"] + Self.tiny)
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count >= 2)
    var previous = 0
    for (k, line) in lines.enumerated() {
      let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
      let frame = try #require(o["frame"] as? Int)
      #expect(frame > previous, "frames increase: \(line)")
      previous = frame
      #expect(o["total"] as? Int == 20)
      #expect((o["fps"] as? Double ?? -1) >= 0)
      #expect(o["output"] as? [String] == ["a.mp4"], "an array, not a comma-joined string: \(line)")
      #expect(o["eta"] is Double || o["eta"] is NSNull || o["eta"] is Int)
      #expect((o["done"] as? Bool == true) == (k == lines.count - 1))
    }
    #expect(previous == 20)
    #expect(r.stdout.isEmpty)
  }

  /// Batch says which presets are running: a line as each starts, and one as each ends.
  @Test func batchShowsWhichPresetsAreRunning() throws {
    let dir = TemporaryDirectory()
    let folder = dir.path("presets")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for name in ["a", "b"] {
      try #"{"version": 1, "effect": "color-orbs"}"#.write(
        toFile: "\(folder)/\(name).json", atomically: true, encoding: .utf8)
    }
    let r = try runLoopsmith(["batch", folder, "--out", dir.path("out")] + Self.tiny)
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stderr.split(separator: "\n").map(String.init)
    #expect(
      lines.filter { $0.hasSuffix(" of 2)") }.sorted() == ["a: started (1 of 2)", "b: started (2 of 2)"], "\(r.stderr)")
    for name in ["a", "b"] {
      let start = try #require(lines.firstIndex(of: "\(name): started (\(name == "a" ? 1 : 2) of 2)"))
      let end = try #require(lines.firstIndex { $0.hasPrefix("\(name) -> \(name).mp4: rendered in ") }, "\(r.stderr)")
      #expect(start < end)
    }
  }

  @Test func badProgressModeIsRefused() throws {
    let r = try runLoopsmith(["render", "color-orbs", "--null", "--progress", "fancy"] + Self.tiny)
    #expect(r.status == 2)
    #expect(r.stderr == "Error: --progress: 'fancy' is not valid; expected one of auto, plain, json, none\n")
  }

  /// The transcript of `command` run on a pseudo-terminal (util-linux `script`).
  static func onTerminal(_ command: String) throws -> (status: Int32, text: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    p.arguments = ["-q", "-e", "-c", command, "/dev/null"]
    let out = Pipe()
    p.standardOutput = out
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let r = try collect(p, stdout: out, stderr: nil)
    return (r.status, r.stdout)
  }

  /// Runs `command` on a terminal as `onTerminal` does and types Ctrl-C once its output holds
  /// `marker`, as a user would: the terminal turns it into SIGINT for the command. However slow the
  /// machine, the interrupt comes after the marker; a command that never prints it runs to its end.
  static func interruptedOnTerminal(_ command: String, after marker: String) throws -> (status: Int32, text: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
    p.arguments = ["-q", "-e", "-c", command, "/dev/null"]
    let out = Pipe()
    let keys = Pipe()
    p.standardOutput = out
    p.standardInput = keys
    try p.run()
    defer { try? keys.fileHandleForWriting.close() }
    var typed = false
    let r = try collect(p, stdout: out, stderr: nil) { data in
      if !typed, String(decoding: data, as: UTF8.self).contains(marker) {
        keys.fileHandleForWriting.write(Data([0x03]))
        typed = true
      }
    }
    return (r.status, r.stdout)
  }

  /// What a terminal shows of a line written with `\r` and erase-line: the text after the last.
  static func screen(_ line: Substring) -> String {
    let last = line.components(separatedBy: "\r").last ?? ""
    return last.replacingOccurrences(of: "\u{1B}[2K", with: "")
  }

  static let binary = "'\(loopsmithBinary().path)'"

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func theFinishedLineReplacesTheLiveOne() throws {
    let dir = TemporaryDirectory()
    let (status, text) = try Self.onTerminal(
      "\(Self.binary) render color-orbs -o '\(dir.path("a.mp4"))' \(Self.tiny.joined(separator: " "))")
    #expect(status == 0, "\(text)")
    let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
    #expect(lines.count == 1, "\(text.debugDescription)")
    let shown = Self.screen(try #require(lines.last))
    #expect(
      shown.range(of: #"^a\.mp4: 20/20 frames, done in [0-9.]+ s \([0-9.]+ fps\)$"#, options: .regularExpression)
        != nil, "\(text.debugDescription)")
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
  func anInterruptPrintsItsErrorOnALineOfItsOwn() throws {
    // Ctrl-C once the live line shows: the interrupt comes mid-bar, on a fast machine or a slow one.
    let (status, text) = try Self.interruptedOnTerminal(
      "\(Self.binary) render aurora-mesh --null --size 64x64 --scale 0.2 --fps 60 --duration 60",
      after: "/3600 frames, ")
    #expect(status == 130, "\(text.debugDescription)")
    #expect(text.contains("/3600 frames, "), "the live line was drawn before the interrupt: \(text.debugDescription)")
    let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n")
    let shown = Self.screen(try #require(lines.last))
    #expect(shown == "Error: interrupted", "\(text.debugDescription)")
    #expect(lines.count == 1, "the bar's line is cleared, not left above: \(text.debugDescription)")
  }
}
