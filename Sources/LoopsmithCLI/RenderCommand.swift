import Effects
import Foundation
import Loopsmith
import Video

enum RenderCommand {
  /// The render settings' flags (`RenderSetting.all`), with the effect's parameters after the
  /// frame's settings and the command line's own flags last.
  static let options: [OptionSpec] = {
    let settings = RenderSetting.all.map(OptionSpec.init(setting:))
    let split = settings.firstIndex { $0.long == "audio" } ?? settings.endIndex
    return Array(settings[..<split]) + parameterOptions + Array(settings[split...]) + ownOptions
  }()

  static let parameterOptions = [
    OptionSpec(
      "set", value: "name=value", repeatable: true, "Set an effect parameter, e.g. colors=#ff2d55,#af52de or speed=0.6."
    ),
    OptionSpec("weather", value: "name", "Shorthand for --set weather=NAME."),
    OptionSpec("state", value: "name", "Shorthand for --set state=NAME (voice orb)."),
    OptionSpec("level", value: "0...1", "Shorthand for --set level=N (voice orb)."),
  ]

  static let ownOptions = [
    OptionSpec("out-dir", value: "dir", "Folder for a preset's outputs (default renders)."),
    OptionSpec("no-overwrite", short: "n", "Refuse to write over an existing output (exit 2)."),
    OptionSpec("null", "Render and convert every frame, write nothing: time the render alone (e.g. with time)."),
    OptionSpec("json", "Print a JSON summary on stdout."),
    OptionSpec(
      "progress", value: "mode",
      "Progress on stderr: auto (a live line on a terminal, plain lines otherwise), plain, json (one object a line: frame, total, fps, eta, output), or none."
    ),
    OptionSpec("quiet", "No progress on stderr (--progress none)."),
  ]

  static var help: String {
    helpText(
      usage: "loopsmith render <effect | preset.json> [options]",
      overview: "Render one video loop or still.",
      arguments: [
        (
          "<effect | preset.json>",
          "\(EffectRegistry.names.joined(separator: ", ")), a preset file, or a preset's name (found in ./presets, the folders of LOOPSMITH_PRESETS, then PREFIX/share/loopsmith/presets)."
        )
      ],
      options: options)
  }

