import Effects
import Foundation
import Raster
import Timing
import Video

/// A render that will run: validated once, so nothing later can trip over user input.
public struct RenderJob: Sendable {
  public let effectType: any Effect.Type
  public let values: ParameterValues
  public let environment: RenderEnvironment
  public let width: Int
  public let height: Int
  /// Pixels per point.
  public let scale: Double
  public let fps: Int
  /// Frames in the file: the loop's N, or 1 for a still. Settable inside the module, with
  /// `outputs` and `threads`, so a job cut from another (a segment, a prefix) is a copy that keeps
  /// every other field, however many the type grows.
  public internal(set) var frameCount: Int
  /// The moment every frame shows, for a still (`--time`); nil for a loop sampled at i / fps.
  public let fixedTime: Double?
  /// How each moving layer is made periodic; nil for stills.
  public let plan: LoopPlan?
  public internal(set) var outputs: [OutputSettings]
  /// Render threads.
  public internal(set) var threads: Int
  /// The voice orb's levels over time, from a level file or an audio envelope.
  public let levels: LevelTrack?
  /// The transition this clip makes, or nil for a loop or a still.
  public let transition: Transition?
  /// The loop frame this job's frame 0 is (`render --frames A:B`); 0 for a whole loop.
  public var firstFrame = 0
  /// One-line notices for the user (a sound fitted to the loop, alpha a format drops); the
  /// command line prints them.
  public var notices: [String] = []
  /// Stills of the job's frame 0 written from the same render (`--poster`).
  public var posters: [OutputSettings] = []
  /// The most bytes each video with a quality setting may take (`--max-bytes`, or the platform's):
  /// its quality is then searched (SizeBudget).
  public var maxBytes: Int64?
  /// The platform whose limits the videos must meet, checked on the written files (`--platform`).
  public var platform: PlatformLimits?

  /// A transition clip: from one value's loop to another's (weathers, voice states).
  public struct Transition: Sendable, Hashable {
    /// The value whose loop plays before the clip, and the one whose loop plays after it.
    public var from: String, to: String
    /// When the change starts, in seconds into the clip; the clip's first value holds until then.
    public var change: Double
    /// The lengths of the two loops the clip joins, in seconds.
    public var fromLoop: Double, toLoop: Double
  }

  /// The layout's screen in points: the frame over the scale.
  public var points: (width: Double, height: Double) { (Double(width) / scale, Double(height) / scale) }

  /// The loop length in seconds.
  public var duration: Double { Double(frameCount) / Double(fps) }

  /// When frame `index` shows.
  public func time(ofFrame index: Int) -> Double {
    fixedTime ?? Double(index) / Double(fps)  // t += 1 / fps would drift off the loop length
  }

  /// The effect with the job's values, following its level track and ending a transition clip on
  /// its second loop.
  public func makeEffect() -> any Effect {
    var effect = effectType.init(values: values, environment: environment)
    if let levels { effect = effect.following(levels) }
    if transition != nil { effect = effect.endingOnLoop() }
    return effect
  }

  /// The clock frame `index` draws at.
  public func clock(ofFrame index: Int) -> Clock {
    Clock(time: environment.reduceMotion ? 0 : time(ofFrame: index), plan: plan)
  }
}

extension Double {
  /// The number to two decimals, without a fraction when it has none (`360`, `266.67`).
  public var roundedText: String { ParameterValue.format((self * 100).rounded() / 100) }
}

/// Limits on a frame's size that keep every allocation sane: a frame is 16 bytes a pixel in float.
/// The other settings' limits are rows of `RenderSetting.all`.
enum Limits {
  static let maxSide = 8192
  static let maxPixels = 4096 * 4096
}

extension RenderRequest {
  /// Checks every field and makes the job, or throws an `InputError` naming the first bad one.
  ///
  /// The steps run in this order, each checking its own fields: the effect and its values, the
  /// frame, the environment, the rate and threads, the outputs, the loop (or the still), then each
  /// output's encoder settings and the threads that fit in memory.
  public func job(defaultOutputs: [String] = []) throws -> RenderJob {
    try job { try outputFormats(defaultOutputs: defaultOutputs) }
  }

  /// The loop (or transition clip) the request plans, with no outputs: what `list` and `plan`
  /// show. Every field but the outputs is checked as `job()` checks it.
  public func loopJob() throws -> RenderJob {
    try job { ([], []) }
  }

