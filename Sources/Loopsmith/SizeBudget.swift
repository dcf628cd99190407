import Dispatch
import Effects
import Foundation
import Raster
import Video

#if canImport(Glibc)
  import Glibc
#endif

/// What a platform accepts, checked on the written file (`--platform`; README, Stickers).
public struct PlatformLimits: Sendable {
  /// The name `--platform` and the preset key `platform` take.
  public let name: String
  /// The codec and container the platform takes.
  public let codec: VideoCodec
  public let format: OutputFormat
  /// The longer side Telegram takes (both sides, `square`); the check lets smaller sides through.
  public let side: Int
  public let square: Bool
  public let maxSeconds: Double
  public let maxFPS: Int
  public let maxBytes: Int64
  /// Whether a sound track is allowed.
  public let audio: Bool

  /// Telegram's video stickers and custom emoji (core.telegram.org/stickers, Video requirements).
  public static let all: [PlatformLimits] = [
    PlatformLimits(
      name: "telegram-sticker", codec: .vp9, format: .webm, side: 512, square: false, maxSeconds: 3, maxFPS: 30,
      maxBytes: 256 * 1024, audio: false),
    PlatformLimits(
      name: "telegram-emoji", codec: .vp9, format: .webm, side: 100, square: true, maxSeconds: 3, maxFPS: 30,
      maxBytes: 256 * 1024, audio: false),
  ]

  public static func named(_ name: String) -> PlatformLimits? { all.first { $0.name == name.lowercased() } }

  /// One line for help: "telegram-sticker: VP9 .webm, 512 px on the longer side, <= 3 s, <= 30 fps, <= 256 KB, no audio".
  public var summary: String {
    "\(name): \(codec.rawValue.uppercased()) .\(format.rawValue), "
      + (square ? "\(side)x\(side)" : "\(side) px on the longer side")
      + ", at most \(ParameterValue.format(maxSeconds)) s, \(maxFPS) fps, \(maxBytes / 1024) KB, "
      + (audio ? "audio allowed" : "no audio")
  }

  /// The first limit settings break before anything is rendered, or nil.
  func problem(with s: OutputSettings) -> String? {
    if s.format != format || s.codec != codec {
      return
        "takes \(codec.rawValue.uppercased()) in .\(format.rawValue), not \(s.codec.rawValue) in .\(s.format.rawValue)"
    }
    return sizeProblem(width: s.width, height: s.height) ?? rateProblem(fps: s.fps)
      ?? durationProblem(seconds: Double(s.frameCount) / Double(s.fps))
      ?? (s.audio != nil && !audio ? "takes no audio; leave --audio out" : nil)
  }

  // Telegram wants exactly `side` on the longer side (or exactly side x side for emoji), which the
  // presets render; a smaller test render (batch --size 16x16) is let through, a larger one not.
  private func sizeProblem(width: Int, height: Int) -> String? {
    if square {
      return width == height && width <= side ? nil : "takes \(side)x\(side) pixels, not \(width)x\(height)"
    }
    return max(width, height) <= side ? nil : "takes \(side) pixels on the longer side, not \(width)x\(height)"
  }

  private func rateProblem(fps: Int) -> String? {
    fps <= maxFPS ? nil : "takes at most \(maxFPS) fps, not \(fps)"
  }

  private func durationProblem(seconds: Double) -> String? {
    seconds <= maxSeconds + 1e-6
      ? nil
      : "takes at most \(ParameterValue.format(maxSeconds)) s, not \(String(format: "%.3f", seconds)) s"
  }

  /// The first limit the written file breaks, read back from the file, or nil.
  func problem(file path: String) -> String? {
    guard let info = try? VideoReader(path: path).info else { return "cannot read the file back" }
    if info.codecName != codec.spec.libavName { return "takes \(codec.rawValue.uppercased()), not \(info.codecName)" }
    let bytes = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    if bytes > maxBytes { return "takes at most \(maxBytes / 1024) KB (\(maxBytes) bytes), not \(bytes) bytes" }
    let seconds = info.formatDuration ?? info.streamDuration ?? 0
    return sizeProblem(width: info.width, height: info.height)
      ?? rateProblem(fps: Int(info.frameRate.value.rounded(.up)))
      ?? durationProblem(seconds: seconds) ?? (info.hasAudio && !audio ? "takes no audio, and the file has some" : nil)
  }
}

