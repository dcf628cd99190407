import Foundation
import Testing
import _TestSupport

/// HEVC frames at most one 64-pixel CTU wide, through the real binary: libx265 3.5 overran a heap
/// buffer below 64 pixels (a batch aborted with "free(): invalid next size") and read memory it
/// never wrote at one CTU across (a batch's third file of three equal presets differed), so the
/// encoder codes them with smaller CTUs and no cu-tree (docs/ENCODING.md, Determinism).
@Suite struct NarrowHEVCTests {
  /// Four equal presets in one batch process give four equal files, as one preset gives one
  /// sha256 on any machine. The rain-snow sequence at 4 f/s is 240-264 frames of real motion. Both
  /// sizes gave differing files before (32 pixels wide: 16-pixel CTUs; 64: 32-pixel ones). The
  /// overrun below 64 pixels did not abort this debug build's batch; valgrind measured it
  /// (docs/ENCODING.md, Determinism).
  @Test(arguments: [[32, 64], [64, 112]])
  func equalPresetsInOneBatchWriteEqualFiles(size: [Int]) throws {
    let dir = TemporaryDirectory()
    let folder = dir.path("presets")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let names = ["a", "b", "c", "d"]
    for name in names {
      let json = """
        {"version": 1, "effect": "weather", "parameters": {"sequence": "rain:1.5,snow:1.5", "repeat": "true"}, \
        "size": [\(size[0]), \(size[1])], "scale": 0.1, "fps": 4, "codec": "hevc", "outputs": ["\(name).mp4"]}
        """
      try json.write(toFile: "\(folder)/\(name).json", atomically: true, encoding: .utf8)
    }
    let out = dir.path("out")
    let r = try runLoopsmith(["batch", folder, "--out", out, "--jobs", "1", "--quiet"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(!r.stderr.contains("Program crashed"), "\(r.stderr)")
    let files = try names.map { try Data(contentsOf: URL(fileURLWithPath: "\(out)/\($0).mp4")) }
    #expect(files[0].count > 1000)
    for (name, data) in zip(names, files).dropFirst() {
      // A Bool, not the two Data: a failed `==` of 200 KB values has Swift Testing diff them.
      let same = data == files[0]
      #expect(same, "\(size[0])x\(size[1]) \(name).mp4: \(data.count) bytes against a.mp4's \(files[0].count)")
    }
    // The manifest agrees: each file rendered, with the loop's whole frame count and one sha256.
    let manifest = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(out)/manifest.json")))
        as? [String: Any])
    let rows = try #require(manifest["outputs"] as? [[String: Any]])
    #expect(rows.count == names.count)
    for row in rows {
      #expect(row["status"] as? String == "rendered")
      let frames = try #require(row["frames"] as? Int), duration = try #require(row["duration"] as? Double)
      #expect(frames == Int(duration * 4) && frames >= 240, "\(row)")
    }
    #expect(Set(rows.compactMap { $0["sha256"] as? String }).count == 1, "\(rows)")
  }
}