  /// The job, its outputs checked by `outputs` in their place among the steps (an animated
  /// render when there are none).
  private func job(outputs: () throws -> (paths: [String], formats: [OutputFormat])) throws -> RenderJob {
    let type = try checkedEffectType()
    let (pair, given) = try effectValues(of: type)
    var values = ParameterValues(specs: type.info.parameters, given: given)
    let (width, height, scale) = try frame(of: type.info)
    let environment = try renderEnvironment()
    let fps = try RenderSetting.fps.check(self.fps ?? type.defaultFPS(for: values))
    let threads = try RenderSetting.threads.check(self.threads ?? ProcessInfo.processInfo.activeProcessorCount)
    let maxChange = try RenderSetting.maxSpeedChange.check(maxSpeedChange ?? 0.10)
    let (paths, formats) = try outputs()
    let isStill = !formats.isEmpty && formats.allSatisfy { !$0.isAnimated }
    let fixedTime = try stillTime(isStill: isStill)
    if let d = duration { try RenderSetting.duration.check(d) }

    var plan: LoopPlan?
    var frameCount = 1
    var clip: RenderJob.Transition?
    if !isStill {
      let length: Double
      if let pair {
        let made = try Self.transitionClip(
          type: type, values: values, from: pair.from, to: pair.to, environment: environment, width: width,
          height: height, scale: scale, fps: fps, duration: duration, maxChange: maxChange)
        (plan, length, values, clip) = (made.plan, made.length, made.values, made.transition)
      } else {
        let made = try Self.loopPlan(
          type: type, values: values, environment: environment, width: width, height: height, scale: scale, fps: fps,
          duration: duration, maxChange: maxChange)
        (plan, length) = (made, made.length)
      }
      frameCount = Int((length * Double(fps)).rounded())
      if environment.reduceMotion { plan = nil }
    }

    let (settings, budget, limits) = try outputSettings(
      paths: paths, formats: formats, info: type.info, environment: environment, width: width, height: height,
      fps: fps, frameCount: frameCount, threads: threads)
    var job = RenderJob(
      effectType: type, values: values, environment: environment, width: width, height: height, scale: scale,
      fps: fps, frameCount: frameCount, fixedTime: fixedTime, plan: plan, outputs: settings,
      threads: try threadsThatFit(threads, width: width, height: height, settings: settings),
      levels: try levelTrack(for: type, fps: fps, frameCount: frameCount), transition: clip)
    job.notices = try audioNotices(settings, fps: fps, frameCount: frameCount)
    if !isStill, clip == nil {
      job.notices += Self.sequenceNotices(type: type, values: values, fps: fps, frameCount: frameCount)
      job.notices += Self.crossfadeNotices(plan: plan, fps: fps)
    }
    // A transition's family of presets shares one level, which the pairs of resting states ignore.
    if clip == nil, let note = levelIgnoredNotice(type: type, values: values) { job.notices.append(note) }
    job.posters = try posterSettings(for: settings, width: width, height: height, fps: fps)
    // A poster in a format without alpha (JPEG) is named in the notice as an output is; the others
    // keep alpha as their output does.
    job.notices += alphaNotices(
      info: type.info, settings: settings + job.posters.filter { !$0.codec.spec.carriesAlpha })
    (job.maxBytes, job.platform) = (budget, limits)
    return try frames.map { try job.segment($0) } ?? job
  }

  /// The fewest frames a crossfade window must hold to hide the seam. Measured on color-orbs at
  /// 36x64 over a 1 s loop: a 0.33 s window at 4 fps (1.3 frames) writes a loop `check` fails
  /// (seam ratio 2.29); at 6 fps (2 frames) and above, or over 2 s at 4 fps, it passes.
  static let fewestCrossfadeFrames = 2.0

  /// A layer whose crossfade spans under two frames jumps at the seam, and the render's own
  /// `check` fails the file: the user hears of it before the render, with the rate or length
  /// that gives the window its frames (the window is a third of the loop, up to 2 s:
  /// `CrossfadeRule.standard`).
  static func crossfadeNotices(plan: LoopPlan?, fps: Int) -> [String] {
    guard let plan else { return [] }
    let short = plan.layers.filter { ($0.crossfadeWindow ?? .infinity) * Double(fps) < fewestCrossfadeFrames - 1e-9 }
    guard let window = short.compactMap(\.crossfadeWindow).min() else { return [] }
    let names = short.map(\.layer).joined(separator: ", ")
    let fpsNeeded = Int((fewestCrossfadeFrames / window - 1e-9).rounded(.up))
    let rule = CrossfadeRule.standard
    let length = fewestCrossfadeFrames / Double(fps) / rule.maxFraction
    let longer =
      fewestCrossfadeFrames / Double(fps) <= rule.seconds + 1e-9
      ? " or a --duration of at least \(length.roundedText) s" : ""
    return [
      "\(names) \(short.count == 1 ? "crossfades" : "crossfade") over \(window.roundedText) s, "
        + "\(String(format: "%.1f", window * Double(fps))) frames at \(fps) fps: under \(Int(fewestCrossfadeFrames)) frames the seam "
        + "jumps and `loopsmith check` fails the file; --fps \(fpsNeeded) or more\(longer) gives it \(Int(fewestCrossfadeFrames)) frames"
    ]
  }

