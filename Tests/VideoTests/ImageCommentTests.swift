import Foundation
import Raster
import Testing
import _TestSupport

@testable import Video

/// The comment (preset tag) that GIF, APNG and WebP files carry though libav 5.1's muxers write none.
@Suite struct ImageCommentTests {
  /// A comment long enough for several GIF sub-blocks, with markup, quotes and non-ASCII text.
  static let comment = "loopsmith-preset {\"name\": \"<b>\\\"née\\\"</b>\"}" + String(repeating: "x", count: 600)

  /// The same frames written with and without a comment decode alike; the comment reads back
  /// whole, through libav for GIF and through our own chunk readers for APNG and WebP.
  @Test(arguments: ["a.gif", "a.apng", "a.webp"])
  func theCommentReadsBackAndTheFramesStayTheSame(name: String) throws {
    let folder = TemporaryDirectory()
    var tagged = try settings(folder.path("tagged-" + name), fps: 10, frames: 4)
    tagged.comment = Self.comment
    try write(tagged) { testImage(frame: $0) }
    try write(try settings(folder.path("plain-" + name), fps: 10, frames: 4)) { testImage(frame: $0) }
    let (info, frames) = try decodeAll(folder.path("tagged-" + name))
    let (plainInfo, plainFrames) = try decodeAll(folder.path("plain-" + name))
    #expect(info.comment == Self.comment)
    #expect(!info.commentTooLong)
    #expect(plainInfo.comment == nil)
    #expect(frames.count == 4 && plainFrames.count == 4)
    for (a, b) in zip(frames, plainFrames) {
      #expect(
        UnsafeBufferPointer(start: a.pixels, count: a.count).elementsEqual(
          UnsafeBufferPointer(start: b.pixels, count: b.count)))
    }
    let bytes = try #require(fileBytes(folder.path("tagged-" + name)))
    let plain = try #require(fileBytes(folder.path("plain-" + name)))
    let block =
      name.hasSuffix(".gif")
      ? ImageComments.gifExtension(Self.comment)
      : name.hasSuffix(".apng") ? ImageComments.pngChunk(Self.comment) : ImageComments.webpChunk(Self.comment)
    #expect(bytes.count == plain.count + block.count)
  }

  /// 0x21 0xFE, sub-blocks of at most 255 bytes each led by its length, then a zero.
  @Test func aGIFCommentIsSubBlocksOfAtMost255Bytes() {
    let block = ImageComments.gifExtension(String(repeating: "a", count: 600))
    #expect(block.prefix(2) == [0x21, 0xFE])
    #expect(block[2] == 255 && block[2 + 256] == 255 && block[2 + 512] == 90)
    #expect(block.count == 2 + 3 + 600 + 1 && block.last == 0)
    #expect(ImageComments.gifExtension("") == [0x21, 0xFE, 0])
  }

  /// The chunk's CRC is the PNG one (CRC-32 over type and data), computed here bit by bit.
  @Test func aPNGChunkCarriesItsLengthAndCRC() {
    let chunk = ImageComments.pngChunk("hello")
    let length = chunk[0..<4].reduce(0) { $0 << 8 | Int($1) }
    #expect(length == chunk.count - 12)
    #expect(Array(chunk[4..<8]) == Array("iTXt".utf8))
    #expect(Array(chunk[8..<20]) == Array("Comment".utf8) + [0, 0, 0, 0, 0])
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in chunk[4..<(chunk.count - 4)] {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    let stored = chunk.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    #expect(stored == ~crc)
  }

  /// A file made to look like a PNG: its signature, IHDR, then `chunks`, then IDAT.
  func png(_ chunks: [[UInt8]], in folder: TemporaryDirectory) throws -> Int32 {
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
      let n = UInt32(data.count)
      return [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8)
        + data + [0, 0, 0, 0]
    }
    let bytes =
      [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", [UInt8](repeating: 1, count: 13))
      + chunks.joined() + chunk("IDAT", [1, 2, 3])
    let path = folder.path("x.png")
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return open(path, O_RDONLY)
  }

  /// Hostile text chunks: over the limit (the first 64 bytes and `tooLong`, nothing more read),
  /// compressed, not UTF-8, another keyword, after the image data, a length past the file: none
  /// is taken for a comment but the first.
  @Test func hostileTextChunksAreNotTakenForAComment() throws {
    let folder = TemporaryDirectory()
    let good = ImageComments.pngChunk("loopsmith-preset {}")
    func read(_ chunks: [[UInt8]], limit: Int = 1000) throws -> (String?, Bool) {
      let d = try png(chunks, in: folder)
      defer { close(d) }
      let r = ImageComments.pngComment(descriptor: d, limit: limit)
      return (r.text, r.tooLong)
    }
    #expect(try read([good]) == ("loopsmith-preset {}", false))
    let long = ImageComments.pngChunk("loopsmith-preset " + String(repeating: "y", count: 2000))
    let (prefix, tooLong) = try read([long])
    #expect(tooLong && prefix?.utf8.count == 64 && prefix?.hasPrefix("loopsmith-preset ") == true)
    var compressed = good
    compressed[16] = 1  // the compression flag after "Comment\0"
    #expect(try read([compressed]) == (nil, false))
    var latin = good
    latin[21] = 0xE9  // a lone Latin-1 byte is not UTF-8
    #expect(try read([latin]) == (nil, false))
    var other = good
    other[8] = UInt8(ascii: "c")  // "comment" is another keyword
    #expect(try read([other]) == (nil, false))
    var huge = good
    huge[0] = 0x7F  // a length far past the end of the file
    #expect(try read([huge]) == (nil, false))
    // After IDAT the image has begun: a comment there is not looked for.
    let d = try png([], in: folder)
    close(d)
    var bytes = try #require(fileBytes(folder.path("x.png")))
    bytes.append(contentsOf: good)
    try bytes.write(to: URL(fileURLWithPath: folder.path("x.png")))
    let after = open(folder.path("x.png"), O_RDONLY)
    defer { close(after) }
    #expect(ImageComments.pngComment(descriptor: after, limit: 1000).text == nil)
  }
}
