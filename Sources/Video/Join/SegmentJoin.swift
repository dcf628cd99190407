import CLibAV
import Foundation

/// What `SegmentJoin.join` wrote.
public struct JoinedFile: Sendable, Equatable {
  public var path: String
  public var frames: Int
  public var fps: Int
  public var bytes: Int64
  /// frames / fps, in seconds.
  public var duration: Double { Double(frames) / Double(fps) }
}

/// Puts segments (`render --frames A:B`) back into one loop without re-encoding (`loopsmith join`).
///
/// MP4, MOV and WebM segments are remuxed with libavformat: every packet is copied as it is, its
/// timestamps moved by its segment's first frame, its duration exactly one frame (1 / fps), under
/// the same muxer settings as a whole render. Y4M segments are raw frames, so their frames are
/// copied after one header. Segments must share codec, size, pixel format, rate, time base and
/// codec extradata, and must cover the loop in order, without gaps or overlaps: anything else is
/// `VideoError.invalidSettings` (exit status 2), before the output exists. As ever, the output
/// appears at its path only when complete.
public enum SegmentJoin {
  /// The formats whose segments can be joined.
  public static let formats: [OutputFormat] = [.mp4, .mov, .webm, .y4m]

  /// Joins `paths` into `output`, of the format its extension names, or of `format` when given (a
  /// temporary name, as `batch --merge` stages each joined file before renaming it into place).
  public static func join(_ paths: [String], into output: String, format: OutputFormat? = nil) throws -> JoinedFile {
    guard !paths.isEmpty else {
      throw VideoError.invalidSettings("join needs segment files; expected loopsmith join SEGMENT... -o FILE")
    }
    guard let format = format ?? OutputFormat(path: output), formats.contains(format) else {
      throw VideoError.invalidSettings("-o \(output): expected a .mp4, .mov, .webm or .y4m file, like the segments")
    }
    // Each opened once, all before any is read: every later read goes through these descriptors.
    let files = try paths.map(openSegment)
    silenceLibAVLog()
    return format == .y4m ? try joinY4M(files, into: output) : try remux(files, into: output, format: format)
  }

  // MARK: - Order

  /// Refuses segments that are not the loop's frames 0..<N, in order, each once.
  static func checkOrder(_ segments: [(path: String, segment: FrameSegment)]) throws {
    let (firstPath, first) = segments[0]
    guard first.first == 0 else {
      throw VideoError.invalidSettings("\(firstPath): holds \(first); expected the first segment to start at frame 0")
    }
    for (previous, next) in zip(segments, segments.dropFirst()) where next.segment.first < previous.segment.first {
      throw VideoError.invalidSettings(
        "\(next.path): holds \(next.segment), given after \(previous.path)'s \(previous.segment): out of order; expected segments in frame order"
      )
    }
    for (previous, next) in zip(segments, segments.dropFirst()) {
      guard next.segment.total == first.total else {
        throw VideoError.invalidSettings(
          "\(next.path): holds \(next.segment), but \(firstPath) holds \(first): not the same loop")
      }
      let (end, start) = (previous.segment.end, next.segment.first)
      guard start == end else {
        let what =
          start > end
          ? "a gap: frames \(end):\(start) are missing"
          : "an overlap: frames \(start):\(min(end, next.segment.end)) twice"
        throw VideoError.invalidSettings(
          "\(next.path): holds \(next.segment) after \(previous.path)'s \(previous.segment): \(what); expected segments in order, each starting where the last ended"
        )
      }
    }
    let last = segments[segments.count - 1]
    guard last.segment.end == first.total else {
      throw VideoError.invalidSettings(
        "\(last.path): ends at frame \(last.segment.end); frames \(last.segment.end):\(first.total) of the loop are missing"
      )
    }
  }

  /// The segment opened once, non-blocking, as a regular file of bounded size (a FIFO never hangs).
  static func openSegment(_ path: String) throws -> InputFile {
    try InputFile(path: path, limit: InputFile.Limit.video, what: "segment")
  }

