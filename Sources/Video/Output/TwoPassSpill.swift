#if canImport(Glibc)
  import Glibc
#else
  import Darwin
#endif

/// The converted frames of a two-pass encode, kept for the second pass (docs/ENCODING.md, Loop
/// tuning) in a file that has no name: it is created beside the output's temporary file and
/// unlinked at once, so memory stays flat at any length, and the file is gone when its descriptor
/// closes, whatever ends the process (an error, a signal, even SIGKILL).
final class TwoPassSpill {
  private let descriptor: Int32
  /// The destination, for messages.
  private let path: String

  /// A nameless file in the folder of `file` (the output's temporary).
  init(besides file: String, path: String) throws {
    self.path = path
    let slash = file.lastIndex(of: "/")
    let folder = slash.map { String(file[..<$0]) } ?? "."
    var template = Array(((folder.isEmpty ? "" : folder) + "/.loopsmith-pass-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else {
      throw VideoError.io("\(path): cannot create a temporary file for the second pass: \(Self.reason())")
    }
    unlink(template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)  // no child process inherits it
    descriptor = fd
  }

  deinit { close(descriptor) }

  func append(_ frame: ConvertedFrame) throws {
    guard frame.write(to: descriptor) else {
      throw VideoError.io("\(path): cannot keep a frame for the second pass: \(Self.reason())")
    }
  }

  /// Back to the first frame.
  func rewind() throws {
    guard lseek(descriptor, 0, SEEK_SET) == 0 else {
      throw VideoError.io("\(path): cannot read the frames kept for the second pass: \(Self.reason())")
    }
  }

  /// The next kept frame into `frame`.
  func read(into frame: ConvertedFrame) throws {
    guard frame.read(from: descriptor) else {
      throw VideoError.io("\(path): cannot read the frames kept for the second pass: \(Self.reason())")
    }
  }

  private static func reason() -> String { String(cString: strerror(errno)) }
}