/// `--max-bytes`: the frames rendered and encoded at qualities bisected until each file fits and
/// passes the loop check.
///
/// The first render encodes every output, one with a budget at its asked quality (`--crf`,
/// `--quality`, or the default). Each further try renders the frames again into that one encoder:
/// rendering is deterministic, so every try encodes the same frames, and nothing is kept between
/// tries but the encoded files themselves. (Kept raw frames were the render's size uncompressed,
/// 11 GB for a 1080x1920 minute at 60 f/s, in `$TMPDIR`, and a SIGKILL left them there; `$TMPDIR`
/// is not used at all now.) When that does not fit, the lowest
/// quality the codec takes is tried, and when even that is too large the render fails (exit 1)
/// naming the smallest size reached; else the quality is bisected between the two, each try a real
/// encode. The best fitting try is then judged as `loopsmith check FILE` judges it (`LoopCheck`,
/// against the source the file's preset tag names); when it fails, each worse fitting try the
/// search made, then the lowest quality, is judged in turn, and the first that passes is kept.
/// When none passes the render fails (exit 1) with the check's reason. Segments and transition
/// clips are not loops: those are not checked, and the note says so. Every kept file waits under
/// its temporary name until all of them are written and have passed `--platform`'s limits; then
/// all are put in place, so a failure leaves no file and an older file at a path stays.
public enum SizeBudget {
  /// "256 KB" or "1.5 MB" or "900 bytes", for messages.
  static func words(_ bytes: Int64) -> String {
    if bytes >= 1024 * 1024 { return String(format: "%.2f MB", Double(bytes) / 1_048_576) }
    if bytes >= 1024 { return String(format: "%.1f KB", Double(bytes) / 1024) }
    return "\(bytes) bytes"
  }

  /// Renders `job` and writes each output within its budget (see the type's comment).
  static func run(_ job: RenderJob, progress: (@Sendable (Int, Int) -> Void)?) throws -> RenderResult {
    let converters = job.outputs.map(FrameConverter.init)
    // Flushed writers wait here, under their temporary names, until every output is done.
    var kept: [VideoWriter] = []
    var committed = 0
    defer { kept.dropFirst(committed).forEach { $0.cancel() } }
    // The stills of frame 0 (`--poster`, the gallery's) come from this render, as in RenderPipeline.
    var posters: [VideoWriter] = []
    defer { posters.forEach { $0.cancel() } }  // a committed writer ignores it
    for settings in job.posters { posters.append(try VideoWriter(settings)) }
    func budgeted(_ s: OutputSettings) -> Bool {
      job.maxBytes != nil && s.format.isAnimated && s.codec.spec.quality != nil
    }
    // The first render, every output at its asked quality; handed over (set to nil) one by one.
    var first: [VideoWriter?] = []
    defer { first.forEach { $0?.cancel() } }
    for (settings, converter) in zip(job.outputs, converters) {
      var s = settings
      if budgeted(s), let quality = s.codec.spec.quality { s.crf = s.crf ?? quality.defaultValue }
      first.append(try VideoWriter(s, converter: converter))
    }
    let writers = first.compactMap { $0 }
    try RenderPipeline.drawFrames(
      job, converters: converters, into: writers, posters: posters, palettes: writers, progress: progress)
    for writer in writers { try writer.flush(interrupt: Cancellation.check) }

    var notes: [String] = []
    for (o, settings) in job.outputs.enumerated() {
      guard let budget = job.maxBytes, budgeted(settings), let quality = settings.codec.spec.quality else {
        kept.append(first[o]!)
        first[o] = nil
        continue
      }
      let asked = settings.crf ?? quality.defaultValue
      let lowest = quality.higherIsBetter ? quality.range.lowerBound : quality.range.upperBound
      var tries: [Int: Int64] = [:]
      // Every encode that fits, flushed, until the loop check has chosen one; the others are
      // cancelled as soon as measured.
      var fitting: [Int: VideoWriter] = [:]
      defer { fitting.values.forEach { $0.cancel() } }  // the kept one is taken out of it first
      func size(_ q: Int) throws -> Int64 {
        if let known = tries[q] { return known }
        let writer: VideoWriter
        if q == asked, let made = first[o] {
          writer = made
          first[o] = nil
        } else {
          var s = settings
          s.crf = q
          writer = try encode(job, s, converter: converters[o])
        }
        let bytes = writer.flushedFile?.bytes ?? 0
        tries[q] = bytes
        if bytes <= budget { fitting[q] = writer } else { writer.cancel() }
        return bytes
      }
      if try size(asked) > budget {
        if try size(lowest) > budget {
          throw RenderFailure(
            "--max-bytes \(words(budget)): \(settings.path) cannot fit; the smallest it reached is "
              + "\(words(tries[lowest]!)) (\(tries[lowest]!) bytes) at \(quality.option) \(lowest); "
              + "try a smaller --size, a lower --fps or a shorter --duration")
        }
        // `better` is too large, `worse` fits; move them together.
        var (better, worse) = (asked, lowest)
        while abs(worse - better) > 1 {
          let mid = (better + worse) / 2
          if try size(mid) <= budget { worse = mid } else { better = mid }
        }
      }
      // Best first: the bisection's answer, then each worse fitting try, then the lowest quality.
      let better: (Int, Int) -> Bool = { quality.higherIsBetter ? $0 > $1 : $0 < $1 }
      let unchecked = checkSkipped(job, settings)
      var failed: [(quality: Int, reason: String)] = []
      var chosen: (quality: Int, writer: VideoWriter, check: LoopCheck?)?
      var candidates = fitting.keys.sorted(by: better)
      while let q = candidates.first {
        candidates.removeFirst()
        let writer = fitting[q]!
        if unchecked != nil {
          chosen = (q, writer, nil)
          break
        }
        let report = try loopCheck(writer, settings, threads: job.threads)
        if report.passed {
          chosen = (q, writer, report)
          break
        }
        failed.append((q, report.failures.joined(separator: "; ")))
        if candidates.isEmpty && tries[lowest] == nil {
          _ = try size(lowest)  // fits: anything worse than a fitting try does
          if fitting[lowest] != nil { candidates.append(lowest) }
        }
      }
      guard let (q, writer, report) = chosen else {
        let first = failed[0]
        let others = failed.dropFirst().map { "\($0.quality)" }
        throw RenderFailure(
          "--max-bytes \(words(budget)): \(settings.path) fits at \(quality.option) \(first.quality) "
            + "(\(words(tries[first.quality]!)))"
            + (others.isEmpty ? "" : " and at \(quality.option) \(others.joined(separator: ", "))")
            + " but fails the loop check at each: \(first.reason); nothing was written")
      }
      kept.append(writer)
      fitting[q] = nil
      let checked: String
      if let unchecked {
        checked = "; not loop-checked: \(unchecked)"
      } else {
        checked =
          "; the loop check passed (seam \(String(format: "%.2f", report?.seamRatio ?? 0)) x the median step)"
          + (failed.isEmpty
            ? "" : ", after failing at \(quality.option) " + failed.map { "\($0.quality)" }.joined(separator: ", "))
      }
      notes.append(
        "\(settings.path): \(words(tries[q]!)) at \(quality.option) \(q)"
          + (q == asked ? "" : " (asked \(asked))") + ", within --max-bytes \(words(budget)) after \(tries.count) "
          + (tries.count == 1 ? "encode" : "encodes") + checked)
    }
    // The platform's limits, read back from each video before any is put in place.
    if let limits = job.platform {
      for writer in kept where writer.settings.format.isAnimated {
        if let file = writer.flushedFile, let problem = limits.problem(file: file.path) {
          throw RenderFailure(
            "--platform \(limits.name): \(writer.settings.path) breaks a limit: Telegram \(problem); nothing was written"
          )
        }
      }
    }
    for poster in posters { try poster.flush(interrupt: Cancellation.check) }
    var files: [WrittenFile] = []
    for writer in kept {
      files.append(try writer.commit())
      committed += 1
    }
    var result = RenderResult(files: files, frames: job.frameCount, posters: try posters.map { try $0.commit() })
    result.notes = notes
    return result
  }

