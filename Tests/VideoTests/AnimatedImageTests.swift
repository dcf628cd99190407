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
    // acTL: number of frames, then the number of plays (0 = forever; docs/ENCODING.md, GIF, APNG and WebP).
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

@Suite struct GIFTests {
  @Test func gifLoopsForeverWithEvenDelaysAndOneBitAlpha() throws {
    let folder = TemporaryDirectory()
    let s = try settings(folder.path("a.gif"), fps: 25, frames: 6, keepAlpha: true)
    try write(s) { i in
      let image = testImage(frame: i)
      for y in 0..<8 { for x in 0..<8 { image[x, y] = .zero } }  // a clear corner
      return image
    }
    let data = try #require(fileBytes(folder.path("a.gif")))
    #expect(data.prefix(6) == Data("GIF89a".utf8))
    // NETSCAPE2.0: sub-block 03 01, then the loop count (0 = forever; docs/ENCODING.md, GIF, APNG and WebP).
    let netscape = try #require(data.range(of: Data("NETSCAPE2.0".utf8)))
    #expect(data[netscape.upperBound + 2] == 0 && data[netscape.upperBound + 3] == 0)
    // Graphic Control Extensions (21 F9 04): the delay in hundredths, 4 for 25 fps
    // (docs/ENCODING.md, GIF, APNG and WebP).
    var delays: [Int] = []
    var search = data.startIndex..<data.endIndex
    while let found = data.range(of: Data([0x21, 0xF9, 0x04]), in: search) {
      delays.append(Int(data[found.upperBound + 1]) | Int(data[found.upperBound + 2]) << 8)
      search = found.upperBound..<data.endIndex
    }
    #expect(delays == [4, 4, 4, 4, 4, 4])
    let (info, frames) = try decodeAll(folder.path("a.gif"))
    #expect(info.codecName == "gif" && frames.count == 6)
    for frame in frames {
      #expect(frame[0, 0].w == 0)
      #expect(frame[40, 40].w == 1)
    }
    let expected = testImage(frame: 0)[40, 40]
    for channel in 0..<3 { #expect(abs(frames[0][40, 40][channel] - expected[channel]) < 0.1) }
  }

  @Test func aGifIsTheSameTwice() throws {
    let folder = TemporaryDirectory()
    let s = try settings(folder.path("a.gif"), fps: 50, frames: 4)
    try write(s) { testImage(frame: $0) }
    let first = fileBytes(folder.path("a.gif"))
    try write(s) { testImage(frame: $0) }
    #expect(first != nil && first == fileBytes(folder.path("a.gif")))
  }
}
