import CLibAV
import Foundation
import Raster

/// An animated WebP read frame by frame, which libav 5.1 cannot do: its WebP decoder takes one
/// still picture (docs/ENCODING.md, Reading animated WebP).
///
/// The file's chunks are read with `pread` through the descriptor: `VP8X` (the canvas and its
/// alpha flag), then one `ANMF` a frame (where its rectangle sits, how long it shows, whether it
/// is blended over the canvas and whether its rectangle is cleared after it). Each frame's data
/// (`ALPH` and `VP8 `, or `VP8L`) is wrapped into a still WebP and decoded by libav's decoder;
/// the rectangles are composed onto a premultiplied canvas as the format says. libwebp's animation
/// encoder (as other tools use it) merges identical frames into one longer frame, so the frames
/// come back on the grid of the file's own rate (`fps`), a merged frame repeated.
///
/// Hostile input: at most `maximumFrames` frames, an hour in all, a canvas of at most
/// `InputContext.maximumPixels`, and a frame's data of at most 4 bytes a canvas pixel. A file
/// that breaks these or its own structure is bad input (`VideoError.invalidSettings`, exit 2).
final class AnimatedWebP {
  struct AnimationFrame {
    let offset: Int  // of the frame data, past ANMF's 16 bytes of header
    let size: Int
    let x: Int, y: Int, width: Int, height: Int
    let milliseconds: Int
    let blend: Bool
    let dispose: Bool
  }

  let width: Int, height: Int
  let alpha: Bool
  let frames: [AnimationFrame]
  /// The rate whose millisecond grid (frame i at round(i * 1000 / fps) ms) every frame starts on.
  let fps: Int
  /// Frames on that grid: a merged frame counts once a grid step.
  let gridFrames: Int
  /// The preset tag's chunk (ImageComments), as `StreamInfo.comment` holds it.
  private(set) var comment: String?
  private(set) var commentTooLong = false

  static let maximumFrames = 100_000
  static let maximumMilliseconds = 3_600_000

  /// The open file, held so its descriptor stays open while frames are read.
  private let file: InputFile
  private var descriptor: Int32 { file.descriptor }
  private let path: String
  private var canvas: Image
  private var next = 0  // the next entry of `frames` to compose
  private var nextStart = 0  // where `frames[next]` starts, in ms
  private var grid = 0  // the next grid frame handed out
  private var disposeRect: (x: Int, y: Int, width: Int, height: Int)?
  /// One packet and one frame for every still decoded.
  private let packet: Packet
  private let picture: Frame

