import Effects
import Foundation
import Testing
import Video

@testable import Loopsmith
@testable import LoopsmithCLI

/// Each row of the render settings table is the one statement of its limits: the flag parser, the
/// preset decoder, the JSON Schema and the job's checks all take them from it.
@Suite struct RenderSettingsTests {
  static let rows = RenderSetting.all.map(\.flag)

  /// A few values of a row: both ends of its range and a name of each choice.
  static func goodValues(_ s: RenderSetting) -> [(text: String, json: Any)] {
    switch s.kind {
    case .integer(let r): [(String(r.lowerBound), r.lowerBound), (String(r.upperBound), r.upperBound)]
    case .integers(let v): v.map { (String($0), $0) }
    case .number(let r, let above):
      [
        (String(above ? r.lowerBound + 0.5 : r.lowerBound), above ? r.lowerBound + 0.5 : r.lowerBound),
        (String(r.upperBound), r.upperBound),
      ]
    case .choice(let names): names.map { ($0, $0) }
    case .text where s.valueOptional: [("p.png", "p.png")]  // a bare --poster is a preset's true
    case .text, .transition: [("rain:snow", "rain:snow")]
    case .toggle: [("", true)]
    case .size: [("32x48", [32, 48])]
    case .outputs: [("a.mp4", ["a.mp4"])]
    case .bytes: [("16M", "16M"), ("8GiB", "8GiB")]
    }
  }

  @Test(arguments: rows)
  func theParserAndThePresetDecoderReadTheSameValue(flag: String) throws {
    let setting = try #require(RenderSetting.named(flag))
    let option = try #require(RenderCommand.options.first { $0.long == flag }, "--\(flag) is not a render flag")
    #expect(option.help == setting.helpLine)
    for (text, json) in Self.goodValues(setting) {
      let words = option.value == nil ? ["--\(flag)"] : ["--\(flag)", text]
      let fromFlags = try RenderCommand.requestFromFlags(
        ParsedArguments(words, specs: RenderCommand.options), effect: nil)
      #expect(setting.value(in: fromFlags) != nil, "--\(flag) \(text) set nothing")
      guard let key = setting.presetKey else { continue }
      let data = try JSONSerialization.data(withJSONObject: ["effect": "weather", key: json])
      let preset = try Preset.decode(data, name: "p", path: "p.json")
      var fromPreset = setting.value(in: preset.request)
      if setting.isFile, case .text(let t) = fromPreset { fromPreset = .text((t as NSString).lastPathComponent) }
      #expect(fromPreset == setting.value(in: fromFlags), "'\(key)': \(json) and --\(flag) \(text) differ")
      // A preset merged with flags keeps what the flags leave unset, and takes what they set.
      #expect(setting.value(in: preset.request.merged(with: RenderRequest())) == setting.value(in: preset.request))
      #expect(setting.value(in: RenderRequest().merged(with: fromFlags)) == setting.value(in: fromFlags))
    }
  }

  @Test(arguments: rows)
  func theSchemaStatesTheRowsLimits(flag: String) throws {
    let setting = try #require(RenderSetting.named(flag))
    guard let key = setting.presetKey else {
      #expect(PresetSchema.schema()["properties"].flatMap { ($0 as? [String: Any])?[flag] } == nil)
      return
    }
    let properties = try #require(PresetSchema.schema()["properties"] as? [String: Any])
    let p = try #require(properties[key] as? [String: Any], "'\(key)' is not in the schema")
    switch setting.kind {
    case .integer(let r):
      #expect(p["type"] as? String == "integer")
      #expect(p["minimum"] as? Int == r.lowerBound && p["maximum"] as? Int == r.upperBound)
    case .number(let r, let above):
      #expect(p["type"] as? String == "number")
      #expect((p[above ? "exclusiveMinimum" : "minimum"] as? NSNumber)?.doubleValue == r.lowerBound)
      #expect((p["maximum"] as? NSNumber)?.doubleValue == r.upperBound)
    case .integers(let v): #expect(p["enum"] as? [Int] == v)
    case .choice(let names): #expect(p["enum"] as? [String] == names)
    case .toggle: #expect(p["type"] as? String == "boolean")
    case .text where setting.valueOptional: #expect(p["anyOf"] != nil)  // a file name or true
    case .text: #expect(p["type"] as? String == "string")
    case .size, .outputs, .transition: #expect(p["anyOf"] != nil || p["type"] != nil)
    case .bytes: #expect(p["type"] as? String == "string" && p["pattern"] != nil)
    }
  }

