import Effects
import Foundation
import Loopsmith
import Video

enum CheckCommand {
  static let options = [
    OptionSpec("then", value: "video", "Check a splice: the end of the one <video> into the start of this file."),
    OptionSpec(
      "against", value: "source",
      "Re-render the loop losslessly from a preset file or an effect and its flags in one word list (\"weather --weather fog\") and compare every step; each jump beyond the source's motion fails."
    ),
    OptionSpec("no-against", "Skip the comparison with the source the file's loopsmith-preset tag names."),
    OptionSpec(
      "memory-limit", value: "size",
      "The most memory the check may plan to use (512M, 8G; default half the memory); a file whose headers need more is refused before it is decoded."
    ),
    OptionSpec("json", "Print one JSON document on stdout: a row per file."),
  ]

  static var help: String {
    helpText(
      usage:
        "loopsmith check <video>... [--against <preset.json | \"effect flags\">] [--no-against] [--then <video>] [--memory-limit <size>] [--json]",
      overview:
        "Decode files and judge each loop's seam by its largest 16x16 block change against the file's other steps, every step against the lossless source when it is known (--against, or the preset tag the file carries), the audio seam, and the stream facts; exit 1 when a rule fails for any file.",
      arguments: [
        ("<video>", "An MP4, MOV, WebM, GIF, APNG or WebP file (or a PNG, JPEG or Y4M); several may be given.")
      ], options: options)
  }

  static func run(_ args: [String], stdout: TextSink, stderr: TextSink) throws -> Int32 {
    let parsed = try ParsedArguments(args, specs: options)
    let paths = parsed.positionals
    guard !paths.isEmpty else { throw InputError("check needs a video file; expected one or more paths") }
    let then = parsed.last("then")
    if then != nil, paths.count > 1 {
      throw InputError("--then: checks a splice of one file; got \(paths.count) files")
    }
    if parsed.has("no-against"), parsed.last("against") != nil {
      throw InputError("--against and --no-against: expected one of them")
    }
    for path in paths { try requireReadableFile(path, field: nil) }
    if let t = then { try requireReadableFile(t, field: "--then") }
    let memoryLimit = try parsed.last("memory-limit").map { try MemoryBudget.parse($0) }
    var source: LoopCheck.Source = parsed.has("no-against") || then != nil ? .none : .tag
    if let text = parsed.last("against") { source = try againstSource(text) }

    var rows: [[String: Any]] = []
    var allPassed = true
    for path in paths {
      let report: LoopCheck
      do {
        report = try LoopCheck.run(path: path, then: then, against: source, memoryLimit: memoryLimit)
      } catch let error where paths.count > 1 && !(error is InputError) && exitStatus(for: error) < 128 {
        // One file that cannot be decoded fails, and the others are still checked.
        allPassed = false
        let text = message(for: error)
        if parsed.has("json") {
          rows.append(["path": path, "passed": false, "failures": [text]])
        } else {
          stdout.write("\(path):\n  FAIL: \(text)\n")
        }
        continue
      }
      allPassed = allPassed && report.passed
      if parsed.has("json") {
        rows.append(row(report))
      } else {
        stdout.write(text(report, then: then))
      }
    }
    if parsed.has("json") {
      stdout.write(CLI.jsonString(["passed": allPassed, "files": rows] as [String: Any]) + "\n")
    }
    return allPassed ? 0 : 1
  }

  /// `--against`'s value: a preset file (by path, or a preset's name), or an effect and its
  /// render flags as one list of words.
  static func againstSource(_ text: String) throws -> LoopCheck.Source {
    let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
    guard let target = words.first else {
      throw InputError("--against: empty; expected a preset file or an effect and its flags")
    }
    var base = RenderRequest()
    var flags = Array(words.dropFirst())
    if target.hasSuffix(".json") || (!EffectRegistry.names.contains(target) && PresetSearch.find(target) != nil) {
      let path = target.hasSuffix(".json") ? target : PresetSearch.find(target) ?? target
      base = try Preset.load(path: path).request
    } else {
      guard EffectRegistry.names.contains(target) else {
        throw InputError(
          "--against: '\(target)' is neither a preset file nor an effect; expected a .json file or one of \(EffectRegistry.names.joined(separator: ", "))"
        )
      }
      base.effect = target
    }
    // Outputs are the checked file's own; a --against naming some would be ignored silently.
    if flags.contains(where: { $0 == "-o" || $0.hasPrefix("--output") }) {
      throw InputError("--against: takes no outputs; the file checked is the output")
    }
    flags = flags.filter { !$0.isEmpty }
    let parsed: ParsedArguments
    do {
      parsed = try ParsedArguments(flags, specs: RenderCommand.options)
    } catch let e as InputError {
      throw InputError("--against: \(e.message)")
    }
    guard parsed.positionals.isEmpty else {
      throw InputError("--against: unexpected '\(parsed.positionals[0])'; expected one effect or preset, then flags")
    }
    let request = base.merged(with: try RenderCommand.requestFromFlags(parsed, effect: base.effect))
    return .request(request, label: "--against \(text)")
  }

