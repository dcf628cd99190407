import Foundation

/// The result of running the built `loopsmith`.
public struct RunResult {
  public var status: Int32
  public var stdout: String
  public var stderr: String
}

/// The `loopsmith` binary `swift build` made beside the test bundle.
public func loopsmithBinary() -> URL {
  let bundle =
    Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL
    ?? URL(fileURLWithPath: CommandLine.arguments[0])
  return bundle.deletingLastPathComponent().appendingPathComponent("loopsmith")
}

/// Runs the real binary with `arguments`, waiting for it, and returns its status and output.
/// `environment` adds to (or, with a value of "", removes from) this process's environment. A run
/// still going after `seconds` is stopped and throws `ChildTimedOut` (see `runToEnd`).
public func runLoopsmith(
  _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
  seconds: Double = childDeadline
) throws -> RunResult {
  let process = Process()
  process.executableURL = loopsmithBinary()
  process.arguments = arguments
  if !environment.isEmpty {
    var env = ProcessInfo.processInfo.environment
    for (k, v) in environment { env[k] = v.isEmpty ? nil : v }
    process.environment = env
  }
  if let directory { process.currentDirectoryURL = directory }
  return try runToEnd(process, seconds: seconds)
}

/// What a command's help (`loopsmith help NAME`, `NAME --help`) lacks: its `usage` text, and a line
/// for each of `options` (two spaces, the option, a space, its description). Empty when it has all.
public func missingFromHelp(_ help: String, usage: String, options: [String]) -> [String] {
  (help.contains(usage) ? [] : ["usage: \(usage)"]) + options.filter { !help.contains("  \($0) ") }
}
