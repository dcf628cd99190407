import CLibAV

/// One codec and one muxer writing to a file: the libav half of `VideoWriter`.
final class Encoder {
  let settings: OutputSettings
  /// The file libav writes (the temporary beside the destination); errors name the destination.
  let filePath: String
  let path: String
  let pixelFormat: AVPixelFormat
  /// Whether frames go in as palette indices (GIF: `CodecSpec.indexedColour`).
  var indexedColour: Bool { pixelFormat == AV_PIX_FMT_PAL8 }
  private let output: OutputContext
  private let context: CodecContext
  private let stream: UnsafeMutablePointer<AVStream>
  private let frame: Frame
  private let packet: Packet
  private let audio: AudioEncoder?
  /// The temporary file's descriptor, for fixing a duration after the trailer (LoopTiming).
  private let descriptor: Int32
  private var palette: GIFPalette?
  /// Pixels from frames across the loop, collected before the first frame (GIFPalette.Sampler).
  private var paletteSampler: GIFPalette.Sampler?
  private(set) var framesSent = 0
  /// The header and trailer written: a muxer frees what it holds in its trailer.
  private var headerWritten = false
  private var trailerWritten = false
  private(set) var packetsWritten = 0
  /// Each stream's last decoding time handed to the muxer (`checkTiming`).
  private var lastDTS: [Int32: Int64] = [:]
  /// Copies of the loop's first frames, encoded again after its last so the encoder does not code
  /// the loop's end as a stream's end (`VideoCodec.loopClosingFrames`); their packets are dropped.
  private var closingFrames: [Frame] = []
  /// The first pts of those repeated frames, once they are sent: packets from it on are dropped.
  private var droppedFrom: Int64?
  /// WebP's stills, encoded side by side (StillEncoders), and the next frame to write.
  private var stills: StillEncoders?
  private var nextStill: Int64 = 0

  init(settings: OutputSettings, layout: PixelLayout, temporary: TemporaryOutput) throws {
    self.settings = settings
    let filePath = temporary.path
    self.filePath = filePath
    descriptor = temporary.descriptor
    path = settings.path
    // GIF frames arrive as RGBA and become palette indices here (GIFPalette); JPEG's arrive as RGB
    // and become full-range YUV (JPEGSamples).
    pixelFormat =
      settings.codec.spec.indexedColour
      ? AV_PIX_FMT_PAL8 : settings.codec.spec.fullRangeYUV ? Self.jpegPixelFormat : layout.libavFormat
    let path = settings.path

    output = try OutputContext(muxer: settings.format.spec.muxer, path: filePath)
    let encoderName = settings.codec.spec.encoder
    guard let codec = avcodec_find_encoder_by_name(encoderName) else {
      throw VideoError.libav(
        function: "avcodec_find_encoder_by_name", code: clibav_error(ENOSYS),
        message: "this FFmpeg has no \(encoderName) encoder", path: path)
    }
    frame = try Frame(width: settings.width, height: settings.height, format: pixelFormat, path: path)
    packet = try Packet(path: path)
    context = try Self.openCodec(
      codec, settings: settings, layout: layout, pixelFormat: pixelFormat,
      globalHeader: Int32(output.pointer.pointee.oformat.pointee.flags) & AVFMT_GLOBALHEADER != 0, path: path)
    let c = context.pointer
    if settings.codec == .webp {
      // Each still is encoded whole on one thread: the encoder threads become that many encoders.
      let format = pixelFormat
      let more = try (1..<settings.stillEncoders).map { _ in
        try Self.openCodec(
          codec, settings: settings, layout: layout, pixelFormat: format, globalHeader: false, path: path)
      }
      stills = StillEncoders(encoders: [context] + more, path: path)
    }

    guard let stream = avformat_new_stream(output.pointer, nil) else {
      throw VideoError.outOfMemory("avformat_new_stream", path: path)
    }
    self.stream = stream
    try check(
      avcodec_parameters_from_context(stream.pointee.codecpar, c), "avcodec_parameters_from_context", path: path)
    stream.pointee.time_base = LoopTiming.streamTimeBase(settings)  // a hint; the muxer may pick its own
    // The muxing API leaves the rate unset; WebM needs it for DefaultDuration (docs/ENCODING.md, Seamless loops).
    stream.pointee.avg_frame_rate = c.pointee.framerate
    stream.pointee.r_frame_rate = c.pointee.framerate
    if let tag = settings.codec.spec.codecTag {
      // FFmpeg 5.1 tags HEVC 'hev1', which QuickTime and iOS refuse (docs/ENCODING.md, MP4 and MOV).
      let c = Array(tag.utf8).map { CChar(bitPattern: $0) }
      stream.pointee.codecpar.pointee.codec_tag = clibav_tag(c[0], c[1], c[2], c[3])
    }

    // Opt-in sound: players loop mismatched audio and video lengths badly (docs/ENCODING.md, Seamless loops).
    if let track = settings.audio {
      audio = try AudioEncoder(track: track, settings: settings, output: output, path: path)
    } else {
      audio = nil
    }

    output.pointer.pointee.flags |= AVFMT_FLAG_BITEXACT  // docs/ENCODING.md, Determinism
    if let comment = Self.containerComment(settings) {
      av_dict_set(&output.pointer.pointee.metadata, FrameSegment.metadataKey, comment, 0)
    }
    // Through the descriptor the temporary was created with, never by name (a symlink swapped in
    // at the name would be followed).
    try output.attach(descriptor: temporary.descriptor, path: path)
    let muxerOptions = Options()
    for option in LoopTiming.muxerOptions(settings) {
      muxerOptions.set(option.name, option.value)
    }
    try check(avformat_write_header(output.pointer, &muxerOptions.pointer), "avformat_write_header", path: path)
    headerWritten = true
    try muxerOptions.requireAllUsed(by: "avformat_write_header (\(settings.format.spec.muxer))", path: path)
  }

