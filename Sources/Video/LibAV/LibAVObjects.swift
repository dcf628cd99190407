import CLibAV

// One final class per owned libav pointer, freed in deinit. These objects are not
// Sendable: they live and die on the thread that encodes or decodes.

/// A picture on its way to or from a codec.
final class Frame {
  let pointer: UnsafeMutablePointer<AVFrame>

  /// An empty frame, for a decoder to fill.
  init(path: String) throws {
    guard let frame = av_frame_alloc() else {
      throw VideoError.outOfMemory("av_frame_alloc", path: path)
    }
    pointer = frame
  }

  /// A frame with its own buffers, for an encoder.
  convenience init(width: Int, height: Int, format: AVPixelFormat, path: String) throws {
    try self.init(path: path)
    (pointer.pointee.width, pointer.pointee.height) = (Int32(width), Int32(height))
    pointer.pointee.format = format.rawValue
    try check(av_frame_get_buffer(pointer, 0), "av_frame_get_buffer", path: path)
    // The buffers come uninitialised, padding included, and some encoders read the padding
    // (libx265 gave different bytes on a second run in one process): zero them once.
    withUnsafeBytes(of: &pointer.pointee.buf) { buffers in
      for buffer in buffers.bindMemory(to: UnsafeMutablePointer<AVBufferRef>?.self) {
        if let buffer { buffer.pointee.data.initialize(repeating: 0, count: Int(buffer.pointee.size)) }
      }
    }
  }

  deinit {
    var frame: UnsafeMutablePointer<AVFrame>? = pointer
    av_frame_free(&frame)
  }
}

/// A compressed packet.
final class Packet {
  let pointer: UnsafeMutablePointer<AVPacket>

  init(path: String) throws {
    guard let packet = av_packet_alloc() else {
      throw VideoError.outOfMemory("av_packet_alloc", path: path)
    }
    pointer = packet
  }

  deinit {
    var packet: UnsafeMutablePointer<AVPacket>? = pointer
    av_packet_free(&packet)
  }
}

/// An encoder or decoder and its settings.
final class CodecContext {
  let pointer: UnsafeMutablePointer<AVCodecContext>
  let codec: UnsafePointer<AVCodec>

  init(codec: UnsafePointer<AVCodec>, path: String) throws {
    guard let context = avcodec_alloc_context3(codec) else {
      throw VideoError.outOfMemory("avcodec_alloc_context3", path: path)
    }
    pointer = context
    self.codec = codec
  }

  deinit {
    // SVT-AV1 1.4 waits forever in svt_av1_enc_deinit when it was opened and never given a
    // frame (a writer failing or cancelled before its first frame): the process would hang, deaf
    // to SIGTERM. A blank frame and the end of the stream let it close; nothing is written.
    if avcodec_is_open(pointer) != 0, pointer.pointee.frame_number == 0,
      String(cString: codec.pointee.name) == "libsvtav1",
      let frame = try? Frame(
        width: Int(pointer.pointee.width), height: Int(pointer.pointee.height), format: pointer.pointee.pix_fmt,
        path: "")
    {
      frame.pointer.pointee.pts = 0
      _ = avcodec_send_frame(pointer, frame.pointer)
      _ = avcodec_send_frame(pointer, nil)
    }
    var context: UnsafeMutablePointer<AVCodecContext>? = pointer
    avcodec_free_context(&context)
  }
}

/// Options handed to `avcodec_open2` or `avformat_write_header`; whatever they leave in it
/// was not recognised, which `requireAllUsed` turns into an error.
///
/// An empty dictionary is a null pointer in libav, so this one wrapper holds an optional.
final class Options {
  var pointer: OpaquePointer?

  init(_ entries: KeyValuePairs<String, String> = [:]) {
    for (key, value) in entries { set(key, value) }
  }

  func set(_ key: String, _ value: String) {
    av_dict_set(&pointer, key, value, 0)
  }

