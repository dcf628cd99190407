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
    if avcodec_is_open(pointer) != 0, pointer.pointee.frame_number == 0, String(cString: codec.pointee.name) == "libsvtav1",
      let frame = try? Frame(width: Int(pointer.pointee.width), height: Int(pointer.pointee.height), format: pointer.pointee.pix_fmt, path: "")
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

/// A muxer writing one file.
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

  /// Closes the file, reporting a failed final write (a full disk shows up here too).
  func closeFile(path: String) throws {
    guard pointer.pointee.pb != nil else { return }
    try check(avio_closep(&pointer.pointee.pb), "avio_closep", path: path)
  }

  deinit {
    if pointer.pointee.pb != nil { avio_closep(&pointer.pointee.pb) }
    avformat_free_context(pointer)
  }
}

/// A demuxer reading one file.
final class InputContext {
  let pointer: UnsafeMutablePointer<AVFormatContext>

  init(path: String) throws {
    var context: UnsafeMutablePointer<AVFormatContext>? = nil
    try check(avformat_open_input(&context, "file:" + path, nil, nil), "avformat_open_input", path: path)
    guard let context else {
      throw VideoError.outOfMemory("avformat_open_input", path: path)
    }
    pointer = context
  }

  deinit {
    var context: UnsafeMutablePointer<AVFormatContext>? = pointer
    avformat_close_input(&context)
  }
}

/// A swscale context, used by the reader for RGB and palette pixel formats.
final class ScaleContext {
  let pointer: OpaquePointer

  init(width: Int, height: Int, from source: AVPixelFormat, to destination: AVPixelFormat, path: String) throws {
    guard let context = sws_getContext(
      Int32(width), Int32(height), source, Int32(width), Int32(height), destination,
      Int32(SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_BITEXACT), nil, nil, nil)
    else {
      throw VideoError.libav(function: "sws_getContext", code: clibav_error(EINVAL), message: "cannot convert this pixel format", path: path)
    }
    pointer = context
  }

  deinit { sws_freeContext(pointer) }
}
