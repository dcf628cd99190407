import Foundation

/// How every moving layer of an effect is made to repeat at one loop length, and what that costs
/// each motion in speed: what `loopsmith plan` prints, and what a `Clock` reads rates from.
///
/// Made by `LoopPlanner.plan`, which has already checked every change against the limit.
public struct LoopPlan: MotionPlan, Hashable, Codable {
  /// What the plan does to one motion.
  public enum Strategy: String, Hashable, Sendable, Codable, CaseIterable {
    /// Its rate moves to the nearest one that completes whole cycles in the loop.
    case quantize
    /// It keeps its rate, and its layer's end blends into its beginning.
    case crossfade
    /// It does not move: nothing to do.
    case still
    /// A timetable the loop holds whole cycles of, at its own speed exactly.
    case schedule
  }

  /// One motion in the plan.
  public struct Row: Hashable, Sendable, Codable {
    public var layer: String
    public var motion: String
    public var kind: Motion.Kind
    public var strategy: Strategy
    /// Units per cycle.
    public var period: Double
    /// The seed's rate, in units a second.
    public var originalRate: Double
    /// The rate the loop runs it at.
    public var plannedRate: Double
    /// |planned − original| / |original|, as a fraction: 0.034 is 3.4 %. 0 for still motions.
    public var speedChange: Double
    /// Cycles in one loop at the planned rate: whole for quantized motions, fractional for
    /// crossfaded ones.
    public var cyclesPerLoop: Double
  }

  /// One layer in the plan: the strategy its motions share, and its largest change.
  public struct Layer: Hashable, Sendable, Codable {
    public var layer: String
    /// Crossfade when the layer crossfades; otherwise quantize when any motion is quantized,
    /// schedule when it only has schedules, still when nothing moves.
    public var strategy: Strategy
    public var motions: Int
    /// The largest speed change among its motions, as a fraction.
    public var largestSpeedChange: Double
    /// The crossfade window in seconds, or nil.
    public var crossfadeWindow: Double?
  }

  /// The loop length in seconds.
  public let length: Double
  /// Frames a second, when the plan was checked for whole frames.
  public let fps: Int?
  /// The largest speed change the plan was allowed, as a fraction.
  public let maxSpeedChange: Double
  /// The length the loop is a whole multiple of (6 s for weather), if any.
  public let lengthQuantum: Double?
  /// Every motion, layer by layer in the order they were first seen.
  public let rows: [Row]
  /// Every layer, in the same order.
  public let layers: [Layer]
  /// The plans of parts that keep their own loops, by name: each weather of a transition clip.
  /// Empty for a loop; `rows` and `layers` then list every part's, named `part/layer`.
  public let parts: [String: LoopPlan]

  /// Planned rates by motion, rebuilt from `rows`.
  private let rates: [Key: Double]
  private let windows: [String: Double]

  private struct Key: Hashable {
    var layer: String, name: String, rate: Double, period: Double
  }

  init(
    length: Double, fps: Int?, maxSpeedChange: Double, lengthQuantum: Double?, rows: [Row], layers: [Layer],
    parts: [String: LoopPlan] = [:]
  ) {
    (self.length, self.fps, self.maxSpeedChange, self.lengthQuantum) = (length, fps, maxSpeedChange, lengthQuantum)
    (self.rows, self.layers, self.parts) = (rows, layers, parts)
    var rates: [Key: Double] = [:]
    for row in rows {
      rates[Key(layer: row.layer, name: row.motion, rate: row.originalRate, period: row.period)] = row.plannedRate
    }
    self.rates = rates
    self.windows = Dictionary(
      layers.compactMap { l in l.crossfadeWindow.map { (l.layer, $0) } }, uniquingKeysWith: { a, _ in a })
  }

  /// Frames in one loop, when the plan knows its frame rate.
  public var frameCount: Int? { fps.map { Int((length * Double($0)).rounded()) } }