  /// The keys left over after an open call.
  var keys: [String] {
    var keys: [String] = []
    var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
    while let next = av_dict_get(pointer, "", entry, AV_DICT_IGNORE_SUFFIX) {
      keys.append(String(cString: next.pointee.key))
      entry = next
    }
    return keys
  }

  /// Throws when `function` left options unrecognised.
  func requireAllUsed(by function: String, path: String) throws {
    let left = keys
    if !left.isEmpty {
      throw VideoError.libav(
        function: function, code: clibav_error(EINVAL),
        message: "option(s) not recognised: " + left.joined(separator: ", "), path: path)
    }
  }

  deinit { av_dict_free(&pointer) }
}

/// A muxer writing one file, through a descriptor Loopsmith opened (`attach`), never by name.
final class OutputContext {
  let pointer: UnsafeMutablePointer<AVFormatContext>

  init(muxer: String, path: String) throws {
    var context: UnsafeMutablePointer<AVFormatContext>? = nil
    try check(avformat_alloc_output_context2(&context, nil, muxer, path), "avformat_alloc_output_context2", path: path)
    guard let context else {
      throw VideoError.outOfMemory("avformat_alloc_output_context2", path: path)
    }
    pointer = context
  }

  /// Makes the muxer write through `descriptor`, which must stay open until `closeFile`.
  func attach(descriptor: Int32, path: String) throws {
    guard let io = clibav_fd_io_alloc(descriptor, 1) else {
      throw VideoError.outOfMemory("avio_alloc_context", path: path)
    }
    clibav_use_fd_io(pointer, io, 1)
  }

  /// Flushes and releases the writing context, reporting a failed write (a full disk shows up here).
  func closeFile(path: String) throws {
    guard pointer.pointee.pb != nil else { return }
    try check(clibav_fd_io_free(&pointer.pointee.pb), "avio_flush", path: path)
  }

  deinit {
    clibav_fd_io_free(&pointer.pointee.pb)
    avformat_free_context(pointer)
  }
}

/// The demuxers a command reads with, by libav's short names, and how its errors name them.
///
/// A file is probed first and refused unless it probes as one of these: libav's other demuxers
/// open files by name (concat follows an ffconcat script to any path, HLS to a playlist's
/// entries, image2 to a numbered sequence), and their formats are nothing Loopsmith reads.
public struct Demuxers: Sendable {
  /// libav's short names (`mov` stands for `mov,mp4,m4a,3gp,3g2,mj2`).
  public let names: [String]
  /// What a refusal says was expected: "an MP4, MOV, WebM, ... file".
  public let expected: String

  /// What `check` and the video reader take: every format `render` writes.
  public static let video = Demuxers(
    names: ["mov", "matroska", "gif", "apng", "webp_pipe", "png_pipe", "jpeg_pipe", "yuv4mpegpipe"],
    expected: "an MP4, MOV, WebM, GIF, APNG, WebP, PNG, JPEG or Y4M file")
  /// What `--audio` takes: sound files, and the sound of a video file.
  public static let audio = Demuxers(
    names: ["wav", "w64", "aiff", "caf", "flac", "mp3", "ogg", "aac", "mov", "matroska"],
    expected: "a WAV, AIFF, CAF, FLAC, MP3, Ogg, AAC, M4A, MP4, MKV or WebM file")
  /// What `join` takes: the segments `render --frames` writes.
  public static let segments = Demuxers(
    names: ["mov", "matroska", "yuv4mpegpipe"], expected: "an MP4, MOV, WebM or Y4M segment")

  /// Whether `format`'s names (one demuxer may have several, comma-separated) include one of ours.
  func allows(_ format: UnsafePointer<AVInputFormat>) -> Bool {
    guard let name = format.pointee.name else { return false }
    return String(cString: name).split(separator: ",").contains { names.contains(String($0)) }
  }
}

