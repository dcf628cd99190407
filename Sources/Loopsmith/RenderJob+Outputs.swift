import Foundation

extension RenderRequest {
  /// Refuses a file named twice among the outputs (`x.mp4`, `./x.mp4`, `dir/../x.mp4` or a
  /// symbolic link to it): two encoders would write the same file, the second replacing the first.
  static func refuseRepeatedOutputs(_ paths: [String]) throws {
    var seen: [String: String] = [:]
    for path in paths {
      let key = canonicalOutputPath(path)
      if let first = seen[key] {
        let spelled = first == path ? "'\(path)' is given twice" : "'\(first)' and '\(path)' name the same file"
        throw InputError("-o: \(spelled); expected each output once")
      }
      seen[key] = path
    }
  }

  /// The file `path` names: absolute, without `.` and `..`, with symbolic links in its existing
  /// part resolved. `-` (stdout) stays `-`.
  static func canonicalOutputPath(_ path: String) -> String {
    if path == "-" { return path }
    let url = URL(fileURLWithPath: path).standardizedFileURL
    // The whole path if the file exists (a link to another output), else its folder.
    for (candidate, tail) in [(url.path, ""), (url.deletingLastPathComponent().path, "/" + url.lastPathComponent)] {
      if let resolved = realpath(candidate, nil) {
        defer { free(resolved) }
        let base = String(cString: resolved)
        return (base == "/" && !tail.isEmpty ? "" : base) + tail
      }
    }
    return url.path
  }
}
