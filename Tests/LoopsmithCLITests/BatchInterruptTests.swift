import Foundation
import Testing
import _TestSupport

/// An interrupted batch leaves a manifest that tells the truth about what was done.
@Suite struct BatchInterruptTests {
  @Test func anInterruptedBatchKeepsAConsistentManifest() throws {
    let dir = TemporaryDirectory()
    let presets = dir.path("presets"), out = dir.path("out")
    try FileManager.default.createDirectory(atPath: presets, withIntermediateDirectories: true)
    func preset(_ name: String, seconds: Int) throws {
      let json =
        #"{"version": 1, "effect": "color-orbs", "size": "16x16", "scale": 0.05, "fps": 10, "duration": \#(seconds), "outputs": ["\#(name).y4m"]}"#
      try Data(json.utf8).write(to: URL(fileURLWithPath: "\(presets)/\(name).json"))
    }
    try preset("a-short", seconds: 1)
    try preset("b-long", seconds: 3600)
    try preset("c-never", seconds: 1)

    let process = Process()
    process.executableURL = loopsmithBinary()
    process.arguments = ["batch", presets, "--out", out, "--jobs", "1", "--threads", "1", "--quiet"]
    process.standardError = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    // Presets render in name order: once the first is in place, the long one is under way.
    let deadline = Date().addingTimeInterval(60)
    while !FileManager.default.fileExists(atPath: "\(out)/a-short.y4m") {
      try #require(Date() < deadline && process.isRunning, "the first preset never finished")
      usleep(20_000)
    }
    usleep(500_000)
    kill(process.processIdentifier, SIGINT)
    try waitForExit(process)
    #expect(process.terminationStatus == 130)

    let data = try Data(contentsOf: URL(fileURLWithPath: "\(out)/manifest.json"))
    let rows = try #require(
      (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["outputs"] as? [[String: Any]])
    let byPreset = Dictionary(uniqueKeysWithValues: rows.map { ($0["preset"] as? String ?? "", $0) })
    #expect(byPreset["a-short"]?["status"] as? String == "rendered")
    #expect(byPreset["b-long"]?["status"] as? String == "failed")
    #expect(byPreset["c-never"] == nil)
    // Only finished files and the folder's lock file, no temporaries, are in the folder.
    let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
    #expect(
      files == [".loopsmith-lock", "a-short.y4m", "manifest.json"]
        || files == [".loopsmith-lock", "a-short.y4m", "manifest.json", "posters"], "\(files)")
  }
}
