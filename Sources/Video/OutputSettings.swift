import Raster

/// A sound file to mux beside the video, fitted to exactly the video's length.
public struct AudioTrack: Sendable, Equatable {
  public var path: String
  /// How a sound longer or shorter than the loop is made to fit it.
  public var fit: AudioFit
  public init(path: String, fit: AudioFit = .defaultValue) { (self.path, self.fit) = (path, fit) }
}

/// Everything a `VideoWriter` needs to know before the first frame.
public struct OutputSettings: Sendable {
  /// Where the file goes; `-` writes Y4M to stdout.
  public var path: String
  public var format: OutputFormat
  public var codec: VideoCodec
  public var width: Int
  public var height: Int
  /// Frames per second, a whole number (docs/ENCODING.md, Seamless loops).
  public var fps: Int
  /// How many frames will be appended: the GOP is sized for it and `finish()` checks it.
  public var frameCount: Int
  /// Constant quality; nil takes the codec's default (H.264 18, HEVC 20, VP9 30, AV1 35).
  public var crf: Int?
  /// 8, or 10 for HEVC Main10, VP9 Profile 2, AV1 and ProRes.
  public var bitDepth: Int
  /// Encoder threads, pinned so the bytes do not depend on the machine (docs/ENCODING.md, Determinism).
  public var threads: Int
  /// Keep transparency where the format carries it; otherwise frames are composited over `background`.
  public var keepAlpha: Bool
  /// What shows under transparent pixels when alpha is not kept.
  public var background: Color
  /// libx264's speed preset.
  public var x264Preset: String
  /// Sound to mux beside the video; nil for a silent, video-only file (docs/ENCODING.md, Seamless loops).
  public var audio: AudioTrack?
  /// The frames of a longer loop this file holds (`render --frames A:B`), or nil for a whole loop.
  /// Its encoder starts fresh at A, with the whole loop's key-frame interval, and the file is
  /// tagged so `join` can check order and coverage (`FrameSegment`).
  public var segment: FrameSegment? = nil
  /// Stacked alpha (`--alpha stacked`): the colour on top, alpha as luma below; `height` is then
  /// the encoded frame's, twice the picture's (`StackedAlpha`).
  public var stackedAlpha = false
  /// Whether the codec's loop tuning (`VideoCodec.loopTuning`) is applied; off only to measure
  /// what it costs and buys (bench, loop-report).
  public var loopTuning = true
  /// Whether the file's last frame leads back to its first: true for a loop, false for a clip that
  /// does not (a transition). A clip gets no seam zones and no loop-closing encode, which would
  /// spend bytes and time on a seam nobody sees (docs/ENCODING.md, Seams).
  public var loops = true
  /// Encoder options after the codec's own and its loop tuning, for measurements: AVOptions, or
  /// `name=value` pairs joining the x264, x265 or SVT-AV1 parameter string.
  public var extraCodecOptions: [CodecOption] = []

  /// Every tuning option the encoder gets beyond its base setup, in order (later ones win).
  var codecOptions: [CodecOption] {
    (loopTuning ? codec.loopTuning(alpha: carriesAlpha) : []) + extraCodecOptions
  }
  /// Whether the loop tuning's seam work applies: x265's seam zones and AV1's loop-closing encode,
  /// for a loop with the tuning on. x264's zones predate the tuning and need only `loops`
  /// (docs/ENCODING.md, Seams and Loop tuning).
  var tunesSeam: Bool { loopTuning && loops }
  /// Frames of the loop's start the encoder gets again after its end (their packets dropped):
  /// `VideoCodec.loopClosingFrames` for a whole loop in one GOP when `tunesSeam`, else 0.
  public var loopClosingFrames: Int {
    guard tunesSeam, segment == nil, Encoder.gopSize(frameCount) == frameCount else { return 0 }
    return codec.loopClosingFrames
  }
  /// WebP's still encoders, each encoding whole frames on one thread (StillEncoders): one an
  /// encoder thread, at most 8; 1 for other codecs.
  public var stillEncoders: Int { codec == .webp ? max(1, min(threads, 8)) : 1 }
  /// The file's comment (MP4/MOV and Matroska metadata; a block in GIF and APNG, ImageComments):
  /// the loopsmith-preset tag `check` re-renders from.
  public var comment: String? = nil

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
  public static func defaultCodec(for format: OutputFormat) -> VideoCodec { format.spec.defaultCodec }

  /// Whether the written file will carry transparency.
  public var carriesAlpha: Bool { keepAlpha && codec.spec.layouts.layout(bitDepth: bitDepth, alpha: true) != nil }

  /// The samples the encoder takes for these settings.
  var layout: PixelLayout {
    let layouts = codec.spec.layouts
    return layouts.layout(bitDepth: bitDepth, alpha: carriesAlpha) ?? layouts.eight
  }

