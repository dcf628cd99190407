import Effects
import Foundation
import Video

/// A setting's value as a flag or a preset gives it, before the job checks it against its range.
package enum SettingValue: Sendable, Equatable {
  case integer(Int)
  case number(Double)
  case text(String)
  case toggle(Bool)
  case size(width: Int, height: Int)
  case texts([String])
  case bytes(UInt64)
}

/// One setting a render takes, stated once: its flag, its preset key, its kind and limits, its
/// default and its help. The table (`RenderSetting.all`) drives the `render` flags and their help,
/// the preset decoder, the JSON Schema, `loopsmith list`, the merge of a preset with flags, and the
/// range checks of `RenderRequest.job`, so none of them can state a limit differently.
public struct RenderSetting: Sendable {
  /// What a setting holds, with its limits.
  public enum Kind: Sendable {
    /// A whole number in the range.
    case integer(ClosedRange<Int>)
    /// A whole number, one of these.
    case integers([Int])
    /// A finite number in the range; `above` leaves out the lower bound.
    case number(ClosedRange<Double>, above: Bool)
    /// One of these names.
    case choice([String])
    /// Text the job reads (a color, a file).
    case text
    /// On when given.
    case toggle
    /// `WxH` in pixels (or `[width, height]` in a preset).
    case size
    /// Output files, repeatable.
    case outputs
    /// `FROM:TO` (or `[from, to]` in a preset).
    case transition
    /// A number of bytes with an optional K, M, G or T suffix (`512M`, `8G`).
    case bytes
  }

  /// The request's field the setting fills. Key paths are immutable values, though not marked
  /// `Sendable` in Swift 5 mode.
  package enum Field: @unchecked Sendable {
    case integer(WritableKeyPath<RenderRequest, Int?>)
    case number(WritableKeyPath<RenderRequest, Double?>)
    case text(WritableKeyPath<RenderRequest, String?>)
    case toggle(WritableKeyPath<RenderRequest, Bool?>)
    case bytes(WritableKeyPath<RenderRequest, UInt64?>)
    case size, points, outputs, appearance, palette
  }

  /// The long flag without its dashes (`bit-depth`).
  public let flag: String
  /// The one-letter flag, if any (`o`).
  public let short: Character?
  /// The key in a preset file, or nil for a setting of the machine rather than of the preset
  /// (threads, the x264 speed preset).
  public let presetKey: String?
  public let kind: Kind
  /// The flag's value in help (`n`, `WxH`).
  public let placeholder: String
  /// The value used when neither flag nor preset gives one, in words (`3`, `the seed's, 30 or 60`).
  public let defaultText: String?
  public let help: String
  /// What the range means, appended to a range error (`(lower is better quality)`).
  public let note: String?
  /// A path read from beside the preset when relative.
  public let isFile: Bool
  /// The flag may come without its value (`--poster` alone), which then is "" (a preset's `true`).
  public let valueOptional: Bool
  package let field: Field

  package init(
    _ flag: String, short: Character? = nil, key: String?, _ kind: Kind, _ field: Field, placeholder: String = "",
    default defaultText: String? = nil, note: String? = nil, isFile: Bool = false, valueOptional: Bool = false,
    help: String
  ) {
    (self.flag, self.short, self.presetKey, self.kind, self.field) = (flag, short, key, kind, field)
    self.valueOptional = valueOptional
    (self.placeholder, self.defaultText, self.note, self.isFile, self.help) = (
      placeholder, defaultText, note, isFile, help
    )
  }

  // MARK: - The table

  /// libx264's speed presets, fastest first.
  public static let x264Presets = OutputSettings.x264Presets
  /// The codecs a user may pick, from the format table.
  public static let codecs = VideoCodec.choosable.map(\.rawValue)