  // MARK: - Remux

  private final class Segment {
    let path: String
    let input: InputContext
    let stream: UnsafeMutablePointer<AVStream>
    let segment: FrameSegment

    init(file: InputFile) throws {
      let path = file.path
      self.path = path
      input = try InputContext(file: file)
      try input.findStreamInfo(path: path)
      let c = input.pointer.pointee
      guard c.nb_streams == 1, let stream = c.streams[0],
        stream.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_VIDEO
      else {
        throw VideoError.invalidSettings(
          "\(path): holds \(c.nb_streams) streams; expected one video stream, as render --frames writes")
      }
      self.stream = stream
      guard let entry = av_dict_get(c.metadata, FrameSegment.metadataKey, nil, 0), let value = entry.pointee.value,
        let segment = FrameSegment(tag: String(cString: value))
      else {
        throw VideoError.invalidSettings(
          "\(path): not a segment (no frame range); expected a file from loopsmith render --frames A:B")
      }
      self.segment = segment
    }

    var parameters: AVCodecParameters { stream.pointee.codecpar.pointee }
    var formatName: String { String(cString: input.pointer.pointee.iformat.pointee.name) }

    var extradata: [UInt8] {
      let p = parameters
      guard let data = p.extradata, p.extradata_size > 0 else { return [] }
      return Array(UnsafeBufferPointer(start: data, count: Int(p.extradata_size)))
    }

    /// Everything the segments must share, in words, one entry per property.
    var properties: [(name: String, value: String)] {
      let p = parameters
      let rate = stream.pointee.avg_frame_rate
      let base = stream.pointee.time_base
      return [
        ("container", formatName),
        ("codec", String(cString: avcodec_get_name(p.codec_id))),
        ("size", "\(p.width)x\(p.height)"),
        ("pixel format", av_get_pix_fmt_name(AVPixelFormat(p.format)).map { String(cString: $0) } ?? "\(p.format)"),
        ("profile", "\(p.profile)"),
        ("frame rate", "\(rate.num)/\(rate.den)"),
        ("time base", "\(base.num)/\(base.den)"),
        ("extradata", extradata.map { String(format: "%02x", $0) }.joined()),
      ]
    }
  }

