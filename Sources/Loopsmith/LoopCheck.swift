import Foundation
import Raster
import Video

/// What `loopsmith check` finds in a file: the seam's local change against the file's other steps,
/// every step against the lossless source when it is known, the audio seam, and the stream facts
/// that make it play and loop everywhere (docs/ENCODING.md, Judging a loop).
public struct LoopCheck: Sendable {
  public var path: String
  public var info: StreamInfo
  public var frames: Int
  /// Every step's local change (`LocalChange`), frame i to i + 1; the last is the seam (or, with
  /// `then`, the splice into the next file).
  public var steps: [Double]
  public var judgement: SeamJudgement
  /// The lossless source's comparison, when there is a source.
  public var against: Against?
  /// The audio seam, when the file has sound.
  public var audio: AudioSeam?
  /// Rules that failed, each one sentence.
  public var failures: [String]
  /// What was not checked, or found without failing, each one sentence.
  public var notes: [String]
  /// The transition (`rain:snow`) when the source, from the file's tag or `--against`, is a
  /// transition clip: no loop, so the step from its last frame back to its first is not judged.
  public var transition: String?

  public var passed: Bool { failures.isEmpty }
  public var seamStep: Double { judgement.seam }
  /// The median of the other steps.
  public var neighbourStep: Double { judgement.median }
  public var maxStep: Double { steps.dropLast().max() ?? 0 }
  /// seam / median of the other steps; 1 means the seam is an ordinary step.
  public var seamRatio: Double { judgement.ratio }

  /// Where the source came from and what it showed.
  public struct Against: Sendable {
    /// `the file's loopsmith-preset tag`, a preset path, or the effect and flags given.
    public var source: String
    /// The source's steps, as `steps`; empty when it could not be compared.
    public var sourceSteps: [Double]
    public var jumps: [FidelityJump]
    /// The slack the steps were judged with (`Fidelity.slack(blocks:)`), in codes.
    public var slack: Double
  }

  /// Where `run` takes the lossless source from.
  public enum Source: Sendable {
    /// No comparison.
    case none
    /// The file's own loopsmith-preset tag, when it has one; only a jump at the seam fails.
    case tag
    /// A request the user gave (`--against`), named by `label`; every jump fails.
    case request(RenderRequest, label: String)
  }