  /// A sequence that plays once holds its last value to the loop's end, and the loop starts on its
  /// first: when the value the last frame shows differs, the file jumps at its seam, which the
  /// user should hear of before `check` tells them. Steps that start after the last frame never
  /// show: the loop cuts the sequence, which the user asked for in full.
  static func sequenceNotices(type: any Effect.Type, values: ParameterValues, fps: Int, frameCount: Int) -> [String] {
    let steps = values.steps("sequence")
    guard let first = steps.first?.value, !values.flag("repeat") else { return [] }
    let lastFrame = Double(frameCount - 1) / Double(fps)
    // Step i starts when the ones before it have played.
    var start = 0.0
    var shown: [ParameterValue.Step] = []
    var cut: [(step: ParameterValue.Step, start: Double)] = []
    for step in steps {
      if start <= lastFrame { shown.append(step) } else { cut.append((step, start)) }
      start += step.seconds.isFinite ? max(step.seconds, 0) : 0
    }
    var notes: [String] = []
    if let firstCut = cut.first {
      let seconds = String(format: "%g", Double(frameCount) / Double(fps))
      let names = cut.map { "\($0.step.value) (from \(String(format: "%g", $0.start)) s)" }.joined(separator: ", ")
      notes.append(
        "the sequence is cut by the \(seconds) s loop: \(names) never \(cut.count == 1 ? "shows" : "show"); "
          + "a --duration past \(String(format: "%g", firstCut.start)) s shows \(cut.count == 1 ? "it" : "them"), or shorten the steps before"
      )
    }
    guard let last = shown.last?.value, last != first else { return notes }
    let repeats = type.info.parameter(named: "repeat") != nil
    notes.append(
      "the sequence plays once, so the loop ends on \(last) and starts again on \(first): it jumps at the seam; "
        + (repeats ? "--set repeat=true plays it over and over, or " : "")
        + "--transition \(first):\(last) makes a clip to play between their loops")
    return notes
  }

  /// The voice orb follows a level only while it listens or speaks (docs/SWIFTUI-SEMANTICS.md, the
  /// orb's energy): a level, a level file or a sound's level given to an orb that only rests or
  /// thinks draws the same frames as none, which the user should hear of.
  func levelIgnoredNotice(type: any Effect.Type, values: ParameterValues) -> String? {
    guard type == VoiceOrb.self else { return nil }
    let given =
      levels != nil ? "--levels" : audio != nil ? "--audio's level" : values.number("level") != 0 ? "the level" : nil
    guard let given else { return nil }
    let states = values.steps("sequence").map(\.value)
    let used = states.isEmpty ? [values.choice("state")] : states
    guard !used.contains(where: { $0 == VoiceOrbState.listening.rawValue || $0 == VoiceOrbState.speaking.rawValue })
    else { return nil }
    let named = Array(Set(used)).sorted().joined(separator: " and ")
    return "\(given) changes nothing in state \(named): the orb follows a level only while it listens or speaks "
      + "(--state listening or speaking)" + (audio != nil ? "; the sound is still in the file" : "")
  }

  /// The error for `-n/--no-overwrite` when `path` exists.
  public static func existsMessage(_ path: String) -> String {
    "\(path): exists; expected a new file with -n/--no-overwrite (remove it, or drop -n to replace it)"
  }

  /// The effect named by `effect`.
  private func checkedEffectType() throws -> any Effect.Type {
    guard let name = effect else {
      throw InputError(
        "no effect given; expected one of \(EffectRegistry.names.joined(separator: ", ")) or a preset file")
    }
    return try RenderRequest.effectType(name)
  }

  /// The parameters, each checked against the effect's table, and the transition's pair when
  /// there is one (its sequence set to the pair, its step lengths set once the clip's length is known).
  private func effectValues(
    of type: any Effect.Type
  ) throws
    -> (pair: (from: String, to: String)?, given: [String: ParameterValue])
  {
    let info = type.info
    var given: [String: ParameterValue] = [:]
    for (key, value) in parameters {
      given[key] = try RenderRequest.parameter(key, of: type).validate(value)
    }
    let pair = try transition.map { try Self.transitionPair($0, of: type, given: given) }
    if pair != nil, levels != nil || audio != nil {
      throw InputError(
        "\(levels != nil ? "--levels" : "--audio"): a transition clip holds one --level for both states, as their loops do; remove it"
      )
    }
    if let pair {
      given[info.transition!.parameter] = .choice(pair.from)
      given["sequence"] = try RenderRequest.parameter("sequence", of: type).parse("\(pair.from):1,\(pair.to):1")
    }
    return (pair, given)
  }