/// A demuxer reading one file through its open descriptor; it opens no other file, reads only as
/// one of the demuxers it is given, and stops reading when a stop signal arrives.
///
/// Nothing but our descriptor can be opened: the file's format is chosen by our own probe among
/// `formats` (and libav's `format_whitelist` says the same to any nested demuxer), `io_open`
/// refuses every name, and `protocol_whitelist` names no protocol, so even a demuxer that opens
/// files its own way finds none (docs/ENCODING.md, Reading files we did not write).
final class InputContext {
  let pointer: UnsafeMutablePointer<AVFormatContext>
  /// Kept open as long as libav reads from it.
  private let file: InputFile

  /// The most streams a file may hold: Loopsmith writes one video and one audio stream; each
  /// stream costs a probing decoder (an MP4 of 999 tracks took 1.6 GB).
  static let maximumStreams = 8

  init(file: InputFile, formats: Demuxers) throws {
    self.file = file
    let path = file.path
    guard let fresh = avformat_alloc_context() else {
      throw VideoError.outOfMemory("avformat_alloc_context", path: path)
    }
    guard let io = clibav_fd_io_alloc_reading(file.descriptor, StopRequest.callback) else {
      avformat_free_context(fresh)
      throw VideoError.outOfMemory("avio_alloc_context", path: path)
    }
    clibav_use_fd_io(fresh, io, 0)
    fresh.pointee.interrupt_callback = AVIOInterruptCB(callback: StopRequest.callback, opaque: nil)
    func release() {
      var doomed: UnsafeMutablePointer<AVIOContext>? = io
      clibav_fd_io_free(&doomed)
    }
    var format: UnsafePointer<AVInputFormat>? = nil
    let probed = av_probe_input_buffer2(io, &format, path, nil, 0, 0)
    guard probed >= 0, let format else {
      avformat_free_context(fresh)
      release()
      if probed == clibav_invalid_data || probed >= 0 {
        throw VideoError.invalidSettings("\(path): not a format libav recognizes; expected \(formats.expected)")
      }
      try check(probed, "av_probe_input_buffer2", path: path)
      throw VideoError.outOfMemory("av_probe_input_buffer2", path: path)
    }
    guard formats.allows(format) else {
      let long = format.pointee.long_name.map { String(cString: $0) } ?? "unknown"
      let short = format.pointee.name.map { String(cString: $0) } ?? "unknown"
      avformat_free_context(fresh)
      release()
      throw VideoError.invalidSettings(
        "\(path): libav reads it as \(long) (\(short)), which is not read here; expected \(formats.expected)")
    }
    var options: OpaquePointer? = nil
    av_dict_set(&options, "format_whitelist", formats.names.joined(separator: ","), 0)
    av_dict_set(&options, "protocol_whitelist", "none", 0)  // no protocol has this name
    // A backstop for the count checked below: a demuxer asked for more streams fails (ENOMEM).
    av_dict_set(&options, "max_streams", String(Self.maximumStreams * 8), 0)
    defer { av_dict_free(&options) }
    var context: UnsafeMutablePointer<AVFormatContext>? = fresh
    let code = avformat_open_input(&context, path, format, &options)  // frees the context on failure, never `io`
    guard code >= 0, let context else {
      release()
      if code == clibav_invalid_data {
        let long = format.pointee.long_name.map { String(cString: $0) } ?? "its format"
        throw VideoError.invalidSettings(
          "\(path): libav cannot read it as \(long) (\(libavMessage(code))); expected \(formats.expected)")
      }
      try check(code < 0 ? code : clibav_error(ENOMEM), "avformat_open_input", path: path)
      throw VideoError.outOfMemory("avformat_open_input", path: path)
    }
    pointer = context
    try requireBoundedStreams(path: path)
  }

