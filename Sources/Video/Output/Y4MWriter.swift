import Foundation

/// Writes YUV4MPEG2 by hand: a header line, then "FRAME" and the raw planes of each frame.
///
/// FFmpeg 5.1's yuv4mpegpipe muxer takes only wrapped AVFrames, so writing the few header bytes
/// ourselves is simpler than feeding it, and it lets `-` go straight to stdout.
final class Y4MWriter {
  private let descriptor: Int32
  private let path: String
  private(set) var framesWritten = 0

  init(settings: OutputSettings, descriptor: Int32) throws {
    self.descriptor = descriptor
    path = settings.path
    // C420jpeg: chroma sited in the centre of each 2x2 block, where FrameConverter puts it and
    // libav's demuxer reads it (AVCHROMA_LOC_CENTER; docs/ENCODING.md, Chroma siting). Y4M has no
    // siting for 10 bits.
    // libav reads at most 96 bytes of header line (newline included): a segment's at 1080x1920
    // was 100 and no libav program could open it. So no XYSCSS (mjpegtools' spelling of what C
    // says) and no A1:1 (square pixels are what a missing aspect means): 8192x4320 at 240 fps
    // with six-digit frame numbers is 92.
    let colour = settings.bitDepth == 10 ? "C420p10" : "C420jpeg"
    let header =
      "YUV4MPEG2 W\(settings.width) H\(settings.height) F\(settings.fps):1 Ip \(colour) XCOLORRANGE=LIMITED\(settings.segment.map { " " + $0.y4mParameter } ?? "")\n"
    guard header.utf8.count <= Self.maximumHeaderBytes else {
      throw VideoError.invalidSettings(
        "\(path): its Y4M header would be \(header.utf8.count) bytes, more than the \(Self.maximumHeaderBytes) libav reads"
      )
    }
    frameLine = Array(
      (settings.segment == nil ? "FRAME\n" : FrameSegment.y4mFrameLine(presetTag: settings.comment)).utf8)
    try write(Array(header.utf8))
  }

  /// The longest header line libav's demuxer reads (MAX_YUV4_HEADER), its newline included.
  static let maximumHeaderBytes = 96
  /// What starts every frame: a segment's carries its preset tag's hash.
  private var frameLine: [UInt8] = []

  func encode(_ frame: ConvertedFrame) throws {
    try write(frameLine)
    for plane in frame.planes {
      try write(UnsafeRawBufferPointer(start: plane.pointer, count: plane.bytesPerRow * plane.rows))
    }
    framesWritten += 1
  }

  private func write(_ bytes: [UInt8]) throws {
    try bytes.withUnsafeBytes { try write($0) }
  }

  private func write(_ bytes: UnsafeRawBufferPointer) throws {
    guard var next = bytes.baseAddress else { return }
    var left = bytes.count
    while left > 0 {
      let written = Foundation.write(descriptor, next, left)
      if written < 0 {
        if errno == EINTR { continue }
        throw VideoError.io("\(path): write failed: \(String(cString: strerror(errno)))")
      }
      left -= written
      next += written
    }
  }
}