  /// The frame in pixels and its pixels per point. `--size` alone keeps the effect's design in
  /// points and sets the scale (the shorter side keeps its points: 540x960 of a 360x640 design is
  /// scale 1.5); `--scale` or `--points` change the layout on purpose; settings that disagree are
  /// an error naming them.
  private func frame(of info: EffectInfo) throws -> (width: Int, height: Int, scale: Double) {
    if let s = self.scale { try checkScale(s) }
    if let p = points {
      guard p.width > 0, p.height > 0, p.width <= Limits.maxSide, p.height <= Limits.maxSide else {
        throw InputError(
          "--points: \(p.width)x\(p.height) is not valid; expected WxH in points with each side from 1 to \(Limits.maxSide)"
        )
      }
    }
    let width: Int, height: Int, scale: Double
    switch (size, points, self.scale) {
    case (let size?, let p?, let given):
      (width, height) = size
      scale = Double(width) / Double(p.width)
      // The height in points may round: a pixel of slack.
      let fits = abs(Double(p.height) * scale - Double(height)) <= 1
      if !fits || given.map({ abs($0 - scale) > 1e-9 * scale }) == true {
        let scaleText = given.map { " and --scale \(ParameterValue.format($0))" } ?? ""
        throw InputError(
          "--size \(width)x\(height), --points \(p.width)x\(p.height)\(scaleText) disagree; expected a size that is the points times one scale (here \(ParameterValue.format(scale)) x \(p.height) = \(ParameterValue.format(Double(p.height) * scale)) pixels high), or only two of them"
        )
      }
    case (let size?, nil, let given?):
      ((width, height), scale) = (size, given)
    case (let size?, nil, nil):
      (width, height) = size
      scale = Double(min(width, height)) / min(info.defaultSize.width, info.defaultSize.height)
    case (nil, let p?, let given):
      scale = given ?? 3
      (width, height) = (Int((Double(p.width) * scale).rounded()), Int((Double(p.height) * scale).rounded()))
    case (nil, nil, let given):
      scale = given ?? 3
      width = Int((info.defaultSize.width * scale).rounded())
      height = Int((info.defaultSize.height * scale).rounded())
    }
    guard width > 0, height > 0, width <= Limits.maxSide, height <= Limits.maxSide, width * height <= Limits.maxPixels
    else {
      throw InputError(
        "--size: \(width)x\(height) is not valid; expected WxH with each side from 1 to \(Limits.maxSide) and at most \(Limits.maxPixels) pixels"
      )
    }
    // A scale --size derives is not the flag's range (a 96 pt loader at 1080x1080 is scale 11.25),
    // and always a normal Float: at least 1 pixel over at most Limits.maxSide points.
    return (width, height, scale)
  }

  /// `scale` when it is in the table's range and a normal Float.
  private func checkScale(_ scale: Double) throws {
    try RenderSetting.scale.check(scale)
    // Drawing takes the scale as a Float: 1e-45 would arrive as 0 (or a subnormal, which is no scale).
    guard Float(scale).isNormal else {
      throw InputError(
        "--scale: '\(ParameterValue.format(scale))' is not valid; expected \(RenderSetting.scale.expected)")
    }
  }

  /// Appearance, palette, layout direction and Reduce Motion (`--still`, or a still at time 0).
  private func renderEnvironment() throws -> RenderEnvironment {
    var environment = RenderEnvironment(
      appearance: appearance ?? .dark, palette: palette ?? .ios26, rightToLeft: rightToLeft ?? false,
      reduceMotion: still ?? false)
    if let t = time {
      try RenderSetting.time.check(t)
      if t == 0 { environment.reduceMotion = true }  // time 0 is the Reduce Motion still
    }
    return environment
  }

  /// Each output path and the format its extension picks; a PNG still renders alone.
  private func outputFormats(defaultOutputs: [String]) throws -> (paths: [String], formats: [OutputFormat]) {
    let paths = outputs.isEmpty ? defaultOutputs : outputs
    guard !paths.isEmpty else { throw InputError("no output given; expected -o PATH (.mp4, .webm, .png, ...)") }
    // A NUL would cut a name short in every C call, and two different names could be one file.
    for path in paths {
      do { try InputFile.checkName(path, what: "output") } catch let e as VideoError { throw InputError("-o: \(e)") }
    }
    try Self.refuseRepeatedOutputs(paths)
    let formats = try paths.map { path -> OutputFormat in
      guard let f = OutputFormat(path: path) else {
        throw InputError(
          "-o: '\(path)' has no known extension; expected one of \(OutputFormat.allCases.map { "." + $0.rawValue }.joined(separator: ", ")) or '-'"
        )
      }
      return f
    }
    let isStill = formats.allSatisfy { !$0.isAnimated }
    if !isStill && formats.contains(where: { !$0.isAnimated }) {
      throw InputError("-o: a PNG still cannot share a render with animated outputs; render it separately")
    }
    return (paths, formats)
  }

  /// The moment a still shows (`--time`, or 0), or nil for a loop, which `--time` does not take.
  private func stillTime(isStill: Bool) throws -> Double? {
    if !isStill, time != nil {
      throw InputError(
        "--time: shows one moment in a still (.png); for a loop use --duration, and --still for the Reduce Motion loop")
    }
    if isStill, transition != nil {
      throw InputError("--transition: makes a clip; expected an animated output (.mp4, .webm, ...), not a still")
    }
    return isStill ? (time ?? 0) : nil
  }

