import Foundation

// The table of formats: one row per container (`OutputFormat.spec`) and one per codec
// (`VideoCodec.spec`). The settings checks, the encoder, the converter, the audio track, the
// gallery, the preset schema and the help all read these rows, so a new format is a new case,
// its row and its encoder setup (docs/ADDING-A-FORMAT.md); the switches below make the compiler
// ask for the row, and FormatTableTests check that each row holds what the others read.

/// The kind of file written, picked from the output path's extension.
public enum OutputFormat: String, CaseIterable, Sendable {
  case mp4, webm, mov, png, gif, apng, webp, y4m
  case jpg

  /// Other extensions that name a format: `.jpeg` is a JPEG as `.jpg` is.
  public static let aliases: [String: OutputFormat] = ["jpeg": .jpg]

  /// Every extension a path may end in, the aliases last: "mp4", ..., "jpg", "jpeg".
  public static var extensions: [String] { allCases.map(\.rawValue) + aliases.keys.sorted() }

  /// The format for `path`'s extension, case-insensitive; `-` means Y4M on stdout.
  /// Nil when the extension is none of the formats.
  public init?(path: String) {
    if path == "-" { self = .y4m; return }
    guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
    let ext = path[path.index(after: dot)...].lowercased()
    guard let format = OutputFormat(rawValue: ext) ?? Self.aliases[ext] else { return nil }
    self = format
  }

  /// Whether the format holds a sequence of frames (a PNG holds one still).
  public var isAnimated: Bool { spec.isAnimated }

  /// What the container is and holds.
  public var spec: ContainerSpec {
    switch self {
    case .mp4:
      ContainerSpec(
        muxer: "mp4", codecs: [.h264, .hevc, .av1], mimeType: "video/mp4", page: .video, audioEncoder: "aac",
        isAnimated: true, loop: nil, muxerOptions: ContainerSpec.movOptions)
    case .webm:
      ContainerSpec(
        muxer: "webm", codecs: [.vp9, .av1], mimeType: "video/webm", page: .video, audioEncoder: "libopus",
        isAnimated: true, loop: nil,
        muxerOptions: { _ in [MuxerOption("cues_to_front", "1")] })  // seeking works before the file has loaded
    case .mov:
      ContainerSpec(
        muxer: "mov", codecs: [.prores, .h264, .hevc], mimeType: "video/quicktime", page: .video,
        audioEncoder: "aac", isAnimated: true, loop: nil, muxerOptions: ContainerSpec.movOptions)
    case .png:
      // image2pipe writes the one packet as it is.
      ContainerSpec(
        muxer: "image2pipe", codecs: [.png], mimeType: "image/png", page: .image, audioEncoder: nil,
        isAnimated: false, loop: nil, muxerOptions: { _ in [] })
    case .gif:
      ContainerSpec(
        muxer: "gif", codecs: [.gif], mimeType: "image/gif", page: .image, audioEncoder: nil, isAnimated: true,
        loop: MuxerOption("loop", "0"), muxerOptions: { _ in [] })
    case .apng:
      // The APNG muxer's default plays once.
      ContainerSpec(
        muxer: "apng", codecs: [.apng], mimeType: "image/apng", page: .image, audioEncoder: nil, isAnimated: true,
        loop: MuxerOption("plays", "0"), muxerOptions: { _ in [] })
    case .webp:
      // The WebP muxer's default plays once.
      ContainerSpec(
        muxer: "webp", codecs: [.webp], mimeType: "image/webp", page: .image, audioEncoder: nil, isAnimated: true,
        loop: MuxerOption("loop", "0"), muxerOptions: { _ in [] })
    case .y4m:
      ContainerSpec(
        muxer: "yuv4mpegpipe", codecs: [.rawvideo], mimeType: "video/x-yuv4mpeg", page: .link, audioEncoder: nil,
        isAnimated: true, loop: nil, muxerOptions: { _ in [] })
    case .jpg:
      // A poster or still for pages and apps that want JPEG; image2pipe writes the one packet as it is.
      ContainerSpec(
        muxer: "image2pipe", codecs: [.jpeg], mimeType: "image/jpeg", page: .image, audioEncoder: nil,
        isAnimated: false, loop: nil, muxerOptions: { _ in [] })
    }
  }
}

