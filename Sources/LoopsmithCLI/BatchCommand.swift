import Foundation
import Loopsmith

enum BatchCommand {
  static let options: [OptionSpec] = [
    OptionSpec(
      "out", value: "dir", "The output folder: every preset's outputs, manifest.json, and index.html with --gallery."),
    OptionSpec(
      "jobs", short: "j", value: "n",
      "Presets rendered at once; each renders with max(1, cores / n) threads (default 1)."),
    OptionSpec("threads", value: "n", "Cores the jobs share (default: all)."),
    OptionSpec("force", "Render presets that are up to date too."),
    OptionSpec(
      "no-overwrite", short: "n",
      "A preset that would write over an existing file fails (exit 1, listed as failed); up-to-date presets are still skipped."
    ),
    OptionSpec("dry-run", "List what would render and what is up to date; render nothing."),
    OptionSpec("shard", value: "K/N", "Render shard K of N: a stable, disjoint share of the presets by name."),
    OptionSpec(
      "shards", value: "n",
      "The number of shards when the index comes from JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX."
    ),
    OptionSpec(
      "split", value: "n",
      "Split every preset's frames into n parts, each a segment in --out/segments; the shard (--shard K/N or the scheduler's) takes parts in turn, so with N = n shard K renders part K of every preset. --merge joins them."
    ),
    OptionSpec(
      "merge",
      "Combine the manifests (and files) of the shards' folders given as arguments into --out; join the segments of --split (no re-encoding) and remove them."
    ),
    OptionSpec(
      "key-frames", value: "first|segments",
      "With --merge: segments (default) copies the segments of --split, a key frame where each starts; first encodes each joined loop again with one key frame, at frame 0, at its preset's quality (see loopsmith help join); Y4M and ProRes outputs, all key frames, are still copied."
    ),
    OptionSpec("gallery", "Write index.html: each output as a looping video with a poster of frame 0."),
    OptionSpec("poster-format", value: "png|jpg|webp", "With --gallery: the posters' format (default png)."),
    OptionSpec("size", value: "WxH", "Override every preset's size in pixels (tests, CI previews)."),
    OptionSpec("scale", value: "s", "Override every preset's pixels per point."),
    OptionSpec("fps", value: "n", "Override every preset's frames per second."),
    OptionSpec("duration", value: "seconds", "Override every preset's loop length."),
    OptionSpec("json", "Print JSON on stdout (with --dry-run: a list of the presets with name and status)."),
    OptionSpec("quiet", "No per-preset lines on stderr."),
  ]

  static let help = helpText(
    usage:
      "loopsmith batch <preset.json | folder>... --out DIR [options]\n       loopsmith batch --merge DIR... --out DIR [--key-frames first|segments] [--gallery]",
    overview: "Render many presets: each preset's frames once, into all of its outputs; skip what is up to date.",
    arguments: [("<preset.json | folder>", "Preset files, or folders of them (every *.json but schema.json).")],
    options: options)