  /// Whether any layer crossfades.
  public var crossfades: Bool { !windows.isEmpty }

  /// The largest speed change of any motion, as a fraction.
  public var largestSpeedChange: Double { rows.map(\.speedChange).max() ?? 0 }

  public func plannedRate(for motion: Motion) -> Double {
    let key = Key(layer: motion.layer, name: motion.name, rate: motion.rate, period: motion.period)
    if let rate = rates[key] { return rate }
    // A motion the planner never saw (a recorder that missed a branch): a crossfaded layer keeps
    // it as it is; anywhere else it still gets whole cycles, so the loop stays seamless even if the
    // change was never checked against the limit.
    if windows[motion.layer] != nil { return motion.rate }
    return LoopPlanner.quantize(motion, length: length).rate
  }

  public func crossfadeWindow(for layer: String) -> Double? { windows[layer] }

  public func part(_ name: String) -> (any MotionPlan)? { parts[name] }

  /// The plan of a clip of `length` seconds made of parts that each keep their own loop's plan,
  /// such as a transition from one weather to another: a clock asks `part` for a part's plan, so
  /// the part moves exactly as in its own loop. Its rows are the parts' rows, each layer named
  /// `part/layer`, so `loopsmith plan` shows what every part does.
  public static func clip(length: Double, fps: Int?, parts: [(name: String, plan: LoopPlan)]) -> LoopPlan {
    var rows: [Row] = []
    var layers: [Layer] = []
    for (name, plan) in parts {
      rows += plan.rows.map { row in
        var row = row
        row.layer = name + "/" + row.layer
        return row
      }
      layers += plan.layers.map { layer in
        var layer = layer
        layer.layer = name + "/" + layer.layer
        return layer
      }
    }
    return LoopPlan(
      length: length, fps: fps, maxSpeedChange: parts.map(\.plan.maxSpeedChange).max() ?? 0,
      lengthQuantum: parts.first?.plan.lengthQuantum, rows: rows, layers: layers,
      parts: Dictionary(parts.map { ($0.name, $0.plan) }, uniquingKeysWith: { a, _ in a }))
  }

  private enum CodingKeys: String, CodingKey { case length, fps, maxSpeedChange, lengthQuantum, rows, layers, parts }

  public init(from decoder: any Decoder) throws {
    let keys = try decoder.container(keyedBy: CodingKeys.self)
    self.init(
      length: try keys.decode(Double.self, forKey: .length),
      fps: try keys.decodeIfPresent(Int.self, forKey: .fps),
      maxSpeedChange: try keys.decode(Double.self, forKey: .maxSpeedChange),
      lengthQuantum: try keys.decodeIfPresent(Double.self, forKey: .lengthQuantum),
      rows: try keys.decode([Row].self, forKey: .rows),
      layers: try keys.decode([Layer].self, forKey: .layers),
      parts: try keys.decodeIfPresent([String: LoopPlan].self, forKey: .parts) ?? [:])
  }

  public func encode(to encoder: any Encoder) throws {
    var keys = encoder.container(keyedBy: CodingKeys.self)
    try keys.encode(length, forKey: .length)
    try keys.encodeIfPresent(fps, forKey: .fps)
    try keys.encode(maxSpeedChange, forKey: .maxSpeedChange)
    try keys.encodeIfPresent(lengthQuantum, forKey: .lengthQuantum)
    try keys.encode(rows, forKey: .rows)
    try keys.encode(layers, forKey: .layers)
    if !parts.isEmpty { try keys.encode(parts, forKey: .parts) }
  }

  public static func == (a: LoopPlan, b: LoopPlan) -> Bool {
    (a.length, a.fps, a.maxSpeedChange, a.lengthQuantum) == (b.length, b.fps, b.maxSpeedChange, b.lengthQuantum)
      && a.rows == b.rows && a.layers == b.layers && a.parts == b.parts
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(length)
    hasher.combine(rows)
  }
}
