import Foundation
import Loopsmith
import Testing
import _TestSupport

/// Presets written by hand, through the real binary: `$schema` for editors, syntax errors at
/// line:column with the key path, a parameter at the top level pointed at `parameters`, and the
/// render flags a preset can set.
@Suite struct HandWrittenPresetTests {
  static let tiny = ["--size", "16x16", "--scale", "0.05", "--fps", "5", "--duration", "1", "--quiet"]

  static func write(_ dir: TemporaryDirectory, _ json: String, name: String = "p") throws -> String {
    let path = dir.path("\(name).json")
    try json.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func schemaKeyIsAllowed() throws {
    let dir = TemporaryDirectory()
    let p = try Self.write(dir, #"{"$schema": "schema.json", "version": 1, "effect": "color-orbs"}"#)
    let r = try runLoopsmith(["render", p, "-o", dir.path("a.mp4")] + Self.tiny, in: dir.url)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir.path("a.mp4")))
    let bad = try Self.write(dir, #"{"$schema": 5, "effect": "color-orbs"}"#, name: "bad")
    let b = try runLoopsmith(["render", bad, "-o", dir.path("b.mp4")] + Self.tiny, in: dir.url)
    #expect(b.status == 2)
    #expect(b.stderr.hasPrefix("Error: \(bad): '$schema': expected a string"), "\(b.stderr)")
    // The schema lists it, so an editor checking a preset against it accepts the key too.
    let schema = try #require(try JSONSerialization.jsonObject(with: Data(PresetSchema.text().utf8)) as? [String: Any])
    let properties = try #require(schema["properties"] as? [String: Any])
    #expect((properties["$schema"] as? [String: Any])?["type"] as? String == "string")
  }

  @Test func aParameterAtTheTopLevelPointsAtParameters() throws {
    let dir = TemporaryDirectory()
    let p = try Self.write(dir, #"{"version": 1, "effect": "weather", "weather": "rain"}"#)
    let r = try runLoopsmith(["render", p, "-o", dir.path("a.mp4")] + Self.tiny, in: dir.url)
    #expect(r.status == 2)
    #expect(
      r.stderr
        == "Error: \(p): unknown key 'weather'; it is a parameter of weather: expected it inside \"parameters\", as \"parameters\": {\"weather\": ...}\n"
    )
    #expect(!FileManager.default.fileExists(atPath: dir.path("a.mp4")))
    // A parameter of another effect: still pointed at "parameters", naming whose it is.
    let q = try Self.write(dir, #"{"version": 1, "effect": "color-orbs", "state": "idle"}"#, name: "q")
    let s = try runLoopsmith(["render", q, "-o", dir.path("b.mp4")] + Self.tiny, in: dir.url)
    #expect(s.status == 2)
    #expect(
      s.stderr
        == "Error: \(q): unknown key 'state'; it is a parameter of voice-orb, not a preset key: expected it inside \"parameters\"\n"
    )
  }

  @Test func syntaxErrorsGiveLineColumnAndKeyPath() throws {
    let dir = TemporaryDirectory()
    let p = try Self.write(dir, "{\n  \"effect\": \"weather\",\n  \"parameters\": {\n    \"weather\": rain\n  }\n}\n")
    let r = try runLoopsmith(["render", p, "-o", dir.path("a.mp4")] + Self.tiny, in: dir.url)
    #expect(r.status == 2)
    #expect(
      r.stderr
        == "Error: \(p): not valid JSON at line 4, column 16: expected a value (an object, array, string, number, true, false or null) (in 'parameters.weather')\n"
    )
    let q = try Self.write(
      dir, "{\n  \"effect\": \"color-orbs\",\n  \"outputs\": [\"a.mp4\" \"b.mp4\"]\n}\n", name: "q")
    let s = try runLoopsmith(["render", q] + Self.tiny, in: dir.url)
    #expect(s.status == 2)
    #expect(
      s.stderr == "Error: \(q): not valid JSON at line 3, column 23: expected ',' or ']' in an array (in 'outputs')\n")
  }

  /// Every render flag a preset should carry has a key: the ones left out describe the machine
  /// (threads), its share of the work (`--frames`, a segment) or where this run puts its files
  /// (`--web`, a folder for a site, as `--out-dir` is), not the video.
  @Test func everyRenderFlagButTheMachinesHasAPresetKey() {
    let withoutKey = RenderSetting.all.filter { $0.presetKey == nil }.map(\.flag)
    #expect(
      Set(withoutKey).isSubset(of: ["threads", "encoder-threads", "frames", "memory-limit", "web"]), "\(withoutKey)")
    #expect(Preset.keys.contains("x264Preset"))
  }

  @Test func x264PresetFromAPresetEqualsTheFlag() throws {
    let dir = TemporaryDirectory()
    let p = try Self.write(dir, #"{"version": 1, "effect": "color-orbs", "x264Preset": "ultrafast"}"#)
    let plain = try Self.write(dir, #"{"version": 1, "effect": "color-orbs"}"#, name: "plain")
    #expect(try runLoopsmith(["render", p, "-o", dir.path("preset.mp4")] + Self.tiny, in: dir.url).status == 0)
    #expect(
      try runLoopsmith(
        ["render", plain, "-o", dir.path("flag.mp4"), "--x264-preset", "ultrafast"] + Self.tiny, in: dir.url
      ).status == 0)
    #expect(try runLoopsmith(["render", plain, "-o", dir.path("medium.mp4")] + Self.tiny, in: dir.url).status == 0)
    let hash = { (name: String) in SHA256.hex(ofFile: dir.path(name)) }
    #expect(hash("preset.mp4") == hash("flag.mp4"))
    #expect(hash("preset.mp4") != hash("medium.mp4"))
    let bad = try Self.write(dir, #"{"version": 1, "effect": "color-orbs", "x264Preset": "fastest"}"#, name: "bad")
    let r = try runLoopsmith(["render", bad, "-o", dir.path("bad.mp4")] + Self.tiny, in: dir.url)
    #expect(r.status == 2)
    #expect(r.stderr.hasPrefix("Error: \(bad): 'x264Preset': "), "\(r.stderr)")
  }
}
