import CLibAV
import Foundation

/// Why a video could not be written or read.
///
/// `invalidSettings` is bad input the user can fix (the command line maps it to exit status 2);
/// `libav` and `io` are encoding or file failures (exit status 1).
public enum VideoError: Error, CustomStringConvertible, Equatable {
  /// A setting the codec or container cannot hold; the message names the setting and what works.
  case invalidSettings(String)
  /// A libav call failed: the function, its error code, libav's own words and the file concerned.
  case libav(function: String, code: Int32, message: String, path: String)
  /// A file or folder could not be created, written, renamed or read.
  case io(String)
  /// A read stopped because a stop signal arrived (`StopRequest`); exit status 128 + the signal.
  case interrupted(signal: Int32)

  public var description: String {
    switch self {
    case .invalidSettings(let message): message
    case .libav(let function, let code, let message, let path):
      "\(path): \(function) failed: \(message) (\(code))"
    case .io(let message): message
    case .interrupted(let signal): signal == SIGINT ? "interrupted" : "terminated (signal \(signal))"
    }
  }
}

extension VideoError {
  /// An allocation in libav failed (`function` returned null).
  static func outOfMemory(_ function: String, path: String) -> VideoError {
    .libav(function: function, code: clibav_error(ENOMEM), message: libavMessage(clibav_error(ENOMEM)), path: path)
  }
}

/// Keeps libav's own log off stderr: encoder statistics would clutter the progress, and its
/// error lines would be a second line beside the one error Loopsmith prints (its words reach that
/// line through the returned codes, `libavMessage`). Only panic lines stay: libav logs one just
/// before it aborts on a failed internal assertion, and a crash without its reason is worse.
///
/// SVT-AV1 logs through its own printf, not libav's log: it reads `SVT_LOG` when its first encoder
/// opens and would print a 15-line banner at its default level (info). Level 0 keeps only fatal
/// errors; a value the user set stays (setenv runs once, before any encoder thread exists).
func silenceLibAVLog() {
  av_log_set_level(AV_LOG_PANIC)
  _ = svtLogSilenced
}

private let svtLogSilenced: Bool = setenv("SVT_LOG", "0", 0) == 0

/// libav's own words for an error code.
func libavMessage(_ code: Int32) -> String {
  withUnsafeTemporaryAllocation(of: CChar.self, capacity: 128) { text in
    guard let base = text.baseAddress else { return "error \(code)" }
    if av_strerror(code, base, text.count) < 0 { return "error \(code)" }
    return String(cString: base)
  }
}

/// Throws a `VideoError.libav` when `code` is negative; returns it otherwise.
@discardableResult
func check(_ code: Int32, _ function: String, path: String) throws -> Int32 {
  // Our read callback and interrupt callback answer AVERROR_EXIT once a stop is asked for.
  if code == clibav_exit, let signal = StopRequest.signal { throw VideoError.interrupted(signal: signal) }
  if code < 0 {
    throw VideoError.libav(function: function, code: code, message: libavMessage(code), path: path)
  }
  return code
}

let errorAgain = clibav_error(EAGAIN)
let errorEOF = clibav_eof
