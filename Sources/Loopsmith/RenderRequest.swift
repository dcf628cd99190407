import Effects
import Foundation
import Raster
import Video

/// What someone asked to render, from a preset, flags, or both (flags win): every field optional.
public struct RenderRequest: Sendable {
  public var effect: String?
  public var parameters: [String: ParameterValue] = [:]
  /// Video size in pixels.
  public var size: (width: Int, height: Int)?
  public var fps: Int?
  /// The loop length in seconds.
  public var duration: Double?
  /// The moment a still shows; 0 is the Reduce Motion still.
  public var time: Double?
  /// Reduce Motion for every frame.
  public var still: Bool?
  /// Pixels per point.
  public var scale: Double?
  /// The layout's screen in points (`--points`); nil keeps the effect's design.
  public var points: (width: Int, height: Int)?
  public var outputs: [String] = []
  public var codec: String?
  public var crf: Int?
  public var bitDepth: Int?
  /// `transparent`, or a color under transparent effects.
  public var background: String?
  public var appearance: Appearance?
  public var palette: PaletteVersion?
  public var rightToLeft: Bool?
  public var threads: Int?
  public var encoderThreads: Int?
  public var maxSpeedChange: Double?
  public var x264Preset: String?
  /// A sound file whose loudness drives the voice orb and which is muxed into the output.
  public var audio: String?
  /// How the sound becomes the loop's length: `loop`, `cut` or `pad` (`AudioFit`).
  public var audioFit: String?
  /// A JSON or CSV file of time and level for the voice orb.
  public var levels: String?
  /// A transition clip from one weather or voice state to another (`rain:snow`), which starts on
  /// frame 0 of the first one's loop and ends just before frame 0 of the second one's.
  public var transition: String?
  /// The memory budget in bytes for frames, layers and encoders together (`--memory-limit`).
  public var memoryLimit: UInt64?
  /// `A:B`: render only frames A..<B of the loop into a segment (`render --frames`).
  public var frames: String?
  /// `auto`, `native` (the format's own alpha plane) or `stacked` (colour over alpha in H.264/HEVC).
  public var alpha: String?
  /// Frame 0 as a picture beside the outputs: a path, or "" for each video's own name (`--poster`).
  public var poster: String?
  /// A folder for a web page (`--web`): the files `<loopsmith-loop>` chooses between, the poster,
  /// the player and an index.html, named after the effect or preset (docs/WEB-PLAYER.md, A folder
  /// for a site). The command line's, never a preset's: the folder is where this run puts it.
  public var web: String?
  /// A named quality, `high`, `balanced` or `small`, mapped per codec; `crf` wins over it.
  public var quality: String?
  /// The most bytes each output may have (`--max-bytes 256K`): the quality is searched until it fits.
  public var maxBytes: String?
  /// A platform whose limits the outputs must meet (`telegram-sticker`, `telegram-emoji`).
  public var platform: String?

  public init() {}

  /// `self` with every field that `overrides` sets replaced by it; parameters merge by name.
  /// Whether this (a batch's overrides) sets the frame's size, scale, rate or the loop's length.
  package var overridesFrame: Bool { size != nil || scale != nil || fps != nil || duration != nil }

  public func merged(with overrides: RenderRequest) -> RenderRequest {
    var out = self
    out.effect = overrides.effect ?? effect
    out.parameters.merge(overrides.parameters) { _, new in new }
    for setting in RenderSetting.all { setting.copy(from: overrides, into: &out) }
    return out
  }
}