  /// Just past each end of a range, the job refuses the value naming the flag and the row's words.
  @Test(arguments: rows)
  func theJobRefusesWhatTheRowRefuses(flag: String) throws {
    let setting = try #require(RenderSetting.named(flag))
    var bad: [SettingValue] = []
    switch setting.kind {
    case .integer(let r): bad = [.integer(r.lowerBound - 1), .integer(r.upperBound + 1)]
    case .integers(let v): bad = [.integer(v.max()! + 1)]
    case .number(let r, let above):
      bad = [.number(above ? r.lowerBound : r.lowerBound - 1), .number(r.upperBound * 2 + 1)]
    case .choice:
      if case .appearance = setting.field { return }  // an enum field cannot hold a bad name
      if case .palette = setting.field { return }
      bad = [.text("nope")]
    default: return
    }
    for value in bad {
      var request = RenderRequest()
      request.effect = "color-orbs"
      request.size = (32, 32)
      request.outputs = ["x.mp4"]
      setting.write(value, into: &request)
      #expect {
        _ = try request.job()
      } throws: { error in
        "\(error)".hasPrefix("--\(flag): '") && "\(error)".hasSuffix("is not valid; expected \(setting.expected)")
      }
    }
  }

  @Test(arguments: [
    (["--size", "-o", "a.mp4"], "Missing value for '--size'; expected WxH."),
    (["-o", "--json"], "Missing value for '-o'; expected path."),
    (["--fps", "0x10"], "--fps: '0x10' is not valid; expected a whole number"),
    (["--duration", "nan"], "--duration: 'nan' is not valid; expected a decimal number, like 2.5"),
    (["--scale", "0x1p3"], "--scale: '0x1p3' is not valid; expected a decimal number, like 2.5"),
    (["--level", "1.5"], "--level: '1.5' is not valid; expected a number from 0 to 1"),
    (["--x264-preset", "quick"], "--x264-preset: 'quick' is not valid; expected one of ultrafast"),
    (["--memory-limit", "8X"], "--memory-limit: '8X' is not valid; expected a size such as 512M or 8G"),
    (["--memory-limit", "1M"], "--memory-limit: '1M' is under 16 MiB"),
  ])
  func aBadFlagIsNamedAsTyped(words: [String], message: String) {
    #expect {
      let parsed = try ParsedArguments(["voice-orb"] + words, specs: RenderCommand.options)
      _ = try RenderCommand.requestFromFlags(parsed, effect: "voice-orb")
    } throws: { error in
      "\(error)".hasPrefix(message)
    }
  }

  @Test func aNegativeSizeIsAValueNotAFlag() throws {
    let parsed = try ParsedArguments(["--size", "-2x32", "--level", "-1"], specs: RenderCommand.options)
    #expect(parsed.last("size") == "-2x32" && parsed.last("level") == "-1")
  }

  @Test(arguments: ["render", "batch", "list", "plan", "check", "schema"])
  func helpCommandAndCommandHelpAgree(command: String) {
    let (a, b) = (TextSink.buffer(), TextSink.buffer())
    #expect(CLI.run(["help", command], stdout: a) == 0)
    #expect(CLI.run([command, "--help"], stdout: b) == 0)
    #expect(a.text == b.text && a.text.contains("USAGE: loopsmith \(command)"))
  }

  @Test func renderHelpNamesEveryEffectAndFormat() {
    for name in EffectRegistry.names { #expect(RenderCommand.help.contains(name)) }
    for format in OutputFormat.allCases.map(\.rawValue) { #expect(RenderCommand.help.contains("." + format)) }
  }
}
