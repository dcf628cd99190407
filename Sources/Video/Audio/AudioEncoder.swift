import CLibAV
import Foundation

/// A sound file re-encoded beside the video: AAC in MP4/MOV, Opus in WebM, 48 kHz stereo, fitted
/// to exactly the video's length (`AudioFit`).
///
/// The whole track is decoded up front (a minute of stereo float is 23 MB) so the writer can hand
/// the muxer audio in step with the video, and the interleaving stays even.
final class AudioEncoder {
  static let sampleRate = 48000
  static let channelCount = 2
  let stream: UnsafeMutablePointer<AVStream>
  private let context: CodecContext
  private let frame: Frame
  private let packet: Packet
  /// Interleaved stereo: the loop's last `preRoll` sample frames, then the loop's `totalSamples`.
  private let samples: [Float]
  let totalSamples: Int
  /// Sample frames of the loop's end fed before its start, so that the encoder's priming and
  /// these together, which the container trims, end on a boundary the container can state
  /// exactly (docs/ENCODING.md, Exact durations): for AAC the stream then ends on a whole frame,
  /// for Opus the trim is a whole millisecond of WebM's block times. The codec starts from the
  /// sound that precedes frame 0 when the file loops.
  let preRoll: Int
  /// What the container trims from the start: the encoder's priming and `preRoll`.
  let trimmedStart: Int
  private var sent = 0  // sample frames fed, `preRoll` included
  private let frameSize: Int
  private let planar: Bool
  private let path: String
  /// Samples to add to each timestamp so the audio starts at 0 (see `drain`).
  private var shift: Int64 = 0

  init(track: AudioTrack, settings: OutputSettings, output: OutputContext, path: String) throws {
    self.path = path
    let rate = Self.sampleRate
    totalSamples = AudioFit.loopSamples(frameCount: settings.frameCount, fps: settings.fps, rate: rate)
    // The loop and what follows it, which a cut crossfades into the head.
    let all = try AudioDecoder(soundAt: track.path, rate: rate, channels: Self.channelCount).samples(
      upTo: (totalSamples + AudioFit.crossfadeSamples) * Self.channelCount)
    let loop = track.fit.fitted(all, channels: Self.channelCount, length: totalSamples)

    guard let name = settings.format.spec.audioEncoder else {
      throw VideoError.invalidSettings("audio cannot go into a .\(settings.format.rawValue) file")
    }
    guard let codec = avcodec_find_encoder_by_name(name) else {
      throw VideoError.libav(
        function: "avcodec_find_encoder_by_name", code: clibav_error(ENOSYS),
        message: "this FFmpeg has no \(name) encoder", path: path)
    }
    context = try CodecContext(codec: codec, path: path)
    let c = context.pointer
    var formats: [AVSampleFormat] = []
    if var next = codec.pointee.sample_fmts {
      while next.pointee != AV_SAMPLE_FMT_NONE {
        formats.append(next.pointee)
        next += 1
      }
    }
    planar = formats.contains(AV_SAMPLE_FMT_FLTP)
    guard planar || formats.contains(AV_SAMPLE_FMT_FLT) else {
      throw VideoError.libav(
        function: "avcodec_open2", code: clibav_error(EINVAL), message: "\(name) takes no float samples", path: path)
    }
    c.pointee.sample_fmt = planar ? AV_SAMPLE_FMT_FLTP : AV_SAMPLE_FMT_FLT
    c.pointee.sample_rate = Int32(rate)
    av_channel_layout_default(&c.pointee.ch_layout, Int32(Self.channelCount))
    c.pointee.bit_rate = name == "aac" ? 160_000 : 128_000
    c.pointee.time_base = AVRational(num: 1, den: Int32(rate))
    c.pointee.thread_count = 1
    c.pointee.flags |= Int32(AV_CODEC_FLAG_BITEXACT)
    if Int32(output.pointer.pointee.oformat.pointee.flags) & AVFMT_GLOBALHEADER != 0 {
      c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)
    }
    try check(avcodec_open2(c, codec, nil), "avcodec_open2 (\(name))", path: path)
    frameSize = c.pointee.frame_size > 0 ? Int(c.pointee.frame_size) : 960
    let priming = max(0, Int(c.pointee.initial_padding))
    let (total, channels) = (totalSamples, Self.channelCount)
    let preRoll = Self.preRoll(priming: priming, loop: total, frameSize: frameSize, webm: settings.format == .webm)
    self.preRoll = preRoll
    trimmedStart = priming + preRoll
    samples =
      (0..<(preRoll * channels)).map { i in
        let frame = ((total - preRoll + i / channels) % total + total) % total
        return loop[frame * channels + i % channels]
      } + loop
    // Packets start at -(priming + preRoll). MP4 takes that in the audio track's edit (media time
    // priming + preRoll, the loop's length), which the muxer writes from the first packet's time.
    // WebM allows no negative times, so the muxer would move every stream, and the video would
    // start late: blocks are stamped from 0, and a player subtracts the CodecDelay written below
    // (the trimmed start) from every block's time and drops that many samples, so the sound starts
    // at 0 with the video. The Duration the muxer then writes includes the CodecDelay, and
    // LoopTiming sets it to the loop's length.
    if settings.format == .webm { shift = Int64(trimmedStart) }
    guard let stream = avformat_new_stream(output.pointer, nil) else {
      throw VideoError.outOfMemory("avformat_new_stream", path: path)
    }
    self.stream = stream
    try check(
      avcodec_parameters_from_context(stream.pointee.codecpar, c), "avcodec_parameters_from_context", path: path)
    stream.pointee.time_base = c.pointee.time_base
    if settings.format == .webm && preRoll > 0 {
      try Self.setOpusPreSkip(stream.pointee.codecpar, trimmedStart, path: path)
    }

