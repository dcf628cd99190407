import Foundation
import Loopsmith
import Video

/// `loopsmith join`: segments of one render (`render --frames A:B`) back into one loop, remuxed.
enum JoinCommand {
  static let options = [
    OptionSpec(
      "output", short: "o", value: "path",
      "The joined file: .mp4, .mov or .webm like the segments (remuxed, not re-encoded), or .y4m."),
    OptionSpec(
      "key-frames", value: "first|segments",
      "segments (default): each segment's first frame stays a key frame, every packet copied. first: one key frame, at frame 0, as a whole render has (a loop over 600 frames keeps one every N frames for seeking); the video is decoded and encoded again from frame 0 in one encoder (an encoder cannot continue copied frames), at the segments' quality."
    ),
    OptionSpec(
      "crf", value: "n",
      "With --key-frames first: the constant quality to encode at (lower is better) instead of the crf or quality the segments' loopsmith-preset tag names (else the codec's default)."
    ),
    OptionSpec(
      "quality", value: "high|balanced|small",
      "With --key-frames first: a named quality instead, mapped per codec as in render; --crf wins over it."),
    OptionSpec("json", "Print a JSON summary on stdout."),
  ]

  static var help: String {
    helpText(
      usage:
        "loopsmith join <segment>... -o <path> [--key-frames first|segments] [--crf n | --quality high|balanced|small] [--json]",
      overview:
        "Join the segments of one render (render --frames A:B) into one loop without re-encoding; they must cover frames 0 to N in order and come from one render: the same preset tag, container, codec, size, samples, colour tags, rate and parameter sets. With --key-frames first the video is encoded again with one key frame, at frame 0, at the quality the segments carry in their loopsmith-preset tag unless --crf or --quality says otherwise.",
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
    let keyFrames = try JoinEncoding.keyFrames(parsed.last("key-frames"))
    let crf = try parsed.int("crf").map(RenderSetting.crf.check)
    let quality = try parsed.last("quality").map {
      QualityLevel(rawValue: try RenderSetting.quality.check($0).lowercased())!
    }
    if keyFrames == .segments, let flag = ["crf", "quality"].first(where: parsed.has) {
      throw InputError(
        "--\(flag): the segments are copied, not encoded; expected it with --key-frames first, which encodes the loop again"
      )
    }
    let joined = try SegmentJoin.join(
      parsed.positionals, into: output, keyFrames: keyFrames, encoding: JoinEncoding.choice(crf: crf, quality: quality))
    if parsed.has("json") {
      stdout.write(
        CLI.jsonString([
          "status": "ok", "path": joined.path, "frames": joined.frames, "fps": joined.fps, "duration": joined.duration,
          "bytes": joined.bytes, "segments": parsed.positionals.count, "keyFrames": keyFrames.rawValue,
        ]) + "\n")
    }
    return 0
  }
}