  static let output = RenderSetting(
    "output", short: "o", key: "outputs", .outputs, .outputs, placeholder: "path",
    help:
      "Output file; the extension picks the format (\(OutputFormat.extensionList); - is Y4M on stdout). Repeat for several."
  )
  static let size = RenderSetting(
    "size", key: "size", .size, .size, placeholder: "WxH", default: "the effect's design at --scale",
    help:
      "Video size in pixels. Alone it keeps the effect's design in points and sets the scale: the shorter side keeps its points (540x960 of a 360x640 design is scale 1.5; 1080x1080 is a 360x360 pt screen at scale 3)."
  )
  static let points = RenderSetting(
    "points", key: "points", .size, .points, placeholder: "WxH",
    default: "the effect's design: 360x640, voice orb 400x400, loader 96x96",
    help:
      "The layout's screen in points, changed on purpose; with --size the scale is W / points W, alone the size is points x --scale."
  )
  public static let fps = RenderSetting(
    "fps", key: "fps", .integer(1...240), .integer(\.fps), placeholder: "n", default: "the seed's, 30 or 60",
    help: "Frames per second.")
  public static let duration = RenderSetting(
    "duration", key: "duration", .number(0...3600, above: true), .number(\.duration), placeholder: "seconds",
    default: "the shortest that keeps speed changes small",
    help: "Loop length; with --transition, the clip's length.")
  public static let time = RenderSetting(
    "time", key: "time", .number(0...10_000_000, above: false), .number(\.time), placeholder: "seconds",
    help: "The moment a still shows; 0 is the Reduce Motion still.")
  static let still = RenderSetting(
    "still", key: "still", .toggle, .toggle(\.still),
    help: "Reduce Motion: time held at 0, no lightning, the voice orb brightening.")
  public static let scale = RenderSetting(
    "scale", key: "scale", .number(0...8, above: true), .number(\.scale), placeholder: "s",
    default: "3, or what --size gives",
    help:
      "Pixels per point; with --size it changes the layout on purpose (1080x1920 at --scale 2 is a 540x960 pt screen).")
  static let audio = RenderSetting(
    "audio", key: "audio", .text, .text(\.audio), placeholder: "file", isFile: true,
    help:
      "Voice orb: a sound whose loudness drives the level frame by frame; muxed into the output (AAC in MP4, Opus in WebM)."
  )
  static let audioFit = RenderSetting(
    "audio-fit", key: "audioFit", .choice(AudioFit.allCases.map(\.rawValue)), .text(\.audioFit),
    placeholder: "loop|cut|pad", default: AudioFit.defaultValue.rawValue,
    help:
      "How --audio becomes exactly the loop's length: repeat a shorter sound, each repeat crossfaded, so the sound and the orb run on across the seam, and cut a longer one, crossfading the 50 ms after the cut into its start so the seam does not click (loop); cut a longer one the same way and pad a shorter one with silence (cut); or keep it as it is, padded, refusing a longer one (pad)."
  )
  static let levels = RenderSetting(
    "levels", key: "levels", .text, .text(\.levels), placeholder: "file", isFile: true,
    help: "Voice orb: levels over time, a CSV of seconds,level lines or a JSON list of [seconds, level] pairs.")
  static let transition = RenderSetting(
    "transition", key: "transition", .transition, .text(\.transition), placeholder: "from:to",
    help:
      "A clip from one weather or voice state to another (rain:snow, idle:speaking): it starts on frame 0 of the first one's loop and its next frame is frame 0 of the second one's."
  )
  static let rtl = RenderSetting(
    "rtl", key: "rtl", .toggle, .toggle(\.rightToLeft), help: "Right-to-left layout (the sun moves to the top left).")
  static let appearance = RenderSetting(
    "appearance", key: "appearance", .choice(Appearance.allCases.map(\.rawValue)), .appearance,
    placeholder: "light|dark", default: "dark", help: "Which system palette colors resolve to.")
  static let palette = RenderSetting(
    "palette", key: "palette", .choice(PaletteVersion.allCases.map(\.rawValue)), .palette,
    placeholder: "ios26|ios18", default: "ios26", help: "The system color table.")
  public static let codec = RenderSetting(
    "codec", key: "codec", .choice(codecs), .text(\.codec), placeholder: "name",
    default: "h264 for MP4, vp9 for WebM, prores for MOV", help: "\(VideoCodec.choiceList).")
  public static let crf = RenderSetting(
    "crf", key: "crf", .integer(VideoCodec.qualityRange), .integer(\.crf), placeholder: "n",
    default: VideoCodec.qualityDefaults,
    note: "(lower is better quality)", help: "Constant quality; lower is better, except WebP's quality.")
  public static let bitDepth = RenderSetting(
    "bit-depth", key: "bitDepth", .integers([8, 10]), .integer(\.bitDepth), placeholder: "8|10", default: "8",
    help: "Sample depth where the codec plays it (HEVC Main10, VP9 Profile 2).")
  static let background = RenderSetting(
    "background", key: "background", .text, .text(\.background), placeholder: "color|transparent", default: "black",
    help: "What transparent effects are drawn over where alpha is not kept.")
  public static let alpha = RenderSetting(
    "alpha", key: "alpha", .choice(AlphaMode.allCases.map(\.rawValue)), .text(\.alpha),
    placeholder: "auto|native|stacked", default: "auto",
    help:
      "Transparent effects: auto keeps alpha where the format has an alpha plane (WebM VP9, MOV ProRes, PNG, APNG, WebP, GIF) and draws over --background elsewhere; native insists on that plane; stacked writes H.264/HEVC MP4 with the colour on top and alpha below, for player/loopsmith-alpha.js."
  )
  static let poster = RenderSetting(
    "poster", key: "poster", .text, .text(\.poster), placeholder: "path", default: "each video's name as .png",
    valueOptional: true,
    help:
      "Also write frame 0 of the same render as a still, .png (lossless), .jpg or .webp by the path's extension; alone, one PNG beside each video, named like it."
  )
  static let web = RenderSetting(
    "web", key: nil, .text, .text(\.web), placeholder: "dir",
    help:
      "Write a folder ready for a site instead of -o, --poster and --out-dir (refused with it, as are --null and --frames): NAME.mp4 (H.264, or --codec hevc), or for a transparent effect NAME-stacked.mp4 and NAME.webm (VP9 alpha), NAME.png (frame 0, the Reduce Motion still), loopsmith-loop.js and .mjs, and an index.html playing them through <loopsmith-loop>; NAME is the preset's or the effect's. Written whole or not at all; an existing folder gets the files added, replacing those of the same name."
  )
  public static let maxSpeedChange = RenderSetting(
    "max-speed-change", key: "maxSpeedChange", .number(0...1, above: false), .number(\.maxSpeedChange),
    placeholder: "fraction", default: "0.1", note: "(0.1 is 10%)",
    help: "The largest speed change a loop plan may make.")
  public static let threads = RenderSetting(
    "threads", key: nil, .integer(1...256), .integer(\.threads), placeholder: "n", default: "all cores",
    help: "Render threads.")
  public static let encoderThreads = RenderSetting(
    "encoder-threads", key: nil, .integer(1...64), .integer(\.encoderThreads), placeholder: "n",
    default: "\(defaultEncoderThreads)",
    help:
      "Encoder threads; they change the bytes (not WebP's, encoded a whole frame a thread), so they never follow the cores or --jobs: one preset gives one sha256 on any machine."
  )
  /// The encoder threads when none are given: fixed, so every runner writes the same bytes.
  public static let defaultEncoderThreads = 4
  public static let x264Preset = RenderSetting(
    "x264-preset", key: "x264Preset", .choice(x264Presets), .text(\.x264Preset), placeholder: "name", default: "medium",
    help: "libx264 speed preset.")