  /// Each output's encoder settings, checked by `Video`.
  private func outputSettings(
    paths: [String], formats: [OutputFormat], info: EffectInfo, environment: RenderEnvironment, width: Int,
    height: Int, fps: Int, frameCount: Int, threads: Int
  ) throws -> (outputs: [OutputSettings], maxBytes: Int64?, platform: PlatformLimits?) {
    if let crf { try RenderSetting.crf.check(crf) }
    let bitDepth = try RenderSetting.bitDepth.check(self.bitDepth ?? 8)
    // Transparent effects keep alpha where the format carries it and are composited over the
    // background elsewhere; `--background transparent` insists on alpha (an error for MP4).
    var keepAlpha: Bool? = info.isTransparent ? nil : false
    var backgroundColor = Color.black
    let alphaMode = try self.alphaMode()
    if alphaMode != .auto, let bg = background {
      throw InputError(
        "--alpha \(alphaMode.rawValue): keeps transparency, so --background '\(bg)' has nothing to do; remove one of them"
      )
    }
    if alphaMode == .native { keepAlpha = true }
    if alphaMode == .stacked { keepAlpha = false }
    if let bg = background {
      if bg.lowercased() == "transparent" {
        keepAlpha = true
      } else if let c = ParameterSpec.parseColor(bg) {
        backgroundColor = c.resolved(environment)
        keepAlpha = false
      } else {
        throw InputError(
          "--background: '\(bg)' is not valid; expected transparent, #RRGGBB, #RRGGBBAA or a system color name")
      }
    }
    let codec = try self.codec.map { name -> VideoCodec in
      guard let c = VideoCodec(rawValue: try RenderSetting.codec.check(name).lowercased()) else {
        throw InputError("--codec: '\(name)' is not valid; expected \(RenderSetting.codec.expected)")
      }
      return c
    }
    let encoderThreads = try RenderSetting.encoderThreads.check(
      self.encoderThreads ?? RenderSetting.defaultEncoderThreads)
    let x264Preset = try RenderSetting.x264Preset.check(self.x264Preset ?? "medium")
    let audioFit = try checkedAudioFit()
    let audioTrack = audio.map { AudioTrack(path: $0, fit: audioFit) }
    let (level, budget, limits) = try qualityAndBudget(formats: formats)
    for (path, format) in zip(paths, formats) {
      // A codec the container cannot hold, or a size its codec refuses, is named before any work.
      if let codec, !format.spec.codecs.contains(codec) {
        throw InputError(
          "--codec: '\(codec.rawValue)' cannot go into \(path); a .\(format.rawValue) file holds "
            + format.spec.codecs.map(\.rawValue).joined(separator: " or "))
      }
      let used = codec ?? format.spec.defaultCodec
      if keepAlpha == true, used == .hevc { throw InputError("-o \(path): \(Self.hevcAlphaMessage)") }
      let stacked = alphaMode == .stacked && StackedAlpha.codecs.contains(used)
      let encodedHeight = stacked ? StackedAlpha.encodedHeight(height) : height
      if let problem = used.sizeProblem(width: width, height: encodedHeight) {
        throw InputError(
          "--size: \(width)x\(height)\(stacked ? " (stacked alpha: \(width)x\(encodedHeight))" : "") does not fit \(path): \(problem)"
        )
      }
      if maxBytes != nil, used.spec.quality == nil {
        throw InputError(
          "--max-bytes: \(used.rawValue) has no quality setting to search (\(path)); expected an output in "
            + VideoCodec.allCases.filter { $0.spec.quality != nil }.map(\.rawValue).joined(separator: ", "))
      }
      if let crf {
        guard let quality = used.spec.quality else {
          throw InputError("--crf: \(used.rawValue) has no constant-quality setting (\(path)); leave it unset")
        }
        if !quality.range.contains(crf) {
          throw InputError(
            "--crf: '\(crf)' is not valid for \(used.rawValue) (\(path)); expected a whole number from "
              + "\(quality.range.lowerBound) to \(quality.range.upperBound)")
        }
      }
    }
    try checkStacked(alphaMode, paths: paths, formats: formats, codec: codec, height: height)
    let outputs = try zip(paths, formats).map { path, format -> OutputSettings in
      let stacked = alphaMode == .stacked && StackedAlpha.codecs.contains(codec ?? format.spec.defaultCodec)
      // --crf wins over a named --quality, which each codec maps to its own number.
      let levelCRF = level.flatMap { (codec ?? format.spec.defaultCodec).spec.quality?.value(for: $0) }
      var s = try OutputSettings(
        path: path, format: format, codec: codec,
        width: width, height: height, fps: fps, frameCount: format.isAnimated ? frameCount : 1, crf: crf ?? levelCRF,
        bitDepth: bitDepth, threads: encoderThreads, keepAlpha: keepAlpha ?? true, background: backgroundColor,
        x264Preset: x264Preset, audio: format.isAnimated && format != .y4m ? audioTrack : nil)
      // Unasked, alpha is kept only where the codec carries it; elsewhere the background shows.
      if keepAlpha == nil && !s.carriesAlpha { s.keepAlpha = false }
      if stacked {
        s.keepAlpha = false
        s.stackedAlpha = true
        s.height = StackedAlpha.encodedHeight(height)
      } else if alphaMode == .stacked, info.isTransparent {
        s.keepAlpha = true  // the other outputs keep alpha where they can
        if !s.carriesAlpha { s.keepAlpha = false }
      }
      // A platform's limits hold for its videos; a poster or still beside them is left alone.
      if let limits, format.isAnimated, let problem = limits.problem(with: s) {
        var error = InputError("--platform \(limits.name): \(path): Telegram \(problem)")
        error.breaksPlatformLimit = true
        throw error
      }
      s.loops = transition == nil  // a transition clip has no seam to hide
      s.comment = PresetTag.text(for: self)  // what `check` re-renders the file from
      do { try s.validate() } catch let e as VideoError { throw InputError("-o \(path): \(e)") }
      return s
    }
    return (outputs, budget, limits)
  }