  /// The most pixels a decoded picture may hold: 8192x4320 (8K), 35 M pixels, 566 MB as the float
  /// image the reader makes. A 64 KB file may declare 16384x8192; decoding it would take GBs.
  static let maximumPixels = 8192 * 4320
  /// Audio rates and channel counts Loopsmith decodes. A 1 Hz file resampled to 48 kHz makes
  /// 48000 samples of each one and a filter to match (GBs from 8 KB); no real recording is
  /// below 1 kHz or above 768 kHz, or has more than 64 channels.
  static let sampleRates = 1000...768_000
  static let maximumChannels = 64

  /// Throws `invalidSettings` for a stream whose declared size, rate or channel count is out of
  /// bounds, before anything is allocated for it. Call again after `avformat_find_stream_info`.
  func requireBoundedStreams(path: String) throws {
    if Int(pointer.pointee.nb_streams) > Self.maximumStreams {
      throw VideoError.invalidSettings(
        "\(path): the file holds \(pointer.pointee.nb_streams) streams; expected at most \(Self.maximumStreams)")
    }
    for i in 0..<Int(pointer.pointee.nb_streams) {
      guard let p = pointer.pointee.streams[i]?.pointee.codecpar else { continue }
      let width = Int(p.pointee.width)
      let height = Int(p.pointee.height)
      switch p.pointee.codec_type {
      case AVMEDIA_TYPE_VIDEO:
        if width < 0 || height < 0 || width * height > Self.maximumPixels || width > 16384 || height > 16384 {
          throw VideoError.invalidSettings(
            "\(path): the video declares \(width)x\(height) pixels; expected at most \(Self.maximumPixels) pixels (8192x4320)"
          )
        }
      case AVMEDIA_TYPE_AUDIO:
        let rate = Int(p.pointee.sample_rate)
        let channels = Int(p.pointee.ch_layout.nb_channels)
        if rate != 0, !Self.sampleRates.contains(rate) {
          throw VideoError.invalidSettings(
            "\(path): the audio declares \(rate) Hz; expected \(Self.sampleRates.lowerBound) to \(Self.sampleRates.upperBound) Hz"
          )
        }
        if channels < 0 || channels > Self.maximumChannels {
          throw VideoError.invalidSettings(
            "\(path): the audio declares \(channels) channels; expected 1 to \(Self.maximumChannels)")
        }
      default: continue
      }
    }
  }

  /// `avformat_find_stream_info` with each probing decoder held to `maximumPixels`, then the
  /// bounds checked again on what it found.
  func findStreamInfo(path: String) throws {
    let count = Int(pointer.pointee.nb_streams)
    var dictionaries = [OpaquePointer?](repeating: nil, count: max(count, 1))
    for i in 0..<count { av_dict_set(&dictionaries[i], "max_pixels", String(Self.maximumPixels), 0) }
    defer { for i in 0..<count { av_dict_free(&dictionaries[i]) } }
    try dictionaries.withUnsafeMutableBufferPointer { buffer in
      _ = try check(avformat_find_stream_info(pointer, buffer.baseAddress), "avformat_find_stream_info", path: path)
    }
    try requireBoundedStreams(path: path)
  }

  deinit {
    var io = pointer.pointee.pb  // ours: avformat_close_input leaves a custom context alone
    var context: UnsafeMutablePointer<AVFormatContext>? = pointer
    avformat_close_input(&context)
    clibav_fd_io_free(&io)
  }
}

/// A swscale context, used by the reader for RGB and palette pixel formats.
final class ScaleContext {
  let pointer: OpaquePointer

  init(width: Int, height: Int, from source: AVPixelFormat, to destination: AVPixelFormat, path: String) throws {
    guard
      let context = sws_getContext(
        Int32(width), Int32(height), source, Int32(width), Int32(height), destination,
        Int32(SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_BITEXACT), nil, nil, nil)
    else {
      throw VideoError.libav(
        function: "sws_getContext", code: clibav_error(EINVAL), message: "cannot convert this pixel format", path: path)
    }
    pointer = context
  }

  deinit { sws_freeContext(pointer) }
}
