import Effects
import Foundation
import Loopsmith
import Timing
import Video

enum ListCommand {
  static let options = [OptionSpec("json", "Print JSON on stdout.")]

  static var help: String {
    helpText(
      usage: "loopsmith list [--json]", overview: "Effects, their parameters and defaults, and presets.", arguments: [],
      options: options)
  }

  static func run(_ args: [String], stdout: TextSink) throws -> Int32 {
    let parsed = try ParsedArguments(args, specs: options)
    guard parsed.positionals.isEmpty else {
      throw InputError("list takes no arguments; got '\(parsed.positionals[0])'")
    }
    var effects: [[String: Any]] = []
    var text = "EFFECTS\n"
    for type in EffectRegistry.all {
      let info = type.info
      var request = RenderRequest()
      request.effect = info.name
      let job = try? request.loopJob()
      let loop =
        job.map { "\(ParameterValue.format($0.duration)) s loop at \($0.fps) fps, \($0.width)x\($0.height)" }
        ?? "no default loop"
      text += "  \(info.name)  —  \(info.summary)\n    default: \(loop)\n"
      var params: [[String: Any]] = []
      for p in info.parameters {
        text += "    \(p.name) = \(p.defaultValue)  (\(p.expected)) \(p.help)\n"
        params.append(["name": p.name, "default": p.defaultValue.description, "expected": p.expected, "help": p.help])
      }
      // Each weather's or voice state's own default loop, from the planner.
      var loops: [[String: Any]] = []
      if let choice = info.transition?.parameter, let spec = info.parameters.first(where: { $0.name == choice }),
        case .choice(let names) = spec.kind
      {
        for name in names {
          var r = request
          r.parameters[choice] = .choice(name)
          guard let j = try? r.loopJob() else { continue }
          text +=
            "    \(choice) \(name): \(ParameterValue.format(j.duration)) s loop at \(j.fps) fps, \(j.frameCount) frames\n"
          loops.append([choice: name, "duration": j.duration, "fps": j.fps, "frames": j.frameCount])
        }
      }
      effects.append([
        "name": info.name, "loops": loops, "summary": info.summary, "parameters": params,
        "defaultDuration": job?.duration ?? 0, "defaultFPS": job?.fps ?? info.defaultFPS,
      ])
    }
    // The render settings, from the table the flags, presets and schema share.
    text += "\nSETTINGS (render flags; preset keys in brackets)\n"
    var settings: [[String: Any]] = []
    for setting in RenderSetting.all {
      let key = setting.presetKey.map { " [\($0)]" } ?? ""
      text += "  --\(setting.flag)\(key)  (\(setting.expected)) \(setting.helpLine)\n"
      var row: [String: Any] = ["flag": setting.flag, "expected": setting.expected, "help": setting.help]
      row["presetKey"] = setting.presetKey
      row["default"] = setting.defaultText
      settings.append(row)
    }
    var presets: [[String: Any]] = []
    let found = PresetSearch.all()
    if !found.isEmpty {
      text += "\nPRESETS (render NAME; from ./presets, LOOPSMITH_PRESETS, PREFIX/share/loopsmith/presets)\n"
    }
    for (name, path) in found {
      if let preset = try? Preset.load(path: path) {
        text += "  \(preset.name)  —  \(preset.description ?? preset.request.effect ?? "")  (\(path))\n"
        presets.append([
          "name": preset.name, "effect": preset.request.effect ?? "", "description": preset.description ?? "",
          "path": path,
        ])
      } else {
        text += "  \(name)  —  invalid (run 'loopsmith render \(path)' for the error)\n"
      }
    }
    if parsed.has("json") {
      stdout.write(CLI.jsonString(["effects": effects, "settings": settings, "presets": presets]) + "\n")
    } else {
      stdout.write(text)
    }
    return 0
  }
}

enum PlanCommand {
  /// Render's options but those about files, encoders, threads and progress: the plan is the
  /// loop's timing alone, and its help listed flags that changed nothing in it.
  static let options =
    RenderCommand.options.filter {
      ![
        "output", "json", "quiet", "threads", "encoder-threads", "x264-preset", "out-dir", "codec", "crf", "bit-depth",
        "background", "quality", "max-bytes", "platform", "alpha", "poster", "memory-limit", "frames", "no-overwrite",
        "null", "progress", "web",
      ].contains($0.long)
    }
    + [OptionSpec("json", "Print the plan as JSON on stdout.")]

