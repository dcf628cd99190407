import Effects
import Foundation
import Video

/// Input the user can fix: a flag, a preset field or a parameter value. Exit status 2.
public struct InputError: Error, CustomStringConvertible, Sendable {
  /// What was wrong, naming the flag or field, and what was expected.
  public let message: String
  /// A preset's platform (`--platform`, a Telegram sticker's fixed limits) refuses the settings:
  /// a batch whose `--size`, `--fps`, `--scale` or `--duration` caused it leaves the preset out.
  public internal(set) var breaksPlatformLimit = false
  public init(_ message: String) { self.message = Self.bounded(message) }
  public var description: String { message }

  /// A message quotes what it found ('KEY', 'VALUE'), which a file may make a megabyte long:
  /// in a message past 1,000 characters, each quoted run past 100 keeps its first 60 and says
  /// how long it was, so the line stays a line.
  static func bounded(_ message: String) -> String {
    guard message.unicodeScalars.count > 1000 else { return message }
    // Between quotes 1 and 2, 3 and 4, ...: the odd-numbered runs of the split are quoted.
    let runs = message.split(separator: "'", omittingEmptySubsequences: false)
    return runs.enumerated().map { i, run in
      i % 2 == 1 && run.count > 100 ? run.prefix(60) + "…(\(run.count) characters)" : String(run)
    }.joined(separator: "'")
  }
}

/// A render, encode or file failure. Exit status 1.
public struct RenderFailure: Error, CustomStringConvertible, Sendable {
  public let message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// A render stopped by SIGINT or SIGTERM; exit status 128 + the signal.
public struct Interrupted: Error, CustomStringConvertible, Sendable {
  public let signal: Int32
  public init(signal: Int32) { self.signal = signal }
  public var description: String { signal == SIGINT ? "interrupted" : "terminated (signal \(signal))" }
}

/// The process status for the error that ended a command: 2 for input the user can fix, 1 for a
/// render or I/O failure, 128 + n for a signal.
public func exitStatus(for error: any Error) -> Int32 {
  switch error {
  case is InputError, is ParameterError: 2
  case let e as VideoError:
    switch e {
    case .invalidSettings: 2
    case .interrupted(let signal): 128 + signal
    default: 1
    }
  case let e as Interrupted: 128 + e.signal
  default: 1
  }
}

/// One line for stderr, without the "Error: " prefix.
public func message(for error: any Error) -> String {
  switch error {
  case let e as CustomStringConvertible: e.description
  default: "\(error)"
  }
}

/// " Did you mean 'x'?" for the candidate closest to `word`, or "" when none is a likely typo.
package func didYouMean(_ word: String, in candidates: [String]) -> String {
  suggestion(for: word, in: candidates).map { " Did you mean '\($0)'?" } ?? ""
}

/// The closest of `candidates` to `word`, when it is close enough to be a likely typo.
package func suggestion(for word: String, in candidates: [String]) -> String? {
  func distance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    for (i, ca) in a.enumerated() {
      var current = [i + 1] + Array(repeating: 0, count: b.count)
      for (j, cb) in b.enumerated() {
        current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1))
      }
      previous = current
    }
    return previous[b.count]
  }
  let w = Array(word.lowercased())
  let limit = max(2, w.count / 3)
  // The distance is at least the difference in length: a megabyte key is compared with nothing
  // (it cost 16 s of edit distance against each key).
  let scored = candidates.filter { abs($0.count - w.count) <= limit }.map { ($0, distance(w, Array($0.lowercased()))) }
  guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
  return best.1 <= limit ? best.0 : nil
}
