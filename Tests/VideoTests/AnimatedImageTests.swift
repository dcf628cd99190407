import CLibAV
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

  /// An animated WebP made by libwebp's own animation encoder reads back as the frames given it,
  /// though libav 5.1 decodes only still WebP (AnimatedWebP): a square moving over a gradient
  /// (libwebp_anim writes only the changed rectangle of most frames), two frames alike (merged
  /// into one longer frame, read back twice), with and without alpha, each frame within a few
  /// codes of the lossless APNG of the same frames.
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
    try write(try settings(folder.path("a.apng"), fps: 25, frames: order.count, keepAlpha: alpha)) { picture($0) }
    try writeWithLibwebpAnim(folder.path("a.webp"), fps: 25, frames: order.indices.map(picture))
    let (info, frames) = try decodeAll(folder.path("a.webp"))
    let (_, reference) = try decodeAll(folder.path("a.apng"))
    #expect(info.frameCount == 6 && frames.count == 6 && reference.count == 6)
    #expect(info.frameRate == Rational(25, 1) && info.formatDuration == 0.24)
    #expect(info.width == 64 && info.height == 64)
    if alpha { #expect(info.carriesAlpha) }
    for (i, (frame, expected)) in zip(frames, reference).enumerated() {
      let (mean, worst) = difference(frame, expected)
      // Lossy VP8 at quality 90, whose error grows a little over the frames (libwebp's own
      // decoder reads the same within half a code): under 2.5 codes on average, more at the
      // square's edges. A rectangle placed a step off would be about 25 codes on average.
      #expect(mean < 2.5 / 255, "frame \(i): mean \(mean * 255), worst \(worst * 255) codes")
      if !alpha { #expect((0..<frame.count).allSatisfy { frame.pixels[$0].w == 1 }, "frame \(i) is opaque") }
    }
    // The merged frame comes back twice: the same pixels.
    #expect(
      UnsafeBufferPointer(start: frames[1].pixels, count: frames[1].count)
        .elementsEqual(UnsafeBufferPointer(start: frames[2].pixels, count: frames[2].count)))
    let chunks = try webpChunks(folder.path("a.webp"))
    #expect(chunks.filter { $0.type == "ANMF" }.count == 5, "libwebp_anim merges the two frames alike")
    #expect(chunks.contains { $0.type == "ANMF" && $0.width < 64 }, "libwebp_anim writes changed rectangles")
  }

  /// Our WebP is whole frames, each replacing the canvas: a transparent square moving over a
  /// half-transparent field never shows the frame before through it, and a fade of 1.2 codes a
  /// frame comes back a step each frame instead of held and released in jumps (libwebp_anim
  /// holds changes within its quality's tolerance: docs/ENCODING.md, WebP frames).
  @Test(arguments: [false, true])
  func ourWebPIsWholeFramesThatKeepSlowMotion(alpha: Bool) throws {
    let folder = TemporaryDirectory()
    let count = 12
    func picture(_ i: Int) -> Image {
      let image = Image(width: 64, height: 64)
      let level = 0.3 + Float(i) * 1.2 / 255
      image.pixels.update(repeating: Pixel(level, level * 0.8, 0.5, 1) * (alpha ? 0.6 : 1), count: image.count)
      for y in 20..<36 {
        for x in (4 + 4 * i)..<(20 + 4 * i) { image[x, y] = alpha ? .zero : Pixel(1, 1, 0.2, 1) }
      }
      return image
    }
    let s = try settings(folder.path("a.webp"), fps: 25, frames: count, keepAlpha: alpha)
    try write(s) { picture($0) }
    let chunks = try webpChunks(folder.path("a.webp"))
    let vp8x = try #require(chunks.first { $0.type == "VP8X" })
    #expect((vp8x.flags & 0x10 != 0) == alpha, "the canvas's alpha flag")
    let anmf = chunks.filter { $0.type == "ANMF" }
    #expect(anmf.count == count)
    #expect(anmf.allSatisfy { $0.width == 64 && $0.height == 64 && $0.flags == 0x02 }, "\(anmf)")
    let (info, frames) = try decodeAll(folder.path("a.webp"))
    #expect(frames.count == count && info.formatDuration == 0.48)
    var levels: [Float] = []
    for (i, frame) in frames.enumerated() {
      let expected = picture(i)
      let (mean, worst) = difference(frame, expected)
      #expect(mean < 2.5 / 255, "frame \(i): mean \(mean * 255), worst \(worst * 255) codes")
      // Where the square was a frame before: the field, not the square seen through it.
      let behind = frame[4 + 4 * i - 2, 28]
      #expect(abs(behind.x - expected[4 + 4 * i - 2, 28].x) < 4 / 255, "frame \(i): \(behind)")
      levels.append(frame[50, 50].x)
    }
    // libwebp's YUV has 219 luma codes for 255: the field steps 1.16 codes, now and then 0 or 2.8
    // as its levels round; held, it would stand still for frames and then jump 3 codes or more.
    let steps = zip(levels.dropFirst(), levels).map { ($0 - $1) * 255 }
    let stills = zip(steps.dropFirst(), steps).filter { $0 < 0.2 && $1 < 0.2 }.count
    #expect(steps.allSatisfy { $0 > -0.2 && $0 < 3 } && stills == 0, "the fade's steps in codes: \(steps)")
  }

  /// WebP's stills are encoded side by side, one encoder an encoder thread (StillEncoders): the
  /// file is the same bytes for 1, 3 and 8 encoders, its frames in order, and a writer abandoned
  /// with encodes in flight leaves nothing behind.
  @Test func webpStillsEncodedSideBySideGiveTheSameBytes() throws {
    let folder = TemporaryDirectory()
    var written: [Data] = []
    for threads in [1, 3, 8] {
      var s = try settings(folder.path("\(threads).webp"), fps: 25, frames: 9)
      s.threads = threads
      #expect(s.stillEncoders == threads)
      try write(s) { testImage(frame: $0) }
      written.append(try #require(fileBytes(s.path)))
    }
    #expect(written[1] == written[0] && written[2] == written[0])
    let (_, frames) = try decodeAll(folder.path("3.webp"))
    // Each frame is nearest its own picture (the sawtooth moves 3 pixels a frame; its hard edge
    // costs lossy VP8 3-8 codes on average), not its neighbours'.
    #expect(frames.count == 9)
    for (i, frame) in frames.enumerated() {
      let errors = [i - 1, i, i + 1].map { difference(frame, testImage(frame: $0)).mean * 255 }
      #expect(errors[1] < 8 && errors[1] < errors[0] && errors[1] < errors[2], "frame \(i): \(errors)")
    }
    do {
      var s = try settings(folder.path("abandoned.webp"), fps: 25, frames: 9)
      s.threads = 4
      let writer = try VideoWriter(s)
      for i in 0..<6 { try writer.append(testImage(frame: i)) }
    }
    #expect(files(in: folder.url.path).sorted() == ["1.webp", "3.webp", "8.webp"])
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

/// The mean and largest channel difference of two images of one size.
private func difference(_ a: Image, _ b: Image) -> (mean: Float, worst: Float) {
  var worst: Float = 0
  var sum: Float = 0
  for p in 0..<a.count {
    let e = a.pixels[p] - b.pixels[p]
    let d = max(max(abs(e.x), abs(e.y)), max(abs(e.z), abs(e.w)))
    worst = max(worst, d)
    sum += d
  }
  return (sum / Float(a.count), worst)
}

/// A WebP chunk's type, and for VP8X its flags, for ANMF its rectangle's size and its flags.
private struct WebPChunk {
  var type: String
  var width = 0
  var height = 0
  var flags: UInt8 = 0
}

/// The top-level chunks of the WebP file at `path`.
private func webpChunks(_ path: String) throws -> [WebPChunk] {
  let data = [UInt8](try #require(fileBytes(path)))
  func number(_ at: Int, _ count: Int) -> Int { (0..<count).reduce(0) { $0 | Int(data[at + $1]) << (8 * $1) } }
  var chunks: [WebPChunk] = []
  var position = 12
  while position + 8 <= data.count {
    let length = number(position + 4, 4)
    let body = position + 8
    var chunk = WebPChunk(type: String(decoding: data[position..<(position + 4)], as: UTF8.self))
    if chunk.type == "VP8X" { chunk.flags = data[body] }
    if chunk.type == "ANMF" {
      (chunk.width, chunk.height, chunk.flags) = (number(body + 6, 3) + 1, number(body + 9, 3) + 1, data[body + 15])
    }
    chunks.append(chunk)
    position = body + length + (length & 1)
  }
  return chunks
}

/// Writes `frames` as an animated WebP through libwebp's own animation encoder (libav's
/// libwebp_anim at quality 90), which hands back the whole file as one packet: the kind of file
/// other tools make, with changed rectangles and merged frames.
private func writeWithLibwebpAnim(_ path: String, fps: Int32, frames: [Image]) throws {
  let (width, height) = (frames[0].width, frames[0].height)
  let codec = try #require(avcodec_find_encoder_by_name("libwebp_anim"))
  var context = avcodec_alloc_context3(codec)
  defer { avcodec_free_context(&context) }
  let c = try #require(context)
  (c.pointee.width, c.pointee.height, c.pointee.pix_fmt) = (Int32(width), Int32(height), AV_PIX_FMT_BGRA)
  c.pointee.time_base = AVRational(num: 1, den: fps)
  c.pointee.global_quality = 90 * Int32(FF_QP2LAMBDA)
  #expect(av_opt_set(c.pointee.priv_data, "quality", "90", 0) == 0)
  #expect(avcodec_open2(c, codec, nil) == 0)
  var frame = av_frame_alloc()
  var packet = av_packet_alloc()
  defer {
    av_frame_free(&frame)
    av_packet_free(&packet)
  }
  let f = try #require(frame)
  let p = try #require(packet)
  (f.pointee.width, f.pointee.height, f.pointee.format) = (Int32(width), Int32(height), AV_PIX_FMT_BGRA.rawValue)
  #expect(av_frame_get_buffer(f, 0) == 0)
  var file: [UInt8] = []
  func receive() {
    while avcodec_receive_packet(c, p) == 0 {
      file += UnsafeBufferPointer(start: p.pointee.data, count: Int(p.pointee.size))
      av_packet_unref(p)
    }
  }
  for (i, image) in frames.enumerated() {
    #expect(av_frame_make_writable(f) == 0)
    for y in 0..<height {
      let row = f.pointee.data.0! + y * Int(f.pointee.linesize.0)
      for x in 0..<width {
        let q = image[x, y]
        let straight = q.w > 0 ? Pixel(q.x / q.w, q.y / q.w, q.z / q.w, q.w) : .zero
        for (k, v) in [straight.z, straight.y, straight.x, straight.w].enumerated() {
          row[4 * x + k] = UInt8((max(0, min(1, v)) * 255).rounded())
        }
      }
    }
    f.pointee.pts = Int64(i)
    #expect(avcodec_send_frame(c, f) == 0)
    receive()
  }
  #expect(avcodec_send_frame(c, nil) == 0)
  receive()
  try Data(file).write(to: URL(fileURLWithPath: path))
}