  /// `--quality`, `--max-bytes` (or the platform's) and `--platform`, checked.
  private func qualityAndBudget(formats: [OutputFormat]) throws -> (QualityLevel?, Int64?, PlatformLimits?) {
    let level = try quality.map { QualityLevel(rawValue: try RenderSetting.quality.check($0).lowercased())! }
    let limits = try platform.map { name -> PlatformLimits in
      guard let l = PlatformLimits.named(name) else {
        throw InputError("--platform: '\(name)' is not valid; expected \(RenderSetting.platform.expected)")
      }
      return l
    }
    var budget = limits?.maxBytes
    if let text = maxBytes {
      guard let n = ByteSize.parse(text).map(Int64.init) else {
        throw InputError("--max-bytes: '\(text)' is not valid; expected a number of bytes, like 300000, 256K or 1.5M")
      }
      budget = min(n, budget ?? n)
    }
    if budget != nil, frames != nil {
      throw InputError("--max-bytes: a segment (--frames) is one part of a file; give the budget to the whole render")
    }
    if budget != nil, formats.contains(.y4m) {
      throw InputError("--max-bytes: Y4M is uncompressed and has no quality to search; expected .mp4, .webm or .webp")
    }
    return (level, budget, limits)
  }

  /// The render threads that fit in memory beside the encoders.
  ///
  /// One memory budget (MemoryBudget) holds the encoders and the frames in flight. Each render
  /// thread holds a float frame and its layers (16 bytes a pixel each, about 4 of them drawn at
  /// once) and, per output, two converted frames in the ring (at most 8 bytes a pixel): 64
  /// threads at 4096x4096 would want 17 GiB. Threads beyond the budget are dropped (more only
  /// add frames in flight); if the encoders and one thread do not fit, say so before any work.
  private func threadsThatFit(_ threads: Int, width: Int, height: Int, settings: [OutputSettings]) throws -> Int {
    let pixels = UInt64(width) * UInt64(height)
    let bytesPerThread = pixels * 16 * 4 + 2 * UInt64(settings.count) * pixels * 8
    let encoderBytes = settings.reduce(UInt64(0)) { $0 + MemoryBudget.encoderBytes($1) }
    let budget = memoryLimit ?? MemoryBudget.defaultBytes
    guard encoderBytes + bytesPerThread <= budget else {
      let limit = memoryLimit == nil ? "the default memory budget (half the memory)" : "the memory budget"
      throw InputError(
        "--memory-limit: \(width)x\(height) with \(settings.count) output\(settings.count == 1 ? "" : "s") needs \(MemoryBudget.describe(encoderBytes + bytesPerThread)) (encoders \(MemoryBudget.describe(encoderBytes)), one render thread \(MemoryBudget.describe(bytesPerThread))); \(limit) is \(MemoryBudget.describe(budget)): raise it with --memory-limit, or use fewer outputs or a smaller size"
      )
    }
    return Int(min(UInt64(threads), (budget - encoderBytes) / bytesPerThread))
  }

  /// The loop plan of one effect with these values: of `duration` seconds, or of the default length.
  static func loopPlan(
    type: any Effect.Type, values: ParameterValues, environment: RenderEnvironment, width: Int, height: Int,
    scale: Double, fps: Int, duration: Double?, maxChange: Double
  ) throws -> LoopPlan {
    let motions = recordMotions(
      type: type, values: values, environment: environment, width: width, height: height, scale: scale)
    let quantum = type.loopQuantum(for: values)
    let length = try duration ?? defaultLength(motions: motions, fps: fps, quantum: quantum, maxChange: maxChange)
    do {
      return try LoopPlanner.plan(
        motions: motions, length: length, fps: fps, maxSpeedChange: maxChange, lengthQuantum: quantum)
    } catch let error as LoopPlanError {
      throw InputError("--duration: \(error)")
    }
  }