  /// Checks what the codec and container can hold; throws `invalidSettings` naming the setting.
  public func validate() throws {
    func fail(_ message: String) throws -> Never { throw VideoError.invalidSettings(message) }
    let spec = codec.spec
    let allowed = format.spec.codecs
    if !allowed.contains(codec) {
      try fail(
        "codec '\(codec.rawValue)' cannot go into a .\(format.rawValue) file; expected "
          + allowed.map(\.rawValue).joined(separator: " or "))
    }
    if width < 1 || height < 1 {
      try fail("size \(width)x\(height): width and height must be positive")
    }
    if width > spec.maximumSide || height > spec.maximumSide {
      try fail(
        "size \(width)x\(height) is too large for \(codec.rawValue); expected at most \(spec.maximumSide) on each side")
    }
    if let problem = codec.sizeProblem(width: width, height: height) {
      try fail("size \(width)x\(height): \(problem)")
    }
    if fps < 1 || fps > 240 {
      try fail("fps \(fps): expected a whole number from 1 to 240")
    }
    if frameCount < 1 {
      try fail("frame count \(frameCount): expected at least 1 frame")
    }
    if !format.isAnimated && frameCount != 1 {
      let animated = OutputFormat.allCases.filter {
        $0.isAnimated && $0.spec.codecs.contains { $0.spec.layouts == spec.layouts }
      }
      try fail(
        "a .\(format.rawValue) holds one still; frame count \(frameCount) expected 1"
          + (animated.isEmpty
            ? "" : " (use ." + animated.map(\.rawValue).joined(separator: " or .") + " for an animation)"))
    }
    if let divides = spec.fpsDivides, divides % fps != 0 {
      let rates = [50, 25, 20, 10].filter { divides % $0 == 0 }.map(String.init)
      try fail(
        "fps \(fps): \(codec.rawValue.uppercased()) frame delays are whole hundredths of a second, so fps must divide \(divides); "
          + "expected " + rates.dropLast().joined(separator: ", ") + " or " + rates.last!)
    }
    if threads < 1 || threads > 64 {
      try fail("threads \(threads): expected 1 to 64")
    }
    if bitDepth != 8 && bitDepth != 10 {
      try fail("bit depth \(bitDepth): expected 8 or 10")
    }
    if !spec.bitDepths.contains(bitDepth) {
      let tenBit = VideoCodec.choosable.filter { $0.spec.bitDepths.contains(10) }.map(\.rawValue)
      try fail(
        "bit depth \(bitDepth) is not available for \(codec.rawValue)"
          + (codec == .h264 ? " (High 10 plays almost nowhere)" : "")
          + "; use " + tenBit.joined(separator: " or ") + " for 10-bit, or bit depth 8")
    }
    if keepAlpha && !carriesAlpha {
      if spec.carriesAlpha {
        // VP9: browsers decode alpha only in Profile 0.
        let depths = [8, 10].filter { spec.layouts.layout(bitDepth: $0, alpha: true) != nil }.map(String.init)
        try fail("transparency in \(codec.rawValue) needs bit depth " + depths.joined(separator: " or "))
      }
      let keeping = OutputFormat.allCases.compactMap { f -> String? in
        let codecs = f.spec.codecs.filter(\.spec.carriesAlpha)
        if codecs.isEmpty { return nil }
        return f.spec.codecs.count > 1
          ? ".\(f.rawValue) (" + codecs.map(\.rawValue).joined(separator: ", ") + ")" : ".\(f.rawValue)"
      }
      try fail(
        "transparency cannot be kept in \(codec.rawValue) (\(format.rawValue)); expected "
          + keeping.joined(separator: ", ") + ", or an opaque --background")
    }
    if let crf {
      guard let quality = spec.quality else {
        try fail("crf \(crf): \(codec.rawValue) has no constant-quality setting; leave crf unset")
      }
      if !quality.range.contains(crf) {
        try fail(
          "crf \(crf): expected \(quality.range.lowerBound)...\(quality.range.upperBound) for \(codec.rawValue)"
            + (quality.higherIsBetter ? " (its quality: higher is better)" : ""))
      }
    }
    if codec == .h264 && !Self.x264Presets.contains(x264Preset) {
      try fail("x264 preset '\(x264Preset)': expected one of " + Self.x264Presets.joined(separator: ", "))
    }
    if let problem = stackedAlphaProblem { try fail(problem) }
    if path.isEmpty { try fail("output path is empty") }
    if path == "-" && format != .y4m { try fail("'-' (stdout) carries only Y4M") }
    if audio != nil && format.spec.audioEncoder == nil {
      let carrying = OutputFormat.allCases.filter { $0.spec.audioEncoder != nil }.map { "." + $0.rawValue }
      try fail(
        "audio can go only into " + carrying.dropLast().joined(separator: ", ") + " or " + carrying.last!
          + ", not .\(format.rawValue)")
    }
  }
}
