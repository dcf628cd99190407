import Foundation

/// The animated WebP that libav's WebP muxer makes from whole still frames, finished as a loop
/// needs it (docs/ENCODING.md, WebP frames).
///
/// The muxer puts each still (its `ALPH` and `VP8 ` chunks) in an `ANMF` chunk that covers the
/// canvas, flagged to be alpha-blended over the frame before; and it flags the canvas as having
/// alpha whatever the frames hold. A frame of a transparent loop blended over the last would
/// show the last through its transparent pixels, so every frame is set to replace the canvas
/// ("do not blend", which also spares an opaque loop's player the blend), and the alpha flag says
/// what the frames hold.
enum WebPFrames {
  /// Rewrites the finished file open at `descriptor` in place: each `ANMF`'s flags byte, and
  /// `VP8X`'s alpha flag. A file of one frame is a still and is left as it is.
  static func replaceWholeFrames(descriptor: Int32, frameCount: Int, alpha: Bool) throws {
    guard frameCount > 1 else { return }
    let size = Int(lseek(descriptor, 0, SEEK_END))
    guard let head = FileBytes.read(descriptor, at: 0, count: 30), head[0..<4].elementsEqual("RIFF".utf8),
      head[8..<12].elementsEqual("WEBP".utf8), head[12..<16].elementsEqual("VP8X".utf8)
    else { throw VideoError.io("the finished WebP does not start with RIFF, WEBP and VP8X") }
    // The muxer writes the RIFF size in 32 bits whatever the file's length.
    guard FileBytes.littleEndian(head, at: 4, count: 4) + 8 == size else {
      throw VideoError.io("the finished WebP's RIFF size is not its own (RIFF holds at most 4 GiB)")
    }
    let alphaFlag: UInt8 = 0x10
    let flags = alpha ? head[20] | alphaFlag : head[20] & ~alphaFlag
    guard FileBytes.write([flags], descriptor, at: 20) else { throw writeError() }
    var frames = 0
    var position = 12
    while position + 8 <= size {
      guard let header = FileBytes.read(descriptor, at: position, count: 8) else { throw writeError() }
      let length = FileBytes.littleEndian(header, at: 4, count: 4)
      let body = position + 8
      guard body + length <= size else { throw VideoError.io("the finished WebP's chunks run past its end") }
      if header[0..<4].elementsEqual("ANMF".utf8) {
        // X, Y, width - 1, height - 1 and the duration (3 bytes each), then the flags:
        // bit 1 set is "do not blend", bit 0 clear is "do not dispose".
        guard length >= 16 else { throw VideoError.io("the finished WebP has an ANMF chunk of \(length) bytes") }
        guard FileBytes.write([0x02], descriptor, at: body + 15) else { throw writeError() }
        frames += 1
      }
      position = body + length + (length & 1)
    }
    guard frames == frameCount else {
      throw VideoError.io("the finished WebP holds \(frames) frames, not \(frameCount)")
    }
  }

  private static func writeError() -> VideoError {
    VideoError.io("cannot finish the WebP's frames: \(String(cString: strerror(errno)))")
  }
}
