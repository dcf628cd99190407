import Foundation
import Testing
import _TestSupport

/// `render NAME` finds a preset by name in ./presets, then LOOPSMITH_PRESETS, then
/// PREFIX/share/loopsmith/presets beside the executable; `list` shows them and each weather's and
/// voice state's own default loop.
@Suite struct PresetNameTests {
  static let tiny = ["--size", "16x16", "--time", "0", "--quiet", "--json"]

  static func preset(_ folder: String, _ name: String, _ effect: String) throws {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try #"{"version": 1, "effect": "EFFECT", "description": "from FOLDER"}"#
      .replacingOccurrences(of: "EFFECT", with: effect).replacingOccurrences(of: "FOLDER", with: folder)
      .write(toFile: "\(folder)/\(name).json", atomically: true, encoding: .utf8)
  }

  @Test func aNameFindsThePresetInOrder() throws {
    let dir = TemporaryDirectory()
    let work = dir.path("work"), extra1 = dir.path("extra1"), extra2 = dir.path("extra2")
    try Self.preset("\(work)/presets", "mine", "aurora-mesh")
    try Self.preset(extra1, "mine", "voice-orb")  // ./presets wins
    try Self.preset(extra2, "theirs", "blob-morph-loader")
    let env = ["LOOPSMITH_PRESETS": "\(extra1):\(extra2)"]
    let mine = try runLoopsmith(
      ["render", "mine", "-o", "m.png"] + Self.tiny, in: URL(fileURLWithPath: work), environment: env)
    #expect(mine.status == 0, "\(mine.stderr)")
    #expect(mine.stdout.contains("\"effect\" : \"aurora-mesh\""), "\(mine.stdout)")
    let theirs = try runLoopsmith(
      ["render", "theirs", "-o", "t.png"] + Self.tiny, in: URL(fileURLWithPath: work), environment: env)
    #expect(theirs.status == 0, "\(theirs.stderr)")
    #expect(theirs.stdout.contains("\"effect\" : \"blob-morph-loader\""), "\(theirs.stdout)")
    let missing = try runLoopsmith(
      ["render", "nowhere", "-o", "n.png"] + Self.tiny, in: URL(fileURLWithPath: work), environment: env)
    #expect(missing.status == 2, "\(missing.stderr)")
    let escape = try runLoopsmith(
      ["render", "../extra2/theirs", "-o", "n.png"] + Self.tiny, in: URL(fileURLWithPath: work), environment: env)
    #expect(escape.status == 2, "a name is never a path: \(escape.stderr)")
  }

  /// What `make install` lays out: PREFIX/bin/loopsmith and PREFIX/share/loopsmith/presets.
  @Test func anInstalledPresetIsFound() throws {
    let dir = TemporaryDirectory()
    let prefix = dir.path("prefix"), work = dir.path("work")
    try FileManager.default.createDirectory(atPath: "\(prefix)/bin", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: loopsmithBinary().path, toPath: "\(prefix)/bin/loopsmith")
    try Self.preset("\(prefix)/share/loopsmith/presets", "installed", "voice-orb")
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "\(prefix)/bin/loopsmith")
    p.arguments = ["render", "installed", "-o", "i.png"] + Self.tiny
    p.currentDirectoryURL = URL(fileURLWithPath: work)
    let r = try runToEnd(p)
    let text = r.stdout
    #expect(r.status == 0, "\(r.stderr)")
    #expect(text.contains("\"effect\" : \"voice-orb\""), "\(text)")
  }

  @Test func listShowsEveryPlaceAndTheRealLoops() throws {
    let dir = TemporaryDirectory()
    let work = dir.path("work"), extra = dir.path("extra")
    try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    try Self.preset(extra, "elsewhere", "color-orbs")
    let r = try runLoopsmith(
      ["list", "--json"], in: URL(fileURLWithPath: work), environment: ["LOOPSMITH_PRESETS": extra])
    #expect(r.status == 0, "\(r.stderr)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    let presets = try #require(object["presets"] as? [[String: Any]])
    #expect(
      presets.contains { $0["name"] as? String == "elsewhere" && $0["path"] as? String == "\(extra)/elsewhere.json" },
      "\(presets)")
    let effects = try #require(object["effects"] as? [[String: Any]])
    let weather = try #require(effects.first { $0["name"] as? String == "weather" }?["loops"] as? [[String: Any]])
    let byName = Dictionary(uniqueKeysWithValues: weather.map { ($0["weather"] as? String ?? "", $0) })
    #expect(
      byName["rain"]?["duration"] as? Double == 12 && byName["rain"]?["fps"] as? Int == 60
        && byName["rain"]?["frames"] as? Int == 720, "\(weather)")
    #expect(byName["snow"]?["duration"] as? Double == 72 && byName["snow"]?["frames"] as? Int == 4320, "\(weather)")
    #expect(weather.count == 7)
    let voice = try #require(effects.first { $0["name"] as? String == "voice-orb" }?["loops"] as? [[String: Any]])
    #expect(voice.count == 4 && voice.allSatisfy { ($0["frames"] as? Int ?? 0) > 0 }, "\(voice)")
  }
}
