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

  /// An animated WebP reads back as the frames written, though libav 5.1 decodes only still
  /// WebP (AnimatedWebP): a square moving over a gradient (libwebp_anim writes only the changed
  /// rectangle of most frames), two frames alike (merged into one longer frame, read back twice),
  /// with and without alpha, each frame within a few codes of the lossless APNG of the same frames.
  @Test(arguments: [false, true])
  func anAnimatedWebPReadsBackFrameByFrame(alpha: Bool) throws {
    let folder = TemporaryDirectory()
    let order = [0, 1, 1, 2, 3, 4]  // frames 1 and 2 are the same picture
    func picture(_ i: Int) -> Image {
      // A flat background: what a lossy codec and the reader's nearest chroma sample keep well.
      let image = Image(width: 64, height: 64)
      image.pixels.update(repeating: Pixel(0.2, 0.4, 0.6, 1) * (alpha ? 0.6 : 1), count: image.count)
      let k = order[i]
      for y in (8 + 4 * k)..<(24 + 4 * k) {
        for x in (10 + 6 * k)..<(26 + 6 * k) { image[x, y] = alpha && k % 2 == 1 ? .zero : Pixel(1, 1, 0.2, 1) }
      }
      return image
    }
    for name in ["a.webp", "a.apng"] {
      try write(try settings(folder.path(name), fps: 25, frames: order.count, keepAlpha: alpha)) { picture($0) }
    }
    let (info, frames) = try decodeAll(folder.path("a.webp"))
    let (_, reference) = try decodeAll(folder.path("a.apng"))
    #expect(info.frameCount == 6 && frames.count == 6 && reference.count == 6)
    #expect(info.frameRate == Rational(25, 1) && info.formatDuration == 0.24)
    #expect(info.width == 64 && info.height == 64)
    if alpha { #expect(info.carriesAlpha) }
    for (i, (frame, expected)) in zip(frames, reference).enumerated() {
      var worst: Float = 0
      var sum: Float = 0
      for p in 0..<frame.count {
        let (a, b): (Pixel, Pixel) = (frame.pixels[p], expected.pixels[p])
        let e = a - b
        let d = max(max(abs(e.x), abs(e.y)), max(abs(e.z), abs(e.w)))
        worst = max(worst, d)
        sum += d
      }
      // Lossy VP8 at quality 90, whose error grows a little over the frames (libwebp's own
      // decoder reads the same within half a code): under 2.5 codes on average, more at the
      // square's edges. A rectangle placed a step off would be about 25 codes on average.
      #expect(
        sum / Float(frame.count) < 2.5 / 255,
        "frame \(i): mean \(sum / Float(frame.count) * 255), worst \(worst * 255) codes")
      if !alpha { #expect((0..<frame.count).allSatisfy { frame.pixels[$0].w == 1 }, "frame \(i) is opaque") }
    }
    // The merged frame comes back twice: the same pixels.
    #expect(
      UnsafeBufferPointer(start: frames[1].pixels, count: frames[1].count)
        .elementsEqual(UnsafeBufferPointer(start: frames[2].pixels, count: frames[2].count)))
    let data = try #require(fileBytes(folder.path("a.webp")))
    var anmf = 0
    var search = data.startIndex..<data.endIndex
    while let found = data.range(of: Data("ANMF".utf8), in: search) {
      anmf += 1
      search = found.upperBound..<data.endIndex
    }
    #expect(anmf == 5, "libwebp_anim merges the two frames alike")
  }

  /// A hostile animated WebP: a frame outside the canvas, a chunk past the file's end, an
  /// animation of no frames: one clear error each, never a crash or a read past the file.
  @Test func aHostileAnimatedWebPIsRefusedWithOneLine() throws {
    let folder = TemporaryDirectory()
    try write(try settings(folder.path("a.webp"), fps: 25, frames: 3)) { testImage(frame: $0) }
    let good = try #require(fileBytes(folder.path("a.webp")))
    let anmf = try #require(good.range(of: Data("ANMF".utf8))).lowerBound
    func refused(_ edit: (inout Data) -> Void, _ words: String) throws {
      var bytes = good
      edit(&bytes)
      let path = folder.path("bad.webp")
      try bytes.write(to: URL(fileURLWithPath: path))
      #expect(throws: VideoError.self) {
        do { _ = try decodeAll(path) } catch let error as VideoError {
          #expect("\(error)".contains(words), "\(error)")
          throw error
        }
      }
    }
    try refused(
      {
        $0[anmf + 8] = 0xFF; $0[anmf + 9] = 0xFF
      }, "outside the 64x64 canvas")  // X offset
    try refused({ $0[anmf + 7] = 0x7F }, "runs past the file's end")  // ANMF's size
    try refused(
      { bytes in  // every ANMF renamed: chunks a reader skips
        while let found = bytes.range(of: Data("ANMF".utf8)) { bytes[found.lowerBound] = UInt8(ascii: "X") }
      }, "without frames")
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