  private static func remux(_ files: [InputFile], into output: String, format: OutputFormat) throws -> JoinedFile {
    let segments = try files.map(Segment.init(file:))
    let first = segments[0]
    for s in segments.dropFirst() {
      for (a, b) in zip(first.properties, s.properties) where a.value != b.value {
        let shown =
          a.name == "extradata"
          ? "differs (\(s.extradata.count) bytes against \(first.extradata.count))"
          : "\(b.value) does not match \(first.path)'s \(a.value)"
        throw VideoError.invalidSettings("\(s.path): \(a.name) \(shown); expected segments of one render")
      }
    }
    try checkOrder(segments.map { ($0.path, $0.segment) })
    let rate = first.stream.pointee.avg_frame_rate
    guard rate.den == 1, rate.num >= 1 else {
      throw VideoError.invalidSettings(
        "\(first.path): frame rate \(rate.num)/\(rate.den); expected a whole number of frames a second")
    }
    let fps = Int(rate.num)
    let expectedFormat = format == .webm ? "matroska,webm" : "mov,mp4,m4a,3gp,3g2,mj2"
    guard first.formatName == expectedFormat else {
      throw VideoError.invalidSettings(
        "-o \(output): the segments are \(first.formatName) files; expected an output of the same container")
    }

    let temporary = try TemporaryOutput(destination: output)
    let muxer = format.spec.muxer
    let out = try OutputContext(muxer: muxer, path: output)
    guard let stream = avformat_new_stream(out.pointer, nil) else {
      throw VideoError.outOfMemory("avformat_new_stream", path: output)
    }
    try check(
      avcodec_parameters_copy(stream.pointee.codecpar, first.stream.pointee.codecpar), "avcodec_parameters_copy",
      path: output)
    if format == .webm { stream.pointee.codecpar.pointee.codec_tag = 0 }
    let frameBase = AVRational(num: 1, den: Int32(fps))
    stream.pointee.time_base = frameBase
    stream.pointee.avg_frame_rate = rate
    stream.pointee.r_frame_rate = rate
    out.pointer.pointee.flags |= AVFMT_FLAG_BITEXACT
    // Through the descriptor the temporary was created with, never by name.
    try out.attach(descriptor: temporary.descriptor, path: output)
    // The muxer settings of a whole render (Encoder): N / fps exact in every duration, moov first,
    // no edit list (segments carry no sound).
    let options = Options()
    for option in LoopTiming.muxerOptions(format: format, fps: fps, frameCount: first.segment.total, audio: false) {
      options.set(option.name, option.value)
    }
    try check(avformat_write_header(out.pointer, &options.pointer), "avformat_write_header", path: output)
    try options.requireAllUsed(by: "avformat_write_header (\(muxer))", path: output)
    let outBase = stream.pointee.time_base
    let packet = try Packet(path: output)
    var lastDTS = Int64.min
    var frames = 0

    for s in segments {
      let inBase = s.stream.pointee.time_base
      /// A timestamp in whole frames from the segment's start, or nil when it is not on a frame.
      func frameOf(_ t: Int64) -> Int64? {
        guard t != clibav_nopts else { return nil }
        let f = av_rescale_q(t, inBase, frameBase)
        return av_rescale_q(f, frameBase, inBase) == t ? f : nil
      }
      var shown: [Int64] = []
      while true {
        let status = av_read_frame(s.input.pointer, packet.pointer)
        if status == clibav_eof { break }
        try check(status, "av_read_frame", path: s.path)
        defer { av_packet_unref(packet.pointer) }
        let p = packet.pointer
        guard let pts = frameOf(p.pointee.pts), let dts = frameOf(p.pointee.dts) else {
          throw VideoError.invalidSettings(
            "\(s.path): packet \(shown.count) is not timed on a frame; expected a file from loopsmith render --frames")
        }
        if shown.isEmpty && p.pointee.flags & AV_PKT_FLAG_KEY == 0 {
          throw VideoError.invalidSettings(
            "\(s.path): does not start on a key frame; expected a closed segment from loopsmith render --frames")
        }
        let decodeIndex = Int64(shown.count)
        shown.append(pts)
        let offset = Int64(s.segment.first)
        // An MP4 without an edit list has its decoding times moved back by its own largest negative
        // composition offset, which differs between segments; packet k of a segment starting at
        // frame A decodes at A + k - 16 instead (pts >= dts for any reordering up to 16 frames).
        let newDTS = av_rescale_q(
          format == .webm ? offset + dts : offset + decodeIndex - 16, frameBase, outBase)
        guard newDTS > lastDTS else {
          throw VideoError.invalidSettings(
            "\(s.path): its decoding order starts before the previous segment's ends; expected segments encoded alike")
        }
        lastDTS = newDTS
        p.pointee.stream_index = 0
        p.pointee.pts = av_rescale_q(offset + pts, frameBase, outBase)
        p.pointee.dts = newDTS
        p.pointee.duration = av_rescale_q(1, frameBase, outBase)
        p.pointee.pos = -1
        try check(av_interleaved_write_frame(out.pointer, p), "av_interleaved_write_frame", path: output)
      }
      guard shown.sorted() == (0..<Int64(s.segment.count)).map({ $0 }) else {
        throw VideoError.invalidSettings(
          "\(s.path): holds \(shown.count) frames timed \(shown.min() ?? 0)...\(shown.max() ?? 0); its tag says \(s.segment)"
        )
      }
      frames += shown.count
    }
    try check(av_write_trailer(out.pointer), "av_write_trailer", path: output)
    try out.closeFile(path: output)
    try temporary.commit()
    return JoinedFile(path: output, frames: frames, fps: fps, bytes: try fileSize(output))
  }

