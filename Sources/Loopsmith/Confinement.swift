import Foundation

/// Paths read from a file (a preset's `audio` and `levels`, a manifest's `path`) stay inside the
/// folder they are relative to.
///
/// A file someone else wrote must not make us read `/etc/shadow` into an error message, copy a file
/// from the working folder, or delete one outside `--out`. The rules: the path is relative, not
/// empty, without NUL or backslash, without a `..` component, and its real path (symlinks resolved,
/// as far as the path exists) stays inside the folder's real path.
enum Confinement {
  /// `folder/value` when `value` obeys the rules; otherwise an `InputError` (exit 2) naming `field`.
  /// `file` is the file `value` was read from, for the message.
  static func path(_ value: String, in folder: String, field: String, file: String) throws -> String {
    func refuse(_ rule: String) -> InputError {
      InputError(
        "\(file): '\(field)': \(rule); expected a relative path inside \(folder.isEmpty ? "the current folder" : folder)"
      )
    }
    guard !value.isEmpty else { throw refuse("an empty path") }
    guard !value.contains("\0") else { throw refuse("a path with a NUL character") }
    guard !value.hasPrefix("/") && !value.hasPrefix("~") else { throw refuse("an absolute path") }
    guard !value.contains("\\") else { throw refuse("a path with a backslash") }
    guard !value.split(separator: "/").contains("..") else { throw refuse("a path with '..'") }
    let base = folder.isEmpty ? "." : folder
    let joined = (folder as NSString).appendingPathComponent(value)
    // Checked from `base`, so a preset in the current folder ("p.json") resolves "a.csv" as "./a.csv".
    guard isInside((base as NSString).appendingPathComponent(value), folder: base) else {
      throw refuse("a path that leaves the folder through a symbolic link")
    }
    return joined
  }

  /// Whether the real path of `path` (of its longest existing prefix, the rest appended) lies in
  /// the real path of `folder`.
  static func isInside(_ path: String, folder: String) -> Bool {
    guard let root = realPath(folder) else { return false }
    let resolved = resolve(path)
    return resolved == root || resolved.hasPrefix(root == "/" ? "/" : root + "/")
  }

  /// The real path of the longest existing prefix of `path`, with the components that do not
  /// exist yet appended as they are (none of them is `..`: `path` was checked).
  static func resolve(_ path: String) -> String {
    var head = path
    var tail: [String] = []
    while true {
      if let real = realPath(head) {
        return ([real] + tail.reversed()).joined(separator: "/").replacingOccurrences(of: "//", with: "/")
      }
      let last = (head as NSString).lastPathComponent
      let parent = (head as NSString).deletingLastPathComponent
      if parent == head || parent.isEmpty { return path }
      tail.append(last)
      head = parent
    }
  }

  static func realPath(_ path: String) -> String? {
    guard let p = realpath(path, nil) else { return nil }
    defer { free(p) }
    return String(cString: p)
  }
}
