import Foundation
import Loopsmith
import Video

enum CheckCommand {
  static let options = [
    OptionSpec("then", value: "video", "Check a splice: the end of <video> into the start of this file."),
    OptionSpec("json", "Print the report as JSON on stdout."),
  ]

  static var help: String {
    helpText(
      usage: "loopsmith check <video> [--then <video>] [--json]",
      overview: "Decode a file and report its loop seam and compatibility; exit 1 when a rule fails.",
      arguments: [("<video>", "An MP4, WebM or MOV file.")], options: options)
  }

  static func run(_ args: [String], stdout: TextSink, stderr: TextSink) throws -> Int32 {
    let parsed = try ParsedArguments(args, specs: options)
    guard parsed.positionals.count == 1 else { throw InputError("check needs one video file") }
    let path = parsed.positionals[0]
    try requireReadableFile(path, field: nil)
    if let t = parsed.last("then") { try requireReadableFile(t, field: "--then") }
    let report = try LoopCheck.run(path: path, then: parsed.last("then"))
    let i = report.info
    if parsed.has("json") {
      let value: [String: Any] = [
        "path": path, "passed": report.passed, "failures": report.failures, "frames": report.frames,
        "seamRatio": report.seamRatio.isFinite ? report.seamRatio : -1, "seamStep": report.seamStep,
        "neighbourStep": report.neighbourStep,
        "codec": i.codecName, "profile": i.profileName ?? "", "pixelFormat": i.pixelFormatName, "width": i.width,
        "height": i.height,
        "fps": i.frameRate.description, "duration": i.formatDuration ?? -1, "keyframeAtStart": i.firstPacketIsKeyframe,
        "color": "\(i.colorRange)/\(i.colorMatrix)/\(i.colorTransfer)/\(i.colorPrimaries)", "codecTag": i.codecTag,
        "fastStart": i.moovBeforeMdat ?? false,
      ]
      stdout.write(CLI.jsonString(value) + "\n")
    } else {
      var out =
        "\(path): \(i.codecName) \(i.profileName ?? "") \(i.pixelFormatName) \(i.width)x\(i.height) \(i.frameRate) fps\n"
      out +=
        "  frames \(report.frames), duration \(i.formatDuration.map { String(format: "%.4f s", $0) } ?? "unknown"), key frame at 0: \(i.firstPacketIsKeyframe ? "yes" : "no")\n"
      out +=
        "  color \(i.colorRange)/\(i.colorMatrix)/\(i.colorTransfer)/\(i.colorPrimaries), tag '\(i.codecTag)'\(i.moovBeforeMdat.map { $0 ? ", fast start" : ", moov after mdat" } ?? "")\n"
      // With --then the seam is the splice, measured against this file's steps.
      let seam = parsed.last("then").map { "splice into \($0)" } ?? "seam"
      out +=
        "  " + seam
        + String(
          format: " %.3f against its neighbouring steps' mean of %.3f: ratio %.2f\n", report.seamStep,
          report.neighbourStep, report.seamRatio)
      out += report.passed ? "  PASS\n" : report.failures.map { "  FAIL: \($0)\n" }.joined()
      stdout.write(out)
    }
    return report.passed ? 0 : 1
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
