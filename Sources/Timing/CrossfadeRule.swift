/// How long the tail crossfade of a soft layer lasts for a loop length.
///
/// The window is `seconds` long but never more than `maxFraction` of the loop. Two seconds: in a
/// crossfade the layer shows two copies, one loop apart, and a large soft area whose opacity moves
/// faster than about half its range a second reads as a pulse; a smoothstep over 2 s changes its
/// weight by at most 1.5 / 2 per second, 2.5 % a frame at 30 fps. A third of the loop at most, so
/// that for two thirds of it every layer moves as the original does.
public struct CrossfadeRule: Hashable, Sendable, Codable {
  /// The window a long enough loop gets, in seconds.
  public var seconds: Double
  /// The largest part of the loop the window may take, from 0 to 1.
  public var maxFraction: Double

  public init(seconds: Double = 2, maxFraction: Double = 1.0 / 3) {
    self.seconds = seconds.isFinite ? max(seconds, 0) : 2
    self.maxFraction = maxFraction.isFinite ? min(max(maxFraction, 0), 1) : 1.0 / 3
  }

  /// Two seconds, at most a third of the loop.
  public static let standard = CrossfadeRule()

  /// The window for a loop of `length` seconds.
  public func window(forLength length: Double) -> Double {
    guard length.isFinite, length > 0 else { return 0 }
    return min(seconds, length * maxFraction)
  }

  /// The shortest loop that gets the whole window: shorter loops crossfade in a hurry.
  public var shortestFullLength: Double {
    maxFraction > 0 ? seconds / maxFraction : .infinity
  }
}
