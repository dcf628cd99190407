import CLibAV
import Foundation
import Raster

/// Decodes a file's first video stream back into premultiplied float images, for checks and tests.
///
/// YUV is converted with the matrix the frame is tagged with (BT.709 unless it says BT.601) and
/// its range; VP9 is decoded with libvpx so WebM alpha survives (docs/ENCODING.md, Alpha: FFmpeg's own vp9
/// decoder drops it). Use from one thread.
public final class VideoReader {
  public let path: String
  public let info: StreamInfo
  private let keepAlpha: Bool
  private let input: InputContext
  private let context: CodecContext
  private let streamIndex: Int32
  private let frame: Frame
  private let packet: Packet
  private var scale: ScaleContext?
  /// What `scale` converts: the picture's size and pixel format.
  private var scaleShape: (width: Int, height: Int, format: Int32)?
  /// An animated WebP, read by our own reader (libav 5.1 decodes still WebP only).
  private let animation: AnimatedWebP?
  private var flushed = false
  private var done = false
  /// Frames handed out so far.
  private var decoded = 0

  /// `limit`: the largest file read, in bytes (a user's file: `InputFile.Limit.video`; the loop
  /// report's own lossless references of long full-size loops are larger).
  public init(path: String, keepAlpha: Bool = true, limit: Int64 = InputFile.Limit.video) throws {
    self.path = path
    self.keepAlpha = keepAlpha
    // One open for everything read below: both demuxers and the box reader share the descriptor.
    let file = try InputFile(path: path, limit: limit, what: "video file")
    silenceLibAVLog()
    var info = try Self.inspect(file)
    animation = info.codecName == "webp" ? try AnimatedWebP(file: file, path: path) : nil
    if let animation {
      // libav sees one still picture; the animation's own chunks say what a player shows.
      (info.width, info.height) = (animation.width, animation.height)
      (info.frameCount, info.keyframeCount, info.firstPacketIsKeyframe) = (
        animation.gridFrames, animation.gridFrames, true
      )
      info.frameRate = Rational(animation.fps, 1)
      info.realFrameRate = info.frameRate
      let seconds = Double(animation.frames.reduce(0) { $0 + $1.milliseconds }) / 1000
      (info.formatDuration, info.streamDuration) = (seconds, seconds)
      info.samples.alpha = animation.alpha
      info.pixelFormatName = animation.alpha ? "yuva420p" : "yuv420p"
      (info.comment, info.commentTooLong) = (animation.comment, animation.commentTooLong)
    }
    self.info = info

    input = try InputContext(file: file, formats: .video)
    try input.findStreamInfo(path: path)
    let index = av_find_best_stream(input.pointer, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
    try check(index, "av_find_best_stream", path: path)
    streamIndex = index
    guard let stream = input.pointer.pointee.streams[Int(index)], let parameters = stream.pointee.codecpar else {
      throw VideoError.io("\(path): stream \(index) missing")
    }
    var decoder: UnsafePointer<AVCodec>? = nil
    if parameters.pointee.codec_id == AV_CODEC_ID_VP9 && keepAlpha {
      decoder = avcodec_find_decoder_by_name("libvpx-vp9")
    }
    if decoder == nil { decoder = avcodec_find_decoder(parameters.pointee.codec_id) }
    guard let decoder else {
      throw VideoError.libav(
        function: "avcodec_find_decoder", code: clibav_error(ENOSYS),
        message: "no decoder for \(String(cString: avcodec_get_name(parameters.pointee.codec_id)))", path: path)
    }
    context = try CodecContext(codec: decoder, path: path)
    try check(avcodec_parameters_to_context(context.pointer, parameters), "avcodec_parameters_to_context", path: path)
    context.pointer.pointee.thread_count = 1
    context.pointer.pointee.max_pixels = Int64(InputContext.maximumPixels)  // pictures larger than the header said
    try check(avcodec_open2(context.pointer, decoder, nil), "avcodec_open2", path: path)
    frame = try Frame(path: path)
    packet = try Packet(path: path)
  }

  /// The next frame, or nil after the last one. Every frame has the stream's size (`info`): a
  /// file whose pictures change size mid-stream is refused here, so no caller meets one.
  public func nextFrame() throws -> Image? {
    try StopRequest.check()
    guard let image = try decodeNext() else { return nil }
    guard image.width == info.width, image.height == info.height else {
      throw VideoError.invalidSettings(
        "\(path): frame \(decoded) is \(image.width)x\(image.height), where the stream declares \(info.width)x\(info.height); expected one picture size throughout"
      )
    }
    decoded += 1
    return image
  }

  private func decodeNext() throws -> Image? {
    if let animation { return try animation.nextFrame(decoder: context) { try image(from: $0) } }
    while !done {
      let code = avcodec_receive_frame(context.pointer, frame.pointer)
      if code == errorEOF {
        done = true
        break
      }
      if code == errorAgain {
        try feed()
        continue
      }
      try check(code, "avcodec_receive_frame", path: path)
      defer { av_frame_unref(frame.pointer) }
      return try image(from: frame.pointer)
    }
    return nil
  }

  /// Sends the decoder the next packet of our stream, or the end of the stream.
  private func feed() throws {
    if flushed { return }
    while true {
      let code = av_read_frame(input.pointer, packet.pointer)
      if code == errorEOF {
        flushed = true
        try check(avcodec_send_packet(context.pointer, nil), "avcodec_send_packet(NULL)", path: path)
        return
      }
      try check(code, "av_read_frame", path: path)
      defer { av_packet_unref(packet.pointer) }
      if packet.pointer.pointee.stream_index == streamIndex {
        try check(avcodec_send_packet(context.pointer, packet.pointer), "avcodec_send_packet", path: path)
        return
      }
    }
  }

  // MARK: - Conversion

  private func image(from f: UnsafeMutablePointer<AVFrame>) throws -> Image {
    let width = Int(f.pointee.width)
    let height = Int(f.pointee.height)
    guard width > 0, height > 0, let descriptor = av_pix_fmt_desc_get(AVPixelFormat(rawValue: f.pointee.format)) else {
      throw VideoError.io("\(path): decoded a frame without a size or pixel format")
    }
    let image = Image(width: width, height: height)
    let d = descriptor.pointee
    let flags = Int32(d.flags)
    let planarYUV =
      flags & Int32(AV_PIX_FMT_FLAG_RGB) == 0 && flags & Int32(AV_PIX_FMT_FLAG_PAL) == 0
      && flags & Int32(AV_PIX_FMT_FLAG_BE) == 0 && flags & Int32(AV_PIX_FMT_FLAG_PLANAR) != 0
      && d.nb_components >= 3 && d.comp.0.plane == 0 && d.comp.1.plane == 1 && d.comp.2.plane == 2
      && d.comp.0.depth <= 16
    let format = AVPixelFormat(rawValue: f.pointee.format)
    if planarYUV {
      convertYUV(f, d, into: image)
    } else if [AV_PIX_FMT_RGB24, AV_PIX_FMT_RGBA, AV_PIX_FMT_BGRA].contains(format), let base = f.pointee.data.0 {
      // Exact 8-bit values; swscale widens 255 to 65280, not 65535.
      let channels = format == AV_PIX_FMT_RGB24 ? 3 : 4
      let swap = format == AV_PIX_FMT_BGRA
      for y in 0..<height {
        let row = base + y * Int(f.pointee.linesize.0)
        for x in 0..<width {
          let p = row + x * channels
          let (r, b) = swap ? (p[2], p[0]) : (p[0], p[2])
          let a: Float = channels == 4 && keepAlpha ? Float(p[3]) / 255 : 1
          image[x, y] = Pixel(Float(r) / 255 * a, Float(p[1]) / 255 * a, Float(b) / 255 * a, a)
        }
      }
    } else {
      try convertOther(f, into: image)
    }
    return image
  }

  /// Planar YUV by the inverse of the tagged matrix, nearest chroma sample.
  private func convertYUV(_ f: UnsafeMutablePointer<AVFrame>, _ d: AVPixFmtDescriptor, into image: Image) {
    let depth = Int(d.comp.0.depth)
    let wide = depth > 8
    let s = Float(1 << (depth - 8))
    let full = f.pointee.color_range == AVCOL_RANGE_JPEG
    let bt601 = [AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M].contains(f.pointee.colorspace)
    let kr: Float = bt601 ? 0.299 : BT709.kr
    let kb: Float = bt601 ? 0.114 : BT709.kb
    let kg = 1 - kr - kb
    let (yBlack, yRange, cRange) = full ? (Float(0), 255 * s, 255 * s) : (16 * s, 219 * s, 224 * s)
    let hasAlpha = Int32(d.flags) & Int32(AV_PIX_FMT_FLAG_ALPHA) != 0 && d.nb_components == 4 && keepAlpha
    let alphaMax = Float((1 << depth) - 1)
    let (sx, sy) = (Int(d.log2_chroma_w), Int(d.log2_chroma_h))
    let data = [f.pointee.data.0, f.pointee.data.1, f.pointee.data.2, f.pointee.data.3]
    let stride = [f.pointee.linesize.0, f.pointee.linesize.1, f.pointee.linesize.2, f.pointee.linesize.3].map(Int.init)
    func sample(_ plane: Int, _ x: Int, _ y: Int) -> Float {
      guard let base = data[plane] else { return 0 }
      if wide {
        return Float(UnsafeRawPointer(base + y * stride[plane]).loadUnaligned(fromByteOffset: x * 2, as: UInt16.self))
      }
      return Float(base[y * stride[plane] + x])
    }
    let alphaPlane = Int(d.comp.3.plane)
    for y in 0..<image.height {
      let row = image.row(y)
      for x in 0..<image.width {
        let luma = (sample(0, x, y) - yBlack) / yRange
        let cb = (sample(1, x >> sx, y >> sy) - 128 * s) / cRange
        let cr = (sample(2, x >> sx, y >> sy) - 128 * s) / cRange
        let r = luma + 2 * (1 - kr) * cr
        let b = luma + 2 * (1 - kb) * cb
        let g = (luma - kr * r - kb * b) / kg
        let a = hasAlpha ? sample(alphaPlane, x, y) / alphaMax : 1
        let straight = Pixel(r, g, b, 1).clamped(lowerBound: .zero, upperBound: Pixel(repeating: 1))
        row[x] = Pixel(straight.x * a, straight.y * a, straight.z * a, a)
      }
    }
  }

  /// Everything else (RGB, palettes) through swscale to 16-bit RGBA; no matrix is involved.
  private func convertOther(_ f: UnsafeMutablePointer<AVFrame>, into image: Image) throws {
    let format = AVPixelFormat(rawValue: f.pointee.format)
    // An animated WebP's frames differ in size: a context for each shape.
    if scale == nil || scaleShape.map({ $0 != (image.width, image.height, format.rawValue) }) ?? true {
      scale = try ScaleContext(
        width: image.width, height: image.height, from: format, to: AV_PIX_FMT_RGBA64LE, path: path)
      scaleShape = (image.width, image.height, format.rawValue)
    }
    guard let scale else { return }
    let stride = image.width * 8
    let buffer = UnsafeMutablePointer<UInt16>.allocate(capacity: image.width * image.height * 4)
    defer { buffer.deallocate() }
    var destination: [UnsafeMutablePointer<UInt8>?] = [
      UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: UInt8.self), nil, nil, nil,
    ]
    var destinationStride: [Int32] = [Int32(stride), 0, 0, 0]
    let source: [UnsafePointer<UInt8>?] = [f.pointee.data.0, f.pointee.data.1, f.pointee.data.2, f.pointee.data.3].map {
      $0.map { UnsafePointer($0) }
    }
    let sourceStride = [f.pointee.linesize.0, f.pointee.linesize.1, f.pointee.linesize.2, f.pointee.linesize.3]
    try check(
      sws_scale(scale.pointer, source, sourceStride, 0, Int32(image.height), &destination, &destinationStride),
      "sws_scale", path: path)
    for i in 0..<image.count {
      let v =
        SIMD4<Float>(Float(buffer[i * 4]), Float(buffer[i * 4 + 1]), Float(buffer[i * 4 + 2]), Float(buffer[i * 4 + 3]))
        / 65535
      let a = keepAlpha ? v.w : 1
      image.pixels[i] = Pixel(v.x * a, v.y * a, v.z * a, a)
    }
  }

