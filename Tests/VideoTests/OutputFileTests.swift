import Foundation
import Raster
import Testing
import _TestSupport

@testable import Video

@Suite struct OutputFileTests {
  @Test func cancelLeavesNothingAndKeepsAnOldFile() throws {
    let folder = TemporaryDirectory()
    let path = folder.path("a.mp4")
    try Data("old".utf8).write(to: URL(fileURLWithPath: path))
    let writer = try VideoWriter(try settings(path, frames: 4))
    try writer.append(testImage())
    #expect(files(in: folder.url.path).count == 2)  // the old file and the hidden temporary
    writer.cancel()
    #expect(files(in: folder.url.path) == ["a.mp4"])
    #expect(fileBytes(path) == Data("old".utf8))
  }

  @Test func anAbandonedWriterDeletesItsTemporary() throws {
    let folder = TemporaryDirectory()
    do {
      let writer = try VideoWriter(try settings(folder.path("a.webm"), frames: 4))
      try writer.append(testImage())
    }
    #expect(files(in: folder.url.path).isEmpty)
  }

  @Test func tooFewFramesFailAndKeepTheOldFile() throws {
    let folder = TemporaryDirectory()
    let path = folder.path("a.mp4")
    try Data("old".utf8).write(to: URL(fileURLWithPath: path))
    let writer = try VideoWriter(try settings(path, frames: 4))
    try writer.append(testImage())
    #expect(throws: VideoError.self) { try writer.finish() }
    #expect(files(in: folder.url.path) == ["a.mp4"])
    #expect(fileBytes(path) == Data("old".utf8))
  }

  @Test func tooManyFramesAreRefused() throws {
    let folder = TemporaryDirectory()
    let writer = try VideoWriter(try settings(folder.path("a.y4m"), frames: 1))
    try writer.append(testImage())
    #expect(throws: VideoError.self) { try writer.append(testImage()) }
  }

  @Test func finishReplacesAnOldFile() throws {
    let folder = TemporaryDirectory()
    let path = folder.path("a.png")
    try Data("old".utf8).write(to: URL(fileURLWithPath: path))
    let written = try write(try settings(path, frames: 1)) { _ in testImage() }
    #expect(files(in: folder.url.path) == ["a.png"])
    #expect(written.bytes == Int64(fileBytes(path)?.count ?? -1))
    #expect(fileBytes(path)?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
  }

  @Test func aMissingFolderIsNamed() throws {
    let folder = TemporaryDirectory()
    let path = folder.path("missing/a.mp4")
    #expect {
      try VideoWriter(try settings(path, frames: 1))
    } throws: { error in
      guard case VideoError.io(let message) = error else { return false }
      return message.contains(path) && message.contains("does not exist")
    }
  }

  @Test func aDirectoryIsNotAnOutput() throws {
    let folder = TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: folder.path("d.mp4"), withIntermediateDirectories: true)
    #expect {
      try VideoWriter(try settings(folder.path("d.mp4"), frames: 1))
    } throws: { error in
      guard case VideoError.io(let message) = error else { return false }
      return message.contains("d.mp4") && message.contains("directory")
    }
  }

  @Test(.enabled(if: getuid() != 0, "root writes into read-only folders"))
  func aReadOnlyFolderIsNamed() throws {
    let folder = TemporaryDirectory()
    let locked = folder.path("locked")
    try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
    chmod(locked, 0o555)
    defer { chmod(locked, 0o755) }
    #expect(throws: VideoError.self) { try VideoWriter(try settings(locked + "/a.mp4", frames: 1)) }
    #expect(files(in: locked).isEmpty)
  }
}

@Suite struct SettingsTests {
  static let bad: [(String, (inout OutputSettings) -> Void, String)] = [
    ("odd size", { $0.width = 63 }, "even width and height"),
    ("10-bit h264", { $0.bitDepth = 10 }, "bit depth 10"),
    (
      "bit depth 12",
      {
        $0.codec = .hevc; $0.bitDepth = 12
      }, "expected 8 or 10"
    ),
    ("alpha in mp4", { $0.keepAlpha = true }, "transparency"),
    ("vp9 in mp4", { $0.codec = .vp9 }, "cannot go into a .mp4"),
    (
      "huge h264",
      {
        $0.width = 8192; $0.height = 8192
      }, "too large"
    ),
    ("crf", { $0.crf = 70 }, "crf 70"),
    ("fps", { $0.fps = 0 }, "fps 0"),
    ("frames", { $0.frameCount = 0 }, "frame count 0"),
    ("threads", { $0.threads = 0 }, "threads 0"),
    ("preset", { $0.x264Preset = "quick" }, "x264 preset 'quick'"),
    (
      "gif fps",
      {
        $0.format = .gif; $0.codec = .gif; $0.fps = 30
      }, "50, 25, 20 or 10"
    ),
    (
      "png frames",
      {
        $0.format = .png; $0.codec = .png; $0.frameCount = 3
      }, "one still"
    ),
    (
      "vp9 alpha 10-bit",
      {
        $0.format = .webm; $0.codec = .vp9; $0.bitDepth = 10; $0.keepAlpha = true
      }, "bit depth 8"
    ),
  ]

  @Test(arguments: 0..<bad.count) func badSettingsAreRejectedByName(_ index: Int) throws {
    let (name, change, words) = Self.bad[index]
    var s = try settings("a.mp4", frames: 10)
    change(&s)
    do {
      try s.validate()
      Issue.record("\(name): accepted")
    } catch VideoError.invalidSettings(let message) {
      #expect(message.contains(words), "\(name): \(message)")
    }
  }

  @Test func goodSettingsPass() throws {
    try settings("a.mp4", frames: 10).validate()
    try settings("a.webm", frames: 10, keepAlpha: true).validate()
    try settings("a.mp4", frames: 10, codec: .hevc, bitDepth: 10).validate()
    try OutputSettings(path: "a.gif", width: 63, height: 31, fps: 25, frameCount: 5).validate()
  }

  @Test func theExtensionPicksTheFormat() throws {
    #expect(OutputFormat(path: "x/y.MP4") == .mp4)
    #expect(OutputFormat(path: "-") == .y4m)
    #expect(OutputFormat(path: "a.b/c") == nil)
    #expect(OutputFormat(path: "clip.avi") == nil)
    #expect(throws: VideoError.self) { try OutputSettings(path: "a.avi", width: 2, height: 2, fps: 1, frameCount: 1) }
    #expect(OutputSettings.defaultCodec(for: .webm) == .vp9)
  }
}