  static let memoryLimit = RenderSetting(
    "memory-limit", key: nil, .bytes, .bytes(\.memoryLimit), placeholder: "size", default: "half the memory",
    help:
      "Memory for frames, layers and encoders together, e.g. 8G; a render that needs more is refused before any work.")
  static let frames = RenderSetting(
    "frames", key: nil, .text, .text(\.frames), placeholder: "A:B|K/N", default: "the whole loop",
    help:
      "Render frames A to B of the loop, B exclusive (0:30 is frames 0-29), or part K of N equal parts (2/3), into a segment whose encoder starts fresh at A, timed from 0; loopsmith join puts segments back together."
  )

  // Quality by name, size budgets and platform limits (SizeBudget.swift; docs/ENCODING.md, Quality levels).
  public static let quality = RenderSetting(
    "quality", key: "quality", .choice(QualityLevel.allCases.map(\.rawValue)), .text(\.quality),
    placeholder: "high|balanced|small", default: "balanced",
    help:
      "Named quality, mapped per codec (\(VideoCodec.qualityLevels)); --crf wins over it.")
  public static let maxBytes = RenderSetting(
    "max-bytes", key: "maxBytes", .text, .text(\.maxBytes), placeholder: "N[K|M]",
    default: "no limit, or the platform's",
    help:
      "The most bytes each output may take (K = 1024, M = 1048576): the quality is bisected, one real encode of the frames rendered once per try, until the file fits; exit 1 with the smallest size reached when it cannot."
  )
  public static let platform = RenderSetting(
    "platform", key: "platform", .choice(PlatformLimits.all.map(\.name)), .text(\.platform), placeholder: "name",
    help:
      "Limits the outputs must meet, checked after encoding (exit 1 naming the limit broken): \(PlatformLimits.all.map(\.summary).joined(separator: "; "))."
  )