  // MARK: - Stream facts

  private static func inspect(_ file: InputFile) throws -> StreamInfo {
    let path = file.path
    let input = try InputContext(file: file, formats: .video)
    let fc = input.pointer
    try input.findStreamInfo(path: path)
    let index = av_find_best_stream(fc, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
    try check(index, "av_find_best_stream", path: path)
    guard let stream = fc.pointee.streams[Int(index)], let p = stream.pointee.codecpar else {
      throw VideoError.io("\(path): stream \(index) missing")
    }
    let streamCount = Int(fc.pointee.nb_streams)
    var hasAudio = false
    for i in 0..<streamCount where fc.pointee.streams[i]?.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO {
      hasAudio = true
    }
    func seconds(_ value: Int64, _ base: AVRational) -> Double? {
      value == clibav_nopts ? nil : Double(value) * Double(base.num) / Double(base.den)
    }
    func name(_ text: UnsafePointer<CChar>?) -> String { text.map { String(cString: $0) } ?? "unknown" }

    let packet = try Packet(path: path)
    var count = 0
    var keyframes = 0
    var firstKey = false
    while true {
      let code = av_read_frame(fc, packet.pointer)
      if code == errorEOF { break }
      try check(code, "av_read_frame", path: path)
      if packet.pointer.pointee.stream_index == index {
        let key = packet.pointer.pointee.flags & AV_PKT_FLAG_KEY != 0
        if count == 0 { firstKey = key }
        if key { keyframes += 1 }
        count += 1
      }
      av_packet_unref(packet.pointer)
    }

    let tag = p.pointee.codec_tag
    let tagText = tag == 0 ? "" : String(decoding: (0..<4).map { UInt8((tag >> ($0 * 8)) & 0xff) }, as: UTF8.self)
    let formatName = name(fc.pointee.iformat.pointee.name)
    let isMP4 = formatName.contains("mp4") || formatName.contains("mov")
    let boxes = isMP4 ? MP4Boxes.inspect(descriptor: file.descriptor) : (moovFirst: nil, editListCount: nil)
    let alpha =
      av_dict_get(stream.pointee.metadata, "alpha_mode", nil, 0).map { String(cString: $0.pointee.value) == "1" }
      ?? false
    let timeBase = AVRational(num: 1, den: AV_TIME_BASE)
    // Hostile input: measured before it is copied, at most one byte past the limit.
    var comment: String?
    var commentTooLong = false
    if let entry = av_dict_get(fc.pointee.metadata, "comment", nil, 0), let value = entry.pointee.value {
      if strnlen(value, StreamInfo.commentLimit + 1) > StreamInfo.commentLimit {
        commentTooLong = true
        comment = String(decoding: UnsafeRawBufferPointer(start: value, count: 64), as: UTF8.self)
      } else {
        comment = String(validatingUTF8: value)
      }
    }
    if comment == nil && formatName == "apng" {  // libav leaves text chunks to the decoder (ImageComments)
      (comment, commentTooLong) = ImageComments.pngComment(descriptor: file.descriptor, limit: StreamInfo.commentLimit)
    }
    var info = StreamInfo(
      formatName: formatName,
      codecName: name(avcodec_get_name(p.pointee.codec_id)),
      profileName: avcodec_profile_name(p.pointee.codec_id, p.pointee.profile).map { String(cString: $0) },
      level: p.pointee.level < 0 ? nil : Int(p.pointee.level),
      pixelFormatName: name(av_get_pix_fmt_name(AVPixelFormat(rawValue: p.pointee.format))),
      width: Int(p.pointee.width), height: Int(p.pointee.height),
      frameRate: Rational(Int(stream.pointee.avg_frame_rate.num), Int(stream.pointee.avg_frame_rate.den)),
      realFrameRate: Rational(Int(stream.pointee.r_frame_rate.num), Int(stream.pointee.r_frame_rate.den)),
      frameCount: count, keyframeCount: keyframes, firstPacketIsKeyframe: firstKey,
      formatDuration: seconds(fc.pointee.duration, timeBase),
      streamDuration: seconds(stream.pointee.duration, stream.pointee.time_base),
      formatStartTime: seconds(fc.pointee.start_time, timeBase),
      streamStartTime: seconds(stream.pointee.start_time, stream.pointee.time_base),
      colorPrimaries: name(av_color_primaries_name(p.pointee.color_primaries)),
      colorTransfer: name(av_color_transfer_name(p.pointee.color_trc)),
      colorMatrix: name(av_color_space_name(p.pointee.color_space)),
      colorRange: name(av_color_range_name(p.pointee.color_range)),
      codecTag: tagText, moovBeforeMdat: boxes.moovFirst, editListCount: boxes.editListCount,
      alphaMode: alpha, samples: SampleFormat(of: AVPixelFormat(rawValue: p.pointee.format)), hasAudio: hasAudio,
      streamCount: streamCount)
    (info.comment, info.commentTooLong) = (comment, commentTooLong)
    info.chromaLocation = name(av_chroma_location_name(p.pointee.chroma_location))
    return info
  }
}

extension SampleFormat {
  /// What libav's descriptor gives `format`; 8-bit 4:4:4 without alpha when it has none.
  init(of format: AVPixelFormat) {
    guard let d = av_pix_fmt_desc_get(format)?.pointee else {
      self.init(bitDepth: 8, chromaShiftX: 0, chromaShiftY: 0, alpha: false)
      return
    }
    let flags = UInt64(d.flags)
    self.init(
      bitDepth: Int(d.comp.0.depth), chromaShiftX: Int(d.log2_chroma_w), chromaShiftY: Int(d.log2_chroma_h),
      alpha: flags & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 || flags & UInt64(AV_PIX_FMT_FLAG_PAL) != 0)
  }
}