  /// Decodes `path` (and, for a splice, `then`: the end of `path` into the start of `then`) and
  /// judges it; `against` re-renders its source to compare each step with. `name` is what the
  /// report and its messages call the file, and its extension gives the format the source is
  /// rendered for (a render's temporary file is checked under its output's name); `path` by default.
  public static func run(
    path file: String, named name: String? = nil, then next: String? = nil, against: Source = .none,
    threads: Int = 2, memoryLimit: UInt64? = nil
  ) throws -> LoopCheck {
    let path = name ?? file
    let reader = try VideoReader(path: file, keepAlpha: true)
    let info = reader.info
    // Both files' headers are read before either is decoded, so the budget sees them together.
    let other = try next.map { try VideoReader(path: $0, keepAlpha: true) }
    var failures: [String] = []
    var notes: [String] = []

    // The source, when there is one.
    var source: LoopSource?
    var sourceLabel = ""
    var explicit = false
    var request: RenderRequest?
    switch against {
    case .none: break
    case .tag:
      do {
        request = try PresetTag.request(in: info, videoPath: path)
      } catch let e as InputError {
        failures.append(e.message)
      }
      sourceLabel = "the file's loopsmith-preset tag"
    case .request(let r, let label):
      (request, sourceLabel, explicit) = (r, label, true)
    }
    let transition = request?.transition
    // A level track or sound the tag names is read beside the video; moved without it (a batch's
    // outputs copied elsewhere), the file is still judged on its own.
    if !explicit, let missing = request.flatMap(Self.missingFile) {
      notes.append(
        "\(sourceLabel) names \((missing as NSString).lastPathComponent), which is not beside the video: steps not compared with the source"
      )
      request = nil
    }
    try CheckBudget.require(
      info, path: path, then: other?.info, source: request != nil, threads: threads, limit: memoryLimit)
    if let request {
      do {
        let s = try LoopSource(
          request: request, path: path, width: info.width, height: info.height, fps: info.frameRate,
          threads: threads)
        if s.frameCount == info.frameCount {
          source = s
        } else {
          let text =
            "\(sourceLabel) makes a loop of \(s.frameCount) frames, the file holds \(info.frameCount): not compared"
          if explicit { failures.append(text) } else { notes.append(text) }
        }
      } catch let e as InputError {
        let text = "\(sourceLabel) cannot be re-rendered: \(e.message)"
        if explicit { throw InputError(text) } else { failures.append(text) }
      }
    }

    let alpha = info.carriesAlpha
    var planes = LocalChange.Planes(width: info.width, height: info.height, alpha: alpha)
    var previous = planes
    var first: LocalChange.Planes?
    var sourcePlanes = planes, sourcePrevious = planes
    var sourceFirst: LocalChange.Planes?
    // Each step's largest block change per plane (LocalChange.largestBlockChange), the file's and
    // the source's; a step is the largest over the planes judged (`judgedPlanes`).
    var stepPlanes: [[Double]] = []
    var sourceStepPlanes: [[Double]] = []
    var count = 0
    // The reader hands out frames of the stream's declared size only (VideoReader.nextFrame).
    while let image = try reader.nextFrame() {
      LocalChange.fill(&planes, from: image)
      if count > 0 { stepPlanes.append(LocalChange.largestBlockChange(previous, planes)) }
      if first == nil { first = planes }
      swap(&planes, &previous)
      if let source, count < source.frameCount {
        // Over the background the converter used, where the file has no alpha.
        LocalChange.fill(
          &sourcePlanes, from: source.frame(count), background: source.keepAlpha ? .zero : source.background)
        if count > 0 { sourceStepPlanes.append(LocalChange.largestBlockChange(sourcePrevious, sourcePlanes)) }
        if sourceFirst == nil { sourceFirst = sourcePlanes }
        swap(&sourcePlanes, &sourcePrevious)
      }
      count += 1
    }
    guard let firstPlanes = first else {
      throw RenderFailure("\(path): no frames could be decoded")
    }

    // A palette file's chroma carries its dither (docs/ENCODING.md, Judging a loop): its steps
    // are luma's (and alpha's), and each chroma plane is judged against its own steps below.
    let dithered = Self.dithered(info)
    let names = planes.names
    let judgedPlanes = names.indices.filter { !dithered || !Self.isChroma(names[$0]) }
    func judgedStep(_ perPlane: [Double]) -> Double { judgedPlanes.map { perPlane[$0] }.max() ?? 0 }
    var judgedPlaneSteps = stepPlanes
    var nextInfo: StreamInfo?
    if let next, let other {
      nextInfo = other.info
      guard other.info.width == info.width, other.info.height == info.height else {
        throw InputError(
          "--then \(next): \(other.info.width)x\(other.info.height) does not match \(info.width)x\(info.height)")
      }
      var a = LocalChange.Planes(width: info.width, height: info.height, alpha: alpha)
      var b = a
      guard let f = try other.nextFrame() else { throw RenderFailure("\(next): no frames could be decoded") }
      LocalChange.fill(&a, from: f)
      // The step out of the splice's far side stands where frame 0's would.
      if let g = try other.nextFrame() {
        LocalChange.fill(&b, from: g)
        judgedPlaneSteps = [LocalChange.largestBlockChange(a, b)] + stepPlanes
      }
      let splice = LocalChange.largestBlockChange(previous, a)
      judgedPlaneSteps.append(splice)
      stepPlanes.append(splice)
    } else {
      stepPlanes.append(LocalChange.largestBlockChange(previous, firstPlanes))
      judgedPlaneSteps = stepPlanes
    }
    let steps = stepPlanes.map(judgedStep)
    let judged = judgedPlaneSteps.map(judgedStep)
    // The source's steps, its seam included, when it was drawn beside every frame of the file.
    var compared: [Double]?
    if source != nil, next == nil, let sourceFirst, sourceStepPlanes.count == stepPlanes.count - 1 {
      sourceStepPlanes.append(LocalChange.largestBlockChange(sourcePrevious, sourceFirst))
      compared = sourceStepPlanes.map(judgedStep)
    }
    // A transition clip ends just before another loop's frame 0: its own first frame does not follow its last.
    let loops = next != nil || transition == nil
    let judgement = SeamJudgement.judge(steps: judged, checkStall: next == nil && loops, source: compared)
    if loops, let failure = judgement.failure { failures.append(failure) }
    if let note = judgement.note { notes.append(note) }
    if dithered, loops {
      var seams: [String] = []
      for p in names.indices where Self.isChroma(names[p]) {
        let own = SeamJudgement.judge(steps: judgedPlaneSteps.map { $0[p] }, checkStall: false)
        seams.append(names[p] + String(format: " %.2f against %.2f", own.seam, own.threshold))
        if let failure = own.failure {
          failures.append("\(names[p]), judged against the file's own \(names[p]) steps (its dither): \(failure)")
        }
      }
      notes.append(
        "a palette's dither moves the chroma from frame to frame: the steps are luma's\(names.contains("alpha") ? " and alpha's" : ""), and the \(next == nil ? "seam" : "splice")'s chroma is judged against the file's own chroma steps ("
          + seams.joined(separator: ", ") + ")")
    }
    if !loops, let transition {
      let pair = transition.split(separator: ":").map(String.init)
      notes.append(
        "a transition clip (\(pair.joined(separator: " to "))) is no loop: the step from its last frame to its first is not judged; check its joins with --then (check A --then CLIP, check CLIP --then B)"
      )
    }

    var comparison: Against?
    if let sourceSteps = compared {
      let blocks = LocalChange.blocks(width: info.width, height: info.height)
      let jumps = Fidelity.jumps(file: steps, source: sourceSteps, blocks: blocks, loops: loops)
      let slack = Fidelity.slack(blocks: blocks)
      comparison = Against(source: sourceLabel, sourceSteps: sourceSteps, jumps: jumps, slack: slack)
      let counted = explicit ? jumps : jumps.filter(\.isSeam)
      if !counted.isEmpty {
        failures.append(
          "\(counted.count) of \(steps.count) steps jump beyond the source's motion (file > \(Fidelity.factor) x source + \(String(format: "%.2f", slack)) codes), against \(sourceLabel): "
            + describe(counted, frames: count))
      }
      let others = jumps.filter { !$0.isSeam }
      if !explicit, !others.isEmpty {
        notes.append(
          "\(others.count) steps inside the \(loops ? "loop" : "clip") jump beyond the source's motion (the encoder holding and releasing change): "
            + describe(others, frames: count))
      }
    }

    var audio: AudioSeam?
    if info.hasAudio, next == nil {
      let judged = AudioSeam.judge(try AudioEnds.read(path: file))
      if let failure = judged.failure { failures.append(failure) }
      audio = judged
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
      path: path, info: info, frames: count, steps: steps, judgement: judgement, against: comparison, audio: audio,
      failures: failures, notes: notes, transition: loops ? nil : transition)
  }