  /// Every setting, in the order help lists them.
  public static let all: [RenderSetting] = [
    output, size, points, fps, duration, time, still, scale, audio, audioFit, levels, transition, rtl, appearance,
    palette, codec, crf, quality, maxBytes, platform, bitDepth, background, alpha, poster, web, maxSpeedChange, threads,
    encoderThreads, memoryLimit, x264Preset, frames,
  ]

  /// The row whose flag is `flag` (without dashes).
  public static func named(_ flag: String) -> RenderSetting? { all.first { $0.flag == flag } }

  /// The row whose preset key is `key`.
  public static func withPresetKey(_ key: String) -> RenderSetting? { all.first { $0.presetKey == key } }

  // MARK: - Words

  /// The help line: the setting's help and its default.
  public var helpLine: String {
    guard let defaultText else { return help }
    return (help.hasSuffix(".") ? String(help.dropLast()) : help) + " (default: \(defaultText))."
  }

  /// What a valid value is, in words, for error messages.
  public var expected: String {
    switch kind {
    case .integer(let r): "a whole number from \(r.lowerBound) to \(r.upperBound)" + (note.map { " " + $0 } ?? "")
    case .integers(let v): v.map(String.init).joined(separator: " or ")
    case .number(let r, let above):
      (above
        ? "\(noun) above \(ParameterValue.format(r.lowerBound)) and at most \(ParameterValue.format(r.upperBound))"
        : "\(noun) from \(ParameterValue.format(r.lowerBound)) to \(ParameterValue.format(r.upperBound))")
        + (note.map { " " + $0 } ?? "")
    case .choice(let names): "one of \(names.joined(separator: ", "))"
    case .text: "a string"
    case .toggle: "true or false"
    case .size: field.isPoints ? "WxH in points, like 360x640" : "WxH in pixels, like 1080x1920"
    case .outputs: "a list of 1 to 16 file names"
    case .transition: "FROM:TO"
    case .bytes: "a size such as 512M or 8G (a number with K, M, G or T)"
    }
  }

  /// What a number of this setting counts, in words.
  private var noun: String {
    switch placeholder {
    case "seconds": "seconds"
    case "fraction": "a fraction"
    default: "a number"
    }
  }

  // MARK: - Checks

  /// `value` unchanged when the setting allows it; otherwise an error naming the flag.
  @discardableResult
  public func check(_ value: Int) throws -> Int {
    switch kind {
    case .integer(let r) where r.contains(value): return value
    case .integers(let v) where v.contains(value): return value
    default: throw InputError("--\(flag): '\(value)' is not valid; expected \(expected)")
    }
  }

  /// `value` unchanged when it is finite and in range; otherwise an error naming the flag.
  @discardableResult
  public func check(_ value: Double) throws -> Double {
    guard case .number(let r, let above) = kind, value.isFinite, r.contains(value), !(above && value == r.lowerBound)
    else {
      throw InputError("--\(flag): '\(ParameterValue.format(value))' is not valid; expected \(expected)")
    }
    return value
  }

