import Foundation
import Loopsmith
import Testing
import _TestSupport

/// A batch's folder against hostile files and unlucky timing, through the real binary: paths from
/// manifests and presets stay in their folders, no file's text is echoed, the manifest keeps every
/// entry whatever runs at once, merges are all or nothing, and every stop signal leaves no trace.
@Suite struct BatchHardeningTests {
  static let tiny = BatchCLITests.tiny

  static func write(_ text: String, _ path: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
  }

  static func files(_ dir: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
  }

  static func shardManifest(_ rows: [String]) -> String {
    #"{"version": 1, "tool": "loopsmith", "outputs": [\#(rows.joined(separator: ", "))]}"#
  }

  // MARK: - Confinement

  @Test(arguments: [
    ("../../victim.txt", "'outputs[0].path': a path with '..'"),
    ("sub/../../../victim.txt", "a path with '..'"),
    ("ABSOLUTE", "'outputs[0].path': an absolute path"),
    ("link/victim.txt", "'outputs[0].path': a path that leaves the folder through a symbolic link"),
  ])
  func aShardManifestCannotReachOutsideItsFolder(path: String, rule: String) throws {
    let dir = TemporaryDirectory()
    let victim = dir.path("victim.txt")
    try Self.write("precious", victim)
    let shard = dir.path("a/b/shard"), out = dir.path("a/b/out")
    try FileManager.default.createDirectory(atPath: shard, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: shard + "/link", withDestinationPath: dir.url.path)
    let value = path == "ABSOLUTE" ? victim : path
    try Self.write(
      Self.shardManifest([#"{"preset": "p", "path": "\#(value)", "status": "rendered", "bytes": 8}"#]),
      shard + "/manifest.json")
    // Run from the folder holding the victim too: a path read against the working folder would find it.
    let r = try runLoopsmith(["batch", "--merge", shard, "--out", out, "--gallery"], in: dir.url)
    #expect(r.status == 2, "\(r.stderr)")
    #expect(
      r.stderr == "Error: \(shard)/manifest.json: \(rule); expected a relative path inside \(shard)\n"
        || r.stderr.contains(rule), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1)
    #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
    #expect(Self.files(out).filter { !$0.hasPrefix(".") } == [], "\(Self.files(out))")
    #expect(Self.files(dir.path("a/b")).sorted() == ["out", "shard"])
  }

  @Test(arguments: [
    ("levels", "../secret.env", "a path with '..'"), ("levels", "/etc/shadow", "an absolute path"),
    ("audio", "../secret.env", "a path with '..'"), ("audio", "/etc/passwd", "an absolute path"),
    ("levels", "link/secret.env", "a path that leaves the folder through a symbolic link"),
  ])
  func aPresetNamesOnlyFilesInItsFolder(field: String, value: String, rule: String) throws {
    let dir = TemporaryDirectory()
    try Self.write("0,0.5\nTOKEN=hunter2\n", dir.path("secret.env"))
    let presets = dir.path("presets")
    try FileManager.default.createDirectory(atPath: presets, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(atPath: presets + "/link", withDestinationPath: dir.url.path)
    try Self.write(#"{"effect": "voice-orb", "\#(field)": "\#(value)"}"#, presets + "/p.json")
    let r = try runLoopsmith(["render", presets + "/p.json", "-o", dir.path("x.y4m")] + Self.tiny)
    #expect(r.status == 2)
    #expect(
      r.stderr == "Error: \(presets)/p.json: '\(field)': \(rule); expected a relative path inside \(presets)\n",
      "\(r.stderr)")
    // In a batch the preset fails alone, and neither its manifest entry nor the gallery quotes the file.
    let out = dir.path("out")
    let b = try runLoopsmith(["batch", presets, "--out", out, "--gallery"] + Self.tiny)
    #expect(b.status == 1 && b.stderr.contains(rule), "\(b.stderr)")
    for (file, said) in [("manifest.json", rule), ("index.html", rule.replacingOccurrences(of: "'", with: "&#39;"))] {
      let text = try String(contentsOfFile: "\(out)/\(file)", encoding: .utf8)
      #expect(text.contains(said) && !text.contains("hunter2"), "\(file)")
    }
  }

  // MARK: - Secrets

  @Test func aLevelFileThatIsNotLevelsIsNamedNeverQuoted() throws {
    let dir = TemporaryDirectory()
    let presets = dir.path("presets"), out = dir.path("out")
    // Inside the folder (allowed), but not a level file: the error names line and column only.
    try Self.write("API_KEY=1\nPASSWORD=hunter2\n", presets + "/secret.env")
    try Self.write("[[0, 1], [\"hunter2\", 1]]", presets + "/secret.json")
    try Self.write(#"{"effect": "voice-orb", "levels": "secret.env"}"#, presets + "/csv.json")
    try Self.write(#"{"effect": "voice-orb", "levels": "secret.json"}"#, presets + "/json.json")
    try Self.write("{\"effect\": \"voice-orb\",\n \"description\": hunter2}", presets + "/broken.json")
    let r = try runLoopsmith(["render", presets + "/csv.json", "-o", dir.path("x.y4m")] + Self.tiny)
    #expect(r.status == 2)
    #expect(
      r.stderr
        == "Error: --levels: \(presets)/secret.env: line 2, column 1: expected time,level (two decimal numbers), found 1 field; expected CSV lines of seconds,level\n",
      "\(r.stderr)")
    let b = try runLoopsmith(["batch", presets, "--out", out, "--gallery"] + Self.tiny)
    #expect(b.status == 1)
    #expect(b.stderr.contains("broken.json: not valid JSON at line 2, column 17"), "\(b.stderr)")
    for text in [
      b.stdout, b.stderr, try String(contentsOfFile: "\(out)/manifest.json", encoding: .utf8),
      try String(contentsOfFile: "\(out)/index.html", encoding: .utf8),
    ] {
      #expect(!text.contains("hunter2") && !text.contains("PASSWORD"), "\(text)")
    }
  }

  // MARK: - Strict numbers and keys

  @Test(arguments: [
    (["--duration", "0x10"], "--duration: '0x10' is not valid; expected a decimal number"),
    (["--duration", "1e999"], "--duration: '1e999' is not valid; expected a decimal number"),
    (["--scale", "0x1p-2"], "--scale: '0x1p-2' is not valid"),
    (["--time", "-nan"], "--time: '-nan' is not valid"),
    (["--set", "speed=0x5"], "--set speed: '0x5' is not valid; expected a number from 0 to 10"),
    (["--set", "speed=infinity"], "--set speed: 'infinity' is not valid"),
    (["--fps", "0x1e"], "--fps: '0x1e' is not valid; expected a whole number"),
  ])
  func numbersAreDecimalOnly(flags: [String], message: String) throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(["render", "color-orbs", "-o", dir.path("x.y4m"), "--size", "16x16", "--quiet"] + flags)
    #expect(r.status == 2)
    #expect(r.stderr.hasPrefix("Error: \(message)") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    #expect(Self.files(dir.url.path) == [])
  }

  @Test func duplicateKeysAreRefusedAtAnyDepth() throws {
    let dir = TemporaryDirectory()
    for (name, json, expected) in [
      (
        "top", "{\"effect\": \"color-orbs\",\n  \"fps\": 30, \"fps\": 5}",
        "top.json: duplicate key 'fps' at line 2, column 14; expected each key once in an object"
      ),
      (
        "nested", #"{"effect": "color-orbs", "parameters": {"speed": 1, "speed": 2}}"#,
        "nested.json: duplicate key 'parameters.speed' at line 1, column 53"
      ),
      (
        "escaped", #"{"effect": "color-orbs", "\u0065ffect": "aurora-mesh"}"#,
        "escaped.json: duplicate key 'effect' at line 1, column 26"
      ),
    ] {
      try Self.write(json, dir.path("\(name).json"))
      let r = try runLoopsmith(["render", dir.path("\(name).json"), "-o", dir.path("x.y4m"), "--quiet"])
      #expect(r.status == 2)
      #expect(
        r.stderr.hasPrefix("Error: \(dir.url.path)/") && r.stderr.contains(expected)
          && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    }
    // A shard's manifest too.
    let shard = dir.path("shard")
    try Self.write(
      #"{"version": 1, "outputs": [{"preset": "p", "path": "p.mp4", "path": "../x", "status": "failed"}]}"#,
      shard + "/manifest.json")
    let m = try runLoopsmith(["batch", "--merge", shard, "--out", dir.path("out")])
    #expect(m.status == 2 && m.stderr.contains("duplicate key 'outputs[0].path' at line 1, column 61"), "\(m.stderr)")
  }

  // MARK: - Escaping

  @Test func hostileManifestValuesAreEscapedInTheGallery() throws {
    let dir = TemporaryDirectory()
    let shard = dir.path("shard"), out = dir.path("out")
    let hostile = #"x'><script>alert(1)</script>\"&#?%é\u0007"#
    try Self.write("not really a video", shard + "/p.mp4")
    try Self.write(
      Self.shardManifest([
        #"{"preset": "p", "path": "p.mp4", "status": "rendered", "format": "mp4", "codecs": "\#(hostile)", "width": 16, "height": 16}"#,
        #"{"preset": "q", "path": null, "status": "failed", "error": "\#(hostile)", "presetFile": "\#(hostile)"}"#,
      ]), shard + "/manifest.json")
    let r = try runLoopsmith(["batch", "--merge", shard, "--out", out, "--gallery", "--quiet"])
    #expect(r.status == 1, "\(r.stderr)")  // a failed preset in a shard
    #expect(
      r.stderr.contains("  q: x'><script>alert(1)</script>\"&#?%é\u{FFFD}\n") && !r.stderr.contains("\u{7}"),
      "\(r.stderr)")
    let html = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
    #expect(!html.contains("<script") && !html.contains("'>") && !html.contains("\u{7}"))
    #expect(
      html.contains(#"type="video/mp4; codecs=&quot;x&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;#?%é"#),
      "\(html)")
    #expect(html.contains("failed: x&#39;&gt;&lt;script&gt;"))
    // The manifest is JSON written by an encoder: the values come back exactly.
    let rows = try BatchCLITests.manifest(out)
    #expect(
      rows.first { $0["preset"] as? String == "p" }?["codecs"] as? String == "x'><script>alert(1)</script>\"&#?%é\u{7}")
  }