/// The codec inside the file.
public enum VideoCodec: String, CaseIterable, Sendable {
  case h264, hevc, vp9, av1, prores, png, gif, apng, webp, rawvideo
  case jpeg

  /// Whether the codec stores YUV 4:2:0 (both sizes must then be even).

  /// What the codec takes and how it is set up.
  public var spec: CodecSpec {
    switch self {
    case .h264:
      // Level 5.2 holds 4096x2304; x264 picks the level from the size. CRF 0 is lossless, which
      // the High profile cannot carry (avcodec_open2 fails), hence 1...51.
      CodecSpec(
        encoder: "libx264", libavName: "h264", layouts: .yuv420(tenBit: false, alpha: false),
        quality: Quality(option: "crf", range: 1...51, defaultValue: 18, levels: (high: 14, small: 24)), minimumSide: 2,
        maximumSide: 4096, codecsParameter: CodecSpec.avc)
    case .hevc:
      // libx265 3.5 refuses a side below 16 pixels ("Invalid argument").
      CodecSpec(
        encoder: "libx265", libavName: "hevc", layouts: .yuv420(tenBit: true, alpha: false),
        quality: Quality(option: "crf", range: 0...51, defaultValue: 14, levels: (high: 11, small: 20)),
        minimumSide: 16, maximumSide: 8192, codecTag: "hvc1", codecsParameter: CodecSpec.hvc)
    case .vp9:
      // Browsers decode VP9 alpha only in Profile 0, so alpha is 8-bit only.
      CodecSpec(
        encoder: "libvpx-vp9", libavName: "vp9", layouts: .yuv420(tenBit: true, alpha: true),
        quality: Quality(option: "crf", range: 0...63, defaultValue: 16, levels: (high: 12, small: 24)), minimumSide: 2,
        maximumSide: 16384, codecsParameter: CodecSpec.vp09)
    case .av1:
      // SVT-AV1 1.4 refuses a side below 64 pixels or above 8192 (16384 in later versions).
      CodecSpec(
        encoder: "libsvtav1", libavName: "av1", layouts: .yuv420(tenBit: true, alpha: false),
        quality: Quality(option: "crf", range: 0...63, defaultValue: 16, levels: (high: 10, small: 25)),
        minimumSide: 64, maximumSide: 8192, codecsParameter: CodecSpec.av01)
    case .prores:
      // ProRes 4444 always stores 10-bit 4:4:4 with an alpha plane; alpha_bits 0 leaves it out.
      CodecSpec(
        encoder: "prores_ks", libavName: "prores",
        layouts: Layouts(eight: .yuva444p10, ten: .yuva444p10, alphaEight: .yuva444p10, alphaTen: .yuva444p10),
        quality: nil, minimumSide: 1, maximumSide: 8192, codecsParameter: { _ in "ap4h" })
    case .png:
      CodecSpec(
        encoder: "png", libavName: "png", layouts: .rgb(opaque: .rgb24, alpha: .rgba), quality: nil, minimumSide: 1,
        maximumSide: 32767)
    case .apng:
      CodecSpec(
        encoder: "apng", libavName: "apng", layouts: .rgb(opaque: .rgb24, alpha: .rgba), quality: nil,
        minimumSide: 1, maximumSide: 32767)
    case .gif:
      // Frames arrive as straight RGBA and become palette indices in the encoder (GIFPalette);
      // delays are whole hundredths of a second, so fps must divide 100.
      CodecSpec(
        encoder: "gif", libavName: "gif", layouts: .rgb(opaque: .rgba, alpha: .rgba), quality: nil, minimumSide: 1,
        maximumSide: 32767, fpsDivides: 100, indexedColour: true)
    case .webp:
      // libwebp converts BGRA to its own BT.601 YUV (docs/ENCODING.md, Colour); its size fields
      // have 14 bits. Every frame is a whole still that libav's WebP muxer puts in an ANMF
      // chunk: libwebp_anim holds slow motion (docs/ENCODING.md, WebP frames).
      CodecSpec(
        encoder: "libwebp", libavName: "webp", layouts: .rgb(opaque: .bgra, alpha: .bgra),
        quality: Quality(
          option: "quality", range: 0...100, defaultValue: 90, higherIsBetter: true, levels: (high: 95, small: 75)),
        minimumSide: 1, maximumSide: 16383)
    case .rawvideo:
      CodecSpec(
        encoder: "rawvideo", libavName: "rawvideo", layouts: .yuv420(tenBit: true, alpha: false), quality: nil,
        minimumSide: 2, maximumSide: 32767)
    case .jpeg:
      // Baseline JPEG through libav's mjpeg encoder: RGB from the converter becomes full-range
      // BT.601 YUV 4:4:4 as the encoder takes each frame (JPEGSamples; docs/ENCODING.md, JPEG).
      // No alpha: a transparent effect is drawn over its background.
      CodecSpec(
        encoder: "mjpeg", libavName: "mjpeg", layouts: Layouts(eight: .rgb24, ten: nil, alphaEight: nil, alphaTen: nil),
        quality: nil, minimumSide: 1, maximumSide: 32767, fullRangeYUV: true)
    }
  }