  /// `value` unchanged when it is one of the setting's names (case aside); otherwise an error.
  @discardableResult
  public func check(_ value: String) throws -> String {
    guard case .choice(let names) = kind, names.contains(value.lowercased()) else {
      throw InputError("--\(flag): '\(value)' is not valid; expected \(expected)\(hint(value))")
    }
    return value
  }

  /// Other names for a choice a user may know it by: H.265 is HEVC, AVC is H.264. Said as a hint,
  /// not taken, so a preset spells each codec one way.
  static let otherNames = [
    "h265": "hevc", "h.265": "hevc", "x265": "hevc", "libx265": "hevc", "hvc1": "hevc", "avc": "h264",
    "h.264": "h264", "x264": "h264", "libx264": "h264", "avc1": "h264", "vp09": "vp9", "libvpx": "vp9",
    "jpg": "jpeg",
  ]

  /// ". Did you mean 'x'?" for a choice's value, to end its error: its other name, else the
  /// nearest of its names, else "" ('h265' is one letter from 'h264', which the user does not mean).
  func hint(_ value: String) -> String {
    guard case .choice(let names) = kind else { return "" }
    if let other = Self.otherNames[value.lowercased()], names.contains(other) { return ". Did you mean '\(other)'?" }
    let near = didYouMean(value, in: names)
    return near.isEmpty ? "" : "." + near
  }

  // MARK: - Reading flags and preset values

  /// The value of a flag's text: its type checked, its range left to the job. `typed` is the flag
  /// as the user wrote it, for the error.
  package func parse(_ text: String, typed: String) throws -> SettingValue {
    let bad = { (what: String) in InputError("\(typed): '\(text)' is not valid; expected \(what)") }
    switch kind {
    case .integer, .integers:
      guard let n = DecimalText.int(text) else { throw bad("a whole number") }
      return .integer(n)
    case .number:
      guard let d = DecimalText.double(text) else { throw bad("a decimal number, like 2.5") }
      return .number(d)
    case .choice(let names):
      guard names.contains(text.lowercased()) else {
        throw InputError("\(typed): '\(text)' is not valid; expected \(expected)\(hint(text))")
      }
      return .text(text)
    case .text, .transition: return .text(text)
    case .toggle: return .toggle(true)
    case .size:
      let (w, h) = try parseSize(text, field: typed, points: field.isPoints)
      return .size(width: w, height: h)
    case .outputs: return .texts([text])
    case .bytes: return .bytes(try MemoryBudget.parse(text, flag: typed))
    }
  }

  /// The value of a preset's JSON value (from `JSONSerialization`); `field` names the file and key
  /// in errors (`p.json: 'fps'`).
  package func decode(_ json: Any, field: String) throws -> SettingValue {
    let fail = { (expected: String) in InputError("\(field): expected \(expected)") }
    switch kind {
    case .integer, .integers:
      guard let n = json as? NSNumber, !isBool(n), n.doubleValue.isFinite else { throw fail("a number") }
      let d = n.doubleValue
      guard d == d.rounded(), abs(d) < 1e9 else { throw fail("a whole number") }
      return .integer(Int(d))
    case .number:
      guard let n = json as? NSNumber, !isBool(n), n.doubleValue.isFinite else { throw fail("a number") }
      return .number(n.doubleValue)
    case .choice(let names):
      guard let s = json as? String else { throw fail("a string") }
      guard names.contains(s.lowercased()) else {
        throw fail(names.count == 2 ? names.joined(separator: " or ") : expected)
      }
      return .text(s)
    case .text:
      if valueOptional, let n = json as? NSNumber, isBool(n), n.boolValue { return .text("") }
      guard let s = json as? String else { throw fail(valueOptional ? "a file name or true" : "a string") }
      return .text(s)
    case .toggle:
      guard let n = json as? NSNumber, isBool(n) else { throw fail("true or false") }
      return .toggle(n.boolValue)
    case .size:
      if let s = json as? String {
        let (w, h) = try parseSize(s, field: field, points: self.field.isPoints)
        return .size(width: w, height: h)
      }
      guard let a = json as? [NSNumber], a.count == 2,
        a.allSatisfy({ !isBool($0) && $0.doubleValue == $0.doubleValue.rounded() && abs($0.doubleValue) < 1e6 })
      else { throw fail("\"WxH\" or [width, height] in \(self.field.isPoints ? "points" : "pixels")") }
      return .size(width: a[0].intValue, height: a[1].intValue)
    case .outputs:
      guard let a = json as? [String], !a.isEmpty, a.count <= 16 else { throw fail("a list of 1 to 16 file names") }
      return .texts(a)
    case .transition:
      // "rain:snow" or ["rain", "snow"]; the names are checked with the effect's own.
      if let text = json as? String { return .text(text) }
      guard let pair = json as? [String], pair.count == 2 else {
        throw fail("\"from:to\" or [from, to], two weathers or voice states")
      }
      return .text(pair.joined(separator: ":"))
    case .bytes:
      guard let text = json as? String else { throw fail(expected) }
      return .bytes(try MemoryBudget.parse(text, flag: field))
    }
  }

