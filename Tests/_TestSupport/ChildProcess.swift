import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The end of a timed-out child's stderr: from the line that starts the backtrace SIGTRAP made it
/// print, when there is one (it says where each thread was, and its length depends on where they
/// were: a thread caught deep in a frame's drawing adds a few thousand characters), at most
/// 64,000 characters; otherwise the last 6,000.
public func timedOutTail(_ stderr: String) -> String {
  if let crash = stderr.range(of: "Program crashed: ", options: .backwards) {
    let line = stderr[..<crash.lowerBound].lastIndex(of: "\n").map { stderr.index(after: $0) } ?? stderr.startIndex
    return String(stderr[line...].prefix(64000))
  }
  return String(stderr.suffix(6000))
}

/// How long a test lets a child process run before it calls it hung: ten minutes, more than the
/// whole suite takes on two cores (about 7 minutes), far below CI's limit for the whole run.
public let childDeadline: Double = 600

/// A child process that did not end by its deadline. It was sent SIGTRAP first, so a Swift child
/// prints where each of its threads was (`make test` sets SWIFT_BACKTRACE), then, ten seconds
/// later, SIGKILL; the error carries the end of what it wrote to stderr.
///
/// SIGTRAP, not SIGABRT or SIGQUIT: a child Foundation starts from a test thread inherits that
/// thread's blocked signals, and the test runner's threads block SIGABRT and SIGQUIT (a blocked
/// signal stays pending and prints nothing); SIGTRAP is not blocked and Swift's backtracer takes
/// it like a crash.
public struct ChildTimedOut: Error, CustomStringConvertible {
  public var command: String
  public var seconds: Double
  public var stderrTail: String
  public var description: String {
    "\(command) was still running after \(Int(seconds)) s and was stopped (SIGTRAP, then SIGKILL); the end of its stderr:\n"
      + stderrTail
  }
}

/// Runs `process` (its executable, arguments and environment already set) to its end with its
/// stdout and stderr drained together, so a child filling one pipe while the test reads the other
/// cannot block, and returns what it wrote. A child still running after `seconds` throws
/// `ChildTimedOut`: a hung child fails its test in bounded time instead of stalling the suite.
public func runToEnd(_ process: Process, seconds: Double = childDeadline) throws -> RunResult {
  let out = Pipe(), err = Pipe()
  process.standardOutput = out
  process.standardError = err
  try process.run()
  return try collect(process, stdout: out, stderr: err, seconds: seconds)
}

/// Reads a running child's `stdout` and `stderr` pipes (either may be nil) to their ends and waits
/// for it, as `runToEnd` does, with the same deadline. `onStdout` sees the whole of stdout so far
/// after each read (a test typing into the child once it says something).
public func collect(
  _ process: Process, stdout out: Pipe?, stderr err: Pipe?, seconds: Double = childDeadline,
  onStdout: ((Data) -> Void)? = nil
) throws -> RunResult {
  let handles = [out?.fileHandleForReading, err?.fileHandleForReading]
  var data = [Data(), Data()]
  var open = handles.map { $0 != nil }
  let start = Date()
  // After SIGTRAP the child has a while to print its backtrace; after SIGKILL, reading stops
  // when the pipes end or, should a grandchild still hold them, a little later regardless.
  var stage = 0
  var stageEnds = start.addingTimeInterval(seconds)
  waiting: while open[0] || open[1] || process.isRunning {
    let now = Date()
    if now >= stageEnds {
      switch stage {
      case 0: kill(process.processIdentifier, SIGTRAP)
      case 1: kill(process.processIdentifier, SIGKILL)
      default: break waiting
      }
      stage += 1
      stageEnds = now.addingTimeInterval(stage == 1 ? 10 : 5)
      continue
    }
    if !open[0] && !open[1] {
      // No pipe left to read (or none given): the process has not been reaped yet.
      usleep(2000)
      continue
    }
    var polls = (0..<2).map {
      pollfd(fd: open[$0] ? handles[$0]!.fileDescriptor : -1, events: Int16(POLLIN), revents: 0)
    }
    let wait = Int32(min(1000, max(1, stageEnds.timeIntervalSince(now) * 1000)))
    if poll(&polls, 2, wait) < 0 && errno != EINTR {
      open = [false, false]
      continue
    }
    for k in 0..<2 where open[k] && polls[k].revents != 0 {
      guard let chunk = readSome(handles[k]!), !chunk.isEmpty else {
        open[k] = false
        continue
      }
      data[k].append(chunk)
      if k == 0 { onStdout?(data[0]) }
    }
  }
  let stderr = String(decoding: data[1], as: UTF8.self)
  if stage > 0 {
    let name = process.executableURL?.lastPathComponent ?? "the child"
    let command = ([name] + (process.arguments ?? [])).joined(separator: " ")
    let tail = err == nil ? "(not captured by this test)" : timedOutTail(stderr)
    throw ChildTimedOut(command: command, seconds: seconds, stderrTail: tail)
  }
  return RunResult(
    status: process.terminationStatus, stdout: String(decoding: data[0], as: UTF8.self), stderr: stderr)
}

/// Waits for a child the test started itself (and may have signalled) to end, as `runToEnd` does:
/// `collect` with no pipes of its own to read, so one still running after `seconds` gets SIGTRAP,
/// then SIGKILL, and the wait throws.
public func waitForExit(_ process: Process, seconds: Double = childDeadline) throws {
  _ = try collect(process, stdout: nil, stderr: nil, seconds: seconds)
}
