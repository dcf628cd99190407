import Raster
import Timing

/// What `loopsmith list` and the pipeline need to know about an effect before drawing it.
public struct EffectInfo: Sendable {
  /// The command-line name (`color-orbs`).
  public var name: String
  /// One plain sentence about what you see.
  public var summary: String
  public var parameters: [ParameterSpec]
  /// Whether the effect leaves pixels transparent (voice orb, loader), so alpha can be kept.
  public var isTransparent: Bool
  /// The size in points a video of the effect has by default (a full phone screen for backgrounds).
  public var defaultSize: (width: Double, height: Double)
  /// Frames a second the seed draws at.
  public var defaultFPS: Int
  /// Whole multiples of this many seconds are the only loop lengths (6 for weather), or nil.
  public var loopQuantum: Double?
  /// How a transition clip moves the effect from one value to another, or nil when it has none.
  public var transition: TransitionSpec?

  public init(
    name: String, summary: String, parameters: [ParameterSpec], isTransparent: Bool,
    defaultSize: (width: Double, height: Double) = (360, 640), defaultFPS: Int = 30,
    loopQuantum: Double? = nil, transition: TransitionSpec? = nil
  ) {
    self.transition = transition
    self.name = name
    self.summary = summary
    self.parameters = parameters
    self.isTransparent = isTransparent
    self.defaultSize = defaultSize
    self.defaultFPS = defaultFPS
    self.loopQuantum = loopQuantum
  }

  public func parameter(named name: String) -> ParameterSpec? { parameters.first { $0.name == name } }
}

/// How a transition clip changes an effect from one value of a choice parameter to another: a
/// weather to the next, a voice state to the next.
///
/// A clip starts on frame 0 of the first value's loop and ends so that its next frame is frame 0
/// of the second value's loop. Values that keep their own clocks (every weather draws its own
/// layers) each move under their own loop's plan, and the second one's clock reads 0 at the clip's
/// end; values that share one clock (the orb's blobs turn whatever the state) need a clip of whole
/// loops.
public struct TransitionSpec: Sendable {
  /// The choice parameter whose values a clip moves between (`weather`, `state`).
  public var parameter: String
  /// Seconds from the change until the second value has settled: the weather's 1 s fade, the
  /// orb's 3 s after which its spring leaves no trace.
  public var settle: Double
  /// Whether each value keeps its own clock and loop plan.
  public var ownClocks: Bool

  public init(parameter: String, settle: Double, ownClocks: Bool) {
    (self.parameter, self.settle, self.ownClocks) = (parameter, settle, ownClocks)
  }
}

/// One of the five effects, ready to draw any moment of itself.
///
/// Drawing is a pure function of the clock's time and the effect's values: frames render on many
/// threads in any order, so an effect keeps no state between frames.
public protocol Effect: Sendable {
  static var info: EffectInfo { get }
  init(values: ParameterValues, environment: RenderEnvironment)
  /// Draws the moment `clock.time` over the whole context (its size is the video's, in points).
  /// With Reduce Motion on, callers pass a clock at time 0.
  func draw(in context: inout GraphicsContext, clock: Clock)
  /// Whole multiples of this many seconds are the only loop lengths for these values, or nil.
  static func loopQuantum(for values: ParameterValues) -> Double?
  /// Moments worth drawing to see every motion the values can show (besides a few early ones):
  /// the steps of a sequence, whose weathers or states move only while they show.
  static func keyTimes(for values: ParameterValues) -> [Double]
  /// Frames a second these values are drawn at unless the render says otherwise.
  static func defaultFPS(for values: ParameterValues) -> Int
  /// Whether a level over time (`--levels`, `--audio`) drives the effect, as a voice drives the orb.
  static var followsLevels: Bool { get }
  /// The effect following `levels` frame by frame; only an effect that `followsLevels` is given one.
  func following(_ levels: LevelTrack) -> Self
  /// The effect drawn as a transition clip, whose sequence ends on frame 0 of its last value's loop.
  func endingOnLoop() -> Self
}

extension Effect {
  public static func loopQuantum(for values: ParameterValues) -> Double? { info.loopQuantum }

  /// The seed's rate, whatever the values.
  public static func defaultFPS(for values: ParameterValues) -> Int { info.defaultFPS }

  public static var followsLevels: Bool { false }

  public func following(_ levels: LevelTrack) -> Self { self }

  /// An effect whose values share one clock ends a clip of whole loops on its own.
  public func endingOnLoop() -> Self { self }

  /// Each step of a `sequence` parameter, a moment after it starts, when there is one.
  public static func keyTimes(for values: ParameterValues) -> [Double] {
    var start = 0.0, times: [Double] = []
    for step in values.steps("sequence") {
      times.append(start + min(0.49, step.seconds / 2))
      start += step.seconds
    }
    return times
  }
}

/// Every effect, by command-line name.
public enum EffectRegistry {
  public static let all: [any Effect.Type] = effectTypes

  public static func type(named name: String) -> (any Effect.Type)? {
    all.first { $0.info.name == name }
  }

  public static var names: [String] { all.map { $0.info.name } }
}