  // MARK: - The request's field

  /// Sets the request's field to `value` (repeated outputs add up).
  package func write(_ value: SettingValue, into request: inout RenderRequest) {
    switch (field, value) {
    case (.integer(let p), .integer(let n)): request[keyPath: p] = n
    case (.number(let p), .number(let d)): request[keyPath: p] = d
    case (.text(let p), .text(let s)): request[keyPath: p] = s
    case (.toggle(let p), .toggle(let b)): request[keyPath: p] = b
    case (.bytes(let p), .bytes(let n)): request[keyPath: p] = n
    case (.size, .size(let w, let h)): request.size = (w, h)
    case (.points, .size(let w, let h)): request.points = (w, h)
    case (.outputs, .texts(let a)): request.outputs += a
    case (.appearance, .text(let s)): request.appearance = Appearance(rawValue: s.lowercased())
    case (.palette, .text(let s)): request.palette = PaletteVersion(rawValue: s.lowercased())
    default: preconditionFailure("--\(flag): a \(value) does not fit its field")
    }
  }

  /// The field's value in `request`, or nil when it is not set.
  package func value(in request: RenderRequest) -> SettingValue? {
    switch field {
    case .integer(let p): request[keyPath: p].map(SettingValue.integer)
    case .number(let p): request[keyPath: p].map(SettingValue.number)
    case .text(let p): request[keyPath: p].map(SettingValue.text)
    case .toggle(let p): request[keyPath: p].map(SettingValue.toggle)
    case .bytes(let p): request[keyPath: p].map(SettingValue.bytes)
    case .size: request.size.map { .size(width: $0.width, height: $0.height) }
    case .points: request.points.map { .size(width: $0.width, height: $0.height) }
    case .outputs: request.outputs.isEmpty ? nil : .texts(request.outputs)
    case .appearance: request.appearance.map { .text($0.rawValue) }
    case .palette: request.palette.map { .text($0.rawValue) }
    }
  }

  /// Copies the field from `source` into `target` when `source` sets it.
  package func copy(from source: RenderRequest, into target: inout RenderRequest) {
    switch field {
    case .integer(let p): if let v = source[keyPath: p] { target[keyPath: p] = v }
    case .number(let p): if let v = source[keyPath: p] { target[keyPath: p] = v }
    case .text(let p): if let v = source[keyPath: p] { target[keyPath: p] = v }
    case .toggle(let p): if let v = source[keyPath: p] { target[keyPath: p] = v }
    case .bytes(let p): if let v = source[keyPath: p] { target[keyPath: p] = v }
    case .size: if let v = source.size { target.size = v }
    case .points: if let v = source.points { target.points = v }
    case .outputs: if !source.outputs.isEmpty { target.outputs = source.outputs }
    case .appearance: if let v = source.appearance { target.appearance = v }
    case .palette: if let v = source.palette { target.palette = v }
    }
  }
}

extension RenderSetting.Field {
  /// Whether the field is the layout's points rather than pixels.
  var isPoints: Bool { if case .points = self { true } else { false } }
}

/// Whether a number from `JSONSerialization` was a JSON `true` or `false`.
package func isBool(_ n: NSNumber) -> Bool { String(describing: type(of: n)).contains("Boolean") }
