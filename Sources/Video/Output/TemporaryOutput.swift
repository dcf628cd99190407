import Foundation

/// A hidden temporary file beside the destination, renamed onto it only when complete.
///
/// The file is created once, under a random name, with `O_CREAT | O_EXCL | O_NOFOLLOW`: a file or
/// symlink planted at any name in a shared folder is never opened, followed or truncated. Writers
/// use `descriptor` and never reopen the name. Until `commit()`, an existing file at the
/// destination stays as it was; `discard()` (or releasing an uncommitted output) removes the
/// temporary, so no failure leaves a partial file.
final class TemporaryOutput {
  let destination: String
  let path: String
  /// Open for reading and writing (the MP4 muxer rereads what it wrote); closed by `commit()`.
  private(set) var descriptor: Int32
  private(set) var committed = false
  /// The file's identity, to make sure the name still means our file before renaming or removing it.
  private let device: UInt64
  private let inode: UInt64

  init(destination: String) throws {
    self.destination = destination
    try InputFile.checkName(destination, what: "output")
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
    // The process id stays in the name so a later run can tell a dead process's leftovers; the
    // random part (64 bits from getrandom) makes the name unguessable.
    var fd: Int32 = -1
    var candidate = ""
    for _ in 0..<16 {
      let random = String(UInt64.random(in: .min ... .max), radix: 36)
      candidate =
        url.deletingLastPathComponent()
        .appendingPathComponent(".\(url.lastPathComponent).\(getpid())-\(random).loopsmith-tmp").path
      fd = open(candidate, O_CREAT | O_EXCL | O_NOFOLLOW | O_RDWR | O_CLOEXEC, 0o644)
      if fd >= 0 || errno != EEXIST { break }
    }
    guard fd >= 0 else {
      throw VideoError.io("\(destination): cannot create a file in \(folder): \(String(cString: strerror(errno)))")
    }
    var info = stat()
    fstat(fd, &info)
    path = candidate
    descriptor = fd
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
  }

  /// True while `path` names the file we created (not something put in its place).
  private var nameIsOurs: Bool {
    var info = stat()
    return lstat(path, &info) == 0 && UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
  }

  /// Flushes the finished temporary to disk, closes it and renames it onto the destination.
  func commit() throws {
    let synced = fsync(descriptor)
    let syncError = errno
    let closed = close(descriptor)
    let closeError = errno
    descriptor = -1
    guard synced == 0 else {
      throw VideoError.io("\(destination): fsync failed: \(String(cString: strerror(syncError)))")
    }
    guard closed == 0 else {
      throw VideoError.io("\(destination): close failed: \(String(cString: strerror(closeError)))")
    }
    guard nameIsOurs else { throw VideoError.io("\(destination): the temporary \(path) was replaced by another file") }
    guard rename(path, destination) == 0 else {
      throw VideoError.io(
        "\(destination): cannot rename the finished file onto it: \(String(cString: strerror(errno)))")
    }
    committed = true
    // Make the rename itself durable.
    let folder = open(
      URL(fileURLWithPath: destination).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    if folder >= 0 {
      fsync(folder)
      close(folder)
    }
  }

  /// Closes and removes the temporary file unless it was committed.
  func discard() {
    if descriptor >= 0 {
      close(descriptor)
      descriptor = -1
    }
    guard !committed else { return }
    if nameIsOurs { unlink(path) }
    committed = true  // nothing left to discard
  }

  deinit { discard() }
}