  static func text(_ report: LoopCheck, then: String?) -> String {
    let i = report.info
    let j = report.judgement
    var out =
      "\(report.path): \(i.codecName) \(i.profileName ?? "") \(i.pixelFormatName) \(i.width)x\(i.height) \(i.frameRate) fps\n"
    out +=
      "  frames \(report.frames), duration \(i.formatDuration.map { String(format: "%.4f s", $0) } ?? "unknown"), key frame at 0: \(i.firstPacketIsKeyframe ? "yes" : "no")\n"
    out +=
      "  color \(i.colorRange)/\(i.colorMatrix)/\(i.colorTransfer)/\(i.colorPrimaries), tag '\(i.codecTag)'\(i.moovBeforeMdat.map { $0 ? ", fast start" : ", moov after mdat" } ?? "")\n"
    // With --then the seam is the splice, measured against this file's steps.
    let seam = then.map { "splice into \($0)" } ?? "seam"
    if report.transition != nil {
      out += String(
        format: "  a transition clip: last frame to first %.2f codes, not judged; the other steps' median %.2f\n",
        j.seam,
        j.median)
    } else {
      out += String(
        format:
          "  %@ %.2f codes (largest 16x16 block change) against the other steps' median %.2f and 95th percentile %.2f: threshold %.2f, ratio %.2f\n",
        seam, j.seam, j.median, j.high, j.threshold, j.ratio)
    }
    if let a = report.against {
      let worst = zip(report.ownSteps, a.sourceSteps).map { $0 - $1 }.max() ?? 0
      out += String(
        format:
          "  against %@: %d of %d steps jump beyond the source's motion (1.5 x its step + %.2f codes); the largest excess %.2f codes\n",
        a.source, a.jumps.count, report.ownSteps.count, a.slack, worst)
    }
    if let audio = report.audio, let s = audio.seamSteps.max(), let n = audio.neighbourSteps.max() {
      out += String(format: "  audio seam step %.4f against neighbouring steps up to %.4f\n", s, n)
    }
    out += report.notes.map { "  note: \($0)\n" }.joined()
    out += report.passed ? "  PASS\n" : report.failures.map { "  FAIL: \($0)\n" }.joined()
    return out
  }

  static func row(_ report: LoopCheck) -> [String: Any] {
    let i = report.info
    let j = report.judgement
    func r(_ v: Double) -> Double { v.isFinite ? (v * 1000).rounded() / 1000 : -1 }
    let worst = report.ownSteps.indices.sorted { report.steps[$0] > report.steps[$1] }.prefix(5).map {
      index -> [String: Any] in
      ["step": index == report.steps.count - 1 ? "seam" : "\(index)->\(index + 1)", "value": r(report.steps[index])]
    }
    var value: [String: Any] = [
      "path": report.path, "passed": report.passed, "failures": report.failures, "notes": report.notes,
      "frames": report.frames, "seam": r(j.seam), "threshold": r(j.threshold), "seamRatio": r(j.ratio),
      "median": r(j.median), "percentile95": r(j.high), "worstSteps": worst, "steps": report.steps.map(r),
      "codec": i.codecName, "profile": i.profileName ?? "", "pixelFormat": i.pixelFormatName, "width": i.width,
      "height": i.height, "fps": i.frameRate.description, "duration": i.formatDuration ?? -1,
      "keyframeAtStart": i.firstPacketIsKeyframe,
      "color": "\(i.colorRange)/\(i.colorMatrix)/\(i.colorTransfer)/\(i.colorPrimaries)", "codecTag": i.codecTag,
      "fastStart": i.moovBeforeMdat ?? false, "loop": report.transition == nil,
    ]
    if let t = report.transition { value["transition"] = t }
    if let a = report.against {
      value["against"] =
        [
          "source": a.source, "sourceSteps": a.sourceSteps.map(r), "slack": r(a.slack),
          "jumps": a.jumps.map { jump -> [String: Any] in
            [
              "step": jump.isSeam ? "seam" : "\(jump.index)->\(jump.index + 1)", "file": r(jump.file),
              "source": r(jump.source),
            ]
          },
        ] as [String: Any]
    }
    if let audio = report.audio {
      value["audio"] =
        [
          "seamSteps": audio.seamSteps.map(r), "neighbourSteps": audio.neighbourSteps.map(r),
          "passed": audio.failure == nil,
        ] as [String: Any]
    }
    return value
  }

  /// A folder, a FIFO, a missing or unreadable path is bad input, named before libav sees it.
  static func requireReadableFile(_ path: String, field: String?) throws {
    let prefix = field.map { "\($0): " } ?? ""
    do {
      _ = try InputFile(path: path, limit: InputFile.Limit.video, what: "video file")
    } catch let e as VideoError {
      throw InputError(prefix + e.description)
    }
  }
}