  deinit {
    // FFmpeg 5.1's GIF muxer holds the last packet until its trailer and has no deinit, so a write
    // that failed (a full disk) or a cancelled render would leak it; its trailer frees it. What it
    // writes goes to a temporary that is about to be deleted.
    if headerWritten && !trailerWritten && settings.format == .gif { av_write_trailer(output.pointer) }
  }

  /// An encoder set up for `settings` and opened.
  private static func openCodec(
    _ codec: UnsafePointer<AVCodec>, settings: OutputSettings, layout: PixelLayout, pixelFormat: AVPixelFormat,
    globalHeader: Bool, path: String
  ) throws -> CodecContext {
    let context = try CodecContext(codec: codec, path: path)
    let c = context.pointer
    c.pointee.width = Int32(settings.width)
    c.pointee.height = Int32(settings.height)
    c.pointee.pix_fmt = pixelFormat
    c.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
    // Frame i has pts i in a 1/fps time base (docs/ENCODING.md, Seamless loops).
    c.pointee.time_base = AVRational(num: 1, den: Int32(settings.fps))
    c.pointee.framerate = AVRational(num: Int32(settings.fps), den: 1)
    // Automatic thread counts follow the machine, and so would the bytes (docs/ENCODING.md, Determinism).
    c.pointee.thread_count = Int32(settings.threads)
    // No version strings or random ids in the bitstream (docs/ENCODING.md, Determinism).
    c.pointee.flags |= Int32(AV_CODEC_FLAG_BITEXACT)
    if globalHeader {
      c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER)  // avc1, not avc3 (docs/ENCODING.md, MP4 and MOV)
    }
    if layout.isYUV {  // tag what FrameConverter computes (docs/ENCODING.md, Colour)
      c.pointee.color_primaries = AVCOL_PRI_BT709
      c.pointee.color_trc = AVCOL_TRC_BT709
      c.pointee.colorspace = AVCOL_SPC_BT709
      c.pointee.color_range = AVCOL_RANGE_MPEG
      c.pointee.chroma_sample_location = layout.chromaLocation
    }
    if settings.codec.spec.fullRangeYUV {  // JFIF: BT.601, full range
      c.pointee.colorspace = AVCOL_SPC_BT470BG
      c.pointee.color_range = AVCOL_RANGE_JPEG
    }
    let options = Options()
    try Self.configureCodec(c, options, settings)
    // SVT-AV1 run by root would put this thread and its own on real-time priority (CLibAV's shim).
    if settings.codec == .av1 { _ = clibav_refuse_realtime_priority() }
    try check(avcodec_open2(c, codec, &options.pointer), "avcodec_open2", path: path)
    try options.requireAllUsed(by: "avcodec_open2 (\(settings.codec.spec.encoder))", path: path)
    return context
  }

  /// What the mjpeg encoder takes: 4:4:4, no chroma halved (docs/ENCODING.md, JPEG).
  static let jpegPixelFormat = AV_PIX_FMT_YUVJ444P
  /// The mjpeg quantiser scale: 2 of 1 (best) to 31 (docs/ENCODING.md, JPEG).
  static let jpegQuantiser = 2

  /// The GOP length: the whole loop, so the only key frame is frame 0 (docs/ENCODING.md, Seamless loops).
  /// Very long loops get the largest divisor of N not above 600, so seeking still works.
  static func gopSize(_ n: Int) -> Int {
    if n <= 600 { return n }
    return (1...600).reversed().first { n % $0 == 0 } ?? 600
  }

  /// x264 zones that hide the key-frame pulse at a small loop's seam (docs/ENCODING.md, Seams), or nil.
  ///
  /// Frame 0 is coded afresh from its source while the frame before the seam ends a chain of
  /// predicted frames that lag theirs, so in a slow loop the seam steps by the difference of two
  /// unrelated errors. Bringing both sides close to their sources hides it: frame 0 at 8 times the
  /// rate factor and the last 16 frames (a quarter of a short loop) ramping up to it, so the error
  /// shrinks a little each frame instead of jumping once. That costs 1.3 to 2.3 times the bytes of a
  /// small file, but triples a large slow one (its I-frame is most of the file), whose seam passes
  /// without the zones: only frames up to 320x320 pixels get them.
  static func seamZones(frameCount n: Int, pixels: Int) -> String? {
    guard n >= 8, pixels <= 320 * 320 else { return nil }
    return rampZones(frameCount: n, top: 8, ramp: min(16, n / 4))
  }

  /// x265 zones for the seam (docs/ENCODING.md, Seams), or nil: frame 0 at 4 times the rate
  /// factor and the last 12 frames (an eighth of a short loop) ramping up to it, at every size.
  ///
  /// Untuned, x265 steps into the key frame by a little more than the source's motion on slow
  /// loops (clear night at 64x112, 4 f/s: 1.29 codes against the source's 0.18; fog at 180x320:
  /// 1.37 against 0.13). The ramp brings the last frames close to their sources, as x264's does;
  /// frame 0's own factor alone changed nothing measurable. It costs 2-10% of the bytes at
  /// 180x320 (crf 18-24), so unlike x264's it has no size limit.
  static func hevcSeamZones(frameCount n: Int) -> String? {
    guard n >= 8 else { return nil }
    return rampZones(frameCount: n, top: 4, ramp: min(12, n / 8))
  }

  /// x265 parameters for a frame at most one 64-pixel CTU wide, "" for a wider one
  /// (docs/ENCODING.md, Determinism). libx265 3.5 reads memory it never wrote when the picture is
  /// one CTU wide, so the bytes of an encode depended on what the process had done before (a
  /// batch's third file of three equal presets differed; the encoded-loop test failed now and
  /// then): the largest CTU that leaves at least two across (32 up to 64 pixels, 16 up to 32)
  /// makes them repeat. And below 64 pixels (fewer than four 8x8 blocks across its half-size
  /// lookahead picture) its cu-tree's vector code writes past a buffer sized for those blocks
  /// (valgrind: invalid writes in `Lookahead::cuTree` at 16-48 pixels wide), which aborted a
  /// batch ("free(): invalid next size"); cu-tree is off there. A frame 16 pixels wide (libx265's
  /// least) is one CTU of the smallest size: its bytes may still differ from process to process.
  static func narrowFrameParameters(width: Int) -> String {
    guard width <= 64 else { return "" }
    return ":ctu=\(width > 32 ? 32 : 16)" + (width < 64 ? ":cutree=0" : "")
  }

  /// Zones in the x264/x265 syntax ("first,last,b=factor", one frame each): frame 0 at `top`
  /// times the rate factor and the last `ramp` frames rising linearly up to it.
  static func rampZones(frameCount n: Int, top: Double, ramp: Int) -> String {
    var zones = ["0,0,b=\(ParameterFormat.fixed(top))"]
    for j in 0..<ramp {
      let frame = n - ramp + j
      zones.append("\(frame),\(frame),b=\(ParameterFormat.fixed(1 + (top - 1) * Double(j + 1) / Double(ramp)))")
    }
    return zones.joined(separator: "/")
  }

  private static func configureCodec(
    _ c: UnsafeMutablePointer<AVCodecContext>, _ options: Options, _ settings: OutputSettings
  ) throws {
    let threads = settings.threads
    // A segment keeps the whole loop's interval, so every segment's parameter sets are the same.
    let gopSize = Self.gopSize(settings.segment?.total ?? settings.frameCount)
    c.pointee.gop_size = Int32(gopSize)
    // The repeated frames after the loop must not start a new GOP (a key frame at N would end the
    // loop in a shortened mini-GOP again).
    if settings.loopClosingFrames > 0 { c.pointee.gop_size = Int32(gopSize + settings.loopClosingFrames) }
    if let quality = settings.codec.spec.quality {
      options.set(quality.option, String(settings.crf ?? quality.defaultValue))
    }
    switch settings.codec {
    case .h264:
      options.set("preset", settings.x264Preset)
      options.set("profile", "high")
      // B-frames stay on (about 30 % smaller); negative composition offsets, not an edit list,
      // keep frame 0 at t = 0 (LoopTiming; docs/ENCODING.md, Exact durations).
      // No scene-cut key frames, pinned threads, bytes independent of the CPU (docs/ENCODING.md,
      // Seamless loops and Determinism).
      let lookahead = max(1, threads / 4)
      let pixels = settings.width * settings.height
      let seam =
        settings.segment.map { Self.seamZones(segment: $0, pixels: pixels) }
        ?? Self.seamZones(frameCount: settings.frameCount, pixels: pixels)
      // Not part of the loop tuning (`tunesSeam`): the "off" rows of docs/ENCODING.md keep them.
      let zones = settings.loops ? seam.map { ":zones=" + $0 } ?? "" : ""
      options.set(
        "x264-params",
        "scenecut=0:keyint=\(gopSize):min-keyint=\(gopSize):threads=\(threads):lookahead-threads=\(lookahead):cpu-independent=1:aq-mode=3\(zones)"
      )
    case .hevc:
      // A closed GOP of the loop, no scene cuts, pinned pools and frame threads (docs/ENCODING.md,
      // Seamless loops and Determinism).
      // A frame one 64-pixel CTU wide or narrower is coded with smaller CTUs and no cu-tree
      // (`narrowFrameParameters`): libx265 3.5 overruns a heap buffer there or reads memory it
      // never wrote, so encodes in one process differed and a batch crashed.
      // One frame thread: with more, libx265 3.5's rate control can wait forever in
      // rateControlEnd for a frame encoder's start (a race between frame threads and the
      // lookahead, seen hanging a 128x128 encode with two); the pools still spread each frame's
      // rows (wavefront) over the threads.
      let frameThreads = 1
      // The seam zones (docs/ENCODING.md, Seams) belong to the loop tuning: `loopTuning = false`
      // leaves them out, to measure against, and a clip that does not loop has no seam.
      var zones = ""
      if settings.tunesSeam,
        let z = settings.segment.map({ Self.seamZones(segment: $0, codec: .hevc, pixels: 0) })
          ?? Self.hevcSeamZones(frameCount: settings.frameCount)
      {
        zones = ":zones=" + z
      }
      options.set(
        "x265-params",
        "keyint=\(gopSize):min-keyint=\(gopSize):scenecut=0:open-gop=0:pools=\(threads):frame-threads=\(frameThreads):log-level=error\(Self.narrowFrameParameters(width: settings.width))\(zones)"
      )
    case .vp9:
      c.pointee.bit_rate = 0  // constant quality (docs/ENCODING.md, Codecs)
      options.set("row-mt", "1")
      let tiles = threads >= 4 ? 2 : threads >= 2 ? 1 : 0
      options.set("tile-columns", String(tiles))
      options.set("deadline", "good")
      options.set("cpu-used", "2")
      if settings.carriesAlpha {
        // "Transparency encoding with auto_alt_ref does not work" (docs/ENCODING.md, Alpha).
        options.set("auto-alt-ref", "0")
      }
    case .av1:
      options.set("preset", "8")
      options.set("svtav1-params", "scd=0:lp=\(threads)")
    case .prores:
      options.set("profile", "4444")
      options.set("alpha_bits", settings.carriesAlpha ? "16" : "0")
      options.set("vendor", "apl0")
    case .png, .apng:
      c.pointee.gop_size = 0
      if settings.codec == .apng { options.set("pred", "mixed") }  // 36% smaller than the default none
    case .webp:
      options.set("lossless", "0")
    case .gif:
      break
    case .jpeg:
      // A fixed quantiser scale (docs/ENCODING.md, JPEG): qmin = qmax pins it, whatever the frame's
      // own quality field says; the optimal Huffman tables are libav's default.
      c.pointee.gop_size = 0
      c.pointee.flags |= Int32(AV_CODEC_FLAG_QSCALE)
      c.pointee.global_quality = Int32(FF_QP2LAMBDA) * Int32(Self.jpegQuantiser)
      (c.pointee.qmin, c.pointee.qmax) = (Int32(Self.jpegQuantiser), Int32(Self.jpegQuantiser))
    case .rawvideo:
      break
    }
    Self.applyCodecOptions(settings, options)
  }

  /// The loop tuning and extra options (OutputSettings.codecOptions): appended to the encoder's
  /// parameter string where it has one (later pairs win), else set as AVOptions.
  private static func applyCodecOptions(_ settings: OutputSettings, _ options: Options) {
    let tuning = settings.codecOptions
    guard !tuning.isEmpty else { return }
    if let key = settings.codec.parameterString {
      let base = av_dict_get(options.pointer, key, nil, 0).map { String(cString: $0.pointee.value) }
      let pairs = tuning.map { "\($0.name)=\($0.value)" }
      options.set(key, ((base.map { [$0] } ?? []) + pairs).joined(separator: ":"))
    } else {
      for option in tuning { options.set(option.name, option.value) }
    }
  }

  /// Encodes one converted frame as frame number `framesSent`.
  func encode(_ converted: ConvertedFrame) throws {
    let f = frame.pointer
    try check(av_frame_make_writable(f), "av_frame_make_writable", path: path)
    if indexedColour {
      try fillPaletteFrame(f, from: converted)
    } else if settings.codec.spec.fullRangeYUV {
      try fillJPEGFrame(f, from: converted)
    } else {
      try copyPlanes(f, from: converted)
    }
    f.pointee.pts = Int64(framesSent)
    if converted.layout.isYUV {  // the colour tags on every frame too (docs/ENCODING.md, Colour)
      f.pointee.color_primaries = AVCOL_PRI_BT709
      f.pointee.color_trc = AVCOL_TRC_BT709
      f.pointee.colorspace = AVCOL_SPC_BT709
      f.pointee.color_range = AVCOL_RANGE_MPEG
      f.pointee.chroma_location = converted.layout.chromaLocation
    }
    if closingFrames.count < min(settings.loopClosingFrames, settings.frameCount) {
      let copy = try Frame(width: Int(f.pointee.width), height: Int(f.pointee.height), format: pixelFormat, path: path)
      try check(av_frame_copy(copy.pointer, f), "av_frame_copy", path: path)
      try check(av_frame_copy_props(copy.pointer, f), "av_frame_copy_props", path: path)
      closingFrames.append(copy)
    }
    if let stills {
      try stills.submit(f, index: Int64(framesSent))
      framesSent += 1
      try writeStills()
      return
    }
    try check(avcodec_send_frame(context.pointer, f), "avcodec_send_frame", path: path)
    framesSent += 1
    try drain()
    try encodeAudio(final: false)
  }

  /// Writes the stills whose encodes have finished, in frame order.
  private func writeStills() throws {
    while let still = stills?.take(nextStill) {
      nextStill += 1
      try write(still.pointer)
    }
  }

  /// The converted planes, row by row, into the frame's buffers.
  private func copyPlanes(_ f: UnsafeMutablePointer<AVFrame>, from converted: ConvertedFrame) throws {
    try withUnsafeBytes(of: &f.pointee.data) { data in
      try withUnsafeBytes(of: &f.pointee.linesize) { linesizes in
        let pointers = data.bindMemory(to: UnsafeMutablePointer<UInt8>?.self)
        let strides = linesizes.bindMemory(to: Int32.self)
        for (index, plane) in converted.planes.enumerated() {
          guard let destination = pointers[index] else {
            throw VideoError.libav(
              function: "av_frame_get_buffer", code: clibav_error(EINVAL), message: "frame plane \(index) missing",
              path: path)
          }
          let stride = Int(strides[index])
          for y in 0..<plane.rows {
            (destination + y * stride).update(
              from: plane.pointer.advanced(by: y * plane.bytesPerRow).assumingMemoryBound(to: UInt8.self),
              count: plane.bytesPerRow)
          }
        }
      }
    }
  }

  /// The converted RGB as full-range YUV planes, for the mjpeg encoder.
  private func fillJPEGFrame(_ f: UnsafeMutablePointer<AVFrame>, from converted: ConvertedFrame) throws {
    let plane = converted.planes[0]
    guard let y = f.pointee.data.0, let cb = f.pointee.data.1, let cr = f.pointee.data.2 else {
      throw VideoError.libav(
        function: "av_frame_get_buffer", code: clibav_error(EINVAL), message: "YUV frame without planes", path: path)
    }
    JPEGSamples.fill(
      rgb: plane.pointer.assumingMemoryBound(to: UInt8.self), rgbBytesPerRow: plane.bytesPerRow,
      width: converted.width, rows: converted.height, planes: (y, cb, cr),
      strides: (Int(f.pointee.linesize.0), Int(f.pointee.linesize.1), Int(f.pointee.linesize.2)))
    f.pointee.colorspace = AVCOL_SPC_BT470BG
    f.pointee.color_range = AVCOL_RANGE_JPEG
  }

  /// Adds a frame's pixels to the GIF palette; only before the first frame is encoded.
  func addPaletteSample(_ converted: ConvertedFrame) {
    guard indexedColour, framesSent == 0 else { return }
    var sampler =
      paletteSampler ?? GIFPalette.Sampler(keepAlpha: settings.carriesAlpha, frames: GIFPalette.Sampler.frames)
    let plane = converted.planes[0]
    sampler.add(
      rgba: plane.pointer.assumingMemoryBound(to: UInt8.self), bytesPerRow: plane.bytesPerRow,
      width: converted.width, height: converted.height)
    paletteSampler = sampler
  }

  /// Palette indices and the palette, for the GIF encoder.
  private func fillPaletteFrame(_ f: UnsafeMutablePointer<AVFrame>, from converted: ConvertedFrame) throws {
    let plane = converted.planes[0]
    let rgba = UnsafePointer(plane.pointer.assumingMemoryBound(to: UInt8.self))
    guard let indices = f.pointee.data.0, let paletteData = f.pointee.data.1 else {
      throw VideoError.libav(
        function: "av_frame_get_buffer", code: clibav_error(EINVAL), message: "PAL8 frame without planes", path: path)
    }
    let palette =
      self.palette ?? paletteSampler.map(GIFPalette.init)
      ?? GIFPalette(
        rgba: rgba, bytesPerRow: plane.bytesPerRow, width: converted.width, height: converted.height,
        keepAlpha: settings.carriesAlpha)
    self.palette = palette
    paletteSampler = nil
    palette.map(
      rgba: rgba, bytesPerRow: plane.bytesPerRow, width: converted.width, height: converted.height,
      into: indices, indexBytesPerRow: Int(f.pointee.linesize.0))
    let entries = UnsafeMutableRawPointer(paletteData).assumingMemoryBound(to: UInt32.self)
    for i in 0..<256 { entries[i] = palette.entries[i] }
  }

  /// Audio up to the end of the frames sent so far, so the muxer interleaves evenly.
  private func encodeAudio(final: Bool) throws {
    guard let audio else { return }
    let until = framesSent * AudioEncoder.sampleRate / settings.fps
    try audio.encode(upTo: until, final: final) { packet in
      try checkTiming(packet, "audio")
      try check(av_interleaved_write_frame(output.pointer, packet), "av_interleaved_write_frame (audio)", path: path)
    }
  }

  /// Writes every packet the encoder has ready.
  private func drain(interrupt: () throws -> Void = {}) throws {
    while true {
      try interrupt()
      let code = avcodec_receive_packet(context.pointer, packet.pointer)
      if code == errorAgain || code == errorEOF { return }  // wants input, or done
      try check(code, "avcodec_receive_packet", path: path)
      if let droppedFrom, packet.pointer.pointee.pts >= droppedFrom {
        av_packet_unref(packet.pointer)  // a repeated frame after the loop's end
        continue
      }
      try write(packet.pointer)
    }
  }

  /// Times a video packet from the encoder and hands it to the muxer.
  private func write(_ p: UnsafeMutablePointer<AVPacket>) throws {
    LoopTiming.retime(
      p, settings: settings, codecTimeBase: context.pointer.pointee.time_base, streamTimeBase: stream.pointee.time_base)
    p.pointee.stream_index = stream.pointee.index
    try checkTiming(p, "video")
    packetsWritten += 1
    try check(av_interleaved_write_frame(output.pointer, p), "av_interleaved_write_frame", path: path)
  }

  /// Refuses a packet whose times the muxer cannot index: no presentation or decoding time, a
  /// decoding time not after the stream's last or after the presentation time, a video frame
  /// decoded more than 16 frames (libav's largest reordering) before it is shown, or a negative
  /// duration. FFmpeg 5.1's MP4 muxer asserts (aborting the process) when a sample's duration
  /// comes out negative; an encoder that hands back such a packet fails the render with this
  /// error instead (docs/ENCODING.md, Packet times).
  private func checkTiming(_ p: UnsafeMutablePointer<AVPacket>, _ what: String) throws {
    let (pts, dts, duration) = (p.pointee.pts, p.pointee.dts, p.pointee.duration)
    let last = lastDTS[p.pointee.stream_index]
    let earliest =
      what == "video"
      ? pts - av_rescale_q(16, AVRational(num: 1, den: Int32(settings.fps)), stream.pointee.time_base) : pts
    guard pts != clibav_nopts, dts != clibav_nopts, last.map({ dts > $0 }) ?? true, dts <= pts, dts >= earliest,
      duration >= 0
    else {
      throw VideoError.libav(
        function: "avcodec_receive_packet", code: clibav_error(EINVAL),
        message:
          "the encoder returned a \(what) packet timed pts \(pts), dts \(dts) (the last \(last.map(String.init) ?? "none")), duration \(duration); expected a decoding time after the last, at most 16 frames before the presentation time",
        path: path)
    }
    lastDTS[p.pointee.stream_index] = dts
  }

  /// Flushes the encoder (docs/ENCODING.md, Seamless loops), checks that every frame became a packet,
  /// writes the
  /// trailer and closes the file.
  func finish(interrupt: () throws -> Void = {}) throws {
    if !closingFrames.isEmpty, framesSent == settings.frameCount {
      // The loop's start again after its end (VideoCodec.loopClosingFrames): the encoder codes the
      // last frames inside a whole mini-GOP that leads on into frame 0's picture; drain() drops
      // every packet from pts N on, and no frame before N needs them to decode.
      droppedFrom = Int64(framesSent)
      for j in 0..<settings.loopClosingFrames {
        let f = closingFrames[j % closingFrames.count].pointer
        f.pointee.pts = Int64(framesSent + j)
        try check(avcodec_send_frame(context.pointer, f), "avcodec_send_frame", path: path)
        try drain(interrupt: interrupt)
      }
    }
    closingFrames = []
    if let stills {
      try stills.finish()
      try writeStills()
    } else {
      try check(avcodec_send_frame(context.pointer, nil), "avcodec_send_frame(NULL)", path: path)
      try drain(interrupt: interrupt)
    }
    if packetsWritten != framesSent {
      throw VideoError.libav(
        function: "avcodec_receive_packet", code: clibav_error(EINVAL),
        message: "the encoder returned \(packetsWritten) packets for \(framesSent) frames", path: path)
    }
    try encodeAudio(final: true)
    trailerWritten = true
    try check(av_write_trailer(output.pointer), "av_write_trailer", path: path)
    if let pb = output.pointer.pointee.pb, pb.pointee.error < 0 {
      try check(pb.pointee.error, "avio_write", path: path)
    }
    try output.closeFile(path: path)
    if settings.format == .webp {
      do {
        try WebPFrames.replaceWholeFrames(descriptor: descriptor, frameCount: framesSent, alpha: settings.carriesAlpha)
      } catch let error as VideoError {
        throw VideoError.io("\(path): \(error)")
      }
    }
    // libav 5.1's GIF, APNG and WebP muxers write no comment: it goes in afterwards (ImageComments).
    if let comment = Self.containerComment(settings), [.gif, .apng, .webp].contains(settings.format) {
      do {
        try ImageComments.insert(comment, format: settings.format, descriptor: descriptor)
      } catch let error as VideoError {
        throw VideoError.io("\(path): \(error)")
      }
    }
    if settings.format == .webm && audio != nil {
      do {
        try LoopTiming.setMatroskaDuration(
          descriptor: descriptor, seconds: Double(settings.frameCount) / Double(settings.fps))
      } catch let error as VideoError {
        throw VideoError.io("\(path): \(error)")
      }
    }
  }

  /// The file's comment: the preset tag of a whole loop; a segment's frame range, then the tag.
  static func containerComment(_ settings: OutputSettings) -> String? {
    if let segment = settings.segment { return segment.comment(presetTag: settings.comment) }
    return settings.comment
  }
}

