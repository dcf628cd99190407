import Foundation
import Loopsmith

/// Where `render NAME` and `list` look for presets: ./presets, then each folder of
/// `LOOPSMITH_PRESETS` (colon-separated), then PREFIX/share/loopsmith/presets beside the
/// executable (what `make install` puts there). The first folder holding a name wins.
enum PresetSearch {
  static func folders(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
    var out = ["presets"]
    if let list = environment["LOOPSMITH_PRESETS"] {
      out += list.split(separator: ":").map(String.init).filter { !$0.isEmpty }
    }
    // The executable's own path (a symbolic link in PREFIX/bin resolved), then ../share/loopsmith/presets.
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    out.append(
      exe.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("share/loopsmith/presets").path
    )
    return out
  }

  /// The preset file named `name` (a plain name, no folder or extension), or nil.
  static func find(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    guard !name.isEmpty, !name.hasPrefix("."), !name.contains("/"), !name.contains("\0"), name != "schema" else {
      return nil
    }
    for folder in folders(environment: environment) {
      let path = (folder as NSString).appendingPathComponent(name + ".json")
      var isDir: ObjCBool = false
      if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue { return path }
    }
    return nil
  }

  /// Every preset file in the folders, by name, the first folder's winning: (name, path).
  static func all(environment: [String: String] = ProcessInfo.processInfo.environment) -> [(name: String, path: String)]
  {
    var seen = Set<String>(), out: [(String, String)] = []
    for folder in folders(environment: environment) {
      guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder) else { continue }
      for file in files.sorted() where file.hasSuffix(".json") && file != "schema.json" && !file.hasPrefix(".") {
        let name = String(file.dropLast(5))
        if seen.insert(name).inserted { out.append((name, (folder as NSString).appendingPathComponent(file))) }
      }
    }
    return out.sorted { $0.0 < $1.0 }
  }
}
