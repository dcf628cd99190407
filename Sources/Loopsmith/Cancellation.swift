import Foundation
import Video

/// Set when SIGINT, SIGTERM or SIGHUP arrives; renders check it between frames, during the final
/// flush of an encoder and before an output is renamed into place.
///
/// The flag is Video's `StopRequest`, an `Atomic<Int32>`: lock-free, so a signal handler may store
/// to it, render threads read it without a data race, and libav's reads of an input file end
/// when it is set.
public enum Cancellation {
  private static let installLock = NSLock()
  nonisolated(unsafe) private static var installed = false

  /// The signal that asked to stop, or nil.
  public static var signal: Int32? { StopRequest.signal }

  /// Records `signal` as the reason to stop (also for tests); the first signal wins.
  public static func request(_ signal: Int32) { StopRequest.request(signal) }

  public static func reset() { StopRequest.reset() }

  /// Makes SIGINT, SIGTERM and SIGHUP only record the signal (a closed terminal or a scheduler's
  /// hang-up stops a render like SIGTERM, exit 128 + 1, and leaves no temporaries), and ignores SIGPIPE so a closed stdout
  /// (`-o -` into a pipe that quit) is a write error, not a silent death.
  ///
  /// Both signals are blocked in the calling thread, and so in every thread started after it,
  /// and one thread of their own waits for them with `sigwait`. A handler would run on whichever
  /// thread the kernel picks, whenever that thread lets it: under ThreadSanitizer, which holds a
  /// signal until its thread calls into libc, a batch whose main thread only waited on its render
  /// heard SIGINT when the render ended. The handlers stay for threads started before this.
  /// Call it first thing, before other threads exist.
  public static func installHandlers() {
    installLock.withLock {
      guard !installed else { return }
      installed = true
      StopRequest.prepare()  // initialized here, never inside a handler
      var stops = sigset_t()
      sigemptyset(&stops)
      for s in [SIGINT, SIGTERM, SIGHUP] {
        _ = Glibc.signal(s) { received in Cancellation.request(received) }
        sigaddset(&stops, s)
      }
      pthread_sigmask(SIG_BLOCK, &stops, nil)
      let waiting = stops
      let listener = Thread {
        var set = waiting
        while true {
          var received: Int32 = 0
          if sigwait(&set, &received) == 0 { Cancellation.request(received) }
        }
      }
      listener.name = "loopsmith.signals"
      listener.start()
      _ = Glibc.signal(SIGPIPE, SIG_IGN)
    }
  }

  /// Throws `Interrupted` when a stop was asked for.
  public static func check() throws {
    if let s = signal { throw Interrupted(signal: s) }
  }
}
