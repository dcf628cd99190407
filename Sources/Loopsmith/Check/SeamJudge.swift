import Foundation

/// How a loop's seam compares with the loop's other steps (docs/ENCODING.md, Judging a loop).
public struct SeamJudgement: Sendable {
  /// The seam's local change: last frame to frame 0, in 8-bit code values.
  public var seam: Double
  /// The largest seam that passes.
  public var threshold: Double
  /// The median of the other steps, and their median absolute deviation (scaled to a standard
  /// deviation for normal data).
  public var median: Double
  public var deviation: Double
  /// The 95th percentile of the other steps.
  public var high: Double
  /// The steps into the last frame and out of frame 0.
  public var before: Double
  public var after: Double
  /// Seam over median; 1 is an ordinary step.
  public var ratio: Double { median > 0 ? seam / median : (seam == 0 ? 1 : .infinity) }
  /// Why the seam fails, one sentence, or nil when it passes.
  public var failure: String?
  public var passed: Bool { failure == nil }
  /// Whether `failure` is the stall rule's: a seam far smaller than both its moving neighbours.
  public var stalls = false
  /// What was found without failing, one sentence: a stall-shaped seam the source has too.
  public var note: String?
}

extension SeamJudgement {
  /// Below this local change (code values, the largest 16x16 block mean) a step is not seen:
  /// dither alone moves a block's mean by about 0.1, and one code over a block is the smallest
  /// change a banded gradient shows.
  public static let floor = 1.0
  /// A seam may reach this multiple of the other steps' 95th percentile...
  public static let percentileFactor = 1.5
  /// ...but never more than this multiple of their median (unless a neighbour is as fast): a seam
  /// six times an ordinary step always fails.
  public static let medianCap = 4.0
  /// A seam may reach this multiple of the larger of its two neighbours, where motion is fast.
  public static let neighbourFactor = 1.5
  /// Both neighbours and the median step move at least this much when a seam far below them is a
  /// stall, not an encoder holding a slow picture and catching up beside the seam (VP9's clear
  /// night at 4 fps: a seam of 0.00 between catch-up steps of 0.98 and 0.28, median 0.88, where the
  /// source's own seam step is 0.02).
  public static let stallNeighbour = 0.5
  /// A seam under this fraction of both moving neighbours is a stall.
  public static let stallFraction = 0.5
  /// A seam under this fraction of both neighbours and under `stallMedianFactor` of the median
  /// step is a stall too: a repeated frame still carries the encoder's noise (H.264 rain at
  /// 64x112: a repeated frame's seam of 0.305 codes between steps of 0.787 and 0.605, just above
  /// half the smaller, median 1.0). Both bounds must hold, so a calm seam in a loop whose median is
  /// raised by fast passages (a rain-to-snow sequence: 1.94 between 2.02 and 12.4) is not one.
  /// `SeamJudgeTests` holds these cases.
  public static let noisyStallFraction = 0.6
  public static let stallMedianFactor = 0.4