  /// Why a budgeted output is not loop-checked, or nil when it is: a segment or a transition clip is
  /// not a loop.
  static func checkSkipped(_ job: RenderJob, _ settings: OutputSettings) -> String? {
    if settings.segment != nil || job.firstFrame != 0 { return "a segment is not a whole loop (check the joined file)" }
    if job.transition != nil { return "a transition clip is not a loop" }
    return nil
  }

  /// `loopsmith check`'s judgement of a flushed try: its seam against its other steps and against
  /// the source its preset tag names (re-rendered losslessly), and its stream facts. Messages name
  /// the output, not the temporary file.
  private static func loopCheck(
    _ writer: VideoWriter, _ settings: OutputSettings, threads: Int
  ) throws -> LoopCheck {
    guard let file = writer.flushedFile else {
      throw RenderFailure("\(settings.path): the encode was not flushed before its loop check")
    }
    // Read under the output's name: its extension picks the format the tag's source is rendered
    // for, and the messages name the output, not the temporary file.
    return try LoopCheck.run(path: file.path, named: settings.path, against: .tag, threads: threads)
  }

  /// One more try: the frames rendered again into one encoder with `settings`, flushed under its
  /// temporary name (the caller commits or cancels it).
  private static func encode(
    _ job: RenderJob, _ settings: OutputSettings, converter: FrameConverter
  ) throws
    -> VideoWriter
  {
    let writer = try VideoWriter(settings, converter: converter)
    do {
      try RenderPipeline.drawFrames(
        job, converters: [converter], into: [writer], posters: [], palettes: [writer], progress: nil)
      try writer.flush(interrupt: Cancellation.check)
      return writer
    } catch {
      writer.cancel()
      throw error
    }
  }
}
