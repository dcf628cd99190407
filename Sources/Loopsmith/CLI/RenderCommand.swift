import Effects
import Foundation
import Video

enum RenderCommand {
  static let options: [OptionSpec] = [
    OptionSpec("output", short: "o", value: "path", repeatable: true, "Output file; the extension picks the format (\(OutputFormat.extensionList); - is Y4M on stdout). Repeat for several."),
    OptionSpec("size", value: "WxH", "Video size in pixels (default: the effect's size at --scale)."),
    OptionSpec("fps", value: "n", "Frames per second (default: the seed's, 30 or 60)."),
    OptionSpec("duration", value: "seconds", "Loop length (default: the shortest that keeps speed changes small); with --transition, the clip's length."),
    OptionSpec("time", value: "seconds", "The moment a still shows; 0 is the Reduce Motion still."),
    OptionSpec("still", "Reduce Motion: time held at 0, no lightning, the voice orb brightening."),
    OptionSpec("scale", value: "s", "Pixels per point (default 3: 1080x1920 is a 360x640 pt screen)."),
    OptionSpec("set", value: "name=value", repeatable: true, "Set an effect parameter, e.g. colors=#ff2d55,#af52de or speed=0.6."),
    OptionSpec("weather", value: "name", "Shorthand for --set weather=NAME."),
    OptionSpec("state", value: "name", "Shorthand for --set state=NAME (voice orb)."),
    OptionSpec("level", value: "0...1", "Shorthand for --set level=N (voice orb)."),
    OptionSpec("audio", value: "file", "Voice orb: a sound whose loudness drives the level frame by frame; muxed into the output (AAC in MP4, Opus in WebM)."),
    OptionSpec("levels", value: "file", "Voice orb: levels over time, a CSV of seconds,level lines or a JSON list of [seconds, level] pairs."),
    OptionSpec("transition", value: "from:to", "A clip from one weather or voice state to another (rain:snow, idle:speaking): it starts on frame 0 of the first one's loop and its next frame is frame 0 of the second one's."),
    OptionSpec("rtl", "Right-to-left layout (the sun moves to the top left)."),
    OptionSpec("appearance", value: "light|dark", "Which system palette colors resolve to (default dark)."),
    OptionSpec("palette", value: "ios26|ios18", "The system color table (default ios26)."),
    OptionSpec("codec", value: "name", "\(VideoCodec.choiceList)."),
    OptionSpec("crf", value: "n", "Constant quality; lower is better, except WebP's quality (default: \(VideoCodec.qualityDefaults))."),
    OptionSpec("bit-depth", value: "8|10", "Sample depth where the codec plays it (HEVC Main10, VP9 Profile 2)."),
    OptionSpec("background", value: "color|transparent", "What transparent effects are drawn over where alpha is not kept."),
    OptionSpec("max-speed-change", value: "fraction", "The largest speed change a loop plan may make (default 0.1)."),
    OptionSpec("threads", value: "n", "Render threads (default: all cores)."),
    OptionSpec("encoder-threads", value: "n", "Encoder threads, pinned so bytes repeat (default: min(threads, 4))."),
    OptionSpec("x264-preset", value: "name", "libx264 speed preset (default medium)."),
    OptionSpec("out-dir", value: "dir", "Folder for a preset's outputs (default renders)."),
    OptionSpec("null", "Render and convert every frame, write nothing: time the render alone (e.g. with time)."),
    OptionSpec("json", "Print a JSON summary on stdout."),
    OptionSpec("quiet", "No progress on stderr."),
  ]

  static let help = helpText(
    usage: "loopsmith render <effect | preset.json> [options]",
    overview: "Render one video loop or still.",
    arguments: [("<effect | preset.json>", "color-orbs, aurora-mesh, blob-morph-loader, voice-orb, weather, or a preset file.")],
    options: options)