  /// The codecs a user may choose (those of containers holding more than one), in table order.
  public static var choosable: [VideoCodec] {
    allCases.filter { codec in
      OutputFormat.allCases.contains { $0.spec.codecs.count > 1 && $0.spec.codecs.contains(codec) }
    }
  }

  /// Every quality value some codec takes: the widest range a `crf` setting can have.
  public static var qualityRange: ClosedRange<Int> {
    // A closure, not the key path \.spec.quality?.range: projecting that optional chain through a
    // key path makes the Swift runtime memcpy overlapping buffers, which AddressSanitizer stops on.
    let ranges = allCases.compactMap { $0.spec.quality?.range }
    return ranges.map(\.lowerBound).min()!...ranges.map(\.upperBound).max()!
  }

  /// Why a `width` x `height` frame does not fit this codec, or nil when it does:
  /// "hevc needs at least 16 pixels on each side".
  public func sizeProblem(width: Int, height: Int) -> String? {
    let s = spec
    if width < s.minimumSide || height < s.minimumSide {
      return
        "\(rawValue) needs at least \(s.minimumSide) pixels on each side; try \(max(width, s.minimumSide))x\(max(height, s.minimumSide))"
    }
    if width > s.maximumSide || height > s.maximumSide {
      return "\(rawValue) takes at most \(s.maximumSide) pixels on each side"
    }
    if width % s.alignment != 0 || height % s.alignment != 0 {
      let a = s.alignment
      return
        "\(rawValue) stores 4:2:0 color and needs an even width and height; try \((width + a - 1) / a * a)x\((height + a - 1) / a * a)"
    }
    return nil
  }
}

/// One option given to a muxer as it writes the header.
public struct MuxerOption: Sendable, Equatable {
  public let name: String
  public let value: String
  init(_ name: String, _ value: String) { (self.name, self.value) = (name, value) }
}

/// A container: its muxer, the codecs it holds and how a web page shows it.
public struct ContainerSpec: Sendable {
  /// How a web page shows a file of this kind.
  public enum PageElement: Sendable { case video, image, link }

  /// libav's muxer.
  public let muxer: String
  /// The codecs it can hold; the first is the one it gets unless another is asked for.
  public let codecs: [VideoCodec]
  /// The MIME type a web page declares for it.
  public let mimeType: String
  /// In a `<video>`, an `<img>`, or only a link.
  public let page: PageElement
  /// libav's encoder for a sound track beside the video; nil where the container takes none.
  public let audioEncoder: String?
  /// Whether it holds a sequence of frames; a still holds exactly one.
  public let isAnimated: Bool
  /// The muxer option that makes players loop forever, where the muxer's default plays once or
  /// leaves it unsaid; nil for containers players loop on their own.
  public let loop: MuxerOption?
  /// The muxer's other options for a loop at `fps`.
  let muxerOptions: @Sendable (_ fps: Int) -> [MuxerOption]

  /// The codec a file of this kind gets unless one is asked for.
  public var defaultCodec: VideoCodec { codecs[0] }

  /// Every option the muxer is given for a loop at `fps`.
  public func options(fps: Int) -> [MuxerOption] { muxerOptions(fps) + (loop.map { [$0] } ?? []) }

  /// MP4 and MOV: the index first, so a page can play the file while it loads, and a timescale
  /// that is a multiple of fps, so N/fps is exact in every duration (docs/ENCODING.md, MP4 and MOV).
  static let movOptions: @Sendable (Int) -> [MuxerOption] = { fps in
    [
      MuxerOption("movflags", "+faststart+negative_cts_offsets"), MuxerOption("movie_timescale", String(fps * 1000)),
      MuxerOption("video_track_timescale", String(fps * 1000)),
    ]
  }
}

