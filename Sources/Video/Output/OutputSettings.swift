import Raster

/// The kind of file written, picked from the output path's extension.
public enum OutputFormat: String, CaseIterable, Sendable {
  case mp4, webm, mov, png, gif, apng, webp, y4m

  /// The format for `path`'s extension, case-insensitive; `-` means Y4M on stdout.
  /// Nil when the extension is none of the formats.
  public init?(path: String) {
    if path == "-" { self = .y4m; return }
    guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
    self.init(rawValue: path[path.index(after: dot)...].lowercased())
  }

  /// Whether the format holds a sequence of frames (a PNG holds one still).
  public var isAnimated: Bool { self != .png }
}

/// The codec inside the file.
public enum VideoCodec: String, CaseIterable, Sendable {
  case h264, hevc, vp9, av1, prores, png, gif, apng, webp, rawvideo

  /// Whether the codec stores YUV 4:2:0 (both sizes must then be even).
  var isYUV420: Bool { [.h264, .hevc, .vp9, .av1, .rawvideo].contains(self) }
}

/// A sound file to mux beside the video, cut to the video's length.
public struct AudioTrack: Sendable, Equatable {
  public var path: String
  public init(path: String) { self.path = path }
}

/// Everything a `VideoWriter` needs to know before the first frame.
public struct OutputSettings: Sendable {
  /// Where the file goes; `-` writes Y4M to stdout.
  public var path: String
  public var format: OutputFormat
  public var codec: VideoCodec
  public var width: Int
  public var height: Int
  /// Frames per second, a whole number (ENCODING L2).
  public var fps: Int
  /// How many frames will be appended: the GOP is sized for it and `finish()` checks it.
  public var frameCount: Int
  /// Constant quality; nil takes the codec's default (H.264 18, HEVC 20, VP9 30, AV1 35).
  public var crf: Int?
  /// 8, or 10 for HEVC Main10, VP9 Profile 2, AV1 and ProRes.
  public var bitDepth: Int
  /// Encoder threads, pinned so the bytes do not depend on the machine (ENCODING D1).
  public var threads: Int
  /// Keep transparency where the format carries it; otherwise frames are composited over `background`.
  public var keepAlpha: Bool
  /// What shows under transparent pixels when alpha is not kept.
  public var background: Color
  /// libx264's speed preset.
  public var x264Preset: String
  /// Sound to mux beside the video; nil for a silent, video-only file (ENCODING L7).
  public var audio: AudioTrack?
  /// The frames of a longer loop this file holds (`render --frames A:B`), or nil for a whole loop.
  /// Its encoder starts fresh at A, with the whole loop's key-frame interval, and the file is
  /// tagged so `join` can check order and coverage (`FrameSegment`).
  public var segment: FrameSegment? = nil

  /// libx264's speed presets, fastest first.
  public static let x264Presets = [
    "ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo",
  ]

  public init(
    path: String, format: OutputFormat? = nil, codec: VideoCodec? = nil, width: Int, height: Int,
    fps: Int, frameCount: Int, crf: Int? = nil, bitDepth: Int = 8, threads: Int = 1,
    keepAlpha: Bool = false, background: Color = .black, x264Preset: String = "medium",
    audio: AudioTrack? = nil
  ) throws {
    guard let format = format ?? OutputFormat(path: path) else {
      throw VideoError.invalidSettings(
        "output '\(path)': unknown extension; expected one of "
          + OutputFormat.allCases.map { "." + $0.rawValue }.joined(separator: ", ") + " or '-'")
    }
    self.path = path
    self.format = format
    self.codec = codec ?? Self.defaultCodec(for: format)
    (self.width, self.height, self.fps, self.frameCount) = (width, height, fps, frameCount)
    (self.crf, self.bitDepth, self.threads, self.keepAlpha) = (crf, bitDepth, threads, keepAlpha)
    (self.background, self.x264Preset, self.audio) = (background, x264Preset, audio)
  }

  /// The codec a format gets unless one is asked for.
  public static func defaultCodec(for format: OutputFormat) -> VideoCodec {
    switch format {
    case .mp4: .h264
    case .webm: .vp9
    case .mov: .prores
    case .png: .png
    case .gif: .gif
    case .apng: .apng
    case .webp: .webp
    case .y4m: .rawvideo
    }
  }

  /// Whether the written file will carry transparency.
  public var carriesAlpha: Bool {
    guard keepAlpha else { return false }
    switch codec {
    case .vp9: return bitDepth == 8
    case .prores, .png, .apng, .webp, .gif: return true
    default: return false
    }
  }

  /// The codecs each format can hold.
  static func codecs(for format: OutputFormat) -> [VideoCodec] {
    switch format {
    case .mp4: [.h264, .hevc, .av1]
    case .webm: [.vp9, .av1]
    case .mov: [.prores, .h264, .hevc]
    case .png: [.png]
    case .gif: [.gif]
    case .apng: [.apng]
    case .webp: [.webp]
    case .y4m: [.rawvideo]
    }
  }