  static var help: String {
    helpText(
      usage: "loopsmith plan <effect | preset.json> [options]",
      overview: "Show how each moving layer is made periodic at the loop length.",
      arguments: [("<effect | preset.json>", "\(EffectRegistry.names.joined(separator: ", ")), or a preset file.")],
      options: options)
  }

  static func run(_ args: [String], stdout: TextSink) throws -> Int32 {
    let parsed = try ParsedArguments(args, specs: options)
    guard parsed.positionals.count == 1 else { throw InputError("plan needs one effect or preset file") }
    var base = RenderRequest()
    let target = parsed.positionals[0]
    if target.hasSuffix(".json") {
      base = try Preset.load(path: target).request
    } else {
      switch try PresetSearch.resolve(target) {
      case .effect(let name): base.effect = name
      case .preset(let path): base = try Preset.load(path: path).request
      }
    }
    let request = base.merged(with: try RenderCommand.requestFromFlags(parsed, effect: base.effect))
    let job = try request.loopJob()
    guard let plan = job.plan else {
      stdout.write("\(job.effectType.info.name): a still; nothing moves.\n")
      return 0
    }
    if parsed.has("json") {
      // The plan, with the frame it was made for (its motions depend on the points).
      var object = try JSONSerialization.jsonObject(with: JSONEncoder.sorted.encode(plan)) as? [String: Any] ?? [:]
      for (key, value) in RenderCommand.frameSummary(job) { object[key] = value }
      stdout.write(CLI.jsonString(object) + "\n")
      return 0
    }
    var out: String
    if let t = job.transition {
      // A clip: each side moves as in its own loop, which this names so the loops can be rendered to match.
      out =
        "\(job.effectType.info.name): \(job.duration.roundedText) s transition \(t.from) -> \(t.to), \(job.frameCount) frames at \(job.fps) fps, the change at \(t.change.roundedText) s; joins the \(t.fromLoop.roundedText) s \(t.from) loop to the \(t.toLoop.roundedText) s \(t.to) loop; largest speed change \(String(format: "%.1f", plan.largestSpeedChange * 100))% (limit \(String(format: "%.0f", plan.maxSpeedChange * 100))%)\n"
    } else {
      out =
        "\(job.effectType.info.name): \(plan.length.roundedText) s loop, \(job.frameCount) frames at \(job.fps) fps, largest speed change \(String(format: "%.1f", plan.largestSpeedChange * 100))% (limit \(String(format: "%.0f", plan.maxSpeedChange * 100))%)\n"
    }
    out +=
      "frame \(job.width)x\(job.height) px: \(RenderCommand.pointsText(job)) pt at scale \(ParameterValue.format(job.scale))\n"
    out +=
      "LAYER".padding(toLength: 22, withPad: " ", startingAt: 0)
      + "MOTION".padding(toLength: 18, withPad: " ", startingAt: 0)
      + "STRATEGY".padding(toLength: 11, withPad: " ", startingAt: 0)
      + "RATE".padding(toLength: 12, withPad: " ", startingAt: 0)
      + "PLANNED".padding(toLength: 12, withPad: " ", startingAt: 0) + "CHANGE\n"
    for row in plan.rows {
      out +=
        row.layer.padding(toLength: 22, withPad: " ", startingAt: 0)
        + row.motion.padding(toLength: 18, withPad: " ", startingAt: 0)
        + row.strategy.rawValue.padding(toLength: 11, withPad: " ", startingAt: 0)
        + String(format: "%-12.5g%-12.5g%+.2f%%", row.originalRate, row.plannedRate, row.speedChange * 100) + "\n"
    }
    for layer in plan.layers where layer.crossfadeWindow != nil {
      // Seconds to two decimals, as the rest of the plan: the window is a third of the loop (0.33 s, not 0.3333333333333333).
      out += "crossfade: \(layer.layer) blends over the last \(layer.crossfadeWindow!.roundedText) s\n"
    }
    stdout.write(out)
    return 0
  }
}

extension JSONEncoder {
  static var sorted: JSONEncoder {
    let e = JSONEncoder()
    e.outputFormatting = [.sortedKeys, .prettyPrinted]
    return e
  }
}
