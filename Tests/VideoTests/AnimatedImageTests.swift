import Foundation
import Raster
import Testing
import _TestSupport

@testable import Video

@Suite struct AnimatedImageTests {
  @Test func apngLoopsForeverAndKeepsAlpha() throws {
    let folder = TemporaryDirectory()
    let s = try settings(folder.path("a.apng"), fps: 25, frames: 6, keepAlpha: true)
    try write(s) { testImage(frame: $0, alpha: 0.5) }
    let data = try #require(fileBytes(folder.path("a.apng")))
    // acTL: number of frames, then the number of plays (0 = forever; ENCODING G3).
    let acTL = try #require(data.range(of: Data("acTL".utf8)))
    let fields = data[acTL.upperBound..<(acTL.upperBound + 8)].map { Int($0) }
    #expect(fields[0...3] == [0, 0, 0, 6])
    #expect(fields[4...7] == [0, 0, 0, 0])
    let (info, frames) = try decodeAll(folder.path("a.apng"))
    #expect(frames.count == 6)
    #expect(info.codecName == "apng")
    #expect(abs(frames[0][10, 10].w - 0.5) < 0.01)
  }

  @Test func webpLoopsForever() throws {
    let folder = TemporaryDirectory()
    try write(try settings(folder.path("a.webp"), fps: 25, frames: 6)) { testImage(frame: $0) }
    let data = try #require(fileBytes(folder.path("a.webp")))
    #expect(data.prefix(4) == Data("RIFF".utf8))
    // ANIM: background colour (4 bytes), then the loop count (2 bytes, 0 = forever).
    let anim = try #require(data.range(of: Data("ANIM".utf8)))
    let loop = data[anim.upperBound + 8] | data[anim.upperBound + 9]
    #expect(loop == 0)
    var frames = 0
    var search = data.startIndex..<data.endIndex
    while let found = data.range(of: Data("ANMF".utf8), in: search) {
      frames += 1
      let d = found.upperBound + 4 + 12  // past the size, X, Y, width and height
      let duration = Int(data[d]) | Int(data[d + 1]) << 8 | Int(data[d + 2]) << 16
      #expect(duration == 40, "frame \(frames) lasts \(duration) ms")
      search = found.upperBound..<data.endIndex
    }
    #expect(frames == 6)
  }

  @Test func movProResKeepsSoftAlpha() throws {
    let folder = TemporaryDirectory()
    let s = try settings(folder.path("a.mov"), frames: 4, bitDepth: 10, keepAlpha: true)
    try write(s) { testImage(frame: $0, alpha: 0.5) }
    let (info, frames) = try decodeAll(folder.path("a.mov"))
    #expect(info.codecName == "prores" && info.codecTag == "ap4h")
    #expect(frames.count == 4 && info.frameCount == 4)
    #expect(abs((info.formatDuration ?? 0) - 0.16) < 1e-6)
    #expect(info.moovBeforeMdat == true)
    #expect(abs(frames[0][10, 10].w - 0.5) < 0.01)
    #expect([info.colorPrimaries, info.colorMatrix] == ["bt709", "bt709"])
  }
}