  /// The largest width and height the codec (as Loopsmith configures it) accepts.
  static func maximumSize(for codec: VideoCodec) -> Int {
    switch codec {
    case .h264: 4096  // level 5.2 holds 4096x2304; x264 picks the level from the size
    case .hevc: 8192
    case .vp9: 16384
    case .av1: 8192  // SVT-AV1 1.4 refuses larger (max_width/height 16384 on newer versions)
    case .prores: 8192
    case .gif, .apng, .png: 32767
    case .webp: 16383  // WebP's 14-bit size fields
    case .rawvideo: 32767
    }
  }

  /// Checks what the codec and container can hold; throws `invalidSettings` naming the setting.
  public func validate() throws {
    func fail(_ message: String) throws -> Never { throw VideoError.invalidSettings(message) }
    let allowed = Self.codecs(for: format)
    if !allowed.contains(codec) {
      try fail(
        "codec '\(codec.rawValue)' cannot go into a .\(format.rawValue) file; expected "
          + allowed.map(\.rawValue).joined(separator: " or "))
    }
    if width < 1 || height < 1 {
      try fail("size \(width)x\(height): width and height must be positive")
    }
    let maximum = Self.maximumSize(for: codec)
    if width > maximum || height > maximum {
      try fail("size \(width)x\(height) is too large for \(codec.rawValue); expected at most \(maximum) on each side")
    }
    if codec.isYUV420 && (width % 2 != 0 || height % 2 != 0) {
      try fail(
        "size \(width)x\(height): \(codec.rawValue) stores 4:2:0 color and needs an even width and height; "
          + "try \(width + width % 2)x\(height + height % 2)")
    }
    if fps < 1 || fps > 240 {
      try fail("fps \(fps): expected a whole number from 1 to 240")
    }
    if frameCount < 1 {
      try fail("frame count \(frameCount): expected at least 1 frame")
    }
    if format == .png && frameCount != 1 {
      try fail("a .png holds one still; frame count \(frameCount) expected 1 (use .apng for an animation)")
    }
    if codec == .gif && 100 % fps != 0 {
      try fail(
        "fps \(fps): GIF frame delays are whole hundredths of a second, so fps must divide 100; "
          + "expected 50, 25, 20 or 10")
    }
    if threads < 1 || threads > 64 {
      try fail("threads \(threads): expected 1 to 64")
    }
    switch bitDepth {
    case 8: break
    case 10:
      let tenBit: [VideoCodec] = [.hevc, .vp9, .av1, .prores, .rawvideo]
      if !tenBit.contains(codec) {
        try fail(
          "bit depth 10 is not available for \(codec.rawValue)"
            + (codec == .h264 ? " (High 10 plays almost nowhere); use hevc or vp9 for 10-bit, or bit depth 8" : "; expected 8"))
      }
    default:
      try fail("bit depth \(bitDepth): expected 8 or 10")
    }
    if keepAlpha {
      switch codec {
      case .vp9 where bitDepth != 8:
        try fail("transparency in VP9 needs bit depth 8 (browsers decode alpha only in Profile 0)")
      case .vp9, .prores, .png, .apng, .webp, .gif: break
      default:
        try fail(
          "transparency cannot be kept in \(codec.rawValue) (\(format.rawValue)); "
            + "expected .webm (vp9), .mov (prores), .png, .apng, .webp or .gif, or an opaque --background")
      }
    }
    if let crf {
      switch codec {
      case .h264 where crf == 0:
        // x264 makes crf 0 lossless, which its High profile cannot carry: avcodec_open2 failed.
        try fail("crf 0: lossless H.264 needs a profile few players decode; expected 1...51 for h264")
      case .h264, .hevc:
        if !(0...51).contains(crf) { try fail("crf \(crf): expected 0...51 for \(codec.rawValue)") }
      case .vp9, .av1:
        if !(0...63).contains(crf) { try fail("crf \(crf): expected 0...63 for \(codec.rawValue)") }
      case .webp:
        if !(0...100).contains(crf) {
        try fail("crf \(crf): for webp it is the quality, expected 0...100") }
      case .prores, .png, .gif, .apng, .rawvideo:
        try fail("crf \(crf): \(codec.rawValue) has no constant-quality setting; leave crf unset")
      }
    }
    if codec == .h264 && !Self.x264Presets.contains(x264Preset) {
      try fail("x264 preset '\(x264Preset)': expected one of " + Self.x264Presets.joined(separator: ", "))
    }
    if path.isEmpty { try fail("output path is empty") }
    if path == "-" && format != .y4m { try fail("'-' (stdout) carries only Y4M") }
    if audio != nil && ![.mp4, .webm, .mov].contains(format) {
      try fail("audio can go only into .mp4, .webm or .mov, not .\(format.rawValue)")
    }
  }
}
