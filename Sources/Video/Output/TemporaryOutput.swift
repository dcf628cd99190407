import CLibAV
import Foundation

/// A hidden temporary file beside the destination, renamed onto it only when complete.
///
/// The file is created once, under a random name, with `O_CREAT | O_EXCL | O_NOFOLLOW`: a file or
/// symlink planted at any name in a shared folder is never opened, followed or truncated. Writers
/// use `descriptor` and never reopen the name. Until `commit()`, an existing file at the
/// destination stays as it was; `discard()` (or releasing an uncommitted output) removes the
/// temporary, so no failure leaves a partial file.
///
/// The temporary is owned by an exclusive `flock` on its descriptor from its creation until after
/// its rename (`TemporaryFile`): a sweep by another batch sharing the folder, in another PID
/// namespace or on another machine, never removes it while this process lives.
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
      fd = TemporaryFile.create(candidate)
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

  /// Flushes the finished temporary to disk, renames it onto the destination and closes it.
  ///
  /// The rename comes before the close: closing drops the `flock` that tells a sweep the file is
  /// alive, and a sweep between the two would remove the finished file.
  func commit() throws {
    let synced = fsync(descriptor)
    let syncError = errno
    func closeDescriptor() {
      // After a successful fsync the data is on disk; close reports nothing more that matters.
      close(descriptor)
      descriptor = -1
    }
    guard synced == 0 else {
      closeDescriptor()
      throw VideoError.io("\(destination): fsync failed: \(String(cString: strerror(syncError)))")
    }
    guard nameIsOurs else {
      closeDescriptor()
      throw VideoError.io("\(destination): the temporary \(path) was replaced by another file")
    }
    guard rename(path, destination) == 0 else {
      let reason = String(cString: strerror(errno))
      closeDescriptor()
      throw VideoError.io("\(destination): cannot rename the finished file onto it: \(reason)")
    }
    committed = true
    closeDescriptor()
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
    // Removed while still locked, so no sweep mistakes it for a dead process's in between.
    if !committed && nameIsOurs { unlink(path) }
    committed = true  // nothing left to discard
    if descriptor >= 0 {
      close(descriptor)
      descriptor = -1
    }
  }

  deinit { discard() }
}

/// The temporaries of a shared folder, `.NAME.PID-TAG.loopsmith-tmp`: created owned, and swept
/// only when no one owns them.
///
/// A process id in a name says nothing to a process in another PID namespace or on another
/// machine sharing the folder (NFS, a volume mounted into containers): there `kill(pid, 0)` asks
/// about some other process, or none. Ownership is an exclusive `flock` on the temporary's open
/// file, held from before the name exists until after its rename or removal; the kernel (and NFS,
/// which maps `flock` to its byte-range locks) drops it when the owner dies, however it dies.
package enum TemporaryFile {
  /// Creates the file `path` (it must not exist, and is never reached through a link), open with
  /// `access` (`O_RDWR` or `O_WRONLY`) and exclusively `flock`ed, or returns -1 with `errno` set
  /// (`EEXIST` when the name is taken).
  ///
  /// The file is made nameless (`O_TMPFILE`), locked, then linked at `path`, so no sweep ever sees
  /// it unlocked; where the file system or a missing /proc refuses that, it is created at `path`
  /// with `O_EXCL` and locked at once.
  package static func create(_ path: String, access: Int32 = O_RDWR) -> Int32 {
    let folder = (path as NSString).deletingLastPathComponent
    let oTmpfile = clibav_o_tmpfile()
    let nameless = oTmpfile == 0 ? -1 : open(folder.isEmpty ? "." : folder, oTmpfile | access | O_CLOEXEC, 0o644)
    if nameless >= 0 {
      if flock(nameless, LOCK_EX) == 0,
        linkat(AT_FDCWD, "/proc/self/fd/\(nameless)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0
      {
        return nameless
      }
      let reason = errno
      close(nameless)
      guard reason == ENOENT || reason == EPERM || reason == EXDEV else {
        errno = reason
        return -1
      }
    }
    let fd = open(path, O_CREAT | O_EXCL | O_NOFOLLOW | access | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return -1 }
    while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
    return fd
  }

  /// Removes the temporary at `path` when no process holds its lock: opened without following a
  /// link or blocking on a FIFO, a regular file, lockable at once, and still the file at `path`.
  /// A symbolic link at a temporary's name (never one of ours) is removed, not followed. Returns
  /// whether it was removed.
  package static func removeIfUnowned(_ path: String) -> Bool {
    var named = stat()
    guard lstat(path, &named) == 0 else { return false }
    if named.st_mode & S_IFMT == S_IFLNK { return unlink(path) == 0 }
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      return false
    }
    // Held while the name is checked and removed: its owner cannot have been between the two.
    guard lstat(path, &named) == 0, named.st_dev == info.st_dev, named.st_ino == info.st_ino else { return false }
    return unlink(path) == 0
  }
}