  /// Whether a file's pictures are palette indices (GIF, or a PNG of `pal8`), whose dither moves
  /// the chroma of a block from frame to frame by more than its luma.
  static func dithered(_ info: StreamInfo) -> Bool {
    info.codecName == "gif" || info.pixelFormatName == "pal8"
  }

  /// Whether a plane of `LocalChange.Planes` is chroma (Cb or Cr, over a background or not).
  static func isChroma(_ name: String) -> Bool { name.hasPrefix("Cb") || name.hasPrefix("Cr") }

  /// The steps of the file's own motion: all of them for a loop (the seam last), all but the last
  /// for a transition clip, whose last frame leads into another loop.
  public var ownSteps: ArraySlice<Double> { transition == nil ? steps[...] : steps.dropLast() }

  /// The first file `request` reads (the settings the table marks as files: a level track, a
  /// sound) that does not exist.
  static func missingFile(_ request: RenderRequest) -> String? {
    RenderSetting.all.lazy.filter(\.isFile).compactMap { setting -> String? in
      guard case .text(let path)? = setting.value(in: request) else { return nil }
      return FileManager.default.fileExists(atPath: path) ? nil : path
    }.first
  }

  /// The first few jumps as `seam 4.10 vs 0.90; 56->57 3.30 vs 0.70; ...`.
  static func describe(_ jumps: [FidelityJump], frames: Int) -> String {
    let shown = jumps.prefix(5).map { j in
      (j.isSeam ? "seam" : "\(j.index)->\(j.index + 1)") + String(format: " %.2f vs %.2f", j.file, j.source)
    }
    return shown.joined(separator: "; ") + (jumps.count > 5 ? "; ..." : "")
  }

}
