import Foundation
import Raster
import Video

/// What `loopsmith check` finds in a file: the seam against ordinary steps, and the stream facts
/// that make it play and loop everywhere (docs/ENCODING.md, Seams).
public struct LoopCheck: Sendable {
  public var path: String
  public var info: StreamInfo
  public var frames: Int
  /// Mean absolute luma step from the last frame to the first, in 8-bit code values.
  public var seamStep: Double
  /// The mean of the seam's neighbouring steps: into the last frame, and out of the first.
  public var neighbourStep: Double
  public var maxStep: Double
  /// seam / median; 1 means the seam is an ordinary step.
  public var seamRatio: Double
  /// Rules that failed, each one sentence.
  public var failures: [String]

  public var passed: Bool { failures.isEmpty }

  /// The largest seam ratio that passes.
  public static let maxRatio = 1.5

  /// Decodes `path` (and, for a splice, `then`: the end of `path` into the start of `then`).
  public static func run(path: String, then next: String? = nil) throws -> LoopCheck {
    let reader = try VideoReader(path: path, keepAlpha: false)
    let info = reader.info
    var steps: [Double] = []
    var first: [Float]?
    // Two planes swapped frame after frame, so a check allocates nothing per frame.
    var previous: [Float] = [], current: [Float] = []
    var count = 0
    while let image = try reader.nextFrame() {
      lumaPlane(image, into: &current)
      if count > 0 { steps.append(meanDifference(previous, current)) }
      if first == nil { first = current }
      swap(&current, &previous)
      count += 1
    }
    guard let firstFrame = first else {
      throw RenderFailure("\(path): no frames could be decoded")
    }
    var seamTarget = firstFrame
    // The step out of the frame after the seam: frame 0 to 1 here, or the next file's for a splice.
    var after = steps.first ?? 0
    var nextInfo: StreamInfo?
    if let next {
      let other = try VideoReader(path: next, keepAlpha: false)
      nextInfo = other.info
      guard let f = try other.nextFrame() else { throw RenderFailure("\(next): no frames could be decoded") }
      lumaPlane(f, into: &seamTarget)
      guard seamTarget.count == previous.count else {
        throw InputError(
          "--then \(next): \(other.info.width)x\(other.info.height) does not match \(info.width)x\(info.height)")
      }
      if let g = try other.nextFrame() {
        lumaPlane(g, into: &current)
        after = meanDifference(seamTarget, current)
      }
    }
    let seam = meanDifference(previous, seamTarget)
    let maxStep = steps.max() ?? 0
    // The seam is weighed against its neighbours, the step into the last frame and the step out of
    // the first: a seamless loop's seam lies between them, as any step does between the ones around
    // it. The whole file's median (docs/ENCODING.md, Seams) misjudges loops whose speed changes: a crossfade
    // that moves fast before a slow seam, a voice that pauses at the ends.
    let before = steps.last ?? 0
    let (lo, hi) = (min(before, after), max(before, after))
    let reference = (before + after) / 2
    let ratio = reference > 0 ? seam / reference : (seam == 0 ? 1 : .infinity)
    var failures: [String] = []
    let neighbours = String(format: "its neighbours' %.3f and %.3f", before, after)
    if hi < 0.2 {
      // Nearly still at the seam: pass when the seam is no bigger than the largest step anywhere.
      if seam > max(maxStep, 0.2) {
        failures.append(
          String(
            format: "seam step %.3f is larger than every step of a nearly still loop (largest %.3f)", seam, maxStep))
      }
    } else if seam > maxRatio * hi {
      failures.append(
        String(
          format:
            "seam ratio %.2f: the step from the last frame to the first (%.3f) is above %.1f x %@: the loop jumps at the seam",
          ratio, seam, maxRatio, neighbours))
    } else if next == nil, lo >= 0.2, seam < 0.5 * lo {
      failures.append(
        String(
          format:
            "seam ratio %.2f: the step from the last frame to the first (%.3f) is below half %@: the last frame repeats the first (a stall)",
          ratio, seam, neighbours))
    }
    if count != info.frameCount { failures.append("decoded \(count) frames but the stream holds \(info.frameCount)") }
    let fps = info.frameRate.value
    if fps > 0, let d = info.formatDuration, abs(d - Double(count) / fps) > 0.0015 {
      failures.append(String(format: "duration %.4f s is not frames / fps = %.4f s", d, Double(count) / fps))
    }
    if !info.firstPacketIsKeyframe { failures.append("the first frame is not a key frame") }
    if let s = info.streamStartTime, abs(s) > 1e-6 { failures.append("the stream starts at \(s) s, not 0") }
    if info.moovBeforeMdat == false { failures.append("moov comes after mdat: not fast start") }
    let row = CodecSpec.forStream(named: info.codecName)
    if let row, row.tagsBT709 {
      if info.colorPrimaries != "bt709" || info.colorTransfer != "bt709" || info.colorMatrix != "bt709" {
        failures.append("color tags are \(info.colorPrimaries)/\(info.colorTransfer)/\(info.colorMatrix), not bt709")
      }
    }
    if let tag = row?.codecTag, info.codecTag != tag {
      failures.append("\(info.codecName) tagged '\(info.codecTag)', not \(tag) (Apple players refuse hev1)")
    }
    if let nextInfo, nextInfo.frameRate != info.frameRate {
      failures.append("--then: frame rate \(nextInfo.frameRate) does not match \(info.frameRate)")
    }
    return LoopCheck(
      path: path, info: info, frames: count, seamStep: seam, neighbourStep: reference, maxStep: maxStep,
      seamRatio: ratio, failures: failures)
  }

  /// BT.709 luma of straight RGB in 8-bit code values, per pixel.
  static func lumaPlane(_ image: Image, into out: inout [Float]) {
    if out.count != image.count { out = [Float](repeating: 0, count: image.count) }
    for i in 0..<image.count {
      let p = image.pixels[i]
      out[i] = (0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z) * 255
    }
  }

  static func meanDifference(_ a: [Float], _ b: [Float]) -> Double {
    var sum: Double = 0
    for i in a.indices { sum += Double(abs(a[i] - b[i])) }
    return sum / Double(max(a.count, 1))
  }
}