  /// `FROM:TO`, each a value of the effect's transition parameter, checked.
  private static func transitionPair(
    _ text: String, of type: any Effect.Type, given: [String: ParameterValue]
  ) throws
    -> (from: String, to: String)
  {
    let info = type.info
    guard let spec = info.transition else {
      let able = EffectRegistry.all.filter { $0.info.transition != nil }.map { $0.info.name }
      throw InputError(
        "--transition: \(info.name) has nothing to change between; only \(able.joined(separator: " and ")) make transition clips"
      )
    }
    let choice = try RenderRequest.parameter(spec.parameter, of: type)
    let names = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
    let parsed = names.count == 2 ? names.compactMap { try? choice.parse($0) } : []
    guard parsed.count == 2, case .choice(let from) = parsed[0], case .choice(let to) = parsed[1] else {
      throw InputError("--transition: '\(text)' is not valid; expected FROM:TO with each \(choice.expected)")
    }
    guard from != to else {
      throw InputError("--transition: '\(text)' changes nothing; expected two different values, FROM:TO")
    }
    if given["sequence"] != nil {
      throw InputError("--transition: makes its own sequence; remove the 'sequence' parameter")
    }
    return (from, to)
  }

  /// A transition clip from `from` to `to`: its plan, length, values and timing.
  ///
  /// The clip starts on frame 0 of `from`'s loop and its next frame is frame 0 of `to`'s, each loop
  /// of its default length at this size, frame rate and speed limit (`loopsmith render` of the same
  /// effect with `--weather`/`--state` and no `--duration`). Its length is the shortest whole
  /// multiple of the effect's loop quantum (6 s for weather; a whole loop when both share one clock,
  /// as the orb's blobs do) that holds 1 s of `from`, the change and its settling, and 1 s of `to`;
  /// the change starts where `from` shows as long as `to` after settling: 2.5 s into a 6 s weather
  /// clip, 3.5 s into a 10 s voice-orb clip.
  static func transitionClip(
    type: any Effect.Type, values: ParameterValues, from: String, to: String, environment: RenderEnvironment,
    width: Int, height: Int, scale: Double, fps: Int, duration: Double?, maxChange: Double
  ) throws -> (plan: LoopPlan, length: Double, values: ParameterValues, transition: RenderJob.Transition) {
    let info = type.info
    let spec = info.transition!
    func loop(_ value: String) throws -> LoopPlan {
      var given = values.values
      given[spec.parameter] = .choice(value)
      given["sequence"] = info.parameter(named: "sequence")?.defaultValue
      let loopValues = ParameterValues(specs: info.parameters, given: given)
      do {
        return try loopPlan(
          type: type, values: loopValues, environment: environment, width: width, height: height, scale: scale,
          fps: fps, duration: nil, maxChange: maxChange)
      } catch let error as InputError {
        throw InputError("--transition: the \(value) loop: \(error)")
      }
    }
    let (fromPlan, toPlan) = (try loop(from), try loop(to))
    let quantum: Double
    if spec.ownClocks {
      quantum = type.loopQuantum(for: values) ?? 1
    } else {
      // One clock for both: the clip must hold whole loops, and the loops must move alike.
      guard fromPlan.length == toPlan.length, fromPlan.rows == toPlan.rows else {
        throw InputError(
          "--transition: the \(from) and \(to) loops move differently; no clip of whole loops joins them")
      }
      quantum = fromPlan.length
    }
    let shortest = spec.settle + 2
    let whole = { (x: Double) in x.isFinite && abs(x - x.rounded()) <= 1e-9 * max(1, abs(x)) }
    let length: Double
    if let duration {
      guard whole(duration / quantum), duration >= shortest - 1e-9 else {
        let fits = max((shortest / quantum - 1e-9).rounded(.up), 1) * quantum
        throw InputError(
          "--duration: a \(info.name) transition lasts a whole multiple of \(ParameterValue.format(quantum)) s, at least \(ParameterValue.format(shortest)) s; expected \(ParameterValue.format(fits)) or a multiple of it"
        )
      }
      length = duration
    } else {
      length = max((shortest / quantum - 1e-9).rounded(.up), 1) * quantum
    }
    guard whole(length * Double(fps)) else {
      throw InputError(
        "--fps: a \(ParameterValue.format(length)) s transition at \(fps) fps is not a whole number of frames")
    }
    let change = (length - spec.settle) / 2
    var given = values.values
    given["sequence"] = try RenderRequest.parameter("sequence", of: type)
      .parse("\(from):\(ParameterValue.format(change)),\(to):\(ParameterValue.format(length - change))")
    let plan =
      spec.ownClocks ? LoopPlan.clip(length: length, fps: fps, parts: [(from, fromPlan), (to, toPlan)]) : fromPlan
    return (
      plan, length, ParameterValues(specs: info.parameters, given: given),
      RenderJob.Transition(from: from, to: to, change: change, fromLoop: fromPlan.length, toLoop: toPlan.length)
    )
  }

