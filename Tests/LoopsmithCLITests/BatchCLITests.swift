import Foundation
import Loopsmith
import Testing
import Video
import _TestSupport

/// `loopsmith batch` through the real binary, on tiny presets: every render is a few 16x16 frames.
@Suite struct BatchCLITests {
  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let tiny = ["--size", "16x16", "--scale", "0.1", "--fps", "5", "--duration", "1", "--quiet"]

  /// A folder of small presets: one with two outputs, a transparent one to WebM, and a third.
  static func folder(
    _ dir: TemporaryDirectory, _ name: String = "presets", presets: [String: String]? = nil
  ) throws -> String {
    let path = dir.path(name)
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    let all =
      presets ?? [
        "orbs": #"{"version": 1, "effect": "color-orbs", "maxSpeedChange": 1, "outputs": ["orbs.mp4", "orbs.webm"]}"#,
        "voice":
          #"{"version": 1, "effect": "voice-orb", "parameters": {"state": "speaking"}, "maxSpeedChange": 1, "outputs": ["voice.webm"]}"#,
        "aurora": #"{"version": 1, "effect": "aurora-mesh", "maxSpeedChange": 1}"#,
      ]
    for (name, json) in all { try json.write(toFile: "\(path)/\(name).json", atomically: true, encoding: .utf8) }
    return path
  }

  static func manifest(_ dir: String) throws -> [[String: Any]] {
    let data = try Data(contentsOf: URL(fileURLWithPath: dir).appendingPathComponent("manifest.json"))
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    return try #require(object["outputs"] as? [[String: Any]])
  }

  static func statuses(_ rows: [[String: Any]]) -> [String: String] {
    Dictionary(
      rows.map { ("\($0["preset"]!)/\($0["path"] as? String ?? "-")", $0["status"] as! String) },
      uniquingKeysWith: { a, _ in a })
  }

