import Foundation
import Testing
import _TestSupport

/// `-n/--no-overwrite`: an existing output is refused, before any work, and left as it was.
@Suite struct OverwriteTests {
  static let tiny = ["--size", "16x16", "--fps", "5", "--duration", "1", "--quiet"]

  @Test func renderRefusesAnExistingOutput() throws {
    let dir = TemporaryDirectory()
    let kept = dir.path("kept.mp4"), fresh = dir.path("fresh.mp4")
    try "mine".write(toFile: kept, atomically: true, encoding: .utf8)
    for flag in ["-n", "--no-overwrite"] {
      let r = try runLoopsmith(["render", "color-orbs", "-o", fresh, "-o", kept, flag] + Self.tiny)
      #expect(r.status == 2, "\(flag): \(r.stderr)")
      #expect(
        r.stderr
          == "Error: \(kept): exists; expected a new file with -n/--no-overwrite (remove it, or drop -n to replace it)\n",
        "\(r.stderr)")
      #expect(try String(contentsOfFile: kept, encoding: .utf8) == "mine")
      #expect(!FileManager.default.fileExists(atPath: fresh), "nothing is written when one output exists")
    }
    let new = try runLoopsmith(["render", "color-orbs", "-o", fresh, "-n"] + Self.tiny)
    #expect(new.status == 0, "\(new.stderr)")
    #expect(FileManager.default.fileExists(atPath: fresh))
    // Without -n the file is replaced, as before.
    let again = try runLoopsmith(["render", "color-orbs", "-o", kept] + Self.tiny)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: kept)).count > 100)
  }

  @Test func batchFailsAPresetThatWouldOverwrite() throws {
    let dir = TemporaryDirectory()
    let presets = dir.path("presets"), out = dir.path("out")
    try FileManager.default.createDirectory(atPath: presets, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    try #"{"version": 1, "effect": "color-orbs", "maxSpeedChange": 1}"#.write(
      toFile: "\(presets)/a.json", atomically: true, encoding: .utf8)
    try #"{"version": 1, "effect": "aurora-mesh", "maxSpeedChange": 1}"#.write(
      toFile: "\(presets)/b.json", atomically: true, encoding: .utf8)
    try "mine".write(toFile: "\(out)/a.mp4", atomically: true, encoding: .utf8)
    let r = try runLoopsmith(["batch", presets, "--out", out, "-n"] + Self.tiny)
    #expect(r.status == 1, "\(r.stderr)")
    #expect(r.stderr.contains("a: \(out)/a.mp4: exists"), "\(r.stderr)")
    #expect(try String(contentsOfFile: "\(out)/a.mp4", encoding: .utf8) == "mine")
    #expect(FileManager.default.fileExists(atPath: "\(out)/b.mp4"), "the other preset renders")
    // Up to date: nothing would be written, so -n skips it as usual.
    let again = try runLoopsmith(["batch", "\(presets)/b.json", "--out", out, "-n"] + Self.tiny)
    #expect(again.status == 0, "\(again.stderr)")
  }
}
