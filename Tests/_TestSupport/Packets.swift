import CLibAV
import Foundation

/// One packet of a file's video stream as the demuxer reads it.
public struct PacketRecord: Equatable {
  public var key: Bool
  /// Presentation time and duration in whole frames of the rate asked for.
  public var pts: Int64
  public var duration: Int64
  public var bytes: [UInt8]

  public init(key: Bool, pts: Int64, duration: Int64, bytes: [UInt8]) {
    (self.key, self.pts, self.duration, self.bytes) = (key, pts, duration, bytes)
  }
}

/// Why `videoPackets` could not read a file.
public struct PacketReadError: Error, CustomStringConvertible {
  public var description: String
}

/// Every packet of the first stream of the file at `path` (its video), in decoding order, timed
/// in whole frames of `fps`.
public func videoPackets(_ path: String, fps: Int32) throws -> [PacketRecord] {
  var context: UnsafeMutablePointer<AVFormatContext>? = nil
  guard avformat_open_input(&context, path, nil, nil) == 0, let c = context else {
    throw PacketReadError(description: "\(path): cannot open")
  }
  defer { avformat_close_input(&context) }
  guard avformat_find_stream_info(c, nil) >= 0, let stream = c.pointee.streams[0] else {
    throw PacketReadError(description: "\(path): no stream")
  }
  let base = stream.pointee.time_base
  let frame = AVRational(num: 1, den: fps)
  var packet = av_packet_alloc()
  defer { av_packet_free(&packet) }
  guard let p = packet else { throw PacketReadError(description: "av_packet_alloc") }
  var records: [PacketRecord] = []
  while av_read_frame(c, p) >= 0 {
    defer { av_packet_unref(p) }
    guard p.pointee.stream_index == 0 else { continue }
    records.append(
      PacketRecord(
        key: p.pointee.flags & AV_PKT_FLAG_KEY != 0, pts: av_rescale_q(p.pointee.pts, base, frame),
        duration: av_rescale_q(p.pointee.duration, base, frame),
        bytes: Array(UnsafeBufferPointer(start: p.pointee.data, count: Int(p.pointee.size)))))
  }
  return records
}