  /// What `render` says as notes, batch says too (once a preset, even with --quiet) and records in
  /// the manifest: here the voice orb's alpha, which an MP4 drops, and the orbs' and the voice
  /// orb's blobs' crossfades, 1.7 frames of these 5-frame loops.
  @Test func aPresetsNotesArePrintedOnceAndKeptInTheManifest() throws {
    let dir = TemporaryDirectory()
    let presets = try Self.folder(
      dir,
      presets: [
        "orb": #"{"version": 1, "effect": "voice-orb", "maxSpeedChange": 1, "outputs": ["a.mp4", "b.mp4"]}"#,
        "orbs": #"{"version": 1, "effect": "color-orbs", "maxSpeedChange": 1}"#,
      ])
    let out = dir.path("out")
    let r = try runLoopsmith(["batch", presets, "--out", out] + Self.tiny)
    #expect(r.status == 0, "\(r.stderr)")
    let notes = r.stderr.split(separator: "\n").filter { $0.hasPrefix("Note: ") }.map(String.init)
    #expect(
      notes.map { String($0.prefix(40)) } == [
        "Note: orb: blobs crossfades over 0.33 s,", "Note: orb: voice-orb is transparent, but",
        "Note: orbs: orbs crossfades over 0.33 s,",
      ], "\(r.stderr)")
    let rows = try Self.manifest(out)
    for row in rows {
      let name = row["preset"] as? String ?? "?"
      let said = notes.filter { $0.hasPrefix("Note: \(name): ") }.map { String($0.dropFirst("Note: \(name): ".count)) }
      #expect(row["notes"] as? [String] == said, "\(row)")
    }
    // Skipped on the next run: the notes stay in the manifest and are not said again.
    let again = try runLoopsmith(["batch", presets, "--out", out] + Self.tiny)
    #expect(again.status == 0 && !again.stderr.contains("Note: "), "\(again.stderr)")
    #expect(try Self.manifest(out).filter { $0["notes"] != nil }.count == 3)
  }

  @Test func rendersAllThenSkipsAllThenOnlyTheEditedPreset() throws {
    let dir = TemporaryDirectory()
    let presets = try Self.folder(dir)
    let out = dir.path("out")
    let first = try runLoopsmith(["batch", presets, "--out", out, "--jobs", "2"] + Self.tiny)
    #expect(first.status == 0, "\(first.stderr)")
    let rows = try Self.manifest(out)
    #expect(rows.count == 4)
    #expect(Self.statuses(rows).values.allSatisfy { $0 == "rendered" })
    for row in rows {
      let path = try #require(row["path"] as? String)
      let file = (out as NSString).appendingPathComponent(path)
      #expect(row["sha256"] as? String == SHA256.hex(ofFile: file), "\(path)")
      #expect((row["bytes"] as? Int) == (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int))
      #expect(row["frames"] as? Int == 5 && row["duration"] as? Double == 1)
      #expect(["mp4", "webm"].contains(row["format"] as? String ?? ""))
    }
    #expect(try VideoReader(path: "\(out)/orbs.webm").info.frameCount == 5)
    #expect(FileManager.default.fileExists(atPath: "\(out)/aurora.mp4"))  // no outputs: NAME.mp4

    func modified() throws -> [Date] {
      try rows.map {
        try FileManager.default.attributesOfItem(atPath: "\(out)/\($0["path"]!)")[.modificationDate] as! Date
      }
    }
    let before = try modified()
    let second = try runLoopsmith(["batch", presets, "--out", out, "--jobs", "2"] + Self.tiny)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(Self.statuses(try Self.manifest(out)).values.allSatisfy { $0 == "skipped" })
    #expect(try modified() == before)  // nothing was written again
    let forced = try runLoopsmith(["batch", presets, "--out", out, "--dry-run", "--force"] + Self.tiny)
    #expect(forced.stdout.hasSuffix("3 to render, 0 up to date, 0 invalid\n"), "\(forced.stdout)")

    try #"{"version": 1, "effect": "aurora-mesh", "maxSpeedChange": 1, "appearance": "light"}"#.write(
      toFile: "\(presets)/aurora.json", atomically: true, encoding: .utf8)
    let dry = try runLoopsmith(["batch", presets, "--out", out, "--dry-run", "--json"] + Self.tiny)
    let plan = try #require(try JSONSerialization.jsonObject(with: Data(dry.stdout.utf8)) as? [[String: Any]])
    #expect(plan.map { "\($0["name"]!)=\($0["status"]!)" } == ["aurora=render", "orbs=up-to-date", "voice=up-to-date"])
    let third = try runLoopsmith(["batch", presets, "--out", out] + Self.tiny)
    #expect(third.status == 0, "\(third.stderr)")
    #expect(
      Self.statuses(try Self.manifest(out)) == [
        "aurora/aurora.mp4": "rendered", "orbs/orbs.mp4": "skipped", "orbs/orbs.webm": "skipped",
        "voice/voice.webm": "skipped",
      ])
    // The overrides are effective parameters: another size renders again.
    let bigger = try runLoopsmith([
      "batch", presets, "--out", out, "--dry-run", "--size", "32x32", "--scale", "0.1", "--fps", "5", "--duration", "1",
    ])
    #expect(bigger.stdout.contains("3 to render, 0 up to date"), "\(bigger.stdout)")
  }

  @Test func theShardsOfTheRealPresetsAreDisjointAndCoverThemAll() throws {
    let dir = TemporaryDirectory()
    let presets = Self.packageRoot.appendingPathComponent("presets").path
    func names(_ args: [String], env: [String: String] = [:]) throws -> [String] {
      let r = try runLoopsmith(
        ["batch"] + args + [
          "--out", dir.path("out"), "--dry-run", "--json", "--size", "16x16", "--scale", "0.1", "--fps", "5",
        ], environment: env)
      #expect(r.status == 0, "\(r.stderr)")
      let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
      #expect(rows.allSatisfy { $0["status"] as? String == "render" }, "\(rows)")
      return rows.map { $0["name"] as! String }
    }
    let all = try names([presets])
    #expect(all.count >= 14)
    let files = all.map { "\(presets)/\($0).json" }
    var union: [String] = []
    for k in 1...3 {
      let share = try names([presets, "--shard", "\(k)/3"])
      // Listing the files one by one, in reverse, picks the same share.
      #expect(try names(files.reversed() + ["--shard", "\(k)/3"]) == share)
      union += share
    }
    #expect(union.sorted() == all.sorted() && Set(union).count == union.count)
    // The schedulers' variables pick the same shards.
    let second = try names([presets, "--shard", "2/3"])
    #expect(try names([presets, "--shards", "3"], env: ["JOB_COMPLETION_INDEX": "1"]) == second)
    #expect(
      try names(
        [presets], env: ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_COUNT": "3"])
        == second)
    #expect(try names([presets, "--shards", "3"], env: ["AWS_BATCH_JOB_ARRAY_INDEX": "1"]) == second)
    let missing = try runLoopsmith(
      ["batch", presets, "--out", dir.path("out"), "--dry-run"], environment: ["JOB_COMPLETION_INDEX": "1"])
    #expect(missing.status == 2 && missing.stderr.contains("--shards"), "\(missing.stderr)")
  }

  @Test func aBadPresetFailsAloneWithItsErrorInTheManifest() throws {
    let dir = TemporaryDirectory()
    let presets = try Self.folder(
      dir,
      presets: [
        "good": #"{"effect": "color-orbs", "maxSpeedChange": 1}"#,
        "badvalue": #"{"effect": "color-orbs", "parameters": {"speed": 99}}"#,
        "badcrf": #"{"effect": "color-orbs", "maxSpeedChange": 1, "crf": 99, "outputs": ["badcrf.mp4"]}"#,
      ])
    let out = dir.path("out")
    let r = try runLoopsmith(["batch", presets, "--out", out] + Self.tiny)
    #expect(r.status == 1)
    #expect(
      r.stderr.contains("badvalue: ") && r.stderr.contains("badcrf: ") && r.stderr.contains("'parameters.speed'"),
      "\(r.stderr)")
    let rows = try Self.manifest(out)
    #expect(
      Self.statuses(rows) == ["badcrf/badcrf.mp4": "failed", "badvalue/-": "failed", "good/good.mp4": "rendered"])
    let bad = try #require(rows.first { $0["preset"] as? String == "badcrf" })
    #expect((bad["error"] as? String ?? "").contains("--crf"))
    #expect(
      FileManager.default.fileExists(atPath: "\(out)/good.mp4")
        && !FileManager.default.fileExists(atPath: "\(out)/badcrf.mp4"))
  }

  @Test func inputErrorsExitTwo() throws {
    let dir = TemporaryDirectory()
    let a = try Self.folder(dir, "a", presets: ["same": #"{"effect": "color-orbs"}"#])
    let b = try Self.folder(dir, "b", presets: ["same": #"{"effect": "aurora-mesh"}"#])
    try FileManager.default.createDirectory(atPath: dir.path("empty"), withIntermediateDirectories: true)
    let clash = try Self.folder(
      dir, "c",
      presets: [
        "one": #"{"effect": "color-orbs", "outputs": ["x.mp4"]}"#,
        "two": #"{"effect": "aurora-mesh", "outputs": ["x.mp4"]}"#,
      ])
    let duplicate = try runLoopsmith(["batch", a, b, "--out", dir.path("o")])
    #expect(duplicate.status == 2)
    #expect(
      duplicate.stderr
        == "Error: two presets are named 'same': \(a)/same.json and \(b)/same.json; expected each name once (it names the outputs)\n"
    )
    let shard = try runLoopsmith(["batch", a, "--out", dir.path("o"), "--shard", "2-3"])
    #expect(shard.stderr == "Error: --shard: '2-3' is not valid; expected K/N, like 2/3 (the second of three shards)\n")
    for (args, expected) in [
      ([a, b, "--out", dir.path("o")], "two presets are named 'same'"),
      ([dir.path("empty"), "--out", dir.path("o")], "a folder with no presets"),
      ([a], "--out"),
      ([clash, "--out", dir.path("o")], "both write 'x.mp4'"),
      ([a, "--out", dir.path("o"), "--shard", "4/3"], "--shard"),
    ] {
      let r = try runLoopsmith(["batch"] + args + ["--dry-run"])
      #expect(r.status == 2 && r.stderr.contains(expected), "\(args): \(r.stderr)")
    }
  }

  @Test func theShardsMergeIntoOneFolderWithAGallery() throws {
    let dir = TemporaryDirectory()
    let presets = try Self.folder(dir)
    var shardDirs: [String] = []
    for k in 1...2 {
      let out = dir.path("shard-\(k)")
      let r = try runLoopsmith(["batch", presets, "--out", out, "--shard", "\(k)/2", "--gallery"] + Self.tiny)
      #expect(r.status == 0, "\(r.stderr)")
      shardDirs.append(out)
    }
    let merged = dir.path("merged")
    let r = try runLoopsmith(["batch", "--merge"] + shardDirs + ["--out", merged, "--gallery", "--quiet"])
    #expect(r.status == 0, "\(r.stderr)")
    let rows = try Self.manifest(merged)
    #expect(Set(rows.map { $0["path"] as! String }) == ["aurora.mp4", "orbs.mp4", "orbs.webm", "voice.webm"])
    for row in rows { #expect(row["sha256"] as? String == SHA256.hex(ofFile: "\(merged)/\(row["path"]!)")) }
    let html = try String(contentsOfFile: "\(merged)/index.html", encoding: .utf8)
    #expect(html.components(separatedBy: "<video muted autoplay loop playsinline").count == 5)
    #expect(html.contains(#"<source src="./orbs.mp4" type="video/mp4; codecs=&quot;avc1.64"#))
    #expect(html.contains(#"type="video/webm; codecs=&quot;vp09.00."#))
    #expect(html.contains(#"poster="./posters/voice.png""#))
    #expect(FileManager.default.fileExists(atPath: "\(merged)/posters/orbs.png"))
    let again = try runLoopsmith(["batch", "--merge", shardDirs[0], shardDirs[0], "--out", dir.path("twice")])
    #expect(again.status == 2 && again.stderr.contains("in both"), "\(again.stderr)")
  }

  @Test func batchHelpListsItsOptions() throws {
    let r = try runLoopsmith(["batch", "--help"])
    #expect(r.status == 0)
    let missing = missingFromHelp(
      r.stdout,
      usage:
        "USAGE: loopsmith batch <preset.json | folder>... --out DIR [options]\n       loopsmith batch --merge DIR... --out DIR [--key-frames first|segments] [--gallery]\n",
      options: [
        "--out <dir>", "-j, --jobs <n>", "--force", "--dry-run", "--shard <K/N>", "--shards <n>", "--merge",
        "--gallery",
        "--key-frames <first|segments>", "-h, --help",
      ])
    #expect(missing.isEmpty, "\(missing)")
    let top = try runLoopsmith(["--help"])
    #expect(top.stdout.contains("  batch <preset.json | folder>... --out DIR\n") && top.stdout.contains("  schema "))
  }

  @Test func theSchemaCommandPrintsTheCheckedInSchema() throws {
    let r = try runLoopsmith(["schema"])
    #expect(r.status == 0)
    #expect(
      r.stdout
        == (try String(
          contentsOfFile: Self.packageRoot.appendingPathComponent("presets/schema.json").path, encoding: .utf8)))
  }

  /// The gallery in a real headless Chromium: every video loads, has its duration, and plays.
  @Test func theGalleryPlaysInHeadlessChromium() throws {
    let dir = TemporaryDirectory()
    let presets = try Self.folder(dir)
    let out = dir.path("out")
    let r = try runLoopsmith([
      "batch", presets, "--out", out, "--gallery", "--size", "64x64", "--scale", "0.2", "--fps", "10", "--duration",
      "2", "--quiet",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    // A probe page beside the gallery: the gallery in a frame, each video's state written to the DOM.
    let probe = """
      <!doctype html><html><body><pre id="report"></pre>
      <iframe id="g" src="index.html" width="1200" height="800"></iframe>
      <script>
      const frame = document.getElementById('g');
      frame.onload = () => {
        const videos = [...frame.contentDocument.querySelectorAll('video')];
        videos.forEach(v => v.play().catch(() => {}));
        // Report once every video plays (or fails), or after 20 s: on a loaded machine decoding
        // starts late, and a fixed wait reported videos that had not loaded yet.
        const started = Date.now();
        const report = () => {
          const settled = videos.every(v => v.error || (v.readyState >= 2 && v.currentTime > 0.3));
          if (!settled && Date.now() - started < 20000) { setTimeout(report, 100); return; }
          document.getElementById('report').textContent = JSON.stringify(videos.map(v => ({
            src: v.currentSrc, ready: v.readyState, duration: v.duration, time: v.currentTime,
            paused: v.paused, error: v.error ? v.error.code : 0, expected: parseFloat(v.dataset.duration)})));
        };
        report();
      };
      </script></body></html>
      """
    try probe.write(toFile: "\(out)/probe.html", atomically: true, encoding: .utf8)
    let dom = try #require(try HeadlessChromium.dumpDOM("\(out)/probe.html"), "Chromium did not finish the page")
    let videos = try #require(HeadlessChromium.result(dom, id: "report") as? [[String: Any]], "\(dom.prefix(2000))")
    #expect(videos.count == 4)
    for v in videos {
      #expect(v["error"] as? Int == 0 && (v["ready"] as? Int ?? 0) >= 2, "\(v)")
      #expect(abs((v["duration"] as? Double ?? 0) - (v["expected"] as? Double ?? -1)) < 0.05, "\(v)")
      #expect((v["time"] as? Double ?? 0) > 0 && v["paused"] as? Bool == false, "\(v)")
    }
  }
}
