import Foundation
import Loopsmith
import Testing
import _TestSupport

/// The traps a new user met in a fresh clone (issue 51, Every trap a new user met), each through
/// the real binary: the words a mistake gets, and the rule a batch-wide override follows.
@Suite struct NewUserTrapTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func preset(_ folder: String, _ name: String, _ body: String) throws {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try body.write(toFile: "\(folder)/\(name).json", atomically: true, encoding: .utf8)
  }

  /// The folder beside the binary that `make install` fills, as the binary names it.
  static var installedPresets: String {
    loopsmithBinary().resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("share/loopsmith/presets").path
  }

  // MARK: - Preset and effect names

  /// `render weather-rian` said "unknown effect" and named the effects only.
  @Test func aMisspeltPresetIsSuggestedWithTheFoldersSearched() throws {
    let dir = TemporaryDirectory()
    let work = dir.path("work"), extra = dir.path("extra")
    try Self.preset("\(work)/presets", "weather-rain", #"{"version": 1, "effect": "weather"}"#)
    try Self.preset(extra, "mine", #"{"version": 1, "effect": "color-orbs"}"#)
    let r = try runLoopsmith(
      ["render", "weather-rian", "-o", "x.mp4"], in: URL(fileURLWithPath: work),
      environment: ["LOOPSMITH_PRESETS": extra])
    #expect(r.status == 2)
    #expect(
      r.stderr
        == "Error: unknown effect 'weather-rian'; expected one of color-orbs, aurora-mesh, blob-morph-loader, voice-orb, weather, or the name of a preset in presets, \(extra), \(Self.installedPresets) (no such folder) (2 presets, none named 'weather-rian'). Did you mean 'weather-rain'?\n"
    )
    #expect(!FileManager.default.fileExists(atPath: "\(work)/x.mp4"))
  }

  /// Weather names were matched without regard to case, effect and preset names were not.
  @Test func effectAndPresetNamesIgnoreCaseWhenOneAnswers() throws {
    let dir = TemporaryDirectory()
    let work = dir.path("work")
    try Self.preset(
      "\(work)/presets", "weather-clearDay", #"{"version": 1, "effect": "weather", "description": "mine"}"#)
    let tiny = ["--size", "16x16", "--time", "0", "--quiet", "--json"]
    let effect = try runLoopsmith(["render", "Weather", "-o", "w.png"] + tiny, in: URL(fileURLWithPath: work))
    #expect(effect.status == 0, "\(effect.stderr)")
    #expect(effect.stdout.contains("\"effect\" : \"weather\""), "\(effect.stdout)")
    let preset = try runLoopsmith(["plan", "WEATHER-CLEARDAY", "--size", "16x16"], in: URL(fileURLWithPath: work))
    #expect(preset.status == 0, "\(preset.stderr)")
    #expect(preset.stdout.hasPrefix("weather: 120 s loop"), "\(preset.stdout)")
    // Two presets a case apart: neither is guessed.
    try Self.preset("\(work)/presets", "Weather-ClearDay", #"{"version": 1, "effect": "aurora-mesh"}"#)
    let both = try runLoopsmith(["render", "weather-clearday", "-o", "w.png"] + tiny, in: URL(fileURLWithPath: work))
    #expect(both.status == 2)
    #expect(
      both.stderr
        == "Error: 'weather-clearday' matches the preset Weather-ClearDay (presets/Weather-ClearDay.json) and the preset weather-clearDay (presets/weather-clearDay.json) when case is ignored; expected one of them spelled exactly\n"
    )
  }

  // MARK: - Flags and codecs

  @Test(arguments: [
    (
      ["--codec", "h265"],
      "Error: --codec: 'h265' is not valid; expected one of h264, hevc, vp9, av1, prores. Did you mean 'hevc'?\n"
    ),
    (
      ["--codec", "x264"],
      "Error: --codec: 'x264' is not valid; expected one of h264, hevc, vp9, av1, prores. Did you mean 'h264'?\n"
    ),
    (
      ["--colour", "red"],
      "Error: Unknown option '--colour'. Did you mean '--set colors=...'? (a parameter of color-orbs, blob-morph-loader, voice-orb)\n"
    ),
    (["--fsp", "24"], "Error: Unknown option '--fsp'. Did you mean '--fps'?\n"),
  ])
  func aFlagOrCodecByAnotherNameIsSuggested(args: [String], expected: String) throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(["render", "color-orbs", "-o", "x.mp4"] + args, in: dir.url)
    #expect(r.status == 2)
    #expect(r.stderr == expected)
  }

  // MARK: - Colours

  /// `colors=red,green` was refused without naming the entry or the names a color may have.
  @Test func aBadColorIsNamedWithTheAcceptedForms() throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(["render", "color-orbs", "-o", "x.mp4", "--set", "colors=red,rde"], in: dir.url)
    #expect(r.status == 2)
    #expect(
      r.stderr
        == "Error: --set colors: 'red,rde' is not valid ('rde' is not a color; did you mean 'red'?); expected 1 to 16 comma-separated colors, each #RRGGBB, #RRGGBBAA (the # may be left out) or one of pink, purple, blue, teal, orange, indigo, cyan, white, black, red, green, yellow, mint, brown, gray\n"
    )
    let preset = dir.path("p.json")
    try #"{"version": 1, "effect": "aurora-mesh", "parameters": {"first": "bleu"}}"#
      .write(toFile: preset, atomically: true, encoding: .utf8)
    let p = try runLoopsmith(["render", preset, "-o", "x.mp4"], in: dir.url)
    #expect(p.status == 2)
    #expect(
      p.stderr.contains("'parameters.first': 'bleu' is not valid ('bleu' is not a color; did you mean 'blue'?)"),
      "\(p.stderr)")
  }

  /// SwiftUI's red and green are its system colours (iOS 26 dark, the default), and `ff0000` is
  /// `#ff0000`: each draws what its spelled-out twin draws, byte for byte.
  @Test func swiftUINamesAndHexWithoutHashDrawTheirColors() throws {
    let dir = TemporaryDirectory()
    func still(_ colors: String, _ name: String) throws -> Data {
      let r = try runLoopsmith(
        ["render", "color-orbs", "--set", "colors=\(colors)", "--size", "32x32", "--time", "1", "--quiet", "-o", name],
        in: dir.url)
      #expect(r.status == 0, "\(colors): \(r.stderr)")
      return try Data(contentsOf: dir.url.appendingPathComponent(name))
    }
    #expect(try still("red,green", "named.png") == still("#ff4245,#30d158", "hex.png"))
    #expect(try still("ff0000,00ff0080", "bare.png") == still("#ff0000,#00ff0080", "hashed.png"))
    #expect(try still("red,green", "named.png") != still("#ff0000,#00ff00", "css.png"))
  }

  // MARK: - Loop lengths

  /// `--duration 3` said the nearest length that works is 12 s, and 6 s, a multiple of 6 s, looked
  /// forgotten: the multiple that fails is named with its reason.
  @Test func theMultipleThatFailsIsNamedWithItsReason() throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(
      ["render", "weather", "--weather", "rain", "--duration", "3", "-o", "x.mp4"], in: dir.url)
    #expect(r.status == 2)
    #expect(
      r.stderr
        == "Error: --duration: A 3 s loop is not a whole multiple of 6 s. A 6 s loop would change the speed of rain.far y (420/s) by 11.1%, above the 10% limit (--max-speed-change). The nearest length that works is 12 s.\n"
    )
  }

  // MARK: - A batch-wide override and a platform's limits

  /// `make renders RENDERS_FLAGS='--size 32x56 --fps 4'` failed (exit 1) on the Telegram emoji,
  /// whose platform takes 100x100 only: it is left out with a note naming the limit, the others
  /// render, and the batch exits 0.
  @Test func aPresetWhosePlatformRefusesTheOverrideIsLeftOut() throws {
    let dir = TemporaryDirectory()
    let input = dir.path("in"), out = dir.path("out")
    try FileManager.default.createDirectory(atPath: input, withIntermediateDirectories: true)
    for name in ["telegram-emoji-voice-orb-speaking", "color-orbs"] {
      try FileManager.default.copyItem(
        atPath: Self.repository.appendingPathComponent("presets/\(name).json").path, toPath: "\(input)/\(name).json")
    }
    let r = try runLoopsmith(["batch", input, "--out", out, "--size", "32x56", "--fps", "4", "--quiet"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      r.stderr.contains(
        "Note: telegram-emoji-voice-orb-speaking: left out: --platform telegram-emoji: \(out)/telegram-emoji-voice-orb-speaking.webm: Telegram takes 100x100 pixels, not 32x56 (from this batch's overrides; a batch without them renders it)\n"
      ), "\(r.stderr)")
    let manifest = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(out)/manifest.json")))
        as? [String: Any])
    let rows = try #require(manifest["outputs"] as? [[String: Any]])
    #expect(
      rows.map { "\($0["preset"]!)=\($0["status"]!)" } == ["color-orbs=rendered", "color-orbs=rendered"], "\(rows)")
    #expect(!FileManager.default.fileExists(atPath: "\(out)/telegram-emoji-voice-orb-speaking.webm"))
    // Without the override the preset is rendered as it is (its own 100x100): nothing else refuses it.
    let plain = try runLoopsmith(["batch", input, "--out", out, "--dry-run", "--fps", "4"])
    #expect(plain.status == 0)
    #expect(plain.stdout.contains("render      telegram-emoji-voice-orb-speaking ->"), "\(plain.stdout)")
  }

  /// The whole presets/ folder at the Makefile's preview size: every preset renders but the
  /// emoji, left out; none is invalid.
  @Test func theMakefilesPreviewOfPresetsHasNoFailure() throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(
      [
        "batch", Self.repository.appendingPathComponent("presets").path, "--out", dir.path("out"), "--size", "32x56",
        "--fps", "4", "--dry-run",
      ])
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n")
    #expect(
      lines.filter { $0.hasPrefix("left-out") }.map { String($0.prefix(45)) } == [
        "left-out    telegram-emoji-voice-orb-speaking"
      ])
    #expect(lines.last?.hasSuffix(" up to date, 0 invalid, 1 left out") == true, "\(r.stdout)")
  }

  // MARK: - A crossfade shorter than the seam needs

  /// `--size 36x64 --fps 4 --duration 1` wrote a loop its own `check` fails, and said nothing.
  @Test func aCrossfadeUnderTwoFramesIsNotedBeforeTheRender() throws {
    let dir = TemporaryDirectory()
    let args = ["render", "color-orbs", "--size", "36x64", "--quiet"]
    let r = try runLoopsmith(args + ["--fps", "4", "--duration", "1", "-o", "short.mp4"], in: dir.url)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      r.stderr
        == "Note: orbs crossfades over 0.33 s, 1.3 frames at 4 fps: under 2 frames the seam jumps and `loopsmith check` fails the file; --fps 6 or more or a --duration of at least 1.5 s gives it 2 frames\n"
    )
    let check = try runLoopsmith(["check", "short.mp4"], in: dir.url)
    #expect(check.status == 1, "the note is true: \(check.stdout)")
    // What the note offers works, and says nothing.
    for (i, offered) in [["--fps", "6", "--duration", "1"], ["--fps", "4", "--duration", "1.5"]].enumerated() {
      let ok = try runLoopsmith(args + offered + ["-o", "ok\(i).mp4"], in: dir.url)
      #expect(ok.status == 0 && ok.stderr.isEmpty, "\(offered): \(ok.stderr)")
      let passed = try runLoopsmith(["check", "ok\(i).mp4"], in: dir.url)
      #expect(passed.status == 0, "\(offered): \(passed.stdout)")
    }
  }

  // MARK: - Smaller ones

  /// The `--json` summary had no digest, version or time, and printed `out\/a.mp4`.
  @Test func theJSONSummaryHasDigestVersionAndTimeAndPlainSlashes() throws {
    let dir = TemporaryDirectory()
    try FileManager.default.createDirectory(atPath: dir.path("out"), withIntermediateDirectories: true)
    let r = try runLoopsmith(
      [
        "render", "color-orbs", "--size", "16x16", "--fps", "10", "--duration", "1", "--quiet", "--json", "-o",
        "out/a.mp4",
      ], in: dir.url)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("\"path\" : \"out/a.mp4\""), "\(r.stdout)")
    #expect(!r.stdout.contains("\\/"), "\(r.stdout)")
    let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    let file = try #require((o["outputs"] as? [[String: Any]])?.first)
    let digest = try #require(SHA256.hex(ofFile: dir.path("out/a.mp4")))
    #expect(file["sha256"] as? String == digest, "\(file)")
    #expect(o["version"] as? String == loopsmithVersion, "\(o)")
    #expect((o["seconds"] as? Double ?? 0) > 0, "\(o)")
  }

  /// `plan` printed the crossfade as 0.3333333333333333 s, and its help listed flags it ignores.
  @Test func planPrintsRoundedSecondsAndOnlyItsOwnFlags() throws {
    let r = try runLoopsmith(["plan", "color-orbs", "--size", "36x64", "--fps", "4", "--duration", "1"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.hasSuffix("crossfade: orbs blends over the last 0.33 s\n"), "\(r.stdout)")
    let help = try runLoopsmith(["plan", "--help"])
    #expect(help.status == 0)
    for flag in ["--poster", "--quality", "--max-bytes", "--platform", "--alpha", "--frames", "--null", "--progress"] {
      #expect(!help.stdout.contains(flag + " ") && !help.stdout.contains(flag + "\n"), "\(flag): \(help.stdout)")
    }
    #expect(help.stdout.contains("--duration <seconds>"), "\(help.stdout)")
    let refused = try runLoopsmith(["plan", "color-orbs", "--poster", "p.png"])
    #expect(refused.status == 2)
    #expect(refused.stderr.hasPrefix("Error: Unknown option '--poster'."), "\(refused.stderr)")
  }
}