  static func run(_ args: [String], stdout: TextSink, stderr: TextSink) throws -> Int32 {
    // Before anything that takes time: a signal during planning or audio decoding is recorded,
    // and the pipeline stops at its first check, so the exit status is always 128 + n.
    Cancellation.installHandlers()
    let start = Date()
    let parsed = try ParsedArguments(args, specs: options)
    guard parsed.positionals.count == 1 else {
      throw InputError(
        parsed.positionals.isEmpty
          ? "render needs an effect or a preset file; expected one of \(EffectRegistry.names.joined(separator: ", ")) or a .json file"
          : "render takes one effect or preset; got \(parsed.positionals.count): \(parsed.positionals.joined(separator: " "))"
      )
    }
    var target = parsed.positionals[0]
    // A name that is no effect may be a preset's (./presets, LOOPSMITH_PRESETS, the installed ones).
    if !target.hasSuffix(".json") {
      switch try PresetSearch.resolve(target) {
      case .effect(let name): target = name
      case .preset(let path): target = path
      }
    }
    var base = RenderRequest()
    var outDir: String?
    var presetName: String?
    var defaultOutputs: [String] = []
    if target.hasSuffix(".json") {
      let preset = try Preset.load(path: target)
      presetName = preset.name
      let dir = parsed.last("out-dir") ?? "renders"
      base = preset.request
      base.outputs = base.outputs.map { (dir as NSString).appendingPathComponent($0) }
      base.poster = base.poster.map { $0.isEmpty ? $0 : (dir as NSString).appendingPathComponent($0) }
      defaultOutputs = [(dir as NSString).appendingPathComponent(preset.name + ".mp4")]
      outDir = dir
    } else {
      base.effect = target
    }
    var request = base.merged(with: try requestFromFlags(parsed, effect: base.effect))
    var web: (folder: WebFolder, dir: String, staging: String, existing: Bool)?
    if let dir = request.web {
      let folder = try planWeb(dir, name: presetName ?? target, request: &request, parsed: parsed)
      // Checked with the folder's own names first, so a bad argument names them and stages nothing.
      _ = try request.job(defaultOutputs: defaultOutputs)
      let (staging, existing) = try WebFolder.stage(dir)
      web = (folder, dir, staging, existing)
      let staged = { (file: String) in (staging as NSString).appendingPathComponent(file) }
      request.outputs = folder.sources.map { staged($0.file) }
      request.poster = staged(folder.poster)
    }
    // Nothing partial at --web's folder: the staged files go when anything fails.
    defer { if let web { try? FileManager.default.removeItem(atPath: web.staging) } }
    let discard = parsed.has("null")
    // --null converts for the outputs given, or for Y4M when none is: nothing is opened.
    if discard && request.outputs.isEmpty { request.outputs = ["-"] }
    // A discarded segment (--null --frames A:B) writes nothing to join, so stdout is no obstacle.
    let frames = discard ? request.frames : nil
    if discard { request.frames = nil }
    var job = try request.job(defaultOutputs: defaultOutputs)
    if let frames { job = try job.segment(frames, discarding: true) }
    if parsed.has("no-overwrite"), !discard,
      let existing = (job.outputs + job.posters).first(where: {
        $0.path != "-" && FileManager.default.fileExists(atPath: $0.path)
      })
    {
      throw InputError(RenderRequest.existsMessage(existing.path))
    }
    // After every refusal: notes are about a render that runs. --quiet is about progress: notes
    // still show.
    for notice in job.notices { stderr.write("Note: \(notice)\n") }
    if let dir = outDir { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
    let mode = parsed.has("quiet") ? .none : try ProgressMode.parse(parsed.last("progress")) ?? .auto
    let progress = ProgressReporter(
      sink: stderr, outputs: job.outputs.map { ($0.path as NSString).lastPathComponent }, mode: mode)
    let result: RenderResult
    do {
      result = try RenderPipeline.run(job, discard: discard) { done, total in progress.update(done, total) }
    } catch {
      progress.abandon()
      guard let web else { throw error }
      // A failure names the file where it was to be, not the staging folder that is removed.
      let named = { (m: String) in m.replacingOccurrences(of: web.staging, with: web.dir) }
      if let e = error as? RenderFailure { throw RenderFailure(named(e.message)) }
      if let e = error as? InputError { throw InputError(named(e.message)) }
      throw error
    }
    progress.finish(job.frameCount)
    for note in result.notes { stderr.write("Note: \(note)\n") }
    var out = summary(job, result, seconds: Date().timeIntervalSince(start))
    if let web {
      let html = web.folder.html(width: job.width, height: job.height)
      for (file, text) in WebFolder.scripts + [("index.html", html)] {
        let path = (web.staging as NSString).appendingPathComponent(file)
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) } catch {
          throw RenderFailure("--web: cannot write '\(web.dir)': \(WebFolder.reason(error))")
        }
      }
      try WebFolder.commit(web.staging, to: web.dir, existing: web.existing, files: web.folder.files)
      // The summary names the files where they are now, not where they were staged.
      let moved = { (path: String) in
        (web.dir as NSString).appendingPathComponent((path as NSString).lastPathComponent)
      }
      out["outputs"] = result.files.enumerated().map { i, f -> [String: Any] in
        var o = (out["outputs"] as! [[String: Any]])[i]
        o["path"] = moved(f.path)
        return o
      }
      if let posters = out["posters"] as? [[String: Any]] {
        out["posters"] = zip(posters, result.posters).map { entry, poster -> [String: Any] in
          var entry = entry
          entry["path"] = moved(poster.path)
          return entry
        }
      }
      out["web"] = ["folder": web.dir, "files": web.folder.files, "page": moved("index.html")] as [String: Any]
    }
    if parsed.has("json") {
      stdout.write(CLI.jsonString(out) + "\n")
    }
    return 0
  }

  /// `--web DIR`: refuses the flags it replaces and chooses the outputs and the poster after the
  /// preset's or the effect's name, in `dir`; `run` then points them into a staging folder
  /// (`WebFolder.stage`).
  static func planWeb(
    _ dir: String, name: String, request: inout RenderRequest, parsed: ParsedArguments
  ) throws -> WebFolder {
    let replaced = [
      ("output", "-o"), ("poster", "--poster"), ("out-dir", "--out-dir"), ("null", "--null"), ("frames", "--frames"),
    ]
    for (flag, words) in replaced where parsed.has(flag) {
      throw InputError("--web: chooses its own files and writes them whole; expected --web or \(words), not both")
    }
    guard !dir.isEmpty else { throw InputError("--web: needs a folder; expected --web DIR") }
    let info = try RenderRequest.effectType(request.effect ?? name).info
    let transparent = info.isTransparent && (request.background.map { $0.lowercased() == "transparent" } ?? true)
    let folder = WebFolder(name: name, transparent: transparent, hevc: request.codec?.lowercased() == "hevc")
    let inPlace = folder.files.map { (dir as NSString).appendingPathComponent($0) }
    if parsed.has("no-overwrite"), let existing = inPlace.first(where: { FileManager.default.fileExists(atPath: $0) }) {
      throw InputError(RenderRequest.existsMessage(existing))
    }
    request.outputs = Array(inPlace.prefix(folder.sources.count))
    request.poster = inPlace[folder.sources.count]
    if transparent { request.alpha = AlphaMode.stacked.rawValue }
    return folder
  }

  /// The flags as a request; parameter values are checked against the effect's table.
  static func requestFromFlags(_ p: ParsedArguments, effect: String?) throws -> RenderRequest {
    var r = RenderRequest()
    for setting in RenderSetting.all {
      let given = p.occurrences(setting.flag)  // the last first
      // Outputs add up in the order given; of any other flag, the last counts.
      let used = if case .outputs = setting.kind { Array(given.reversed()) } else { Array(given.prefix(1)) }
      for (typed, text) in used { setting.write(try setting.parse(text, typed: typed), into: &r) }
    }
    // Each value with the words that name it in an error: `--set speed`, or the shorthand typed.
    var sets: [(name: String, value: String, label: String)] = []
    for item in p.all("set") {
      guard let eq = item.firstIndex(of: "=") else {
        throw InputError("--set: '\(item)' is not valid; expected name=value")
      }
      let name = String(item[..<eq])
      sets.append((name, String(item[item.index(after: eq)...]), "--set \(name)"))
    }
    for shorthand in ["weather", "state", "level"] {
      if let (typed, value) = p.occurrences(shorthand).first { sets.append((shorthand, value, typed)) }
    }
    guard let effect, !sets.isEmpty else { return r }
    let type = try RenderRequest.effectType(effect)
    for (name, value, label) in sets {
      let spec: ParameterSpec
      do { spec = try RenderRequest.parameter(name, of: type) } catch let e as InputError {
        throw InputError("\(label.hasPrefix("--set") ? "--set" : label): \(e)")
      }
      do {
        r.parameters[name] = try spec.parse(value)
      } catch let e as ParameterError {
        // The entry at fault, when the value is a list ('rde' of red,rde), then what each may be.
        throw InputError(
          "\(label): '\(value)' is not valid\(e.detail.map { " (\($0))" } ?? ""); expected \(e.expected)")
      }
    }
    return r
  }

  /// The frame in pixels, the layout's points and the scale between them, for `--json` and `plan`.
  static func frameSummary(_ job: RenderJob) -> [String: Any] {
    ["size": "\(job.width)x\(job.height)", "points": pointsText(job), "scale": job.scale]
  }

  /// The layout's points as `WxH`, with decimals only where the scale leaves them.
  static func pointsText(_ job: RenderJob) -> String {
    "\(job.points.width.roundedText)x\(job.points.height.roundedText)"
  }

  /// What a CI job records of a render: the files with their digests (as the batch manifest has
  /// them), the tool's version and the seconds the command took.
  static func summary(_ job: RenderJob, _ result: RenderResult, seconds: Double) -> [String: Any] {
    var out: [String: Any] = [
      "status": "ok",
      "version": loopsmithVersion,
      "seconds": (seconds * 1000).rounded() / 1000,
      "effect": job.effectType.info.name,
      "fps": job.fps,
      "frames": result.frames,
      "duration": job.duration,
      "threads": job.threads,
      // Encoder threads change the bytes (docs/ENCODING.md, Determinism): a summary says which were used.
      "encoderThreads": job.outputs.first?.threads ?? 0,
      "outputs": result.files.map { f -> [String: Any] in
        [
          "path": f.path, "frames": f.frames, "duration": f.duration, "bytes": f.bytes, "codec": f.codec.rawValue,
          "pixelFormat": f.pixelFormat,
          // Of the file written; none for stdout (-) or --null.
          "sha256": (f.path == "-" ? nil : SHA256.hex(ofFile: f.path)) ?? NSNull(),
        ]
      },
    ]
    if !result.posters.isEmpty {
      out["posters"] = result.posters.map {
        ["path": $0.path, "bytes": $0.bytes, "sha256": SHA256.hex(ofFile: $0.path) ?? NSNull()] as [String: Any]
      }
    }
    for (key, value) in frameSummary(job) { out[key] = value }
    if let t = job.transition {
      // The loops the clip joins: render them at the same size, fps and speed limit, without --duration.
      out["transition"] = ["from": t.from, "to": t.to, "change": t.change, "fromLoop": t.fromLoop, "toLoop": t.toLoop]
    }
    return out
  }
}