  static func run(_ args: [String], stdout: TextSink, stderr: TextSink) throws -> Int32 {
    if args.contains("-h") || args.contains("--help") {
      stdout.write(help + "\n")
      return 0
    }
    // Before anything that takes time: a signal during planning or audio decoding is recorded,
    // and the pipeline stops at its first check, so the exit status is always 128 + n.
    Cancellation.installHandlers()
    let parsed = try ParsedArguments(args, specs: options)
    guard parsed.positionals.count == 1 else {
      throw InputError(parsed.positionals.isEmpty
        ? "render needs an effect or a preset file; expected one of \(EffectRegistry.names.joined(separator: ", ")) or a .json file"
        : "render takes one effect or preset; got \(parsed.positionals.count): \(parsed.positionals.joined(separator: " "))")
    }
    let target = parsed.positionals[0]
    var base = RenderRequest()
    var outDir: String?
    var defaultOutputs: [String] = []
    if target.hasSuffix(".json") {
      let preset = try Preset.load(path: target)
      let dir = parsed.last("out-dir") ?? "renders"
      base = preset.request
      base.outputs = base.outputs.map { (dir as NSString).appendingPathComponent($0) }
      defaultOutputs = [(dir as NSString).appendingPathComponent(preset.name + ".mp4")]
      outDir = dir
    } else {
      base.effect = target
    }
    var request = base.merged(with: try requestFromFlags(parsed, effect: base.effect))
    let discard = parsed.has("null")
    // --null converts for the outputs given, or for Y4M when none is: nothing is opened.
    if discard && request.outputs.isEmpty { request.outputs = ["-"] }
    let job = try request.job(defaultOutputs: defaultOutputs)
    if let dir = outDir { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    let quiet = parsed.has("quiet")
    let progress = ProgressReporter(sink: stderr, label: job.outputs.map { ($0.path as NSString).lastPathComponent }.joined(separator: ", "), quiet: quiet)
    let result = try RenderPipeline.run(job, discard: discard) { done, total in progress.update(done, total) }
    progress.finish(job.frameCount)
    if parsed.has("json") {
      stdout.write(CLI.jsonString(summary(job, result)) + "\n")
    }
    return 0
  }

  /// The flags as a request; parameter values are checked against the effect's table.
  static func requestFromFlags(_ p: ParsedArguments, effect: String?) throws -> RenderRequest {
    var r = RenderRequest()
    r.outputs = p.all("output")
    if let s = p.last("size") { r.size = try parseSize(s, field: "--size") }
    r.fps = try p.int("fps")
    r.duration = try p.double("duration")
    r.time = try p.double("time")
    if p.has("still") { r.still = true }
    r.scale = try p.double("scale")
    r.codec = p.last("codec")
    r.crf = try p.int("crf")
    r.bitDepth = try p.int("bit-depth")
    r.background = p.last("background")
    if p.has("rtl") { r.rightToLeft = true }
    r.audio = p.last("audio")
    r.levels = p.last("levels")
    if let a = p.last("appearance") {
      guard let v = Appearance(rawValue: a) else { throw InputError("--appearance: '\(a)' is not valid; expected light or dark") }
      r.appearance = v
    }
    if let a = p.last("palette") {
      guard let v = PaletteVersion(rawValue: a) else { throw InputError("--palette: '\(a)' is not valid; expected ios26 or ios18") }
      r.palette = v
    }
    r.maxSpeedChange = try p.double("max-speed-change")
    r.threads = try p.int("threads")
    r.encoderThreads = try p.int("encoder-threads")
    if let e = r.encoderThreads, !(1...64).contains(e) {
      throw InputError("--encoder-threads: '\(e)' is not valid; expected a whole number from 1 to 64")
    }
    r.x264Preset = p.last("x264-preset")
    if let preset = r.x264Preset, !["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"].contains(preset) {
      throw InputError("--x264-preset: '\(preset)' is not valid; expected ultrafast, superfast, veryfast, faster, fast, medium, slow, slower or veryslow")
    }
    r.transition = p.last("transition")
    var sets = p.all("set")
    if let w = p.last("weather") { sets.append("weather=\(w)") }
    if let s = p.last("state") { sets.append("state=\(s)") }
    if let l = p.last("level") { sets.append("level=\(l)") }
    guard let effect, !sets.isEmpty else { return r }
    let type = try RenderRequest.effectType(effect)
    for item in sets {
      guard let eq = item.firstIndex(of: "=") else {
        throw InputError("--set: '\(item)' is not valid; expected name=value")
      }
      let name = String(item[..<eq]), value = String(item[item.index(after: eq)...])
      let spec: ParameterSpec
      do { spec = try RenderRequest.parameter(name, of: type) } catch let e as InputError { throw InputError("--set: \(e)") }
      do {
        r.parameters[name] = try spec.parse(value)
      } catch let e as ParameterError {
        throw InputError("--set \(name): '\(value)' is not valid; expected \(e.expected)")
      }
    }
    return r
  }

  static func summary(_ job: RenderJob, _ result: RenderResult) -> [String: Any] {
    var out: [String: Any] = [
      "status": "ok",
      "effect": job.effectType.info.name,
      "size": "\(job.width)x\(job.height)",
      "fps": job.fps,
      "frames": result.frames,
      "duration": job.duration,
      "threads": job.threads,
      // Encoder threads change the bytes (docs/ENCODING.md, Determinism): a summary says which were used.
      "encoderThreads": job.outputs.first?.threads ?? 0,
      "outputs": result.files.map { f -> [String: Any] in
        ["path": f.path, "frames": f.frames, "duration": f.duration, "bytes": f.bytes, "codec": f.codec.rawValue, "pixelFormat": f.pixelFormat]
      },
    ]
    if let t = job.transition {
      // The loops the clip joins: render them at the same size, fps and speed limit, without --duration.
      out["transition"] = ["from": t.from, "to": t.to, "change": t.change, "fromLoop": t.fromLoop, "toLoop": t.toLoop]
    }
    return out
  }
}

extension RenderRequest {
  static func effectType(_ name: String) throws -> any Effect.Type {
    guard let t = EffectRegistry.type(named: name) else {
      let hint = didYouMean(name, in: EffectRegistry.names)
      throw InputError("unknown effect '\(name)'; expected one of \(EffectRegistry.names.joined(separator: ", ")).\(hint)")
    }
    return t
  }