  @Test func aPresetNamedWithURLCharactersGetsWorkingURLs() throws {
    let dir = TemporaryDirectory()
    let name = "a#b?c%25 é&"
    let presets = try BatchCLITests.folder(dir, presets: [name: #"{"effect": "color-orbs", "maxSpeedChange": 1}"#])
    let out = dir.path("out")
    let r = try runLoopsmith(["batch", presets, "--out", out, "--gallery"] + Self.tiny)
    #expect(r.status == 0, "\(r.stderr)")
    let html = try String(contentsOfFile: out + "/index.html", encoding: .utf8)
    let encoded = "a%23b%3Fc%2525%20%C3%A9%26"
    #expect(html.contains(#"poster="./posters/\#(encoded).png""#), "\(html)")
    #expect(html.contains(#"<source src="./\#(encoded).mp4""#), "\(html)")
    // The URLs resolve, against the page, to the files.
    for url in ["./posters/\(encoded).png", "./\(encoded).mp4"] {
      let file = try #require(URL(string: url, relativeTo: URL(fileURLWithPath: out + "/index.html"))?.path)
      #expect(FileManager.default.fileExists(atPath: file), "\(file)")
    }
  }

  // MARK: - Batch state

  @Test func aTamperedOutputOfTheSameSizeIsRenderedAgain() throws {
    let dir = TemporaryDirectory()
    let presets = try BatchCLITests.folder(
      dir, presets: ["orbs": #"{"effect": "color-orbs", "maxSpeedChange": 1, "outputs": ["orbs.y4m", "orbs.mp4"]}"#])
    let out = dir.path("out")
    #expect(try runLoopsmith(["batch", presets, "--out", out] + Self.tiny).status == 0)
    let path = out + "/orbs.y4m"
    let original = try Data(contentsOf: URL(fileURLWithPath: path))
    var tampered = original
    tampered[tampered.count - 1] ^= 0xFF  // other pixels, the same size
    try tampered.write(to: URL(fileURLWithPath: path))
    let dry = try runLoopsmith(["batch", presets, "--out", out, "--dry-run"] + Self.tiny)
    #expect(dry.stdout.contains("1 to render, 0 up to date"), "\(dry.stdout)")
    let r = try runLoopsmith(["batch", presets, "--out", out] + Self.tiny)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      BatchCLITests.statuses(try BatchCLITests.manifest(out)) == [
        "orbs/orbs.y4m": "rendered", "orbs/orbs.mp4": "rendered",
      ])
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    // Untouched, it is up to date again.
    #expect(
      try runLoopsmith(["batch", presets, "--out", out, "--dry-run"] + Self.tiny).stdout.contains(
        "0 to render, 1 up to date"))
  }

  @Test func aSubsetRunKeepsTheOtherPresetsEntries() throws {
    let dir = TemporaryDirectory()
    let presets = try BatchCLITests.folder(dir)
    let out = dir.path("out")
    #expect(try runLoopsmith(["batch", presets, "--out", out] + Self.tiny).status == 0)
    let r = try runLoopsmith(["batch", presets + "/aurora.json", "--out", out, "--force"] + Self.tiny)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      BatchCLITests.statuses(try BatchCLITests.manifest(out)) == [
        "aurora/aurora.mp4": "rendered", "orbs/orbs.mp4": "rendered", "orbs/orbs.webm": "rendered",
        "voice/voice.webm": "rendered",
      ])
  }

  @Test func batchesRunningAtOnceIntoOneFolderKeepEveryEntry() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("out")
    var processes: [Process] = []
    for k in 0..<3 {
      let folder = try BatchCLITests.folder(
        dir, "set\(k)",
        presets: [
          "p\(k)a": #"{"effect": "color-orbs", "maxSpeedChange": 1, "outputs": ["p\#(k)a.y4m"]}"#,
          "p\(k)b": #"{"effect": "aurora-mesh", "maxSpeedChange": 1, "outputs": ["p\#(k)b.y4m"]}"#,
        ])
      let p = Process()
      p.executableURL = loopsmithBinary()
      p.arguments = ["batch", folder, "--out", out, "--threads", "1"] + Self.tiny
      p.standardOutput = FileHandle.nullDevice
      p.standardError = FileHandle.nullDevice
      processes.append(p)
    }
    defer { for p in processes where p.isRunning { kill(p.processIdentifier, SIGKILL) } }
    for p in processes { try p.run() }
    for p in processes { try waitForExit(p) }
    #expect(processes.allSatisfy { $0.terminationStatus == 0 })
    let rows = try BatchCLITests.manifest(out)
    #expect(
      Set(rows.compactMap { $0["path"] as? String }) == Set((0..<3).flatMap { ["p\($0)a.y4m", "p\($0)b.y4m"] }),
      "\(rows)")
    for row in rows { #expect(row["sha256"] as? String == SHA256.hex(ofFile: "\(out)/\(row["path"]!)")) }
  }

