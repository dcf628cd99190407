import Foundation
import Testing
import _TestSupport

/// The suite's way of running children: a hung child fails its test in bounded time with where it
/// hung, and a child writing much to both pipes cannot block on the one the test is not reading.
@Suite struct ChildProcessTests {
  @Test func aHungRunFailsWithItsBacktraceInsteadOfStallingTheSuite() throws {
    let dir = TemporaryDirectory()
    let start = Date()
    // A ten-minute loop at 32x32 and one thread: still running when the two seconds are up.
    let error = #expect(throws: ChildTimedOut.self) {
      try runLoopsmith(
        [
          "render", "color-orbs", "-o", dir.path("long.mp4"), "--size", "32x32", "--duration", "600", "--scale",
          "0.1", "--threads", "1", "--quiet",
        ], environment: ["SWIFT_BACKTRACE": "enable=yes,symbolicate=fast,interactive=no"], seconds: 2)
    }
    let took = Date().timeIntervalSince(start)
    #expect(took >= 2 && took < 40, "took \(took) s")
    #expect(error?.command.hasPrefix("loopsmith render color-orbs") == true, "\(String(describing: error))")
    #expect(error?.stderrTail.contains("Program crashed: ") == true, "\(String(describing: error))")
    #expect(!FileManager.default.fileExists(atPath: dir.path("long.mp4")))
  }

  /// A timed-out child's backtrace is kept whole from its first line, however deep its threads'
  /// stacks were (one caught mid-frame took the header past the last 6,000 characters once).
  @Test func aTimedOutChildKeepsItsWholeBacktrace() {
    let before = String(repeating: "progress\n", count: 2000)
    let threads = String(repeating: "  Thread 7:\n    0 0x00007f76620906ea a deep frame\n", count: 400)
    let trace = "*** Program crashed: System trap at 0x0000006a68 ***\n\n" + threads + "Backtrace took 0.22s\n"
    #expect(threads.count > 6000)
    #expect(timedOutTail(before + trace) == trace)
    // No backtrace (a child that is not Swift): the last 6,000 characters.
    #expect(timedOutTail(before) == String(before.suffix(6000)))
  }

  @Test func aChildFillingStderrBeforeItsStdoutEndsIsReadWhole() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", "head -c 300000 /dev/zero | tr '\\0' e >&2; echo out"]
    let r = try runToEnd(process, seconds: 60)
    #expect(r.status == 0)
    #expect(r.stdout == "out\n")
    #expect(r.stderr.count == 300_000 && r.stderr.allSatisfy { $0 == "e" })
  }

  @Test func aChildThatIgnoresItsSignalIsStoppedAndTheWaitThrows() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    // `exec`, so no orphaned sleep outlives the test: an ignored signal stays ignored across it.
    process.arguments = ["-c", "trap '' TERM; exec sleep 300"]
    try process.run()
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    process.terminate()
    let start = Date()
    #expect(throws: ChildTimedOut.self) { try waitForExit(process, seconds: 1) }
    #expect(!process.isRunning)
    #expect(Date().timeIntervalSince(start) < 30)
  }

  /// Foundation's `Process.waitUntilExit()` on Linux spins its run loop without sleeping while the
  /// child runs. A test thread at real-time priority (one SVT-AV1 had moved to SCHED_FIFO 99, its
  /// children inheriting it) spinning there kept its core from the child it waited for, which
  /// never finished: the suite hung that way. Tests wait through `runToEnd`, `collect` and
  /// `waitForExit`, which sleep.
  @Test func noTestWaitsWithWaitUntilExit() throws {
    let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    let walker = try #require(FileManager.default.enumerator(atPath: tests.path))
    // Spelled in two parts so this line does not find itself.
    let needle = ".waitUntil" + "Exit()"
    var offenders: [String] = []
    while let relative = walker.nextObject() as? String {
      guard relative.hasSuffix(".swift") else { continue }
      let text = try String(contentsOfFile: tests.appendingPathComponent(relative).path, encoding: .utf8)
      for (k, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let code = line.trimmingCharacters(in: .whitespaces)
        if code.contains(needle) && !code.hasPrefix("//") { offenders.append("\(relative):\(k + 1)") }
      }
    }
    #expect(offenders.isEmpty, "waitUntilExit() spins; use waitForExit or collect: \(offenders)")
  }
}
