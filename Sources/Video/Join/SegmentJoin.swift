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
/// copied after one header. Segments must come from one render: the same loopsmith-preset tag and
/// every stream parameter `Segment.properties` lists (parameter sets rather than extradata, which
/// for HEVC holds each segment's own libx265 SEI; `ParameterSets`), every packet decoding to a
/// frame of the stream's size, and they must cover the loop in order, without gaps or overlaps:
/// anything else is `VideoError.invalidSettings` (exit status 2), before the output exists. As
/// ever, the output appears at its path only when complete.
///
/// Copied, each segment keeps its first frame as a key frame. `KeyFrames.first` instead decodes
/// every segment and encodes the frames again in one encoder (see `KeyFrames`).
public enum SegmentJoin {
  /// The formats whose segments can be joined.
  public static let formats: [OutputFormat] = [.mp4, .mov, .webm, .y4m]

  /// Where the joined file's key frames fall (`join --key-frames`).
  public enum KeyFrames: String, CaseIterable, Sendable {
    /// At the start of every segment, as rendered: every packet is copied.
    case segments
    /// Where a whole render has them: only frame 0 (and, in a loop over 600 frames, every
    /// `Encoder.gopSize` frames after it, as a render keeps for seeking).
    ///
    /// Dropping a segment's key frame means coding its first frame from the frames before it,
    /// exactly as the player will have decoded them. An encoder predicts only from its own
    /// reconstructions, and libx264, libx265, libvpx and SVT-AV1 start every stream with a key
    /// frame and cannot be handed reference pictures, so no encoder can continue after copied
    /// packets: the earliest segment's frames would decode to one picture and be referenced as
    /// another, and the error would drift to the end of the loop. So the video is decoded and
    /// encoded again from frame 0 in one encoder (one generation more of the codec's loss), at the
    /// quality the segments were made with. Segments whose key frames already are a whole
    /// render's (one segment, or segments starting on the render's key frames) are copied as
    /// they are. Segments never carry sound (`render --frames` refuses `--audio`), so there is no
    /// audio to copy.
    case first
  }

  /// How `KeyFrames.first` encodes the loop again: the encoder settings a render would use.
  public struct Encoding: Sendable {
    /// The constant quality (`crf`, or WebP's `quality`); nil takes the codec's default.
    public var crf: Int?
    public var x264Preset: String
    /// Encoder threads, pinned like a render's, since they change the bytes.
    public var threads: Int
    public init(crf: Int?, x264Preset: String = "medium", threads: Int) {
      (self.crf, self.x264Preset, self.threads) = (crf, x264Preset, threads)
    }
  }

  /// Chooses the `Encoding` for the segments' codec, given the whole loop's loopsmith-preset tag
  /// they carry (nil for older segments) and the first segment's path, for messages.
  public typealias EncodingChoice = (_ codec: VideoCodec, _ presetTag: String?, _ segmentPath: String) throws ->
    Encoding

  /// Why `KeyFrames.first` cannot apply to segments of `format` holding `codec` (libav's name;
  /// nil when not yet known), or nil when it can: a Y4M file, or a codec libav's table marks intra
  /// only (ProRes), has nothing but key frames already.
  public static func keyFramesFirstProblem(format: OutputFormat, codec: String? = nil) -> String? {
    let expected = "expected segments of a codec with predicted frames (h264, hevc, vp9 or av1 in .mp4, .mov or .webm)"
    if format == .y4m {
      return "--key-frames first: Y4M segments are raw pictures, every one a key frame; \(expected)"
    }
    guard let codec, let d = avcodec_descriptor_get_by_name(codec) else { return nil }
    if d.pointee.props & Int32(AV_CODEC_PROP_INTRA_ONLY) != 0 {
      return "--key-frames first: the segments are \(codec), whose every frame is a key frame; \(expected)"
    }
    return nil
  }