  @Test func aMergeConflictCopiesNothing() throws {
    let dir = TemporaryDirectory()
    let presets = try BatchCLITests.folder(dir)
    let a = dir.path("a"), b = dir.path("b"), out = dir.path("out")
    #expect(try runLoopsmith(["batch", presets, "--out", a, "--gallery"] + Self.tiny).status == 0)
    // The second shard renders one of the same presets: a conflict found only at its manifest.
    #expect(try runLoopsmith(["batch", presets + "/voice.json", "--out", b] + Self.tiny).status == 0)
    let r = try runLoopsmith(["batch", "--merge", a, b, "--out", out, "--gallery"])
    #expect(r.status == 2 && r.stderr.contains("preset 'voice' is in both"), "\(r.stderr)")
    #expect(Self.files(out).filter { !$0.hasPrefix(".") } == [], "\(Self.files(out))")
    // A file a shard lists but does not hold: nothing copied either.
    try FileManager.default.removeItem(atPath: a + "/orbs.webm")
    let missing = try runLoopsmith(["batch", "--merge", a, "--out", out])
    #expect(missing.status == 2 && missing.stderr.contains("orbs.webm: listed in"), "\(missing.stderr)")
    #expect(Self.files(out).filter { !$0.hasPrefix(".") } == [], "\(Self.files(out))")
  }

