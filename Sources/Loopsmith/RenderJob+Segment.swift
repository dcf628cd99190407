import Effects
import Video

extension RenderJob {
  /// The job cut to frames A..<B of its loop (`render --frames A:B`, B exclusive, so `0:30` and
  /// `30:60` meet without sharing a frame). Each frame still draws at its loop time (A + i) / fps;
  /// each output starts a fresh encoder at A and is timed from 0, and carries the range so that
  /// `join` can put the segments back in order (`FrameSegment`).
  /// With `discarding` (`render --null`) nothing is written, so no output needs to be a file.
  public func segment(_ text: String, discarding: Bool = false) throws -> RenderJob {
    let expected =
      "A:B, whole frame numbers with 0 <= A < B <= \(frameCount) (the frames in this \(transition == nil ? "loop" : "clip")), B exclusive, or K/N, part K of N equal parts"
    guard fixedTime == nil, outputs.allSatisfy({ $0.format.isAnimated }) else {
      throw InputError("--frames: a still has one frame; expected a video loop or transition clip")
    }
    let (a, b) = try Self.frameRange(text, frameCount: frameCount, expected: expected)
    if outputs.contains(where: { $0.audio != nil }) {
      throw InputError("--frames: a segment cannot carry --audio's sound; expected --levels, or a whole render")
    }
    if !discarding, let stdout = outputs.first(where: { $0.path == "-" }) {
      throw InputError("--frames: '\(stdout.path)' (stdout) cannot be joined; expected a file")
    }
    var job = self
    job.frameCount = b - a
    job.threads = min(threads, b - a)
    job.firstFrame = a
    for i in job.outputs.indices {
      job.outputs[i].frameCount = b - a
      job.outputs[i].segment = FrameSegment(first: a, end: b, total: frameCount)
    }
    if !posters.isEmpty && a != 0 {
      throw InputError(
        "--poster: shows frame 0, which segment --frames \(text) does not render; give it to the segment starting at 0"
      )
    }
    return job
  }

  /// The frames `A:B` names, or part `K/N` (1-based) of N parts as equal as whole frames allow:
  /// frames (K - 1) * F / N ..< K * F / N, so the parts of any F cover it once, in order.
  static func frameRange(_ text: String, frameCount f: Int, expected: String) throws -> (Int, Int) {
    let bad = InputError("--frames: '\(text)' is not valid; expected \(expected)")
    let isPart = text.contains("/")
    let parts = text.split(separator: isPart ? "/" : ":", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].hasPrefix("+"), !parts[1].hasPrefix("+"),
      let x = DecimalText.int(String(parts[0])), let y = DecimalText.int(String(parts[1]))
    else { throw bad }
    if isPart {
      guard y >= 1, y <= f, x >= 1, x <= y else { throw bad }
      return ((x - 1) * f / y, x * f / y)
    }
    guard x >= 0, x < y, y <= f else { throw bad }
    return (x, y)
  }
}