  /// Joins `paths` into `output`, of the format its extension names, or of `format` when given (a
  /// temporary name, as `batch --merge` stages each joined file before renaming it into place).
  /// With `KeyFrames.first`, `encoding` chooses how the video is encoded again (by default the
  /// codec's default quality and 4 threads).
  public static func join(
    _ paths: [String], into output: String, format: OutputFormat? = nil, keyFrames: KeyFrames = .segments,
    encoding: EncodingChoice? = nil
  ) throws -> JoinedFile {
    guard !paths.isEmpty else {
      throw VideoError.invalidSettings("join needs segment files; expected loopsmith join SEGMENT... -o FILE")
    }
    guard let format = format ?? OutputFormat(path: output), formats.contains(format) else {
      throw VideoError.invalidSettings("-o \(output): expected a .mp4, .mov, .webm or .y4m file, like the segments")
    }
    if keyFrames == .first, let problem = keyFramesFirstProblem(format: format) {
      throw VideoError.invalidSettings(problem)
    }
    // Each opened once, all before any is read: every later read goes through these descriptors.
    let files = try paths.map(openSegment)
    for file in files { try checkKind(file, into: output, format: format) }
    silenceLibAVLog()
    if format == .y4m { return try joinY4M(files, into: output) }
    let reencode = keyFrames == .first ? encoding ?? { _, _, _ in Encoding(crf: nil, threads: 4) } : nil
    return try remux(files, into: output, format: format, reencode: reencode)
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

  /// Refuses a Y4M segment for a container output, or a container segment for a Y4M one, naming
  /// that cause: Y4M holds raw pictures and a container encoded packets, and `join` only copies,
  /// so segments must be of the output's own kind (without this, a Y4M segment read as a
  /// container was refused for lacking a frame range, which it has in its header).
  static func checkKind(_ file: InputFile, into output: String, format: OutputFormat) throws {
    let magic = Array("YUV4MPEG2 ".utf8)
    var start = [UInt8](repeating: 0, count: magic.count)
    let read = start.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, $0.count, 0) }
    let isY4M = read == magic.count && start == magic
    let outputName = (output as NSString).lastPathComponent
    if isY4M && format != .y4m {
      throw VideoError.invalidSettings(
        "\(file.path): a Y4M segment (raw pictures) cannot be copied into -o \(outputName), which holds encoded packets; expected -o FILE.y4m to join Y4M segments, or segments rendered as .\(format.rawValue)"
      )
    }
    if !isY4M && format == .y4m {
      throw VideoError.invalidSettings(
        "\(file.path): not a Y4M file, and -o \(outputName) is Y4M; expected Y4M segments (render --frames A:B -o FILE.y4m), or -o with the segments' own extension"
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
    /// The container's comment: the frame range, then the loop's preset tag when it carries one.
    let comment: String?

    init(file: InputFile) throws {
      let path = file.path
      self.path = path
      input = try InputContext(file: file, formats: .segments)
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
      // Hostile input: a comment is bounded before it is read as text.
      guard strnlen(value, StreamInfo.commentLimit + 1) <= StreamInfo.commentLimit else {
        throw VideoError.invalidSettings(
          "\(path): its comment is over \(StreamInfo.commentLimit) bytes; expected a frame range and a preset tag of a few KB"
        )
      }
      self.segment = segment
      comment = String(cString: value)
    }

    var parameters: AVCodecParameters { stream.pointee.codecpar.pointee }
    var formatName: String { String(cString: input.pointer.pointee.iformat.pointee.name) }

    var extradata: [UInt8] {
      let p = parameters
      guard let data = p.extradata, p.extradata_size > 0 else { return [] }
      return Array(UnsafeBufferPointer(start: data, count: Int(p.extradata_size)))
    }

    /// The whole loop's loopsmith-preset tag, the comment's lines after the frame range; nil
    /// when the segment carries none.
    var presetTag: String? { comment.flatMap(FrameSegment.presetTag(inComment:)) }

    /// Whether the stream says it carries alpha beside the picture (VP9 in WebM: its pixel format
    /// is yuv420p with alpha or without, docs/ENCODING.md, Alpha).
    var alphaMode: String {
      av_dict_get(stream.pointee.metadata, "alpha_mode", nil, 0).map { String(cString: $0.pointee.value) } ?? "0"
    }

    /// Everything the segments must share, in words, one entry per property.
    var properties: [(name: String, value: String)] {
      let p = parameters
      let rate = stream.pointee.avg_frame_rate
      let base = stream.pointee.time_base
      let aspect = p.sample_aspect_ratio
      func named(_ text: UnsafePointer<CChar>?, _ value: UInt32) -> String {
        text.map { String(cString: $0) } ?? "\(value)"
      }
      return [
        ("container", formatName),
        ("codec", String(cString: avcodec_get_name(p.codec_id))),
        ("codec tag", String(format: "0x%08x", p.codec_tag)),
        ("size", "\(p.width)x\(p.height)"),
        ("pixel format", av_get_pix_fmt_name(AVPixelFormat(p.format)).map { String(cString: $0) } ?? "\(p.format)"),
        ("alpha", alphaMode == "1" ? "yes" : "no"),
        ("bit depth", "\(p.bits_per_raw_sample)"),
        ("profile", "\(p.profile)"),
        ("level", "\(p.level)"),
        ("colour range", named(av_color_range_name(p.color_range), p.color_range.rawValue)),
        ("colour primaries", named(av_color_primaries_name(p.color_primaries), p.color_primaries.rawValue)),
        ("transfer", named(av_color_transfer_name(p.color_trc), p.color_trc.rawValue)),
        ("matrix", named(av_color_space_name(p.color_space), p.color_space.rawValue)),
        ("chroma siting", named(av_chroma_location_name(p.chroma_location), p.chroma_location.rawValue)),
        ("field order", "\(p.field_order.rawValue)"),
        ("sample aspect ratio", "\(aspect.num):\(aspect.den)"),
        ("frame rate", "\(rate.num)/\(rate.den)"),
        ("time base", "\(base.num)/\(base.den)"),
        (
          "parameter sets",
          ParameterSets.comparable(extradata, codec: p.codec_id).map { String(format: "%02x", $0) }.joined()
        ),
      ]
    }
  }

  private static func remux(
    _ files: [InputFile], into output: String, format: OutputFormat, reencode: EncodingChoice?
  ) throws -> JoinedFile {
    let segments = try files.map(Segment.init(file:))
    let first = segments[0]
    for s in segments.dropFirst() {
      for (a, b) in zip(first.properties, s.properties) where a.value != b.value {
        let shown =
          a.name == "parameter sets"
          ? "differ (\(b.value.count / 2) bytes against \(first.path)'s \(a.value.count / 2), SEI left out)"
          : "\(b.value) does not match \(first.path)'s \(a.value)"
        throw VideoError.invalidSettings("\(s.path): \(a.name) \(shown); expected segments of one render")
      }
    }
    for s in segments.dropFirst() {
      if let difference = PresetTagDifference(s.presetTag, against: first.presetTag) {
        throw VideoError.invalidSettings(
          "\(s.path): its preset tag (\(difference.this)) differs from \(first.path)'s (\(difference.other)); expected segments of one render"
        )
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
    if let reencode {
      let codec = String(cString: avcodec_get_name(first.parameters.codec_id))
      if let problem = keyFramesFirstProblem(format: format, codec: codec) {
        throw VideoError.invalidSettings(problem)
      }
      // A whole render's key frames fall every gopSize(N) frames; segments starting on them (one
      // segment always does) already have exactly those, so copying them is already right.
      let interval = Encoder.gopSize(first.segment.total)
      if !segments.allSatisfy({ $0.segment.first % interval == 0 }) {
        return try encodeAgain(segments, into: output, format: format, fps: fps, choice: reencode)
      }
      // Copied, but the tag the copy carries is checked as the encode would check it.
      if let codec = VideoCodec.allCases.first(where: { $0.spec.libavName == codec }) {
        _ = try reencode(codec, first.comment.flatMap(FrameSegment.presetTag(inComment:)), first.path)
      }
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
    // Asked for a whole render's key frames, the file gets a whole render's tag too.
    if reencode != nil, let tag = first.comment.flatMap(FrameSegment.presetTag(inComment:)) {
      av_dict_set(&out.pointer.pointee.metadata, "comment", tag, 0)
    }
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
      // Every packet is decoded as it is copied: a stream that changes its frame size or samples
      // mid-way (its own parameter sets in a later packet) or that does not decode is refused
      // before the output exists. Decoding costs far less than the render that made the segment.
      let decoder = try openDecoder(s, alpha: false)
      let decoded = try Frame(path: s.path)
      var decodedCount = 0
      func receive() throws {
        try receiveFrames(from: decoder, into: decoded, path: s.path) { frame in
          let (f, p) = (frame.pointee, s.parameters)
          guard f.width == p.width, f.height == p.height, f.format == p.format else {
            let name = av_get_pix_fmt_name(AVPixelFormat(f.format)).map { String(cString: $0) } ?? "no pixel format"
            throw VideoError.invalidSettings(
              "\(s.path): frame \(decodedCount) decodes to \(f.width)x\(f.height) \(name), but the stream is \(p.width)x\(p.height) \(s.properties[4].value); expected one frame size throughout, as render --frames writes"
            )
          }
          decodedCount += 1
        }
      }
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
        // Read from the file, so bounded before any arithmetic: a frame of the segment's range,
        // decoded at most 16 frames early (the reordering allowed below), never more packets than frames.
        let count = Int64(s.segment.count)
        guard shown.count < s.segment.count, (0..<count).contains(pts), (-16..<count).contains(dts) else {
          throw VideoError.invalidSettings(
            "\(s.path): packet \(shown.count) is frame \(pts) (decoded at \(dts)), outside its tag's \(s.segment); expected one packet per frame"
          )
        }
        if shown.isEmpty && p.pointee.flags & AV_PKT_FLAG_KEY == 0 {
          throw VideoError.invalidSettings(
            "\(s.path): does not start on a key frame; expected a closed segment from loopsmith render --frames")
        }
        try check(avcodec_send_packet(decoder.pointer, p), "avcodec_send_packet", path: s.path)
        try receive()
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
      try check(avcodec_send_packet(decoder.pointer, nil), "avcodec_send_packet(NULL)", path: s.path)
      try receive()
      guard decodedCount == s.segment.count else {
        throw VideoError.invalidSettings(
          "\(s.path): decodes to \(decodedCount) frames; its tag says \(s.segment)")
      }
      frames += shown.count
    }
    try check(av_write_trailer(out.pointer), "av_write_trailer", path: output)
    try out.closeFile(path: output)
    try temporary.commit()
    return JoinedFile(path: output, frames: frames, fps: fps, bytes: try fileSize(output))
  }

  // MARK: - Encode again

  /// `KeyFrames.first`: every segment decoded in turn, its frames in display order handed straight
  /// to one `VideoWriter` in the decoder's own samples (no colour conversion, so the only loss is
  /// the encoder's), with a whole render's settings and the loop's preset tag as its comment.
  private static func encodeAgain(
    _ segments: [Segment], into output: String, format: OutputFormat, fps: Int, choice: EncodingChoice
  ) throws -> JoinedFile {
    let first = segments[0]
    let p = first.parameters
    let libavName = String(cString: avcodec_get_name(p.codec_id))
    guard let codec = VideoCodec.allCases.first(where: { $0.spec.libavName == libavName }) else {
      throw VideoError.invalidSettings(
        "\(first.path): codec \(libavName); expected segments of a codec loopsmith encodes (h264, hevc, vp9 or av1)")
    }
    let pixelFormat = AVPixelFormat(p.format)
    guard let descriptor = av_pix_fmt_desc_get(pixelFormat) else {
      throw VideoError.invalidSettings("\(first.path): no pixel format; expected a file from loopsmith render --frames")
    }
    // VP9 keeps alpha beside the picture, which libvpx decodes (docs/ENCODING.md, Alpha).
    let alphaMode = av_dict_get(first.stream.pointee.metadata, "alpha_mode", nil, 0).map {
      String(cString: $0.pointee.value) == "1"
    }
    let alpha = Int32(descriptor.pointee.flags) & Int32(AV_PIX_FMT_FLAG_ALPHA) != 0 || alphaMode == true
    let comment = first.comment.flatMap(FrameSegment.presetTag(inComment:))
    let encoding = try choice(codec, comment, first.path)
    var settings = try OutputSettings(
      path: output, format: format, codec: codec, width: Int(p.width), height: Int(p.height), fps: fps,
      frameCount: first.segment.total, crf: encoding.crf, bitDepth: descriptor.pointee.comp.0.depth > 8 ? 10 : 8,
      threads: encoding.threads, keepAlpha: alpha, x264Preset: encoding.x264Preset)
    settings.comment = comment
    guard settings.layout.libavFormat == pixelFormat || (alpha && settings.carriesAlpha) else {
      throw VideoError.invalidSettings(
        "\(first.path): pixel format \(String(cString: descriptor.pointee.name)) is not one loopsmith encodes \(codec.rawValue) in; expected a file from loopsmith render --frames"
      )
    }
    let writer = try VideoWriter(settings)  // validates; from here the output waits under a temporary name
    let frame = ConvertedFrame(width: settings.width, height: settings.height, layout: settings.layout)
    let packet = try Packet(path: output)
    let decoded = try Frame(path: output)
    for s in segments {
      let decoder = try openDecoder(s, alpha: alpha)
      var count = 0
      /// Hands every frame the decoder has ready to the writer.
      func receive() throws {
        try receiveFrames(from: decoder, into: decoded, path: s.path) { picture in
          count += 1
          guard count <= s.segment.count else {
            throw VideoError.invalidSettings(
              "\(s.path): decodes to more than \(s.segment.count) frames; its tag says \(s.segment)")
          }
          try copy(picture, into: frame, path: s.path)
          try writer.append(frame)
        }
      }
      while true {
        let status = av_read_frame(s.input.pointer, packet.pointer)
        if status == clibav_eof { break }
        try check(status, "av_read_frame", path: s.path)
        defer { av_packet_unref(packet.pointer) }
        try check(avcodec_send_packet(decoder.pointer, packet.pointer), "avcodec_send_packet", path: s.path)
        try receive()
      }
      try check(avcodec_send_packet(decoder.pointer, nil), "avcodec_send_packet(NULL)", path: s.path)
      try receive()
      guard count == s.segment.count else {
        throw VideoError.invalidSettings("\(s.path): decodes to \(count) frames; its tag says \(s.segment)")
      }
    }
    let written = try writer.finish()
    return JoinedFile(path: output, frames: written.frames, fps: fps, bytes: written.bytes)
  }

  /// Calls `body` with every frame `decoder` has ready, in `frame`, unreferenced after each call.
  private static func receiveFrames(
    from decoder: CodecContext, into frame: Frame, path: String,
    _ body: (UnsafeMutablePointer<AVFrame>) throws -> Void
  ) throws {
    while true {
      let code = avcodec_receive_frame(decoder.pointer, frame.pointer)
      if code == errorAgain || code == errorEOF { return }
      try check(code, "avcodec_receive_frame", path: path)
      defer { av_frame_unref(frame.pointer) }
      try body(frame.pointer)
    }
  }

  /// A decoder for the segment's stream; libvpx for VP9 with alpha, which FFmpeg's own drops.
  private static func openDecoder(_ s: Segment, alpha: Bool) throws -> CodecContext {
    let id = s.parameters.codec_id
    var decoder: UnsafePointer<AVCodec>? = nil
    if id == AV_CODEC_ID_VP9 && alpha { decoder = avcodec_find_decoder_by_name("libvpx-vp9") }
    if decoder == nil { decoder = avcodec_find_decoder(id) }
    guard let decoder else {
      throw VideoError.libav(
        function: "avcodec_find_decoder", code: clibav_error(ENOSYS),
        message: "no decoder for \(String(cString: avcodec_get_name(id)))", path: s.path)
    }
    let context = try CodecContext(codec: decoder, path: s.path)
    try check(
      avcodec_parameters_to_context(context.pointer, s.stream.pointee.codecpar), "avcodec_parameters_to_context",
      path: s.path)
    context.pointer.pointee.thread_count = 1
    context.pointer.pointee.max_pixels = Int64(InputContext.maximumPixels)
    try check(avcodec_open2(context.pointer, decoder, nil), "avcodec_open2", path: s.path)
    return context
  }

  /// A decoded picture's planes, row by row, into `frame`, which must have its size and samples.
  private static func copy(_ f: UnsafeMutablePointer<AVFrame>, into frame: ConvertedFrame, path: String) throws {
    guard f.pointee.width == frame.width, f.pointee.height == frame.height,
      AVPixelFormat(f.pointee.format) == frame.layout.libavFormat
    else {
      let name = av_get_pix_fmt_name(AVPixelFormat(f.pointee.format)).map { String(cString: $0) } ?? "none"
      throw VideoError.invalidSettings(
        "\(path): decodes to \(f.pointee.width)x\(f.pointee.height) \(name) frames; expected \(frame.width)x\(frame.height) \(String(cString: av_get_pix_fmt_name(frame.layout.libavFormat)))"
      )
    }
    let data = [f.pointee.data.0, f.pointee.data.1, f.pointee.data.2, f.pointee.data.3]
    let strides = [f.pointee.linesize.0, f.pointee.linesize.1, f.pointee.linesize.2, f.pointee.linesize.3]
    for (index, plane) in frame.planes.enumerated() {
      guard let source = data[index], Int(strides[index]) >= plane.bytesPerRow else {
        throw VideoError.invalidSettings("\(path): a decoded frame lacks plane \(index)")
      }
      for y in 0..<plane.rows {
        plane.pointer.advanced(by: y * plane.bytesPerRow).copyMemory(
          from: source + y * Int(strides[index]), byteCount: plane.bytesPerRow)
      }
    }
  }

  // MARK: - Y4M

  private static func joinY4M(_ files: [InputFile], into output: String) throws -> JoinedFile {
    struct Part {
      var file: InputFile; var header: String; var headerBytes: Int; var segment: FrameSegment
      /// The segment's frame line ("FRAME XLOOPSMITHTAG=...\n"), the same before every picture.
      var frameLine: Data; var pictureBytes: Int
      var fps: Int
      var path: String { file.path }
      var tag: Substring? {
        String(decoding: frameLine, as: UTF8.self).split(separator: " ").first {
          $0.hasPrefix(FrameSegment.y4mTagKey)
        }.map { $0.dropFirst(FrameSegment.y4mTagKey.count).prefix(16) }
      }
    }
    var parts: [Part] = []
    for file in files {
      let path = file.path
      let handle = FileHandle(fileDescriptor: file.descriptor, closeOnDealloc: false)
      // The stream header (at most 96 bytes, as libav reads it) and the first frame's line (80).
      let start = (try? handle.read(upToCount: 256)) ?? Data()
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
      guard let pictureBytes = y4mPictureBytes(words) else {
        throw VideoError.invalidSettings(
          "\(path): header '\(words.joined(separator: " "))' names no size and samples loopsmith writes; expected a segment from loopsmith render --frames (W, H up to 32768 and C420jpeg or C420p10)"
        )
      }
      let rest = start[(newline + 1)...]
      guard rest.starts(with: Array("FRAME".utf8)), let lineEnd = rest.prefix(80).firstIndex(of: 0x0A) else {
        throw VideoError.invalidSettings("\(path): its first frame does not start with a FRAME line")
      }
      let frameLine = Data(rest[...lineEnd])
      let size = Int(file.size)
      let body = size - headerBytes
      // Every frame is its frame line and one picture of the header's size: a frame of another
      // size (a segment changing size mid-stream) cannot add up.
      guard body == segment.count * (frameLine.count + pictureBytes) else {
        throw VideoError.invalidSettings(
          "\(path): holds \(body) bytes of frames, not \(segment.count) frames of \(frameLine.count + pictureBytes) bytes (its header's size); its tag says \(segment)"
        )
      }
      parts.append(
        Part(
          file: file, header: words.joined(separator: " "), headerBytes: headerBytes, segment: segment,
          frameLine: frameLine, pictureBytes: pictureBytes, fps: fps))
    }
    let first = parts[0]
    for p in parts.dropFirst() where p.header != first.header {
      throw VideoError.invalidSettings(
        "\(p.path): header '\(p.header)' does not match \(first.path)'s '\(first.header)'; expected segments of one render"
      )
    }
    // The preset tag's hash: the whole tag does not fit a Y4M header, so the keys that differ
    // cannot be named as for a container.
    for p in parts.dropFirst() where p.tag != first.tag {
      throw VideoError.invalidSettings(
        "\(p.path): from another render than \(first.path) (their preset tags differ: \(p.tag.map(String.init) ?? "none") against \(first.tag.map(String.init) ?? "none")); expected segments of one render"
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
        let frameBytes = p.frameLine.count + p.pictureBytes
        for i in 0..<p.segment.count {
          let frame = try input.read(upToCount: frameBytes) ?? Data()
          guard frame.count == frameBytes, frame.starts(with: p.frameLine) else {
            throw VideoError.invalidSettings("\(p.path): frame \(i) is not a Y4M frame of \(frameBytes) bytes")
          }
          // The joined file is a whole loop: its frames are plain, as a whole render's.
          try out.write(contentsOf: Data("FRAME\n".utf8))
          try out.write(contentsOf: frame.dropFirst(p.frameLine.count))
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

  /// The bytes of one picture a Y4M header's W, H and C give, or nil for a size or samples
  /// loopsmith does not write (the header is read from the file: each side is bounded first).
  static func y4mPictureBytes(_ words: [Substring]) -> Int? {
    func value(_ key: Character) -> Substring? { words.first { $0.first == key }.map { $0.dropFirst() } }
    guard let w = value("W").flatMap({ Int($0) }), let h = value("H").flatMap({ Int($0) }),
      (1...32768).contains(w), (1...32768).contains(h)
    else { return nil }
    let chroma = 2 * ((w + 1) / 2) * ((h + 1) / 2)
    switch value("C") {
    case "420jpeg", "420", "420mpeg2", "420paldv", nil: return w * h + chroma
    case "420p10": return 2 * (w * h + chroma)
    default: return nil
    }
  }

  private static func fileSize(_ path: String) throws -> Int64 {
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw VideoError.io("\(path): cannot stat: \(String(cString: strerror(errno)))")
    }
    return Int64(info.st_size)
  }
}
