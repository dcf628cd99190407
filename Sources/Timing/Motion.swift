import Foundation

/// One periodic motion of an effect's layer: something that advances `rate` units a second and
/// repeats every `period` units (2π for a turning angle, a travel for a position that wraps,
/// 6 s for the lightning schedule).
///
/// A field of particles is a layer with one motion per particle that moves on its own (`sway.17`);
/// the planner checks each. A field of identical particles spaced evenly along their travel looks
/// the same once it has moved one spacing, so it can declare the spacing as its period: the plan
/// then moves it whole spacings a loop, and particle i takes the place of particle i + k
/// (re-indexing). The seeds' fields give every particle its own place and speed, so none of them
/// can do that.
public struct Motion: Hashable, Sendable, Codable {
  /// How a motion repeats, as `loopsmith plan` shows it. The planner treats turns and wraps alike.
  public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
    /// A phase or angle that turns: sines, rotations.
    case turn
    /// A position that wraps around a travel.
    case wrap
    /// A timetable that keeps its exact timing, such as the lightning cycle: the loop must hold a
    /// whole number of its cycles, with no change of speed at all.
    case schedule
  }

  /// The layer the motion belongs to, as `loopsmith plan` lists it (`rain.far`, `orbs`).
  public var layer: String
  /// What moves, within the layer (`x`, `sway`, `flash`).
  public var name: String
  /// Units a second, as the seed has it (speed parameters included).
  public var rate: Double
  /// Units per cycle.
  public var period: Double
  /// Whether the layer is soft and blurred enough to hide a tail crossfade.
  public var soft: Bool
  /// How it repeats; a turn unless said otherwise.
  public var kind: Kind

  public init(layer: String, name: String, rate: Double, period: Double, soft: Bool = false, kind: Kind = .turn) {
    (self.layer, self.name, self.rate, self.period, self.soft, self.kind) = (layer, name, rate, period, soft, kind)
  }

  /// Cycles a second.
  public var frequency: Double { period > 0 ? rate / period : 0 }

  private enum CodingKeys: String, CodingKey { case layer, name, rate, period, soft, kind }

  // A missing `kind` (a motion written before kinds existed) reads as a turn.
  public init(from decoder: any Decoder) throws {
    let keys = try decoder.container(keyedBy: CodingKeys.self)
    layer = try keys.decode(String.self, forKey: .layer)
    name = try keys.decode(String.self, forKey: .name)
    rate = try keys.decode(Double.self, forKey: .rate)
    period = try keys.decode(Double.self, forKey: .period)
    soft = try keys.decodeIfPresent(Bool.self, forKey: .soft) ?? false
    kind = try keys.decodeIfPresent(Kind.self, forKey: .kind) ?? .turn
  }
}