  /// The row of `type`'s parameter table named `name`.
  static func parameter(_ name: String, of type: any Effect.Type) throws -> ParameterSpec {
    guard let spec = type.info.parameter(named: name) else {
      let names = type.info.parameters.map(\.name)
      throw InputError("unknown parameter '\(name)' for \(type.info.name); expected one of \(names.joined(separator: ", ")).\(didYouMean(name, in: names))")
    }
    return spec
  }
}

/// Progress on stderr: a live bar on a terminal, a plain line every few seconds otherwise.
final class ProgressReporter: @unchecked Sendable {
  let sink: TextSink
  let label: String
  let quiet: Bool
  private var lastLine = Date.distantPast
  private let lock = NSLock()

  init(sink: TextSink, label: String, quiet: Bool) { (self.sink, self.label, self.quiet) = (sink, label, quiet) }

  func update(_ done: Int, _ total: Int) {
    guard !quiet else { return }
    lock.withLock {
      if sink.isTerminal {
        let width = 30
        let filled = total > 0 ? done * width / total : width
        sink.write("\r\(label) [" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] \(done)/\(total) frames")
      } else if Date().timeIntervalSince(lastLine) >= 2 {
        lastLine = Date()
        sink.write("\(label): \(done)/\(total) frames\n")
      }
    }
  }

  func finish(_ total: Int) {
    guard !quiet else { return }
    sink.write(sink.isTerminal ? "\r\(label): \(total)/\(total) frames, done\n" : "\(label): \(total)/\(total) frames, done\n")
  }
}
