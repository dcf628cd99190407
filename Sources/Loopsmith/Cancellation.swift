import Foundation

/// Set from a signal handler when SIGINT or SIGTERM arrives; renders check it between frames.
///
/// A plain atomic word: signal handlers may only touch lock-free state.
public enum Cancellation {
  nonisolated(unsafe) private static let flag: UnsafeMutablePointer<Int32> = {
    let p = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    p.initialize(to: 0)
    return p
  }()
  nonisolated(unsafe) private static var installed = false

  /// The signal that asked to stop, or nil.
  public static var signal: Int32? {
    let v = flag.pointee
    return v == 0 ? nil : v
  }

  /// Records `signal` as the reason to stop (also for tests).
  public static func request(_ signal: Int32) { flag.pointee = signal }

  public static func reset() { flag.pointee = 0 }

  /// Installs handlers for SIGINT and SIGTERM that only record the signal.
  public static func installHandlers() {
    guard !installed else { return }
    installed = true
    _ = flag
    for s in [SIGINT, SIGTERM] {
      _ = Glibc.signal(s) { received in Cancellation.request(received) }
    }
  }

  /// Throws `Interrupted` when a stop was asked for.
  public static func check() throws {
    if let s = signal { throw Interrupted(signal: s) }
  }
}
