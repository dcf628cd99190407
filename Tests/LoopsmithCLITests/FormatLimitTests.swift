import Foundation
import Testing
import _TestSupport

/// What a format cannot hold is bad input, named before any work through the real binary: exit
/// status 2, one stderr line naming the flag and the limit, and nothing written.
@Suite struct FormatLimitTests {
  static let small = ["--fps", "10", "--duration", "1", "--scale", "0.1", "--quiet"]

  /// Runs `render color-orbs` with `arguments` in a fresh folder; returns the result and what the folder holds.
  func render(_ arguments: [String], files: [String: String] = [:]) throws -> (RunResult, [String]) {
    let dir = TemporaryDirectory()
    for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: dir.path(name))) }
    try FileManager.default.createDirectory(atPath: dir.path("sub"), withIntermediateDirectories: true)
    let r = try runLoopsmith(["render"] + arguments + Self.small, in: dir.url)
    let left = try FileManager.default.subpathsOfDirectory(atPath: dir.url.path)
      .filter { $0 != "sub" && !files.keys.contains($0) }.sorted()
    return (r, left)
  }

  func expectRefused(_ r: RunResult, _ left: [String], naming words: [String]) {
    #expect(r.status == 2, "status \(r.status): \(r.stderr)")
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 1, "stderr: \(r.stderr)")
    for word in words { #expect(r.stderr.contains(word), "stderr lacks '\(word)': \(r.stderr)") }
    #expect(left.isEmpty, "left behind: \(left)")
  }

  @Test(arguments: [
    ("hevc", "8x8", "at least 16"), ("hevc", "8x32", "at least 16"), ("av1", "32x32", "at least 64"),
    ("av1", "64x48", "at least 64"), ("h264", "33x32", "even width and height"),
  ])
  func aSizeTheCodecRefusesIsNamedWithItsLimit(codec: String, size: String, limit: String) throws {
    let (r, left) = try render(["color-orbs", "--codec", codec, "--size", size, "-o", "a.mp4"])
    expectRefused(r, left, naming: ["--size", size, codec, limit])
    #expect(!r.stderr.contains("avcodec_open2"))
  }

  @Test func theSmallestSizeACodecTakesRenders() throws {
    let (r, left) = try render(["color-orbs", "--codec", "hevc", "--size", "16x16", "-o", "a.mp4"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(left == ["a.mp4"])
  }

  @Test(arguments: [
    ("x.png", "vp9", "png"), ("x.gif", "h264", "gif"), ("x.webm", "hevc", "vp9 or av1"), ("x.mov", "vp9", "prores"),
  ])
  func aCodecTheContainerCannotHoldIsRefused(output: String, codec: String, holds: String) throws {
    let (r, left) = try render(["color-orbs", "--size", "32x32", "--codec", codec, "-o", output])
    expectRefused(r, left, naming: ["--codec", "'\(codec)'", output, holds])
  }

  @Test func aCodecThatNoContainerChoosesIsNotACodecChoice() throws {
    let (r, left) = try render(["color-orbs", "--size", "32x32", "--codec", "rawvideo", "-o", "x.mp4"])
    expectRefused(r, left, naming: ["--codec", "'rawvideo'", "h264, hevc, vp9, av1, prores"])
  }

  @Test(arguments: [
    ["x.mp4", "x.mp4"], ["x.mp4", "./x.mp4"], ["sub/../x.mp4", "x.mp4"], ["x.webm", "sub/x.gif", "./sub/x.gif"],
  ])
  func theSameFileNamedTwiceIsRefused(outputs: [String]) throws {
    let (r, left) = try render(["color-orbs", "--size", "32x32"] + outputs.flatMap { ["-o", $0] })
    expectRefused(r, left, naming: ["-o", "expected each output once"])
  }

  @Test func aPresetNamingAnOutputTwiceIsRefused() throws {
    let preset = #"{"effect": "color-orbs", "size": [32, 32], "outputs": ["x.mp4", "x.mp4"]}"#
    let (r, left) = try render(["p.json", "--out-dir", "."], files: ["p.json": preset])
    expectRefused(r, left, naming: ["-o", "x.mp4", "expected each output once"])
  }

  @Test func aSymbolicLinkToAnotherOutputIsTheSameFile() throws {
    let dir = TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: dir.path("real"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: dir.path("link"), withDestinationPath: dir.path("real"))
    let r = try runLoopsmith(
      ["render", "color-orbs", "--size", "32x32", "-o", "real/x.mp4", "-o", "link/x.mp4"] + Self.small, in: dir.url)
    #expect(r.status == 2 && r.stderr.contains("name the same file"), "\(r.status) \(r.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path("real")).isEmpty)
  }
}
