import CLibAV
import Foundation

/// The first and last samples of a file's first audio stream, per channel, decoded: what `check`
/// needs to hear the audio seam (the last sample into the first) without holding the whole track.
public struct AudioEnds: Sendable {
  public var sampleRate: Int
  /// `head[c]` is channel c's first samples, `tail[c]` its last, each at most `keep` long, as
  /// floats in -1...1.
  public var head: [[Float]]
  public var tail: [[Float]]
  /// Every sample decoded, per channel.
  public var sampleCount: Int

  /// Decodes the audio of `path`, or returns nil when it has none. `keep` samples per channel
  /// are kept at each end.
  public static func read(path: String, keep: Int = 4096) throws -> AudioEnds? {
    let file = try InputFile(path: path, limit: InputFile.Limit.video, what: "video file")
    silenceLibAVLog()
    let input = try InputContext(file: file)
    try input.findStreamInfo(path: path)
    let index = av_find_best_stream(input.pointer, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
    if index < 0 { return nil }
    guard let stream = input.pointer.pointee.streams[Int(index)], let parameters = stream.pointee.codecpar else {
      return nil
    }
    guard let decoder = avcodec_find_decoder(parameters.pointee.codec_id) else {
      throw VideoError.libav(
        function: "avcodec_find_decoder", code: clibav_error(ENOSYS), message: "no audio decoder", path: path)
    }
    let context = try CodecContext(codec: decoder, path: path)
    try check(avcodec_parameters_to_context(context.pointer, parameters), "avcodec_parameters_to_context", path: path)
    context.pointer.pointee.thread_count = 1
    try check(avcodec_open2(context.pointer, decoder, nil), "avcodec_open2", path: path)
    let frame = try Frame(path: path)
    let packet = try Packet(path: path)
    let channels = Int(parameters.pointee.ch_layout.nb_channels)
    guard channels > 0 else { return nil }
    var ends = AudioEnds(
      sampleRate: Int(parameters.pointee.sample_rate), head: Array(repeating: [], count: channels),
      tail: Array(repeating: [], count: channels), sampleCount: 0)

    func drain() throws {
      while true {
        let code = avcodec_receive_frame(context.pointer, frame.pointer)
        if code == errorAgain || code == errorEOF { return }
        try check(code, "avcodec_receive_frame", path: path)
        defer { av_frame_unref(frame.pointer) }
        try ends.append(frame.pointer, channels: channels, keep: keep, path: path)
      }
    }
    while true {
      let code = av_read_frame(input.pointer, packet.pointer)
      if code == errorEOF { break }
      try check(code, "av_read_frame", path: path)
      defer { av_packet_unref(packet.pointer) }
      guard packet.pointer.pointee.stream_index == index else { continue }
      try check(avcodec_send_packet(context.pointer, packet.pointer), "avcodec_send_packet", path: path)
      try drain()
    }
    try check(avcodec_send_packet(context.pointer, nil), "avcodec_send_packet(NULL)", path: path)
    try drain()
    return ends
  }

  private mutating func append(
    _ f: UnsafeMutablePointer<AVFrame>, channels: Int, keep: Int, path: String
  ) throws {
    let count = Int(f.pointee.nb_samples)
    let format = AVSampleFormat(rawValue: f.pointee.format)
    let planar = av_sample_fmt_is_planar(format) != 0
    let packed = av_get_packed_sample_fmt(format)
    guard count > 0, Int(f.pointee.ch_layout.nb_channels) == channels else { return }
    for c in 0..<channels {
      guard let base = planar ? f.pointee.extended_data[c] : f.pointee.extended_data[0] else { continue }
      var samples = [Float](repeating: 0, count: count)
      for i in 0..<count {
        let at = planar ? i : i * channels + c
        let raw = UnsafeRawPointer(base)
        switch packed {
        case AV_SAMPLE_FMT_FLT: samples[i] = raw.loadUnaligned(fromByteOffset: at * 4, as: Float.self)
        case AV_SAMPLE_FMT_DBL: samples[i] = Float(raw.loadUnaligned(fromByteOffset: at * 8, as: Double.self))
        case AV_SAMPLE_FMT_S16: samples[i] = Float(raw.loadUnaligned(fromByteOffset: at * 2, as: Int16.self)) / 32768
        case AV_SAMPLE_FMT_S32:
          samples[i] = Float(Double(raw.loadUnaligned(fromByteOffset: at * 4, as: Int32.self)) / 2_147_483_648)
        case AV_SAMPLE_FMT_U8: samples[i] = (Float(raw.load(fromByteOffset: at, as: UInt8.self)) - 128) / 128
        default:
          throw VideoError.io("\(path): the audio's sample format cannot be read; expected 8, 16, 32-bit or float")
        }
      }
      if head[c].count < keep { head[c] += samples.prefix(keep - head[c].count) }
      tail[c] += samples
      if tail[c].count > keep { tail[c].removeFirst(tail[c].count - keep) }
    }
    sampleCount += count
  }
}
