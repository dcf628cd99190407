import Effects
import Foundation
import Video

/// How a transparent effect keeps its alpha (`--alpha`).
public enum AlphaMode: String, CaseIterable, Sendable {
  /// Alpha where the format has an alpha plane; elsewhere drawn over `--background`.
  case auto
  /// The format's own alpha plane, an error where it has none (as `--background transparent`).
  case native
  /// H.264/HEVC with the colour on top and alpha below (`StackedAlpha`); other outputs as `auto`.
  case stacked
}

extension RenderRequest {
  /// Why HEVC cannot keep alpha here, and what to use instead.
  static let hevcAlphaMessage =
    "HEVC with alpha (what Safari plays natively) cannot be made with Debian's libx265 3.5, which has no alpha layer; use ProRes 4444 (.mov) for editors or --alpha stacked (.mp4) for browsers and apps"

  /// `--alpha`, checked; `auto` when not given.
  func alphaMode() throws -> AlphaMode {
    guard let alpha else { return .auto }
    return AlphaMode(rawValue: try RenderSetting.alpha.check(alpha).lowercased())!
  }

  /// `--alpha stacked` needs an output that can hold it.
  func checkStacked(
    _ mode: AlphaMode, paths: [String], formats: [OutputFormat], codec: VideoCodec?, height: Int
  ) throws {
    guard mode == .stacked else { return }
    let stackable = formats.filter { StackedAlpha.codecs.contains(codec ?? $0.spec.defaultCodec) }
    if stackable.isEmpty {
      throw InputError(
        "--alpha stacked: none of \(paths.joined(separator: ", ")) is H.264 or HEVC; expected an .mp4 (or .mov with --codec h264 or hevc) output"
      )
    }
    if (bitDepth ?? 8) != 8 {
      throw InputError("--alpha stacked: is 8-bit; expected --bit-depth 8")
    }
    if height % 2 != 0 {
      throw InputError("--alpha stacked: the height \(height) must be even (4:2:0 chroma in each half)")
    }
  }

  /// The notice for outputs that drop a transparent effect's alpha without being asked to:
  /// named outputs, then the two ways to choose (`--background` also silences it).
  func alphaNotices(info: EffectInfo, settings: [OutputSettings]) -> [String] {
    guard info.isTransparent, background == nil, alpha == nil else { return [] }
    let dropping = settings.filter { !$0.carriesAlpha && !$0.stackedAlpha && $0.path != "-" }
    guard !dropping.isEmpty else { return [] }
    let names = dropping.map { "\(($0.path as NSString).lastPathComponent) (\($0.codec.rawValue))" }
    return [
      "\(info.name) is transparent, but \(names.joined(separator: ", ")) has no alpha, so it is drawn over black; choose the colour with --background COLOR (silences this note), or keep alpha with --alpha stacked (.mp4 for player/loopsmith-alpha.js) or a .webm/.mov/.png/.webp output"
    ]
  }

  /// The stills `--poster` writes: frame 0 of the same render.
  ///
  /// `--poster PATH` writes one still (its format by extension: PNG, JPEG or WebP); `--poster` alone writes one
  /// beside each animated output, named like it with `.png` (once for outputs sharing a name).
  /// A poster keeps alpha as its output does: over the same background, or transparent where the
  /// output is (and for stacked alpha, which a player composites).
  func posterSettings(for settings: [OutputSettings], width: Int, height: Int, fps: Int) throws -> [OutputSettings] {
    guard let poster else { return [] }
    return try Self.posterSettings(poster, for: settings, width: width, height: height, fps: fps)
  }

  /// The formats a poster may take: PNG (lossless), JPEG (no alpha) and WebP.
  public static let posterFormats: [OutputFormat] = [.png, .jpg, .webp]

  /// `posterSettings` for the value `poster` ("" for each video's own name).
  static func posterSettings(
    _ poster: String, for settings: [OutputSettings], width: Int, height: Int, fps: Int
  ) throws -> [OutputSettings] {
    let animated = settings.filter { $0.format.isAnimated && $0.path != "-" }
    guard let first = animated.first else {
      throw InputError(
        "--poster: needs an animated output (.mp4, .webm, ...) to show frame 0 of; a still is its own poster")
    }
    var pairs: [(path: String, output: OutputSettings)] = []
    if poster.isEmpty {
      for output in animated {
        let stem = (output.path as NSString).deletingPathExtension
        let path = stem + ".png"
        if !pairs.contains(where: { $0.path == path }) { pairs.append((path, output)) }
      }
    } else {
      pairs = [(poster, first)]
    }
    let taken = Set(settings.map { Self.canonicalOutputPath($0.path) })
    return try pairs.map { path, output in
      do { try InputFile.checkName(path, what: "poster") } catch let e as VideoError {
        throw InputError("--poster: \(e)")
      }
      guard let format = OutputFormat(path: path), Self.posterFormats.contains(format) else {
        throw InputError("--poster: '\(path)' is not valid; expected a file name ending in .png, .jpg (.jpeg) or .webp")
      }
      if taken.contains(Self.canonicalOutputPath(path)) {
        throw InputError("--poster: '\(path)' is also an output; expected another name")
      }
      let keepAlpha = output.carriesAlpha || output.stackedAlpha
      var s = try OutputSettings(
        path: path, format: format, width: width, height: height, fps: fps, frameCount: 1,
        threads: output.threads, keepAlpha: keepAlpha, background: output.background)
      if !s.carriesAlpha { s.keepAlpha = false }
      do { try s.validate() } catch let e as VideoError { throw InputError("--poster \(path): \(e)") }
      return s
    }
  }
}

extension RenderJob {
  /// The job with one more poster, frame 0 of its render written to `path` (.png, .jpg or .webp).
  public func addingPoster(_ path: String) throws -> RenderJob {
    var job = self
    job.posters += try RenderRequest.posterSettings(path, for: outputs, width: width, height: height, fps: fps)
    return job
  }
}