  /// Nil when the file is not an animated WebP (a still, or not WebP at all).
  init?(file: InputFile, path: String) throws {
    (self.file, self.path) = (file, path)
    (packet, picture) = (try Packet(path: path), try Frame(path: path))
    let descriptor = file.descriptor
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return nil }
    let size = Int(info.st_size)
    func bytes(_ offset: Int, _ count: Int) -> [UInt8]? { FileBytes.read(descriptor, at: offset, count: count) }
    let le = FileBytes.littleEndian(_:at:count:)
    guard let head = bytes(0, 30), head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WEBP".utf8),
      head[12..<16].elementsEqual("VP8X".utf8), head[20] & 0x02 != 0
    else { return nil }
    (width, height) = (le(head, 24, 3) + 1, le(head, 27, 3) + 1)
    alpha = head[20] & 0x10 != 0
    guard width * height <= InputContext.maximumPixels else {
      throw VideoError.invalidSettings(
        "\(path): the animated WebP declares \(width)x\(height) pixels; expected at most \(InputContext.maximumPixels)")
    }
    let end = min(size, 8 + le(head, 4, 4))
    var frames: [AnimationFrame] = []
    var offset = 12
    var total = 0
    var chunks = 0
    while offset + 8 <= end {
      guard let header = bytes(offset, 8) else { break }
      chunks += 1
      guard chunks <= Self.maximumFrames + 64 else {
        throw VideoError.invalidSettings(
          "\(path): more than \(Self.maximumFrames + 64) chunks; expected a loop's frames")
      }
      let chunk = le(header, 4, 4)
      guard offset + 8 + chunk <= end else {
        throw VideoError.invalidSettings("\(path): a WebP chunk runs past the file's end")
      }
      if header[0..<4].elementsEqual("ANMF".utf8) {
        guard chunk >= 16 + 8, let a = bytes(offset + 8, 16) else {
          throw VideoError.invalidSettings("\(path): an ANMF chunk too short for a frame")
        }
        let frame = AnimationFrame(
          offset: offset + 8 + 16, size: chunk - 16, x: 2 * le(a, 0, 3), y: 2 * le(a, 3, 3), width: le(a, 6, 3) + 1,
          height: le(a, 9, 3) + 1, milliseconds: le(a, 12, 3), blend: a[15] & 0x02 == 0, dispose: a[15] & 0x01 != 0)
        guard frame.x + frame.width <= width, frame.y + frame.height <= height, frame.size <= 4 * width * height + 1024
        else {
          throw VideoError.invalidSettings("\(path): frame \(frames.count) lies outside the \(width)x\(height) canvas")
        }
        total += frame.milliseconds
        frames.append(frame)
        guard frames.count <= Self.maximumFrames, total <= Self.maximumMilliseconds else {
          throw VideoError.invalidSettings(
            "\(path): the animation is longer than \(Self.maximumFrames) frames or an hour; expected a loop")
        }
      }
      if header[0..<4].elementsEqual(ImageComments.webpChunkType.utf8) && comment == nil {
        // The preset tag (ImageComments): a longer one only its first 64 bytes, said to be too long.
        commentTooLong = chunk > StreamInfo.commentLimit
        comment =
          commentTooLong
          ? bytes(offset + 8, 64).map { String(decoding: $0, as: UTF8.self) }
          : bytes(offset + 8, chunk).flatMap { String(bytes: $0, encoding: .utf8) }
      }
      offset += 8 + chunk + (chunk & 1)
    }
    guard !frames.isEmpty, total > 0 else {
      throw VideoError.invalidSettings("\(path): an animated WebP without frames")
    }
    self.frames = frames
    var starts: [Int] = []
    var start = 0
    for f in frames {
      starts.append(start)
      start += f.milliseconds
    }
    fps = Self.rate(starts: starts, total: total)
    gridFrames = max(1, Self.frame(at: total, fps: fps))
    canvas = Image(width: width, height: height)
  }

  /// The smallest rate up to 240 f/s on whose millisecond grid every start and the end lie; else
  /// one frame a millisecond step of the shortest frame.
  static func rate(starts: [Int], total: Int) -> Int {
    for fps in 1...240 {
      let on = { (t: Int) in LoopTiming.millisecond(frame(at: t, fps: fps), fps: fps) == Int64(t) }
      if on(total) && starts.allSatisfy(on) { return fps }
    }
    let shortest = max(1, zip(starts.dropFirst(), starts).map { $0 - $1 }.filter { $0 > 0 }.min() ?? total)
    return max(1, 1000 / shortest)
  }

  /// The grid frame nearest `milliseconds`.
  static func frame(at milliseconds: Int, fps: Int) -> Int { (milliseconds * fps + 500) / 1000 }

  /// The next frame on the grid, or nil after the last.
  func nextFrame(decoder: CodecContext, decode: (UnsafeMutablePointer<AVFrame>) throws -> Image) throws -> Image? {
    guard grid < gridFrames else { return nil }
    let at = Int(LoopTiming.millisecond(grid, fps: fps))
    // Compose every frame that starts at or before this grid frame's moment.
    while next < frames.count && nextStart <= at {
      try compose(frames[next], decoder: decoder, decode: decode)
      nextStart += frames[next].milliseconds
      next += 1
    }
    grid += 1
    let copy = Image(width: width, height: height)
    copy.pixels.update(from: canvas.pixels, count: canvas.count)
    return copy
  }

  private func compose(
    _ f: AnimationFrame, decoder: CodecContext, decode: (UnsafeMutablePointer<AVFrame>) throws -> Image
  ) throws {
    if let r = disposeRect {
      for y in r.y..<(r.y + r.height) { canvas.row(y).advanced(by: r.x).update(repeating: .zero, count: r.width) }
      disposeRect = nil
    }
    let picture = try decodeStill(f, decoder: decoder, decode: decode)
    guard picture.width == f.width, picture.height == f.height else {
      throw VideoError.invalidSettings(
        "\(path): a frame decoded to \(picture.width)x\(picture.height), its ANMF says \(f.width)x\(f.height)")
    }
    for y in 0..<f.height {
      let source = picture.row(y)
      let target = canvas.row(f.y + y).advanced(by: f.x)
      for x in 0..<f.width {
        let s = source[x]
        target[x] = f.blend ? s + target[x] * (1 - s.w) : s
      }
    }
    if f.dispose { disposeRect = (f.x, f.y, f.width, f.height) }
  }

  /// The frame's data as a still WebP: `VP8L` alone, `VP8 ` alone, or `ALPH` and `VP8 ` under a
  /// `VP8X` that says alpha.
  private func decodeStill(
    _ f: AnimationFrame, decoder: CodecContext, decode: (UnsafeMutablePointer<AVFrame>) throws -> Image
  ) throws -> Image {
    guard let data = FileBytes.read(descriptor, at: f.offset, count: f.size) else {
      throw VideoError.io("\(path): cannot read frame data: \(String(cString: strerror(errno)))")
    }
    let le = FileBytes.littleEndian(_:count:)
    let hasAlpha = data.count >= 4 && data[0..<4].elementsEqual("ALPH".utf8)
    var body: [UInt8] = []
    if hasAlpha {
      body = Array("VP8X".utf8) + le(10, 4) + [0x10, 0, 0, 0] + le(f.width - 1, 3) + le(f.height - 1, 3)
    }
    body += data
    let still = Array("RIFF".utf8) + le(4 + body.count, 4) + Array("WEBP".utf8) + body
    try check(av_new_packet(packet.pointer, Int32(still.count)), "av_new_packet", path: path)
    defer { av_packet_unref(packet.pointer) }
    guard let target = packet.pointer.pointee.data else { throw VideoError.outOfMemory("av_new_packet", path: path) }
    target.update(from: still, count: still.count)
    try check(avcodec_send_packet(decoder.pointer, packet.pointer), "avcodec_send_packet (WebP frame)", path: path)
    try check(avcodec_receive_frame(decoder.pointer, picture.pointer), "avcodec_receive_frame (WebP frame)", path: path)
    defer { av_frame_unref(picture.pointer) }
    return try decode(picture.pointer)
  }
}