  @Test func aMergeKeepsTheEntriesAlreadyInTheFolder() throws {
    let dir = TemporaryDirectory()
    let presets = try BatchCLITests.folder(dir)
    let shard = dir.path("shard"), out = dir.path("out")
    #expect(try runLoopsmith(["batch", presets + "/aurora.json", "--out", out] + Self.tiny).status == 0)
    #expect(try runLoopsmith(["batch", presets + "/orbs.json", "--out", shard] + Self.tiny).status == 0)
    #expect(try runLoopsmith(["batch", "--merge", shard, "--out", out]).status == 0)
    #expect(
      Set(try BatchCLITests.manifest(out).map { $0["path"] as! String }) == ["aurora.mp4", "orbs.mp4", "orbs.webm"])
  }

  // MARK: - Signals and what they leave

  /// Starts a batch rendering a long preset and waits until its temporary file exists.
  static func startLongBatch(_ dir: TemporaryDirectory, out: String) throws -> Process {
    let presets = dir.path("long")
    try Self.write(
      #"{"effect": "color-orbs", "size": "16x16", "scale": 0.05, "fps": 10, "duration": 3600, "outputs": ["long.y4m"]}"#,
      presets + "/long.json")
    let p = Process()
    p.executableURL = loopsmithBinary()
    p.arguments = ["batch", presets, "--out", out, "--threads", "1", "--quiet"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    let deadline = Date().addingTimeInterval(60)
    while !files(out).contains(where: { $0.hasSuffix(".loopsmith-tmp") }) {
      try #require(Date() < deadline && p.isRunning, "the batch never started")
      usleep(20_000)
    }
    return p
  }

  @Test func temporariesOfAKilledBatchAreRemovedByTheNextRunAndALiveOnesAreNot() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("out")
    let killed = try Self.startLongBatch(dir, out: out)
    kill(killed.processIdentifier, SIGKILL)
    try waitForExit(killed)
    let stale = Self.files(out).filter { $0.hasSuffix(".loopsmith-tmp") }
    #expect(stale.count == 1 && stale[0].hasPrefix(".long.y4m.\(killed.processIdentifier)-"), "\(stale)")
    // A live process's temporary in the same folder (this test's own pid) must stay.
    let live = ".other.mp4.\(getpid())-1.loopsmith-tmp"
    try Self.write("live", "\(out)/\(live)")
    let presets = try BatchCLITests.folder(
      dir, presets: ["quick": #"{"effect": "color-orbs", "maxSpeedChange": 1, "outputs": ["quick.y4m"]}"#])
    let r = try runLoopsmith(["batch", presets, "--out", out] + Self.tiny)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(Self.files(out) == [live, ".loopsmith-lock", "manifest.json", "quick.y4m"].sorted(), "\(Self.files(out))")
  }

  @Test(arguments: [(SIGHUP, Int32(129)), (SIGTERM, Int32(143)), (SIGINT, Int32(130))])
  func everyStopSignalEndsABatchCleanly(signal: Int32, status: Int32) throws {
    let dir = TemporaryDirectory()
    let out = dir.path("out")
    let p = try Self.startLongBatch(dir, out: out)
    defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
    usleep(200_000)
    kill(p.processIdentifier, signal)
    try waitForExit(p)
    #expect(p.terminationReason == .exit && p.terminationStatus == status)
    #expect(Self.files(out) == [".loopsmith-lock", "manifest.json"], "\(Self.files(out))")
    #expect(BatchCLITests.statuses(try BatchCLITests.manifest(out)) == ["long/long.y4m": "failed"])
  }
}