  // MARK: - Y4M

  private static func joinY4M(_ files: [InputFile], into output: String) throws -> JoinedFile {
    struct Part {
      var file: InputFile; var header: String; var headerBytes: Int; var segment: FrameSegment; var frameBytes: Int;
      var fps: Int
      var path: String { file.path }
    }
    var parts: [Part] = []
    for file in files {
      let path = file.path
      let handle = FileHandle(fileDescriptor: file.descriptor, closeOnDealloc: false)
      let start = (try? handle.read(upToCount: 1024)) ?? Data()
      guard start.starts(with: Array("YUV4MPEG2 ".utf8)), let newline = start.firstIndex(of: 0x0A) else {
        throw VideoError.invalidSettings("\(path): not a Y4M file; expected a segment from loopsmith render --frames")
      }
      let line = String(decoding: start[..<newline], as: UTF8.self)
      var words = line.split(separator: " ")
      guard let tagIndex = words.firstIndex(where: { $0.hasPrefix("XLOOPSMITH=") }),
        let segment = FrameSegment(y4mValue: words[tagIndex].dropFirst("XLOOPSMITH=".count))
      else {
        throw VideoError.invalidSettings(
          "\(path): not a segment (no frame range); expected a file from loopsmith render --frames A:B")
      }
      words.remove(at: tagIndex)
      let rate = words.first { $0.hasPrefix("F") }.map { $0.dropFirst().split(separator: ":") }
      guard let rate, rate.count == 2, rate[1] == "1", let fps = Int(rate[0]), fps >= 1 else {
        throw VideoError.invalidSettings("\(path): its frame rate is not a whole number of frames a second")
      }
      let headerBytes = newline - start.startIndex + 1
      let size = Int(file.size)
      let body = size - headerBytes
      guard body > 0, body % segment.count == 0, body / segment.count > 6 else {
        throw VideoError.invalidSettings(
          "\(path): holds \(body) bytes of frames, not \(segment.count) equal frames; its tag says \(segment)")
      }
      parts.append(
        Part(
          file: file, header: words.joined(separator: " "), headerBytes: headerBytes, segment: segment,
          frameBytes: body / segment.count, fps: fps))
    }
    let first = parts[0]
    for p in parts.dropFirst() where p.header != first.header || p.frameBytes != first.frameBytes {
      throw VideoError.invalidSettings(
        "\(p.path): header '\(p.header)' does not match \(first.path)'s '\(first.header)'; expected segments of one render"
      )
    }
    try checkOrder(parts.map { ($0.path, $0.segment) })

    let temporary = try TemporaryOutput(destination: output)
    // Through the temporary's own descriptor, which its commit closes.
    let out = FileHandle(fileDescriptor: temporary.descriptor, closeOnDealloc: false)
    do {
      try out.write(contentsOf: Data((first.header + "\n").utf8))
      for p in parts {
        let input = FileHandle(fileDescriptor: p.file.descriptor, closeOnDealloc: false)
        try input.seek(toOffset: UInt64(p.headerBytes))
        for i in 0..<p.segment.count {
          let frame = try input.read(upToCount: p.frameBytes) ?? Data()
          guard frame.count == p.frameBytes, frame.starts(with: Array("FRAME".utf8)) else {
            throw VideoError.invalidSettings("\(p.path): frame \(i) is not a Y4M frame of \(p.frameBytes) bytes")
          }
          try out.write(contentsOf: frame)
        }
      }
      try out.synchronize()
    } catch let e as VideoError {
      throw e
    } catch {
      throw VideoError.io("\(output): write failed: \(error.localizedDescription)")
    }
    try temporary.commit()
    return JoinedFile(path: output, frames: first.segment.total, fps: first.fps, bytes: try fileSize(output))
  }

  private static func fileSize(_ path: String) throws -> Int64 {
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw VideoError.io("\(path): cannot stat: \(String(cString: strerror(errno)))")
    }
    return Int64(info.st_size)
  }
}