/// A codec's constant-quality setting.
public struct Quality: Sendable, Equatable {
  /// The encoder's option name (`crf`, or `quality` for WebP).
  public let option: String
  public let range: ClosedRange<Int>
  public let defaultValue: Int
  /// WebP's quality grows with the number; a CRF shrinks.
  public var higherIsBetter = false
  /// The values of the named levels other than `balanced` (the default).
  public var levels: (high: Int, small: Int)

  public static func == (a: Quality, b: Quality) -> Bool {
    a.option == b.option && a.range == b.range && a.defaultValue == b.defaultValue
      && a.higherIsBetter == b.higherIsBetter && a.levels == b.levels
  }
}

/// The samples a codec takes for each bit depth, opaque or with alpha; nil where it has none.
struct Layouts: Sendable, Equatable {
  var eight: PixelLayout
  var ten: PixelLayout?
  var alphaEight: PixelLayout?
  var alphaTen: PixelLayout?

  static func yuv420(tenBit: Bool, alpha: Bool) -> Layouts {
    Layouts(eight: .yuv420p, ten: tenBit ? .yuv420p10 : nil, alphaEight: alpha ? .yuva420p : nil, alphaTen: nil)
  }

  static func rgb(opaque: PixelLayout, alpha: PixelLayout) -> Layouts {
    Layouts(eight: opaque, ten: nil, alphaEight: alpha, alphaTen: nil)
  }

  /// The layout for `bitDepth` with or without alpha, or nil when the codec has none.
  func layout(bitDepth: Int, alpha: Bool) -> PixelLayout? {
    switch (bitDepth, alpha) {
    case (8, false): eight
    case (10, false): ten
    case (8, true): alphaEight
    case (10, true): alphaTen
    default: nil
    }
  }
}

/// A codec: its encoder, its samples, its limits and its name on a web page.
public struct CodecSpec: Sendable {
  /// libav's encoder.
  public let encoder: String
  /// libav's name for streams of this codec, as a reader reports it (`StreamInfo.codecName`).
  public let libavName: String
  let layouts: Layouts
  /// The constant-quality setting, or nil for codecs without one.
  public let quality: Quality?
  /// The smallest and largest width and height the encoder (as Loopsmith sets it up) accepts.
  public let minimumSide: Int
  public let maximumSide: Int
  /// Width and height are multiples of this: 2 for 4:2:0 chroma, else 1.
  public var alignment: Int { layouts.eight.isSubsampled ? 2 : 1 }
  /// fps must divide this number (GIF's centisecond delays), or nil.
  public var fpsDivides: Int? = nil
  /// The sample-entry tag to write in MP4/MOV instead of libav's default, or nil.
  public var codecTag: String? = nil
  /// Whether the encoder takes palette indices (PAL8) made from straight RGBA.
  var indexedColour = false
  /// Whether the encoder takes full-range BT.601 YUV (JPEG), made from the RGB layout as it takes each frame.
  var fullRangeYUV = false
  /// The `codecs` parameter of a stream's MIME type (RFC 6381), or nil for codecs without one.
  public var codecsParameter: (@Sendable (StreamInfo) -> String)? = nil

  /// The row for streams libav calls `name` (`StreamInfo.codecName`), or nil.
  public static func forStream(named name: String) -> CodecSpec? {
    VideoCodec.allCases.first { $0.spec.libavName == name }?.spec
  }

  /// Whether files of this codec carry BT.709 colour tags a check can read (4:2:0 video; not the
  /// raw Y4M stream, whose header has none).
  public var tagsBT709: Bool { alignment == 2 && encoder != "rawvideo" }

  /// Bit depths the codec stores: 8, and 10 where it has a 10-bit layout.
  public var bitDepths: [Int] { layouts.ten == nil ? [8] : [8, 10] }
  /// Whether it can keep transparency at some bit depth.
  public var carriesAlpha: Bool { layouts.alphaEight != nil || layouts.alphaTen != nil }
}

// MARK: - The codecs parameter (RFC 6381), from the stream itself

