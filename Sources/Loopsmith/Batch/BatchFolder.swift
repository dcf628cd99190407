import Foundation

/// The shared state of a batch's output folder: a lock file that serializes every change to the
/// manifest (batches running at once into one `--out` each keep their entries), the manifest merged
/// under it, and the removal of temporaries that dead processes left behind.
package enum BatchFolder {
  static let lockName = ".loopsmith-lock"
  static let temporarySuffix = ".loopsmith-tmp"

  /// Runs `body` holding an exclusive `flock` on `DIR/.loopsmith-lock` (created when missing).
  /// The lock goes with the process: a batch killed while holding it blocks no one.
  static func withLock<T>(_ dir: String, _ body: () throws -> T) throws -> T {
    let path = (dir as NSString).appendingPathComponent(lockName)
    let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw RenderFailure("\(path): cannot open the lock file: \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    while flock(fd, LOCK_EX) != 0 {
      guard errno == EINTR else {
        throw RenderFailure("\(path): cannot lock the output folder: \(String(cString: strerror(errno)))")
      }
    }
    defer { flock(fd, LOCK_UN) }
    return try body()
  }

  /// The process id in a temporary's name, `.NAME.PID-N.loopsmith-tmp` (N: any text without a
  /// dot), or nil for a name of another shape.
  static func owner(ofTemporary name: String) -> pid_t? {
    guard name.hasPrefix("."), name.hasSuffix(temporarySuffix) else { return nil }
    let stem = name.dropLast(temporarySuffix.count)
    guard let dot = stem.lastIndex(of: ".") else { return nil }
    let tail = stem[stem.index(after: dot)...]
    guard let dash = tail.firstIndex(of: "-"), let pid = DecimalTextPID.parse(tail[..<dash]), pid > 0 else {
      return nil
    }
    return pid
  }

  /// Removes the temporaries in `dir`, `dir/posters` and `dir/segments` whose process is gone (SIGKILL, SIGHUP
  /// before handlers, a power cut). A temporary of a live process, ours included, or of a name
  /// without a process id, is left alone. Returns the names removed.
  @discardableResult
  static func removeStaleTemporaries(in dir: String) -> [String] {
    var removed: [String] = []
    for folder in [dir] + ["posters", "segments"].map({ (dir as NSString).appendingPathComponent($0) }) {
      guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
      for name in names {
        guard let pid = owner(ofTemporary: name), pid != getpid(), !isAlive(pid) else { continue }
        let path = (folder as NSString).appendingPathComponent(name)
        var info = stat()
        // Only files and links (unlink removes a link, not what it points at); never a folder.
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG || info.st_mode & S_IFMT == S_IFLNK else {
          continue
        }
        if unlink(path) == 0 { removed.append(name) }
      }
    }
    return removed
  }

  /// Whether a process with this id exists (on this machine).
  static func isAlive(_ pid: pid_t) -> Bool {
    kill(pid, 0) == 0 || errno == EPERM
  }

  /// `text` from a manifest (a shard's, perhaps hostile) as one line for a terminal: control
  /// characters, escape sequences' ESC among them, become U+FFFD.
  package static func printable(_ text: String) -> String {
    String(
      String.UnicodeScalarView(
        text.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "\u{FFFD}" : $0 }))
  }

  /// Writes the manifest of `dir` as what is there merged with `entries`, under the lock: the
  /// entries of `presets`, and those `replacing` picks, are replaced by `entries`; every other
  /// preset's entries stay (another batch's, a subset not re-run, other parts of a split preset),
  /// except those naming a path an entry of `entries` names now, or a file that is no longer
  /// there. Returns the manifest written.
  @discardableResult
  static func mergeManifest(
    _ dir: String, presets: Set<String>, entries: [BatchEntry], replacing: ((BatchEntry) -> Bool)? = nil,
    gallery: Bool = false
  ) throws -> BatchManifest {
    try withLock(dir) {
      let existing = try BatchManifest.read(dir: dir)?.entries ?? []
      let claimed = Set(entries.compactMap(\.path))
      let kept = existing.filter { e in
        guard !presets.contains(e.preset), !(replacing?(e) ?? false) else { return false }
        guard let path = e.path else { return true }
        if claimed.contains(path) { return false }
        return e.status == .failed
          || FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent(path))
      }
      let manifest = BatchManifest(entries: kept + entries)
      try manifest.write(dir: dir)
      if gallery { try Gallery.write(manifest, dir: dir) }
      return manifest
    }
  }
}

/// A process id written in decimal.
private enum DecimalTextPID {
  static func parse(_ s: Substring) -> pid_t? {
    guard !s.isEmpty, s.count <= 10, s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
    return pid_t(s)
  }
}