  static func run(
    _ args: [String], stdout: TextSink, stderr: TextSink,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> Int32 {
    let parsed = try ParsedArguments(args, specs: options)
    guard let out = parsed.last("out"), !out.isEmpty else {
      throw InputError("--out: missing; expected --out DIR, the folder for the outputs and manifest.json")
    }
    let quiet = parsed.has("quiet")
    if parsed.has("merge") {
      for flag in [
        "shard", "shards", "split", "dry-run", "force", "jobs", "size", "scale", "fps", "duration", "poster-format",
      ]
      where parsed.has(flag) {
        throw InputError(
          "--\(flag): not used with --merge; expected loopsmith batch --merge DIR... --out DIR [--gallery]")
      }
      Cancellation.installHandlers()  // a stopped merge removes its copies and renames nothing
      let keyFrames = try JoinEncoding.keyFrames(parsed.last("key-frames"))
      let report = try Batch.merge(parsed.positionals, into: out, gallery: parsed.has("gallery"), keyFrames: keyFrames)
      return finish(report, parsed: parsed, stdout: stdout, stderr: stderr, verb: "merged")
    }
    if parsed.has("key-frames") {
      throw InputError(
        "--key-frames: joins the segments of --split, so it goes with --merge; expected loopsmith batch --merge DIR... --out DIR --key-frames first"
      )
    }
    var options = BatchOptions(inputs: parsed.positionals, outDir: out)
    options.jobs = try parsed.int("jobs") ?? 1
    options.threads = try parsed.int("threads")
    options.force = parsed.has("force")
    options.noOverwrite = parsed.has("no-overwrite")
    options.gallery = parsed.has("gallery")
    if let text = parsed.last("poster-format") {
      guard options.gallery else { throw InputError("--poster-format: only with --gallery; expected --gallery too") }
      options.posterFormat = try Gallery.posterFormat(text)
    }
    options.split = try parsed.int("split")
    options.shard = try BatchShard.resolve(
      shard: parsed.last("shard"), shards: parsed.int("shards"), environment: environment)
    var overrides = RenderRequest()
    if let s = parsed.last("size") { overrides.size = try parseSize(s, field: "--size") }
    overrides.scale = try parsed.double("scale")
    overrides.fps = try parsed.int("fps")
    overrides.duration = try parsed.double("duration")
    options.overrides = overrides

    if parsed.has("dry-run") {
      let lines = try Batch.plan(options)
      if parsed.has("json") {
        let rows: [[String: Any]] = lines.map { l in
          var o: [String: Any] = ["name": l.name, "status": l.status.rawValue, "outputs": l.outputs]
          if let e = l.error { o["error"] = e }
          return o
        }
        stdout.write(CLI.jsonString(rows) + "\n")
      } else {
        for l in lines {
          stdout.write(
            "\(l.status.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)) \(l.name)\(l.outputs.isEmpty ? "" : " -> " + l.outputs.joined(separator: ", "))\(l.error.map { ": \($0)" } ?? "")\n"
          )
        }
        let render = lines.filter { $0.status == .render }.count, fresh = lines.filter { $0.status == .upToDate }.count
        let out = lines.filter { $0.status == .leftOut }.count
        stdout.write(
          "\(render) to render, \(fresh) up to date, \(lines.count - render - fresh - out) invalid\(out > 0 ? ", \(out) left out" : "")\(options.shard.map { " (shard \($0))" } ?? "")\n"
        )
      }
      return 0
    }
    Cancellation.installHandlers()
    let sink: TextSink = stderr
    var log: (@Sendable (String) -> Void)?
    if !quiet { log = { (line: String) -> Void in sink.write(line + "\n") } }
    let report = try Batch.run(options, log: log)
    return finish(report, parsed: parsed, stdout: stdout, stderr: stderr, verb: "batch")
  }

  static func finish(
    _ report: BatchReport, parsed: ParsedArguments, stdout: TextSink, stderr: TextSink, verb: String
  ) -> Int32 {
    let entries = report.manifest.entries
    let presets = Set(entries.map(\.preset)).count
    let count = { (s: BatchEntry.Status) in entries.filter { $0.status == s }.count }
    let failed = report.failedPresets
    // The notes `render` prints, a preset's once (its outputs share the job's notices); --quiet
    // is about progress, so they show with it too. Skipped outputs' notes were said when made.
    var said = Set<String>()
    for e in entries where e.status == .rendered {
      for note in e.notes ?? [] where said.insert("\(e.preset)\n\(note)").inserted {
        stderr.write("Note: \(BatchFolder.printable(e.preset)): \(BatchFolder.printable(note))\n")
      }
    }
    // Left out, not failed: the batch's --size/--fps/--scale/--duration break the preset's platform.
    for (name, reason) in report.leftOut {
      stderr.write(
        "Note: \(BatchFolder.printable(name)): left out: \(BatchFolder.printable(reason)) (from this batch's overrides; a batch without them renders it)\n"
      )
    }
    let leftOut = report.leftOut.isEmpty ? "" : ", \(report.leftOut.count) left out"
    if !parsed.has("quiet") || !failed.isEmpty {
      stderr.write(
        String(
          format: "\(verb): %d presets, %d outputs rendered, %d skipped, %d failed\(leftOut) in %.1f s\n", presets,
          count(.rendered), count(.skipped), count(.failed), report.seconds))
    }
    if !failed.isEmpty {
      stderr.write("Failed presets:\n" + failed.map { "  \($0.name): \(BatchFolder.printable($0.error))\n" }.joined())
    }
    if parsed.has("json") { stdout.write(report.manifest.text()) }
    return failed.isEmpty ? 0 : 1
  }
}

enum SchemaCommand {
  static var help: String {
    helpText(
      usage: "loopsmith schema",
      overview: "Print the JSON Schema of preset files (presets/schema.json), generated from the parameter tables.",
      arguments: [], options: [])
  }

  static func run(_ args: [String], stdout: TextSink) throws -> Int32 {
    guard args.isEmpty else { throw InputError("schema takes no arguments; got '\(args[0])'") }
    stdout.write(PresetSchema.text())
    return 0
  }
}