extension CodecSpec {
  /// `avc1.PPCCLL`: profile, constraint flags and level.
  static let avc: @Sendable (StreamInfo) -> String = { info in
    let (idc, constraints): (Int, Int) =
      switch (info.profileName ?? "").lowercased() {
      case "constrained baseline": (66, 0xC0)
      case "baseline": (66, 0x00)
      case "main": (77, 0x40)
      case "extended": (88, 0x00)
      case "high 10", "high 10 intra": (110, 0x00)
      case "high 4:2:2", "high 4:2:2 intra": (122, 0x00)
      case "high 4:4:4 predictive", "high 4:4:4", "high 4:4:4 intra": (244, 0x00)
      default: (100, 0x00)
      }
    let level = max(0, info.level ?? 40)
    return String(format: "avc1.%02X%02X%02X", idc, constraints, level)
  }

  /// `hvc1.P.C.LNN.B0`: the tag as written, profile, compatibility flags and level.
  static let hvc: @Sendable (StreamInfo) -> String = { info in
    let p = (info.profileName ?? "").contains("10") || info.samples.bitDepth > 8 ? 2 : 1
    let tag = info.codecTag == "hev1" ? "hev1" : "hvc1"
    return "\(tag).\(p).\(p == 1 ? 6 : 4).L\(max(0, info.level ?? 93)).B0"
  }

  /// `vp09.PP.LL.DD`: profile, level and bit depth.
  static let vp09: @Sendable (StreamInfo) -> String = { info in
    // Profiles 0 and 1 are 8-bit, 2 and 3 deeper; the odd ones subsample chroma other than 4:2:0.
    let deep = info.samples.bitDepth > 8
    let p = (deep ? 2 : 0) + (info.samples.is420 ? 0 : 1)
    return String(format: "vp09.%02d.%02d.%02d", p, vp9Level(info), info.samples.bitDepth)
  }

  /// `av01.P.LLT.DD`: profile, level, tier and bit depth.
  static let av01: @Sendable (StreamInfo) -> String = { info in
    let level = info.level.flatMap { $0 >= 0 && $0 < 32 ? $0 : nil } ?? 8
    // Main (0) is 4:2:0, High (1) 4:4:4, Professional (2) 4:2:2.
    let p = info.samples.is420 ? 0 : info.samples.is444 ? 1 : 2
    return String(format: "av01.%d.%02dM.%02d", p, level, info.samples.bitDepth)
  }

  /// The smallest VP9 level whose picture size and sample rate hold the stream (libvpx stores none).
  static func vp9Level(_ info: StreamInfo) -> Int {
    let samples = Double(info.width * info.height)
    let rate = samples * max(1, info.frameRate.value)
    let levels: [(Int, Double, Double)] = [
      (10, 36864, 829440), (11, 73728, 2764800), (20, 122880, 4608000), (21, 245760, 9216000),
      (30, 552960, 20736000), (31, 983040, 36864000), (40, 2228224, 83558400), (41, 2228224, 160432128),
      (50, 8912896, 311951360), (51, 8912896, 588251136), (52, 8912896, 1176502272), (60, 35651584, 1176502272),
      (61, 35651584, 2353004544), (62, 35651584, 4706009088),
    ]
    return levels.first { samples <= $0.1 && rate <= $0.2 }?.0 ?? 62
  }

  /// The `codecs` parameter for a stream, read from the stream itself; nil for codecs without one.
  public static func codecsParameter(_ info: StreamInfo) -> String? {
    forStream(named: info.codecName)?.codecsParameter?(info)
  }
}

// MARK: - Summaries for help text

extension OutputFormat {
  /// Every extension, dotted: ".mp4 .webm .mov ...".
  public static var extensionList: String { extensions.map { "." + $0 }.joined(separator: " ") }
}

extension VideoCodec {
  /// The codecs a user may choose, each container's default named: "h264 (.mp4 default), hevc, ...".
  public static var choiceList: String {
    choosable.map { codec in
      let defaults = OutputFormat.allCases.filter { $0.spec.codecs.count > 1 && $0.spec.defaultCodec == codec }
      return codec.rawValue
        + (defaults.isEmpty ? "" : " (" + defaults.map { "." + $0.rawValue }.joined(separator: ", ") + " default)")
    }.joined(separator: ", ")
  }

