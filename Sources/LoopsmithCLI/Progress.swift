import Foundation
import Loopsmith

/// How `render` reports progress on stderr (`--progress`).
enum ProgressMode: String, CaseIterable {
  /// A live line on a terminal, plain lines otherwise.
  case auto
  /// A line every few seconds: label, percent, frames, frames a second, time left.
  case plain
  /// One JSON object a line (`frame`, `total`, `fps`, `eta`, `output`: the file names), for CI.
  case json
  /// Nothing (`--quiet`).
  case none

  static func parse(_ text: String?) throws -> ProgressMode? {
    guard let text else { return nil }
    guard let mode = ProgressMode(rawValue: text) else {
      throw InputError(
        "--progress: '\(text)' is not valid; expected one of \(allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return mode
  }
}

/// Progress on stderr. On a terminal one line, redrawn in place (cleared to its end, so a shorter
/// line leaves nothing behind) and replaced by the finished line; `abandon()` clears it so that an
/// error prints on a line of its own. Otherwise a plain line every few seconds, or JSON lines.
final class ProgressReporter: @unchecked Sendable {
  let sink: TextSink
  /// The outputs' file names: joined for a line, an array in JSON.
  let outputs: [String]
  var label: String { outputs.joined(separator: ", ") }
  let mode: ProgressMode
  private let start = Date()
  private var last = Date.distantPast
  private var lastDone = -1
  private var lineOpen = false
  private let lock = NSLock()

  init(sink: TextSink, outputs: [String], mode: ProgressMode) {
    (self.sink, self.outputs) = (sink, outputs)
    self.mode = mode == .auto ? (sink.isTerminal ? .auto : .plain) : mode
  }

  /// Frames a second so far and seconds left at that rate (nil before the first frame).
  private func rates(_ done: Int, _ total: Int) -> (fps: Double, eta: Double?) {
    let elapsed = max(Date().timeIntervalSince(start), 1e-6)
    let fps = Double(done) / elapsed
    return (fps, done > 0 ? Double(max(total - done, 0)) / fps : nil)
  }

  static func clock(_ seconds: Double) -> String {
    let s = Int(seconds.rounded(.up))
    return s >= 3600
      ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
  }

  /// `label  42% 302/720 frames, 57.3 fps, 0:07 left`
  private func line(_ done: Int, _ total: Int) -> String {
    let (fps, eta) = rates(done, total)
    let percent = total > 0 ? done * 100 / total : 100
    return
      "\(label) \(String(format: "%3d%%", percent)) \(done)/\(total) frames, \(String(format: "%.1f", fps)) fps, \(eta.map { Self.clock($0) + " left" } ?? "starting")"
  }

  private func json(_ done: Int, _ total: Int, finished: Bool) -> String {
    let (fps, eta) = rates(done, total)
    var o: [String: Any] = ["frame": done, "total": total, "fps": (fps * 100).rounded() / 100, "output": outputs]
    let left: Any
    if finished {
      left = 0.0
    } else if let eta {
      left = (eta * 100).rounded() / 100
    } else {
      left = NSNull()
    }
    o["eta"] = left
    if finished { o["done"] = true }
    let data =
      (try? JSONSerialization.data(withJSONObject: o, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    return String(decoding: data, as: UTF8.self)
  }

  func update(_ done: Int, _ total: Int) {
    lock.withLock {
      guard done > lastDone else { return }
      let now = Date()
      switch mode {
      case .none: return
      case .auto:
        guard now.timeIntervalSince(last) >= 0.1 else { return }
        sink.write(line(done, total), after: "\r\u{1B}[2K")
        lineOpen = true
      case .plain:
        guard now.timeIntervalSince(last) >= 2 else { return }
        sink.write(line(done, total) + "\n")
      case .json:
        // The last frame's object is finish's, marked done: frames increase line by line.
        guard now.timeIntervalSince(last) >= 0.5, done < total else { return }
        sink.write(json(done, total, finished: false) + "\n")
      }
      (last, lastDone) = (now, done)
    }
  }

  /// The finished line: on a terminal it replaces the live one.
  func finish(_ total: Int) {
    lock.withLock {
      let seconds = Date().timeIntervalSince(start)
      let summary =
        "\(label): \(total)/\(total) frames, done in \(String(format: "%.1f", seconds)) s (\(String(format: "%.1f", Double(total) / max(seconds, 1e-6))) fps)"
      switch mode {
      case .none: return
      case .auto: sink.write(summary + "\n", after: "\r\u{1B}[2K")
      case .plain: sink.write(summary + "\n")
      case .json: sink.write(json(total, total, finished: true) + "\n")
      }
      lineOpen = false
    }
  }

  /// Clears the live line before an error is printed, so the error starts a line of its own.
  func abandon() {
    lock.withLock {
      if lineOpen { sink.write("", after: "\r\u{1B}[2K") }
      lineOpen = false
    }
  }
}
