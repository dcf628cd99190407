import Foundation
import Loopsmith
import Testing
import _TestSupport

/// Issue 47 through the real binary: a shared `--out` survives batches in other PID namespaces, a
/// batch waiting for the folder's lock still stops on a signal, a merge is all or nothing even when
/// a destination cannot be replaced, names are compared as the file system compares them (after
/// `./`, byte for byte), names that are not UTF-8 are refused in one line, and `--max-bytes` keeps
/// nothing in `$TMPDIR`. docs/TESTING.md, Shared folders.
@Suite struct SharedFolderTests {
  static let tiny = ["--size", "32x56", "--fps", "4", "--duration", "1", "--quiet"]

  // The folder helpers are BatchHardeningTests'.
  static func write(_ text: String, _ path: String) throws { try BatchHardeningTests.write(text, path) }
  static func files(_ dir: String) -> [String] { BatchHardeningTests.files(dir) }
  static func temporaries(_ dir: String) -> [String] { files(dir).filter { $0.hasSuffix(".loopsmith-tmp") } }

  /// A process id that is not alive here: a child's, after it ended.
  static func deadPID() throws -> pid_t {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/true")
    try p.run()
    try waitForExit(p, seconds: 30)
    return p.processIdentifier
  }

  /// Runs `script` with `sh -c`, `$0` the loopsmith binary: for arguments Foundation cannot pass
  /// (bytes that are not UTF-8) and for `unshare`.
  static func shell(_ script: String, seconds: Double = 300) throws -> RunResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/sh")
    p.arguments = ["-c", script, loopsmithBinary().path]
    return try runToEnd(p, seconds: seconds)
  }

  // MARK: - A temporary is owned by its lock, not by its process id

  /// A temporary named with a process id that is dead here but locked by a live process (a batch in
  /// another PID namespace, or on another machine) is left by the sweep; an unlocked one of a dead
  /// process is removed.
  @Test func theSweepLeavesALockedTemporaryWhateverItsProcessID() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("out")
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    let pid = try Self.deadPID()
    let held = ".other.mp4.\(pid)-abc.loopsmith-tmp", stale = ".gone.mp4.\(pid)-def.loopsmith-tmp"
    try Self.write("live", "\(out)/\(held)")
    try Self.write("stale", "\(out)/\(stale)")
    let fd = open("\(out)/\(held)", O_RDONLY | O_CLOEXEC)
    try #require(fd >= 0 && flock(fd, LOCK_EX) == 0)
    defer { close(fd) }
    let presets = dir.path("presets")
    try Self.write(#"{"effect": "color-orbs", "outputs": ["quick.y4m"]}"#, presets + "/quick.json")
    let r = try runLoopsmith(["batch", presets, "--out", out] + Self.tiny)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(Self.files(out) == [held, ".loopsmith-lock", "manifest.json", "quick.y4m"].sorted(), "\(Self.files(out))")
    #expect(try String(contentsOfFile: "\(out)/\(held)", encoding: .utf8) == "live")
  }

  static var unshareProblem: String? {
    guard let r = try? shell("unshare --pid --fork --mount-proc /bin/true", seconds: 30) else {
      return "unshare did not run"
    }
    return r.status == 0 ? nil : "unshare --pid is not permitted here: \(r.stderr)"
  }

  /// The issue's done-when: two batches in different PID namespaces sharing one `--out` both finish
  /// with every output and manifest entry. The first runs at a process id the second's namespace
  /// lacks (a shell made 40 processes first), so the second, starting while the first writes,
  /// would take its temporary for a dead process's by `kill(pid, 0)`.
  @Test(.enabled(if: SharedFolderTests.unshareProblem == nil, "unshare --pid --fork --mount-proc is refused here"))
  func twoBatchesInDifferentPIDNamespacesShareOneOut() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("out")
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    try Self.write(
      #"{"effect": "color-orbs", "size": "32x56", "fps": 4, "duration": 200, "outputs": ["long.y4m"]}"#,
      dir.path("a/long.json"))
    try Self.write(#"{"effect": "aurora-mesh", "outputs": ["short.y4m"]}"#, dir.path("b/short.json"))
    let first = Process()
    first.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
    first.arguments = [
      "--pid", "--fork", "--mount-proc", "/bin/sh", "-c",
      "i=0; while [ $i -lt 40 ]; do /bin/true; i=$((i+1)); done; \"$0\" batch \(dir.path("a")) --out \(out) --threads 1 --quiet",
      loopsmithBinary().path,
    ]
    let firstErr = Pipe()
    first.standardOutput = FileHandle.nullDevice
    first.standardError = firstErr
    try first.run()
    defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
    let deadline = Date().addingTimeInterval(120)
    while Self.temporaries(out).isEmpty {
      try #require(Date() < deadline && first.isRunning, "the first batch never started writing")
      usleep(20_000)
    }
    let second = try Self.shell(
      "exec unshare --pid --fork --mount-proc \"$0\" batch \(dir.path("b")) --out \(out) --threads 1 \(Self.tiny.joined(separator: " "))"
    )
    #expect(second.status == 0, "\(second.stderr)")
    // The first was still writing when the second swept (or the test proves nothing), and it finishes.
    let writing = first.isRunning
    let result = try collect(first, stdout: nil, stderr: firstErr)
    #expect(writing, "the first batch ended before the second finished")
    #expect(result.status == 0, "\(result.stderr)")
    let rows = try BatchCLITests.manifest(out)
    #expect(BatchCLITests.statuses(rows) == ["long/long.y4m": "rendered", "short/short.y4m": "rendered"], "\(rows)")
    for row in rows { #expect(row["sha256"] as? String == SHA256.hex(ofFile: "\(out)/\(row["path"]!)")) }
    #expect(Self.temporaries(out) == [])
  }

  // MARK: - Waiting for the folder's lock

  @Test(arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130))])
  func aBatchWaitingForTheFolderLockStopsOnASignal(signal: Int32, status: Int32) throws {
    let dir = TemporaryDirectory()
    let out = dir.path("out")
    try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
    let fd = open("\(out)/.loopsmith-lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    try #require(fd >= 0 && flock(fd, LOCK_EX) == 0)
    defer { close(fd) }
    let presets = dir.path("presets")
    try Self.write(#"{"effect": "color-orbs", "outputs": ["quick.y4m"]}"#, presets + "/quick.json")
    let p = Process()
    p.executableURL = loopsmithBinary()
    p.arguments = ["batch", presets, "--out", out] + Self.tiny
    let err = Pipe()
    p.standardOutput = FileHandle.nullDevice
    p.standardError = err
    try p.run()
    defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
    usleep(700_000)  // started, and waiting for the lock
    #expect(p.isRunning)
    kill(p.processIdentifier, signal)
    let sent = Date()
    let r = try collect(p, stdout: nil, stderr: err, seconds: 10)
    #expect(Date().timeIntervalSince(sent) < 2)
    #expect(r.status == status, "\(r.stderr)")
    #expect(r.stderr.hasPrefix("Error: \(signal == SIGINT ? "interrupted" : "terminated (signal 15)")"), "\(r.stderr)")
    #expect(Self.files(out) == [".loopsmith-lock"], "\(Self.files(out))")
  }

  // MARK: - Merges

  /// A folder at one of the merge's destinations fails the merge before anything is renamed: no
  /// output of the shard appears, the file already at another destination stays as it was.
  @Test func aMergeThatCannotReplaceADestinationPlacesNothing() throws {
    let dir = TemporaryDirectory()
    let shard = dir.path("shard"), out = dir.path("out")
    try Self.write(#"{"effect": "color-orbs", "outputs": ["a.y4m"]}"#, dir.path("presets/a.json"))
    try Self.write(#"{"effect": "aurora-mesh", "outputs": ["z.y4m"]}"#, dir.path("presets/z.json"))
    #expect(try runLoopsmith(["batch", dir.path("presets"), "--out", shard] + Self.tiny).status == 0)
    try Self.write("old a", "\(out)/a.y4m")
    try FileManager.default.createDirectory(atPath: "\(out)/z.y4m", withIntermediateDirectories: true)
    let r = try runLoopsmith(["batch", "--merge", shard, "--out", out])
    #expect(r.status == 1, "\(r.stderr)")
    #expect(
      r.stderr
        == "Error: \(out)/z.y4m: is not a file and cannot be replaced; expected a file path (nothing was merged)\n",
      "\(r.stderr)")
    #expect(try String(contentsOfFile: "\(out)/a.y4m", encoding: .utf8) == "old a")
    #expect(Self.files(out) == [".loopsmith-lock", "a.y4m", "z.y4m"], "\(Self.files(out))")
  }

  /// `./a.y4m` and `a.y4m` (and `a//b`) name one file: two shards writing it clash.
  @Test(arguments: ["./a.y4m", ".//a.y4m", "././a.y4m"])
  func aDotSlashPathInAShardManifestClashes(spelling: String) throws {
    let dir = TemporaryDirectory()
    let a = dir.path("a"), b = dir.path("b"), out = dir.path("out")
    try Self.write(#"{"effect": "color-orbs", "outputs": ["a.y4m"]}"#, dir.path("p1/one.json"))
    try Self.write(#"{"effect": "aurora-mesh", "outputs": ["a.y4m"]}"#, dir.path("p2/two.json"))
    #expect(try runLoopsmith(["batch", dir.path("p1"), "--out", a] + Self.tiny).status == 0)
    #expect(try runLoopsmith(["batch", dir.path("p2"), "--out", b] + Self.tiny).status == 0)
    let manifest = try String(contentsOfFile: b + "/manifest.json", encoding: .utf8)
    try Self.write(
      manifest.replacingOccurrences(of: #""path" : "a.y4m""#, with: #""path" : "\#(spelling)""#), b + "/manifest.json")
    #expect(try String(contentsOfFile: b + "/manifest.json", encoding: .utf8).contains(spelling))
    let r = try runLoopsmith(["batch", "--merge", a, b, "--out", out])
    #expect(r.status == 2, "\(r.stderr)")
    #expect(
      r.stderr == "Error: 'a.y4m' is written by both \(a) and \(b); expected disjoint shards\n", "\(r.stderr)")
    #expect(Self.files(out).filter { !$0.hasPrefix(".") } == [], "\(Self.files(out))")
  }

  // MARK: - Names byte for byte

  static let nfc = "caf\u{E9}", nfd = "cafe\u{301}"

  /// NFC and NFD spellings are two files on Linux, so two presets with two outputs and two
  /// manifest entries, in one batch or in two into one folder.
  @Test func nfcAndNFDNamesAreTwoPresets() throws {
    #expect(Array(Self.nfc.utf8) != Array(Self.nfd.utf8))
    let dir = TemporaryDirectory()
    let presets = dir.path("presets"), out = dir.path("out"), again = dir.path("again")
    for name in [Self.nfc, Self.nfd] {
      try Self.write(#"{"effect": "color-orbs"}"#, "\(presets)/\(name).json")
    }
    let names = Set(Self.files(presets).map { Array($0.utf8) })
    try #require(names.count == 2, "the file system folded the two names into one")
    let expected = Set([Self.nfc, Self.nfd].map { Array("\($0).mp4".utf8) })
    let r = try runLoopsmith(["batch", presets, "--out", out] + Self.tiny)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(Set(Self.files(out).filter { $0.hasSuffix(".mp4") }.map { Array($0.utf8) }) == expected)
    let rows = try BatchCLITests.manifest(out)
    #expect(Set(rows.compactMap { ($0["path"] as? String).map { Array($0.utf8) } }) == expected, "\(rows)")
    #expect(rows.count == 2)
    // One at a time into one folder: the second keeps the first's entry.
    for name in [Self.nfc, Self.nfd] {
      let one = try runLoopsmith(["batch", "\(presets)/\(name).json", "--out", again] + Self.tiny)
      #expect(one.status == 0, "\(one.stderr)")
    }
    let both = try BatchCLITests.manifest(again)
    let presetNames = Set([Self.nfc, Self.nfd].map { Array($0.utf8) })
    #expect(Set(both.compactMap { ($0["preset"] as? String).map { Array($0.utf8) } }) == presetNames, "\(both)")
    #expect(both.allSatisfy { $0["status"] as? String == "rendered" }, "\(both)")
  }

  // MARK: - Names that are not UTF-8

  @Test func anOutputNameThatIsNotUTF8IsRefused() throws {
    let dir = TemporaryDirectory()
    let r = try Self.shell(
      "cd \(dir.url.path) && exec \"$0\" render color-orbs \(Self.tiny.joined(separator: " ")) -o \"$(printf 'x\\377.mp4')\""
    )
    #expect(r.status == 2, "\(r.stderr)")
    #expect(
      r.stderr
        == "Error: argument 11 ('x\\xFF.mp4') is not valid UTF-8; expected file names and values in UTF-8 (rename the file, e.g. with convmv)\n",
      "\(r.stderr)")
    #expect(Self.files(dir.url.path) == [], "\(Self.files(dir.url.path))")
  }

  @Test func anInputNameThatIsNotUTF8IsRefused() throws {
    let dir = TemporaryDirectory()
    let made = try Self.shell(
      "cd \(dir.url.path) && \"$0\" render color-orbs \(Self.tiny.joined(separator: " ")) -o good.mp4 && mv good.mp4 \"$(printf '\\377.mp4')\""
    )
    try #require(made.status == 0, "\(made.stderr)")
    let r = try Self.shell("cd \(dir.url.path) && exec \"$0\" check \"$(printf '\\377.mp4')\"")
    #expect(r.status == 2, "\(r.stderr)")
    #expect(r.stderr.hasPrefix("Error: argument 2 ('\\xFF.mp4') is not valid UTF-8;"), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1)
  }

  @Test func aPresetFolderHoldingANameThatIsNotUTF8IsRefused() throws {
    let dir = TemporaryDirectory()
    let presets = dir.path("presets"), out = dir.path("out")
    try Self.write(#"{"effect": "color-orbs"}"#, presets + "/good.json")
    let made = try Self.shell("printf '{\"effect\": \"color-orbs\"}' > \"\(presets)/$(printf 'bad\\377.json')\"")
    try #require(made.status == 0, "\(made.stderr)")
    let r = try runLoopsmith(["batch", presets, "--out", out] + Self.tiny)
    #expect(r.status == 2, "\(r.stderr)")
    #expect(
      r.stderr
        == "Error: \(presets): the preset file name 'bad\\xFF.json' is not valid UTF-8; expected UTF-8 file names (rename it, e.g. with convmv)\n",
      "\(r.stderr)")
    #expect(Self.files(out).filter { !$0.hasPrefix(".") } == [], "\(Self.files(out))")
  }

  // MARK: - --max-bytes keeps nothing in $TMPDIR

  static let budgeted = [
    "render", "color-orbs", "--size", "96x160", "--duration", "2", "--fps", "10", "--max-bytes", "2500", "--quiet",
  ]

  /// A budgeted render that takes several tries writes nothing in `$TMPDIR` at any moment, and a
  /// SIGKILL mid-render leaves nothing there either.
  @Test func aSizeBudgetKeepsNothingInTMPDIR() throws {
    let dir = TemporaryDirectory()
    let tmp = dir.path("tmp")
    try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
    let p = Process()
    p.executableURL = loopsmithBinary()
    p.arguments = Self.budgeted + ["-o", dir.path("fit.webm")]
    var env = ProcessInfo.processInfo.environment
    env["TMPDIR"] = tmp
    p.environment = env
    let err = Pipe()
    p.standardOutput = FileHandle.nullDevice
    p.standardError = err
    try p.run()
    defer { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
    var seen: [String] = []
    while p.isRunning {
      seen += Self.files(tmp)
      usleep(5_000)
    }
    let r = try collect(p, stdout: nil, stderr: err)
    #expect(r.status == 0 || r.stderr.contains("cannot fit"), "\(r.stderr)")
    #expect(seen == [] && Self.files(tmp) == [], "\(Set(seen))")

    let killed = Process()
    killed.executableURL = loopsmithBinary()
    killed.arguments = Self.budgeted + ["-o", dir.path("killed.webm")]
    killed.environment = env
    killed.standardOutput = FileHandle.nullDevice
    killed.standardError = FileHandle.nullDevice
    try killed.run()
    defer { if killed.isRunning { kill(killed.processIdentifier, SIGKILL) } }
    usleep(1_500_000)
    kill(killed.processIdentifier, SIGKILL)
    try waitForExit(killed)
    #expect(Self.files(tmp) == [], "\(Self.files(tmp))")
  }

  /// `$TMPDIR` missing (never created, not even at the root) or a file does not matter: a size
  /// budget does not use it.
  @Test(arguments: ["missing", "file"])
  func aSizeBudgetIgnoresABadTMPDIR(kind: String) throws {
    let dir = TemporaryDirectory()
    let tmp = kind == "missing" ? "/loopsmith-missing-\(UUID().uuidString)/tmp" : dir.path("tmp-file")
    if kind == "file" { try Self.write("not a folder", tmp) }
    defer {
      if kind == "missing" { try? FileManager.default.removeItem(atPath: (tmp as NSString).deletingLastPathComponent) }
    }
    let out = dir.path("fit.webm")
    let r = try runLoopsmith(
      Self.budgeted.map { $0 == "2500" ? "200000" : $0 } + ["-o", out], environment: ["TMPDIR": tmp])
    #expect(r.status == 0, "\(r.stderr)")
    // Only the budget's note: no word of $TMPDIR.
    #expect(r.stderr.hasPrefix("Note: \(out): ") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    #expect(FileManager.default.fileExists(atPath: out))
    if kind == "missing" {
      #expect(!FileManager.default.fileExists(atPath: (tmp as NSString).deletingLastPathComponent))
    } else {
      #expect(try String(contentsOfFile: tmp, encoding: .utf8) == "not a folder")
    }
  }
}
