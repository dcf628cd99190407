import Foundation
import Testing
import _TestCrashTrace
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
    let child = try #require(
      Int32(String(contentsOfFile: pids, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
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

  /// A test process that crashed: after its own output, a summary CI's last lines still show,
  /// with the tests that were running, what was printed just before the backtracer's first line
  /// (not Swift Testing's progress lines), and the crashed thread's frames (not the others').
  @Test func aCrashedSuiteEndsWithTheRunningTestsAndTheCrashedThread() throws {
    let suite = """
      echo '◇ Test run started.'
      echo '◇ Test finishes() started.'
      echo '◇ Test crashes(x:) started.'
      echo '✔ Test finishes() passed after 0.1 seconds.'
      echo 'free(): invalid next size (normal)'
      printf '\\n*** Signal 6: Backtracing from 0x7f25fb0cfeec... done ***\\n\\n'
      printf '*** Program crashed: Aborted at 0x0000000000003ee9 ***\\n\\n'
      printf 'Thread 0 "main":\\n\\n  0  0x1 clock_nanosleep + 101 in libc.so.6\\n...\\n\\n'
      printf 'Thread 3 "worker" crashed:\\n\\n  0  0x2 __pthread_kill_implementation + 268 in libc.so.6\\n'
      printf '  1 [ra] 0x3 free + 10 in libc.so.6\\n...\\n\\nRegisters:\\n\\nrax 0x0\\n'
      exit 1
      """
    let (r, _) = try Self.run(suite, seconds: 30)
    #expect(r.status == 1)
    let lines = r.stdout.components(separatedBy: "\n")
    let summary = try #require(lines.lastIndex { $0.hasPrefix("run-suite: the suite crashed") })
    #expect(
      Array(lines[summary...]) == [
        "run-suite: the suite crashed (*** Program crashed: Aborted at 0x0000000000003ee9 ***); "
          + "these tests had started and not finished:",
        "  crashes(x:)",
        "run-suite: the lines before the crash:",
        "  free(): invalid next size (normal)",
        "run-suite: the top of the crashed thread's stack:",
        "  Thread 3 \"worker\" crashed:",
        "    0  0x2 __pthread_kill_implementation + 268 in libc.so.6",
        "    1 [ra] 0x3 free + 10 in libc.so.6",
        "  ...",
        "",
      ], "\(r.stdout)")
    // A suite that failed without crashing gets no summary.
    let (failed, _) = try Self.run("echo '✘ Test run with 1 test failed.'; exit 1", seconds: 30)
    #expect(failed.status == 1 && !failed.stdout.contains("run-suite:"), "\(failed.stdout)")
  }

  /// An abort in the test process (glibc's check of the heap, a Swift runtime error) is named by
  /// its caller: the thread's stack as the process printed it itself (Tests/_TestCrashTrace),
  /// named by the script. Swift's backtracer alone stops at glibc's pthread_kill. This runs this
  /// very test binary with only `abortsWhenAsked` and LOOPSMITH_TEST_ABORT set.
  @Test func anAbortIsNamedByItsCaller() throws {
    #expect(test_crash_trace_installed() == 1)
    let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [
      Self.script, "1", binary, "--testing-library", "swift-testing", "--filter", "abortsWhenAsked",
    ]
    var environment = ProcessInfo.processInfo.environment
    environment["LOOPSMITH_TEST_ABORT"] = "1"
    environment["SWIFT_BACKTRACE"] = "enable=yes,preset=full,interactive=no"
    process.environment = environment
    let r = try runToEnd(process, seconds: 120)
    #expect(r.status != 0)
    let lines = r.stdout.components(separatedBy: "\n")
    let summary = try #require(
      lines.lastIndex { $0.hasPrefix("run-suite: the suite crashed (*** Program crashed: Aborted") }, "\(r.stdout)")
    #expect(lines[summary + 1] == "  abortsWhenAsked()")
    let stack = try #require(
      lines.firstIndex { $0 == "run-suite: the aborting thread's stack, from glibc's backtrace:" }, "\(r.stdout)")
    #expect(stack > summary)
    #expect(lines[stack...].contains { $0.hasPrefix("  abortForTheCrashTrace() at ") }, "\(lines[stack...])")
  }

  /// Not a check of its own: the test process that aborts for `anAbortIsNamedByItsCaller`.
  @Test(.enabled(if: ProcessInfo.processInfo.environment["LOOPSMITH_TEST_ABORT"] == "1"))
  func abortsWhenAsked() { abortForTheCrashTrace() }

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

/// Aborts from a function of its own, whose name the crash summary must show.
@inline(never) func abortForTheCrashTrace() -> Never { abort() }