extension PixelLayout {
  var libavFormat: AVPixelFormat {
    switch self {
    case .yuv420p: AV_PIX_FMT_YUV420P
    case .yuv420p10: AV_PIX_FMT_YUV420P10LE
    case .yuva420p: AV_PIX_FMT_YUVA420P
    case .yuva444p10: AV_PIX_FMT_YUVA444P10LE
    case .rgb24: AV_PIX_FMT_RGB24
    case .rgba: AV_PIX_FMT_RGBA
    case .bgra: AV_PIX_FMT_BGRA
    }
  }

  /// Where FrameConverter puts chroma: 4:2:0 in the centre of each 2x2 block, which H.264's VUI,
  /// the Matroska Colour element and Y4M's C420jpeg can say, and which the decoders measured assume
  /// whatever is said (docs/ENCODING.md, Chroma siting). 4:4:4 and RGB have no siting.
  var chromaLocation: AVChromaLocation {
    switch self {
    case .yuv420p, .yuv420p10, .yuva420p: AVCHROMA_LOC_CENTER
    case .yuva444p10, .rgb24, .rgba, .bgra: AVCHROMA_LOC_UNSPECIFIED
    }
  }

  var isYUV: Bool {
    switch self {
    case .yuv420p, .yuv420p10, .yuva420p, .yuva444p10: true
    case .rgb24, .rgba, .bgra: false
    }
  }
}

/// Numbers for encoder option strings, the same text on every machine and locale.
enum ParameterFormat {
  /// Two decimals: 2.75.
  static func fixed(_ x: Double) -> String {
    let hundredths = Int((x * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
  }
}
