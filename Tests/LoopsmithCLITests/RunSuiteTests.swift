import Foundation
import Testing
import _TestSupport

/// `Tests/run-suite.sh`, what `make test` runs the suite through: a suite that hangs is stopped at
/// its deadline with the tests that never finished named and every process of its session
/// killed, and one that ends passes its own status on. Checked with a stand-in suite that prints
/// Swift Testing's lines (RUN_SUITE_SECONDS gives the deadline in seconds).
@Suite struct RunSuiteTests {
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("run-suite.sh").path

  /// Runs the script with `suite` (a bash script) as the suite's command.
  static func run(_ suite: String, seconds: Int? = nil) throws -> (RunResult, took: Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [script, "1", "/bin/bash", "-c", suite]
    var environment = ProcessInfo.processInfo.environment
    if let seconds { environment["RUN_SUITE_SECONDS"] = "\(seconds)" }
    process.environment = environment
    let start = Date()
    let result = try runToEnd(process, seconds: 120)
    return (result, Date().timeIntervalSince(start))
  }

  @Test func aHungSuiteIsStoppedWithItsUnfinishedTestsNamedAndItsSessionKilled() throws {
    let dir = TemporaryDirectory()
    let pids = dir.path("pids")
    // Two tests finish (one parameterized), two never do; a process in a group of its own that
    // ignores SIGTRAP stands for a child the suite waits on, and the suite itself hangs.
    let suite = """
      echo '◇ Test run started.'
      echo '◇ Test finishes() started.'
      echo '◇ Test hangs() started.'
      echo '◇ Test cases(x:) started.'
      echo '◇ Test alsoHangs(x:) started.'
      echo '✔ Test finishes() passed after 0.1 seconds.'
      echo '✔ Test cases(x:) with 3 test cases passed after 0.2 seconds.'
      set -m
      bash -c "trap '' TRAP; exec sleep 300" &
      echo $! > \(pids)
      sleep 300
      """
    let (r, took) = try Self.run(suite, seconds: 2)
    #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
    #expect(took >= 2 && took < 60, "took \(took) s")
    let unfinished = r.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("  ") }.map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    #expect(unfinished == ["alsoHangs(x:)", "hangs()"], "\(r.stdout)")
    #expect(r.stdout.contains("sending SIGTRAP"))
    #expect(r.stdout.contains("run-suite: the suite was still running after 2 s;"))
    #expect(r.stderr.contains("run-suite: stopped the suite after 2 s"))
    let child = try #require(Int32(String(contentsOfFile: pids, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
    // Killed: gone, or a zombie until init reaps it.
    let state = (try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8))?.split(separator: " ")[2]
    #expect(state == nil || state == "Z", "the trap-ignoring child \(child) is still \(state.map(String.init) ?? "")")
  }

  @Test func aSuiteThatEndsPassesItsStatusAndOutputOn() throws {
    let (r, took) = try Self.run("echo '✔ Test run with 1 test passed.'; echo oops >&2; exit 3", seconds: 30)
    #expect(r.status == 3)
    #expect(r.stdout.contains("✔ Test run with 1 test passed.") && r.stdout.contains("oops"))
    #expect(took < 20)
  }

  @Test func aDeadlineThatIsNotAWholeNumberIsRefused() throws {
    let (r, _) = try Self.run("exit 0", seconds: nil)
    #expect(r.status == 0)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [Self.script, "1.5", "true"]
    let bad = try runToEnd(process, seconds: 30)
    #expect(bad.status == 2)
    #expect(bad.stderr == "run-suite: MINUTES: '1.5' is not a whole number of minutes\n")
  }
}
