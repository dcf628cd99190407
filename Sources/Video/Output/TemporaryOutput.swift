import Foundation

/// A hidden temporary file beside the destination, renamed onto it only when complete.
///
/// Until `commit()`, an existing file at the destination stays as it was; `discard()` (or
/// releasing an uncommitted output) removes the temporary, so no failure leaves a partial file.
final class TemporaryOutput {
  let destination: String
  let path: String
  private(set) var committed = false

  nonisolated(unsafe) private static var counter = 0
  private static let counterLock = NSLock()

  init(destination: String) throws {
    self.destination = destination
    let url = URL(fileURLWithPath: destination)
    let folder = url.deletingLastPathComponent().path
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory), isDirectory.boolValue {
      throw VideoError.io("\(destination): is a directory; expected a file path")
    }
    guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) else {
      throw VideoError.io("\(destination): folder \(folder) does not exist")
    }
    guard isDirectory.boolValue else {
      throw VideoError.io("\(destination): \(folder) is not a folder")
    }
    let number = Self.counterLock.withLock {
      Self.counter += 1
      return Self.counter
    }
    path = url.deletingLastPathComponent()
      .appendingPathComponent(".\(url.lastPathComponent).\(getpid())-\(number).loopsmith-tmp").path
    // Claim the name; this also finds a read-only folder before any encoding starts.
    let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw VideoError.io("\(destination): cannot create a file in \(folder): \(String(cString: strerror(errno)))")
    }
    close(fd)
  }

  /// Flushes the finished temporary to disk and renames it onto the destination.
  func commit() throws {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw VideoError.io("\(destination): cannot reopen \(path): \(String(cString: strerror(errno)))") }
    let synced = fsync(fd)
    let syncError = errno
    close(fd)
    guard synced == 0 else { throw VideoError.io("\(destination): fsync failed: \(String(cString: strerror(syncError)))") }
    guard rename(path, destination) == 0 else {
      throw VideoError.io("\(destination): cannot rename the finished file onto it: \(String(cString: strerror(errno)))")
    }
    committed = true
    // Make the rename itself durable.
    let folder = open(URL(fileURLWithPath: destination).deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
    if folder >= 0 {
      fsync(folder)
      close(folder)
    }
  }

  /// Removes the temporary file unless it was committed.
  func discard() {
    guard !committed else { return }
    unlink(path)
    committed = true  // nothing left to discard
  }

  deinit { discard() }
}
