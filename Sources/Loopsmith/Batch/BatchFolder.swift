import Foundation
import Video

/// The shared state of a batch's output folder: a lock file that serializes every change to the
/// manifest (batches running at once into one `--out` each keep their entries), the manifest merged
/// under it, and the removal of temporaries that dead processes left behind.
package enum BatchFolder {
  static let lockName = ".loopsmith-lock"
  static let temporarySuffix = ".loopsmith-tmp"

  /// Runs `body` holding an exclusive `flock` on `DIR/.loopsmith-lock` (created when missing).
  /// The lock goes with the process: a batch killed while holding it blocks no one.
  ///
  /// The wait for another batch's lock is a poll (`LOCK_NB` every 20 ms) that hears SIGINT,
  /// SIGTERM and SIGHUP: those are taken by a thread of their own (`Cancellation`), so a blocking
  /// `flock` here would never see EINTR and a stopped batch would wait for the other one to end.
  /// A batch already stopping (writing what it finished into the manifest) waits up to a second.
  static func withLock<T>(_ dir: String, _ body: () throws -> T) throws -> T {
    let path = (dir as NSString).appendingPathComponent(lockName)
    let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw RenderFailure("\(path): cannot open the lock file: \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    let stopping = Cancellation.signal != nil
    let start = Date()
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      guard errno == EWOULDBLOCK || errno == EINTR else {
        throw RenderFailure("\(path): cannot lock the output folder: \(String(cString: strerror(errno)))")
      }
      if !stopping || Date().timeIntervalSince(start) > 1 { try Cancellation.check() }
      usleep(20_000)
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

  /// Removes the temporaries in `dir`, `dir/posters` and `dir/segments` that no process owns any
  /// more (SIGKILL, SIGHUP before handlers, a power cut): those whose `flock` can be taken at once
  /// (`TemporaryFile`), which holds across PID namespaces and machines sharing the folder, where a
  /// process id means nothing. A temporary whose process id is alive here, ours included, is left
  /// even when unlocked (a loopsmith from before the lock, or one between creating and locking),
  /// and so is a name without a process id. Returns the names removed.
  @discardableResult
  static func removeStaleTemporaries(in dir: String) -> [String] {
    var removed: [String] = []
    for folder in [dir] + ["posters", "segments"].map({ (dir as NSString).appendingPathComponent($0) }) {
      guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
      for name in names {
        guard let pid = owner(ofTemporary: name), pid != getpid(), !isAlive(pid) else { continue }
        if TemporaryFile.removeIfUnowned((folder as NSString).appendingPathComponent(name)) { removed.append(name) }
      }
    }
    return removed
  }

  /// Whether a process with this id exists in this PID namespace; elsewhere it may be another one.
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
    _ dir: String, presets: Set<ExactName>, entries: [BatchEntry], replacing: ((BatchEntry) -> Bool)? = nil,
    gallery: Bool = false
  ) throws -> BatchManifest {
    try withLock(dir) {
      let existing = try BatchManifest.read(dir: dir)?.entries ?? []
      let claimed = Set(entries.compactMap { $0.path.map(ExactName.path) })
      let kept = existing.filter { e in
        guard !presets.contains(ExactName(e.preset)), !(replacing?(e) ?? false) else { return false }
        guard let path = e.path else { return true }
        if claimed.contains(ExactName.path(path)) { return false }
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

/// A name or a path compared byte for byte, as the file system compares it.
///
/// Swift's `==` on `String` (and so `Set<String>`, a `[String: …]` key) takes canonically
/// equivalent spellings as one: NFC "é" (U+00E9) and NFD "e\u{301}" are equal strings, yet two
/// files, and a preset of each name would be skipped or lose its manifest entry. Paths are first
/// normalized (`path`), so "./a.mp4" and "a.mp4", which name one file, are one.
package struct ExactName: Hashable, Comparable, Sendable, CustomStringConvertible {
  package let text: String
  package let bytes: [UInt8]

  package init(_ text: String) { (self.text, bytes) = (text, Array(text.utf8)) }

  /// A relative path with empty and `.` components dropped (`./a//b` is `a/b`); `..` is refused
  /// where manifests and presets are read (`Confinement`), so it is not resolved here.
  package static func path(_ text: String) -> ExactName { ExactName(normalized(text)) }

  package static func normalized(_ path: String) -> String {
    let parts = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
    return parts.isEmpty ? path : parts.joined(separator: "/")
  }

  /// String order (what sorted names, and so shards, always followed), then bytes between two
  /// spellings String takes as one.
  package static func < (a: ExactName, b: ExactName) -> Bool {
    a.text < b.text || (!(b.text < a.text) && a.bytes.lexicographicallyPrecedes(b.bytes))
  }
  package var description: String { text }
}

extension String {
  /// Whether two names are the same bytes (see `ExactName`).
  package func isExactly(_ other: String?) -> Bool { other.map { Array(utf8) == Array($0.utf8) } ?? false }
}
