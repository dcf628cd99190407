import Effects
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

extension PresetSearch {
  /// What `render NAME` and `plan NAME` mean by a word that is no preset file: an effect, or a
  /// preset found by name.
  enum Target: Equatable {
    case effect(String)
    case preset(path: String)
  }

  /// The effect or preset `word` names: an effect's name, then a preset's, exactly; then either
  /// without regard to case when only one answers (`Weather`, `weather-clearday`, as weather names
  /// are matched); else an error naming the effects, the folders searched and the nearest name.
  static func resolve(
    _ word: String, environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws
    -> Target
  {
    if EffectRegistry.names.contains(word) { return .effect(word) }
    if let path = find(word, environment: environment) { return .preset(path: path) }
    let presets = all(environment: environment)
    let key = word.lowercased()
    let effects = EffectRegistry.names.filter { $0.lowercased() == key }
    let named = presets.filter { $0.name.lowercased() == key }
    switch (effects.count, named.count) {
    case (1, 0): return .effect(effects[0])
    case (0, 1): return .preset(path: named[0].path)
    case (0, 0): break
    default:
      let all = effects.map { "the effect \($0)" } + named.map { "the preset \($0.name) (\($0.path))" }
      throw InputError(
        "'\(word)' matches \(all.joined(separator: " and ")) when case is ignored; expected one of them spelled exactly"
      )
    }
    let searched = folders(environment: environment).map { folder -> String in
      var isDir: ObjCBool = false
      return FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) && isDir.boolValue
        ? folder : "\(folder) (no such folder)"
    }
    let hint = didYouMean(word, in: EffectRegistry.names + presets.map(\.name))
    throw InputError(
      "unknown effect '\(word)'; expected one of \(EffectRegistry.names.joined(separator: ", ")), "
        + "or the name of a preset in \(searched.joined(separator: ", ")) "
        + "(\(presets.count) preset\(presets.count == 1 ? "" : "s"), none named '\(word)').\(hint)")
  }
}
