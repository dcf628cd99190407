import Foundation
import Loopsmith
import Testing
import _TestSupport

/// One preset gives one sha256 whatever the cores, `--jobs` or `--threads`: the encoder threads
/// are fixed by default (4), never derived from the render threads.
@Suite struct SameBytesTests {
  static let small = ["--size", "128x128", "--fps", "10", "--duration", "1", "--quiet"]

  @Test func jobsAndThreadsDoNotChangeTheBytes() throws {
    let dir = TemporaryDirectory()
    let presets = dir.path("presets")
    try FileManager.default.createDirectory(atPath: presets, withIntermediateDirectories: true)
    // Two presets, so --jobs 2 runs them side by side with one render thread each on two cores.
    for name in ["a", "b"] {
      try #"{"version": 1, "effect": "color-orbs", "maxSpeedChange": 1, "outputs": ["NAME.mp4", "NAME.webm"]}"#
        .replacingOccurrences(of: "NAME", with: name).write(
          toFile: "\(presets)/\(name).json", atomically: true, encoding: .utf8)
    }
    var sums: [String: Set<String>] = ["a.mp4": [], "a.webm": []]
    for jobs in ["1", "2"] {
      let out = dir.path("jobs\(jobs)")
      let r = try runLoopsmith(["batch", presets, "--out", out, "--jobs", jobs, "--threads", "2"] + Self.small)
      #expect(r.status == 0, "\(r.stderr)")
      for file in sums.keys { sums[file]!.insert(try #require(SHA256.hex(ofFile: "\(out)/\(file)"))) }
    }
    for threads in ["1", "2"] {
      let out = dir.path("threads\(threads)")
      let r = try runLoopsmith(
        ["render", "\(presets)/a.json", "--out-dir", out, "--threads", threads, "--json"] + Self.small)
      #expect(r.status == 0, "\(r.stderr)")
      #expect(r.stdout.contains("\"encoderThreads\" : \(RenderSetting.defaultEncoderThreads)"), "\(r.stdout)")
      for file in sums.keys { sums[file]!.insert(try #require(SHA256.hex(ofFile: "\(out)/\(file)"))) }
    }
    for (file, set) in sums { #expect(set.count == 1, "\(file): \(set.count) different encodings") }
  }
}
