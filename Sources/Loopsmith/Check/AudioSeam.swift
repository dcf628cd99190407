import Foundation
import Video

/// The audio seam of a loop: the step from the last sample to the first, per channel, against
/// the sample steps beside the seam (docs/ENCODING.md, Judging a loop). A click is a step far
/// larger than the waveform's own.
public struct AudioSeam: Sendable {
  /// Per channel: the step across the seam, and the largest step among the neighbouring samples
  /// (the last and first `window` samples).
  public var seamSteps: [Double]
  public var neighbourSteps: [Double]
  public var threshold: [Double]
  /// Why it fails, or nil.
  public var failure: String?

  /// Neighbouring samples weighed at each end.
  public static let window = 1024
  /// A seam step may reach this multiple of the largest neighbouring step...
  public static let factor = 2.0
  /// ...and always this much (about -54 dBFS), so near-silence never clicks by rounding.
  public static let floor = 0.002

  /// Judges the seam of `ends`.
  public static func judge(_ ends: AudioEnds) -> AudioSeam {
    var result = AudioSeam(seamSteps: [], neighbourSteps: [], threshold: [], failure: nil)
    for c in ends.head.indices {
      let head = ends.head[c].prefix(window)
      let tail = ends.tail[c].suffix(window)
      guard let first = head.first, let last = tail.last else { continue }
      var largest: Float = 0
      for part in [Array(head), Array(tail)] where part.count > 1 {
        for i in 1..<part.count { largest = max(largest, abs(part[i] - part[i - 1])) }
      }
      let seam = Double(abs(first - last))
      let limit = max(floor, factor * Double(largest))
      result.seamSteps.append(seam)
      result.neighbourSteps.append(Double(largest))
      result.threshold.append(limit)
      if seam > limit, result.failure == nil {
        result.failure = String(
          format:
            "audio seam on channel %d: the step from the last sample to the first (%.4f) is above %.1f x the largest neighbouring step (%.4f): a click",
          c + 1, seam, factor, Double(largest))
      }
    }
    return result
  }
}
