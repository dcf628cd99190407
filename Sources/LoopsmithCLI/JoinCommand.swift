import Foundation
import Loopsmith
import Video

/// `loopsmith join`: segments of one render (`render --frames A:B`) back into one loop, remuxed.
enum JoinCommand {
  static let options = [
    OptionSpec(
      "output", short: "o", value: "path",
      "The joined file: .mp4, .mov or .webm like the segments (remuxed, not re-encoded), or .y4m."),
    OptionSpec("json", "Print a JSON summary on stdout."),
  ]

  static var help: String {
    helpText(
      usage: "loopsmith join <segment>... -o <path> [--json]",
      overview:
        "Join the segments of one render (render --frames A:B) into one loop without re-encoding; they must cover frames 0 to N in order, with the same codec, size, rate and time base.",
      arguments: [("<segment>...", "Files from loopsmith render --frames A:B, in frame order.")], options: options)
  }

  static func run(_ args: [String], stdout: TextSink, stderr: TextSink) throws -> Int32 {
    let parsed = try ParsedArguments(args, specs: options)
    guard let output = parsed.last("output"), !output.isEmpty else {
      throw InputError("join: -o is missing; expected loopsmith join SEGMENT... -o FILE")
    }
    guard !parsed.positionals.isEmpty else {
      throw InputError("join needs segment files; expected loopsmith join SEGMENT... -o FILE")
    }
    let joined = try SegmentJoin.join(parsed.positionals, into: output)
    if parsed.has("json") {
      stdout.write(
        CLI.jsonString([
          "status": "ok", "path": joined.path, "frames": joined.frames, "fps": joined.fps, "duration": joined.duration,
          "bytes": joined.bytes, "segments": parsed.positionals.count,
        ]) + "\n")
    }
    return 0
  }
}
