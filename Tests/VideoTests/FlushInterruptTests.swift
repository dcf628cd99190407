import Foundation
import Raster
import Testing
import _TestSupport

@testable import Video

/// The final flush of an encoder can be stopped between packets (a signal during an encoder's
/// lookahead), and nothing reaches the path until `commit()`.
@Suite struct FlushInterruptTests {
  struct Stop: Error {}

  @Test(arguments: ["a.mp4", "a.webm", "a.y4m"])
  func anInterruptDuringTheFlushLeavesNoFile(name: String) throws {
    let folder = TemporaryDirectory()
    let path = folder.path(name)
    try Data("old".utf8).write(to: URL(fileURLWithPath: path))
    let writer = try VideoWriter(try settings(path, frames: 8))
    for _ in 0..<8 { try writer.append(testImage()) }
    var calls = 0
    #expect(throws: Stop.self) {
      try writer.flush {
        calls += 1
        if calls == 2 || name.hasSuffix(".y4m") { throw Stop() }
      }
    }
    #expect(throws: VideoError.self) { try writer.commit() }
    #expect(files(in: folder.url.path) == [name])
    #expect(fileBytes(path) == Data("old".utf8))
  }

  @Test func aFlushedFileReachesItsPathOnlyAtCommit() throws {
    let folder = TemporaryDirectory()
    let path = folder.path("a.mp4")
    let writer = try VideoWriter(try settings(path, frames: 8))
    for _ in 0..<8 { try writer.append(testImage()) }
    var calls = 0
    try writer.flush { calls += 1 }
    // x264's lookahead holds all eight frames: every packet comes out in the flush, each one a
    // moment to stop at.
    #expect(calls > 8, "\(calls)")
    #expect(!FileManager.default.fileExists(atPath: path))
    let written = try writer.commit()
    #expect(written.frames == 8 && fileBytes(path)?.count == Int(written.bytes))
    #expect(files(in: folder.url.path) == ["a.mp4"])
  }
}