    frame = try Frame(path: path)
    frame.pointer.pointee.nb_samples = Int32(frameSize)
    frame.pointer.pointee.format = c.pointee.sample_fmt.rawValue
    frame.pointer.pointee.sample_rate = Int32(rate)
    try check(
      av_channel_layout_copy(&frame.pointer.pointee.ch_layout, &c.pointee.ch_layout), "av_channel_layout_copy",
      path: path)
    try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer", path: path)
    packet = try Packet(path: path)
  }

  /// The loop's end fed before its start (`preRoll`), in sample frames: for AAC in MP4 (`webm`
  /// false) what makes priming, pre-roll and loop whole frames, so the last frame holds no padding
  /// past the loop for a decoder to play (libav 5.1 decodes the last AAC frame whole, edit or not);
  /// for Opus in WebM, whose block times are milliseconds, what makes priming and pre-roll a whole
  /// millisecond (48 samples at 48 kHz), so the CodecDelay a player subtracts from the times and
  /// the samples the decoder drops are the same (312 samples, 6.5 ms, were taken as 7 ms).
  static func preRoll(priming: Int, loop: Int, frameSize: Int, webm: Bool) -> Int {
    let unit = webm ? sampleRate / 1000 : frameSize
    guard unit > 0 else { return 0 }
    let remainder = (priming + (webm ? 0 : loop)) % unit
    return remainder == 0 ? 0 : unit - remainder
  }

  /// Writes `samples` as the Opus track's pre-skip: the OpusHead's (bytes 10-11 of the extradata,
  /// RFC 7845) and `initial_padding`, which the Matroska muxer writes as the CodecDelay.
  static func setOpusPreSkip(
    _ parameters: UnsafeMutablePointer<AVCodecParameters>, _ samples: Int, path: String
  )
    throws
  {
    guard let extradata = parameters.pointee.extradata, parameters.pointee.extradata_size >= 19,
      (0..<8).map({ extradata[$0] }) == Array("OpusHead".utf8), samples <= Int(UInt16.max)
    else {
      throw VideoError.libav(
        function: "avcodec_open2", code: clibav_error(EINVAL), message: "libopus wrote no OpusHead", path: path)
    }
    extradata[10] = UInt8(samples & 0xFF)
    extradata[11] = UInt8(samples >> 8)
    parameters.pointee.initial_padding = Int32(samples)
  }

  /// Encodes whole frames of samples up to the loop's `sampleCount` (all that is left when
  /// `final`), then flushes when `final`, passing each packet to `write`.
  func encode(upTo sampleCount: Int, final: Bool, write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
    let fed = preRoll + totalSamples
    let limit = min(preRoll + sampleCount, fed)
    while sent < fed && (sent + frameSize <= limit || (final && sent < fed)) {
      let count = min(frameSize, fed - sent)
      let f = frame.pointer
      try check(av_frame_make_writable(f), "av_frame_make_writable", path: path)
      f.pointee.nb_samples = Int32(count)
      f.pointee.pts = Int64(sent - preRoll)
      samples.withUnsafeBufferPointer { source in
        if planar {
          for channel in 0..<Self.channelCount {
            guard let data = f.pointee.extended_data[channel] else { continue }
            let destination = UnsafeMutableRawPointer(data).assumingMemoryBound(to: Float.self)
            for i in 0..<count { destination[i] = source[(sent + i) * Self.channelCount + channel] }
          }
        } else if let data = f.pointee.extended_data[0] {
          let destination = UnsafeMutableRawPointer(data).assumingMemoryBound(to: Float.self)
          for i in 0..<(count * Self.channelCount) { destination[i] = source[sent * Self.channelCount + i] }
        }
      }
      try check(avcodec_send_frame(context.pointer, f), "avcodec_send_frame (audio)", path: path)
      sent += count
      try drain(write)
    }
    if final {
      try check(avcodec_send_frame(context.pointer, nil), "avcodec_send_frame(NULL) (audio)", path: path)
      try drain(write)
    }
  }

  private func drain(_ write: (UnsafeMutablePointer<AVPacket>) throws -> Void) throws {
    while true {
      let code = avcodec_receive_packet(context.pointer, packet.pointer)
      if code == errorAgain || code == errorEOF { return }
      try check(code, "avcodec_receive_packet (audio)", path: path)
      if packet.pointer.pointee.pts != clibav_nopts { packet.pointer.pointee.pts += shift }
      if packet.pointer.pointee.dts != clibav_nopts { packet.pointer.pointee.dts += shift }
      av_packet_rescale_ts(packet.pointer, context.pointer.pointee.time_base, stream.pointee.time_base)
      packet.pointer.pointee.stream_index = stream.pointee.index
      try write(packet.pointer)
    }
  }
}
