import Foundation

/// A file named as input, opened once: a regular file (never a FIFO, a device or a folder) no
/// larger than its limit.
///
/// The name is opened non-blocking, so a FIFO with no writer cannot hang the open, and the file
/// is judged by `fstat` on the open descriptor, so nothing can be swapped in between the check and
/// the read. Everything read afterwards (the bytes, or libav through `descriptor`) is this file.
/// Errors are `VideoError.invalidSettings` (exit status 2) with one line naming the path.
public final class InputFile {
  /// Upper bounds on the files Loopsmith reads, in bytes.
  public enum Limit {
    /// A preset: JSON of a few hundred bytes.
    public static let preset: Int64 = 1 << 20
    /// A levels file: CSV or JSON; 16 MiB holds hours of levels at 60 fps.
    public static let levels: Int64 = 16 << 20
    /// A sound file: 1 GiB holds over an hour of 48 kHz stereo WAV.
    public static let audio: Int64 = 1 << 30
    /// A video file given to `check`.
    public static let video: Int64 = 4 << 30
  }

  public let path: String
  /// The open descriptor, read-only and blocking again once the file is known to be regular.
  public let descriptor: Int32
  /// The size in bytes when opened.
  public let size: Int64

  /// Opens `path`, which `what` names in errors ("audio file", "preset file"), and checks that it
  /// is a regular file of at most `limit` bytes.
  public init(path: String, limit: Int64, what: String) throws {
    self.path = path
    try Self.checkName(path, what: what)
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else {
      let code = errno
      let reason = code == ENOENT ? "no such \(what)" : "cannot open the \(what): \(String(cString: strerror(code)))"
      throw VideoError.invalidSettings("\(path): \(reason)")
    }
    var info = stat()
    guard fstat(fd, &info) == 0 else {
      let code = errno
      close(fd)
      throw VideoError.invalidSettings("\(path): cannot inspect the \(what): \(String(cString: strerror(code)))")
    }
    guard info.st_mode & S_IFMT == S_IFREG else {
      close(fd)
      throw VideoError.invalidSettings("\(path): \(Self.kind(info.st_mode)); expected a regular \(what)")
    }
    guard info.st_size <= limit else {
      close(fd)
      throw VideoError.invalidSettings(
        "\(path): \(info.st_size) bytes; expected a \(what) of at most \(Self.bytes(limit))")
    }
    // A regular file never blocks, but libav and read(2) loops expect blocking semantics.
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    descriptor = fd
    size = Int64(info.st_size)
  }

  /// Throws for a name no file can have: empty, or holding a NUL (C would read it cut short).
  public static func checkName(_ path: String, what: String) throws {
    if path.isEmpty {
      throw VideoError.invalidSettings("an empty name was given for the \(what); expected a file path")
    }
    if path.utf8.contains(0) {
      throw VideoError.invalidSettings(
        "\(path.replacingOccurrences(of: "\u{0}", with: "\\0")): the \(what) name holds a NUL character; expected a file path"
      )
    }
  }

  /// Every byte of the file (at most its limit, checked when opened).
  public func readAll() throws -> Data {
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    let bound = Int(size) + 1  // a file that grew since fstat is cut at its opened size + 1, then refused
    while data.count < bound {
      let n = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, min($0.count, bound - data.count)) }
      if n < 0 {
        if errno == EINTR { continue }
        throw VideoError.invalidSettings("\(path): cannot read the file: \(String(cString: strerror(errno)))")
      }
      if n == 0 { break }
      data.append(contentsOf: chunk[0..<n])
    }
    if data.count > Int(size) { throw VideoError.invalidSettings("\(path): the file grew while it was read") }
    return data
  }

  deinit { close(descriptor) }

  private static func kind(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFDIR: "is a folder"
    case S_IFIFO: "is a FIFO (named pipe)"
    case S_IFCHR: "is a character device"
    case S_IFBLK: "is a block device"
    case S_IFSOCK: "is a socket"
    default: "is not a regular file"
    }
  }

  private static func bytes(_ n: Int64) -> String {
    n >= 1 << 30 && n % (1 << 30) == 0
      ? "\(n >> 30) GiB" : n >= 1 << 20 && n % (1 << 20) == 0 ? "\(n >> 20) MiB" : "\(n) bytes"
  }
}