  /// Each codec's named levels: "h264 14/18/24, hevc ...", high/balanced/small.
  public static var qualityLevels: String {
    allCases.compactMap { codec in
      codec.spec.quality.map { q in
        "\(codec.rawValue) " + QualityLevel.allCases.map { String(q.value(for: $0)) }.joined(separator: "/")
      }
    }.joined(separator: ", ") + ", high/balanced/small"
  }

  /// Each codec's quality default: "18 h264, 14 hevc, 16 vp9, 16 av1, 90 webp".
  public static var qualityDefaults: String {
    allCases.compactMap { codec in codec.spec.quality.map { "\($0.defaultValue) \(codec.rawValue)" } }
      .joined(separator: ", ")
  }
}

// MARK: - Named quality levels and loop tuning

/// A named quality (`--quality high|balanced|small`), mapped per codec by `Quality.value(for:)`.
public enum QualityLevel: String, CaseIterable, Sendable {
  case high, balanced, small
}

extension Quality {
  /// The codec's setting for a named level; `balanced` is the default (docs/ENCODING.md, Quality levels).
  public func value(for level: QualityLevel) -> Int {
    switch level {
    case .high: levels.high
    case .balanced: defaultValue
    case .small: levels.small
    }
  }
}

/// One encoder option: a libav AVOption, or (for x264, x265 and SVT-AV1) a `name=value` pair of
/// the encoder's own parameter string.
public struct CodecOption: Sendable, Equatable {
  public let name: String
  public let value: String
  public init(_ name: String, _ value: String) { (self.name, self.value) = (name, value) }
}

extension VideoCodec {
  /// The libav option whose `name=value:...` string carries the encoder's own parameters, or nil
  /// where every option is an AVOption.
  var parameterString: String? {
    switch self {
    case .h264: "x264-params"
    case .hevc: "x265-params"
    case .av1: "svtav1-params"
    default: nil
    }
  }

  /// Frames of the loop's start encoded again after its last frame, their packets dropped (a
  /// loop-closing encode): SVT-AV1 codes the end of a stream in a shortened mini-GOP whose last
  /// frames it holds, so the seam steps by several frames' change at once; followed by the loop's
  /// start, the last frames sit in a whole mini-GOP like any others (16 frames: two of the loop
  /// tuning's mini-GOPs; docs/ENCODING.md, Loop tuning). None for the other codecs.
  public var loopClosingFrames: Int { self == .av1 ? 16 : 0 }

  /// Options that keep slow motion and the seam of a loop from being held and released in jumps,
  /// measured against the lossless frames of the default loops (docs/ENCODING.md, Loop tuning,
  /// which also lists what was tried and dropped).
  public func loopTuning(alpha: Bool) -> [CodecOption] {
    switch self {
    case .h264:
      // No early P-skip of a block whose change is small, no dropping of sparse residuals: these
      // are what hold a slowly changing block until it jumps.
      [CodecOption("fast-pskip", "0"), CodecOption("dct-decimate", "0")]
    case .vp9:
      // Speed 1, not 2: libvpx's fuller mode and motion search at speed 1 update a slowly
      // changing block a little each frame where speed 2 holds it and then jumps (clear night's
      // sky), for fewer bytes, with or without alpha, at a slower encode (docs/ENCODING.md, Loop
      // tuning). Probability contexts carried from frame to frame: fewer jumps and smaller files
      // (opaque); with alpha it made the loader's seam (48x48, 10 fps) step 1.99 times its
      // neighbours, a failing check: left out there.
      [CodecOption("cpu-used", "1")] + (alpha ? [] : [CodecOption("frame-parallel", "0")])
    case .av1:
      // No temporal filtering: SVT-AV1 blends the key frame with the frames after it, so frame 0
      // leans toward frame 1 and the seam pulses. The visual-quality tune (0, not PSNR's 1) and
      // mini-GOPs of 8 frames (hierarchical levels 3, not 4) keep its slow skies and the voice orb
      // from being held and released in jumps: with the loop-closing encode
      // (`loopClosingFrames`) every loop of the encoded-loop test passes, and the idle orb at
      // 30 f/s (docs/ENCODING.md, Loop tuning).
      [CodecOption("enable-tf", "0"), CodecOption("tune", "0"), CodecOption("hierarchical-levels", "3")]
    default:
      // HEVC: rskip=0 and ipratio cost 7-10% for no clear gain; its seam zones are in the
      // encoder's setup (they depend on the frame count).
      []
    }
  }
}