  /// The voice orb's level track from `--levels` (JSON or CSV of time and level) or `--audio`.
  private func levelTrack(for type: any Effect.Type, fps: Int, frameCount: Int) throws -> LevelTrack? {
    guard levels != nil || audio != nil else { return nil }
    guard type.followsLevels else {
      throw InputError(
        "\(levels != nil ? "--levels" : "--audio"): only the voice-orb effect follows a level; got \(type.info.name)")
    }
    if let path = levels {
      // A regular file under 16 MiB, opened once (a FIFO or /dev/zero would hang or be read whole).
      let data: Data
      do {
        data = try InputFile(path: path, limit: InputFile.Limit.levels, what: "levels file").readAll()
      } catch let e as VideoError {
        throw InputError("--levels: \(e)")
      }
      guard !data.isEmpty else {
        throw InputError("--levels: \(path): empty file; expected a JSON or CSV file of time and level")
      }
      guard let text = String(data: data, encoding: .utf8) else {
        throw InputError("--levels: \(path): not UTF-8 text")
      }
      if path.lowercased().hasSuffix(".json") {
        guard let rows = (try? JSONSerialization.jsonObject(with: data)) as? [[Double]], !rows.isEmpty,
          rows.allSatisfy({ $0.count == 2 && $0[0].isFinite && $0[1].isFinite })
        else { throw InputError("--levels: \(path): expected a JSON list of [seconds, level] pairs") }
        return LevelTrack(times: rows.map { $0[0] }, levels: rows.map { $0[1] })
      }
      let track: LevelTrack
      do { track = try LevelTrack(csv: text) } catch {
        throw InputError("--levels: \(path): \(error); expected CSV lines of seconds,level")
      }
      // A header alone parses to no levels, which would draw silence without a word.
      guard !track.levels.isEmpty else {
        throw InputError("--levels: \(path): no levels; expected CSV lines of seconds,level")
      }
      return track
    }
    let path = audio!
    do {
      let envelope = try AudioLevels.envelope(
        path: path, fps: fps, frameCount: frameCount, fit: try checkedAudioFit())
      // The sound loops with the file: before frame 0 plays the loop's end, and the orb's spring
      // remembers it (docs/ENCODING.md, Audio that loops).
      return LevelTrack(
        loopingEnvelope: envelope, rate: Double(fps), history: VoiceOrbAnimation.memory + 1 / Double(fps))
    } catch let e as VideoError {
      if case .interrupted = e { throw e }  // a stop signal while reading, not the sound's fault
      throw InputError("--audio: \(e)")
    }
  }

  /// The motions an effect reads, collected by drawing a few moments of it small: the plan comes
  /// from the drawing code itself. Several moments, so that layers drawn only sometimes (a
  /// lightning bolt at a flash) are seen too.
  static func recordMotions(
    type: any Effect.Type, values: ParameterValues, environment: RenderEnvironment,
    width: Int, height: Int, scale: Double
  ) -> [Motion] {
    let recorder = MotionRecorder()
    // A quarter-size canvas in pixels, the same size in points: motions depend on points only.
    let small = 0.25
    let image = Image(width: max(1, Int(Double(width) * small)), height: max(1, Int(Double(height) * small)))
    let surface = Surface(image: image, scale: Float(scale * small))
    let effect = type.init(values: values, environment: environment)
    for t in [0, 0.49, 0.86] + type.keyTimes(for: values) {
      var context = surface.context()
      effect.draw(in: &context, clock: Clock(time: t, recorder: recorder))
    }
    return recorder.motions
  }

  /// The default loop: the shortest that keeps every speed change within the limit without a
  /// crossfade up to 30 s; past that, a crossfaded loop of at least 12 s, so the blend is a small
  /// part of it.
  static func defaultLength(motions: [Motion], fps: Int, quantum: Double?, maxChange: Double) throws -> Double {
    do {
      let t = try LoopPlanner.defaultLength(
        motions: motions, fps: fps, maxSpeedChange: maxChange, lengthQuantum: quantum,
        maxLength: max(120, quantum ?? 0), maxLengthWithoutCrossfade: 30)
      let plan = try LoopPlanner.plan(
        motions: motions, length: t, fps: fps, maxSpeedChange: maxChange, lengthQuantum: quantum)
      if plan.crossfades && t < 12 {
        let q = quantum ?? 1
        let longer = (12 / q).rounded(.up) * q
        if (try? LoopPlanner.plan(
          motions: motions, length: longer, fps: fps, maxSpeedChange: maxChange, lengthQuantum: quantum)) != nil
        {
          return longer
        }
      }
      return t
    } catch let error as LoopPlanError {
      throw InputError("--duration: no default loop length keeps the speed changes within the limit: \(error)")
    }
  }
}
