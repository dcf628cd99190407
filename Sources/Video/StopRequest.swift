import Foundation
import Synchronization

/// Whether a stop was asked for (SIGINT, SIGTERM or SIGHUP, recorded by the command line's signal
/// thread), readable from any thread and from libav's read callback.
///
/// Every read of an input file goes through our own descriptor callback, which answers libav with
/// `AVERROR_EXIT` once a stop is asked for, and the decoding loops check it between frames: a
/// signal ends a read within a second whatever libav is doing (docs/ENCODING.md, Reading files we
/// did not write). `Loopsmith.Cancellation` keeps its flag here.
public enum StopRequest {
  @available(macOS 15.0, *)
  private static let flag = Atomic<Int32>(0)
  // macOS 14 has no Atomic; a word read and written whole is what C's sig_atomic_t promises there.
  nonisolated(unsafe) private static let legacyFlag: UnsafeMutablePointer<Int32> = {
    let p = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    p.initialize(to: 0)
    return p
  }()

  /// Makes sure the flag exists before a signal handler may touch it.
  public static func prepare() {
    _ = legacyFlag
    if #available(macOS 15.0, *) { _ = flag.load(ordering: .relaxed) }
  }

  /// The signal that asked to stop, or nil.
  public static var signal: Int32? {
    let v: Int32
    if #available(macOS 15.0, *) { v = flag.load(ordering: .relaxed) } else { v = legacyFlag.pointee }
    return v == 0 ? nil : v
  }

  /// Records `signal` as the reason to stop; the first signal wins.
  public static func request(_ signal: Int32) {
    if #available(macOS 15.0, *) {
      _ = flag.compareExchange(expected: 0, desired: signal, ordering: .relaxed)
    } else if legacyFlag.pointee == 0 {
      legacyFlag.pointee = signal
    }
  }

  public static func reset() {
    if #available(macOS 15.0, *) { flag.store(0, ordering: .relaxed) } else { legacyFlag.pointee = 0 }
  }

  /// Throws `VideoError.interrupted` when a stop was asked for.
  public static func check() throws {
    if let s = signal { throw VideoError.interrupted(signal: s) }
  }

  /// For libav's callbacks (a read, `AVIOInterruptCB`): 1 when a stop was asked for.
  static let callback: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { _ in
    StopRequest.signal == nil ? 0 : 1
  }
}