  /// Judges `steps`, where `steps[i]` is the change from frame i to i + 1 and the last entry is
  /// the seam (last frame to frame 0). `checkStall` adds the stall rule: a seam far smaller than
  /// both its moving neighbours means the last frame repeats the first, unless `source` (the
  /// lossless source's steps, the same count) has a seam of that shape too: a loop that slows into
  /// its seam and starts fast (a sequence's fade) repeats nothing.
  public static func judge(steps: [Double], checkStall: Bool = true, source: [Double]? = nil) -> SeamJudgement {
    let seam = steps.last ?? 0
    let others = Array(steps.dropLast())
    let sorted = others.sorted()
    let median = percentile(sorted, 0.5)
    let deviation = 1.4826 * percentile(others.map { abs($0 - median) }.sorted(), 0.5)
    let high = percentile(sorted, 0.95)
    let before = others.last ?? 0
    let after = others.first ?? 0
    let neighbours = max(before, after)
    // The file's other steps say how much a step may change; the cap keeps a loop whose steps vary
    // (encoder jumps, a pause) from hiding a seam many times its ordinary step.
    let spread = min(
      max(percentileFactor * high, median + 6 * deviation), max(medianCap * median, neighbourFactor * neighbours))
    let threshold = max(floor, spread)
    var judgement = SeamJudgement(
      seam: seam, threshold: threshold, median: median, deviation: deviation, high: high, before: before,
      after: after, failure: nil)
    if seam > threshold {
      judgement.failure = String(
        format:
          "seam ratio %.2f: the seam's largest 16x16 block change (%.2f codes) is above the threshold %.2f (the other steps' median %.2f, 95th percentile %.2f, neighbours %.2f and %.2f): the loop jumps at the seam",
        judgement.ratio, seam, threshold, median, high, before, after)
    } else if checkStall, median >= stallNeighbour, min(before, after) >= stallNeighbour,
      seam < stallFraction * min(before, after)
        || (seam < noisyStallFraction * min(before, after) && seam < stallMedianFactor * median)
    {
      if let source, source.count == steps.count, case let own = judge(steps: source), own.stalls {
        judgement.note = String(
          format:
            "the seam (%.2f codes) is small beside its neighbours (%.2f and %.2f) as the source's is (%.2f beside %.2f and %.2f): the loop slows into its seam; no frame repeats",
          seam, before, after, own.seam, own.before, own.after)
      } else {
        judgement.failure = String(
          format:
            "seam ratio %.2f: the seam's change (%.2f codes) is below half its neighbours' %.2f and %.2f: the last frame repeats the first (a stall)",
          judgement.ratio, seam, before, after)
        judgement.stalls = true
      }
    }
    return judgement
  }

  /// The `q` quantile of sorted values, interpolated; 0 for none.
  static func percentile(_ sorted: [Double], _ q: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let x = q * Double(sorted.count - 1)
    let i = Int(x)
    let f = x - Double(i)
    return i + 1 < sorted.count ? sorted[i] * (1 - f) + sorted[i + 1] * f : sorted[i]
  }
}

/// A step where the file jumps beyond the source's own motion.
public struct FidelityJump: Sendable {
  /// The step: frame `index` to `index + 1`, or the seam (last frame to 0) when `isSeam`.
  public var index: Int
  public var isSeam: Bool
  /// The file's local change and the lossless source's, in code values.
  public var file: Double
  public var source: Double
}

/// Temporal fidelity: every step of a file against the same step of its lossless source.
public enum Fidelity {
  /// A file's step may exceed its source's by this factor plus the slack (`slack(blocks:)`).
  public static let factor = 1.5
  /// The slack in codes for pictures of up to `calibratedBlocks` blocks a plane (64x112 and
  /// smaller), where the rule was set.
  public static let baseSlack = 1.0
  public static let calibratedBlocks = 28
  /// What the slack grows by, in codes, each time the block count grows e-fold (docs/ENCODING.md,
  /// How the slack grows). Coding noise is sparse: between two frames of a quiet passage most blocks do
  /// not change at all, and the few the encoder updates change by amounts whose largest (the
  /// step `LocalChange` takes) grows with the count of blocks to take it from: about 0.10 code an
  /// e-fold, measured on the same loops from 64x112 to full size.
  public static let slackGrowth = 0.1

  /// The slack for pictures of `blocks` 16x16 blocks a plane: 1 code up to 64x112, 1.57 at
  /// 1080x1920.
  public static func slack(blocks: Int) -> Double {
    baseSlack + slackGrowth * max(0, log(Double(blocks) / Double(calibratedBlocks)))
  }

  /// The steps where `file[i] > factor * source[i] + slack(blocks:)`, the seam (the last step)
  /// first, then the rest from the largest excess down; `blocks` is `LocalChange.blocks` of the
  /// pictures. Without `loops` (a transition clip, whose last frame leads into another loop) the
  /// last step, from the last frame back to the first, is no step of the clip and is left out.
  public static func jumps(file: [Double], source: [Double], blocks: Int, loops: Bool = true) -> [FidelityJump] {
    precondition(file.count == source.count, "step counts differ")
    let slack = slack(blocks: blocks)
    var found: [FidelityJump] = []
    for i in (loops ? file.indices : file.indices.dropLast()) where file[i] > factor * source[i] + slack {
      found.append(FidelityJump(index: i, isSeam: i == file.count - 1, file: file[i], source: source[i]))
    }
    return found.sorted { a, b in
      if a.isSeam != b.isSeam { return a.isSeam }
      return a.file - a.source > b.file - b.source
    }
  }
}
