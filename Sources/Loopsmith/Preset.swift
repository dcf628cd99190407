import Effects
import Foundation

/// A preset file: everything `render` takes, as JSON. The file name is the preset's name.
///
/// Unknown keys are errors that name the key path, never silently ignored.
public struct Preset: Sendable {
  public static let version = 1
  public static let keys = [
    "version", "description", "effect", "parameters", "size", "fps", "duration", "time", "still", "scale",
    "outputs", "codec", "crf", "bitDepth", "background", "appearance", "palette", "rtl", "maxSpeedChange",
    "audio", "levels", "transition",
  ]

  public var name: String
  public var path: String
  public var description: String?
  public var request: RenderRequest

  /// Reads and checks a preset file; errors name the file and the key path.
  public static func load(path: String) throws -> Preset {
    let url = URL(fileURLWithPath: path)
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else {
      throw InputError("\(path): no such preset file")
    }
    // Sized before reading: a 10 GiB file or /dev/zero named .json must not be read to find out.
    let attributes = try? FileManager.default.attributesOfItem(atPath: URL(fileURLWithPath: path).resolvingSymlinksInPath().path)  // a symlinked preset is fine
    guard attributes?[.type] as? FileAttributeType == .typeRegular, let size = (attributes?[.size] as? NSNumber)?.intValue else {
      throw InputError("\(path): not a regular file; expected a JSON preset file")
    }
    guard size <= 1 << 20 else { throw InputError("\(path): \(size) bytes; expected a preset under 1 MiB") }
    guard size > 0 else { throw InputError("\(path): empty file; expected a JSON object") }
    guard let data = try? Data(contentsOf: url) else { throw InputError("\(path): cannot read the file") }
    let name = url.deletingPathExtension().lastPathComponent
    return try decode(data, name: name, path: path)
  }

  /// Decodes preset JSON.
  public static func decode(_ data: Data, name: String, path: String) throws -> Preset {
    guard String(data: data, encoding: .utf8) != nil else { throw InputError("\(path): not UTF-8 text; expected a JSON object") }
    let json: Any
    do {
      json = try JSONSerialization.jsonObject(with: data, options: [])
    } catch {
      throw InputError("\(path): not valid JSON (\((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "parse error")); expected a JSON object")
    }
    guard let object = json as? [String: Any] else { throw InputError("\(path): expected a JSON object at the top level") }
    func fail(_ key: String, _ expected: String) -> InputError {
      InputError("\(path): '\(key)': expected \(expected)")
    }
    for key in object.keys.sorted() where !keys.contains(key) {
      let hint = didYouMean(key, in: keys)
      throw InputError("\(path): unknown key '\(key)'.\(hint)")
    }
    if let v = object["version"] {
      guard let n = v as? NSNumber, !isBool(n), n.doubleValue == Double(version) else {
        throw fail("version", "\(version)")
      }
    }
    var r = RenderRequest()
    func string(_ key: String) throws -> String? {
      guard let v = object[key] else { return nil }
      guard let s = v as? String else { throw fail(key, "a string") }
      return s
    }
    func number(_ key: String) throws -> Double? {
      guard let v = object[key] else { return nil }
      guard let n = v as? NSNumber, !isBool(n), n.doubleValue.isFinite else { throw fail(key, "a number") }
      return n.doubleValue
    }
    func integer(_ key: String) throws -> Int? {
      guard let d = try number(key) else { return nil }
      guard d == d.rounded(), abs(d) < 1e9 else { throw fail(key, "a whole number") }
      return Int(d)
    }
    func bool(_ key: String) throws -> Bool? {
      guard let v = object[key] else { return nil }
      guard let n = v as? NSNumber, isBool(n) else { throw fail(key, "true or false") }
      return n.boolValue
    }
    guard let effect = try string("effect") else { throw InputError("\(path): missing key 'effect'; expected one of \(EffectRegistry.names.joined(separator: ", "))") }
    r.effect = effect
    let description = try string("description")
    if let v = object["size"] {
      if let s = v as? String {
        r.size = try parseSize(s, field: "\(path): 'size'")
      } else if let a = v as? [NSNumber], a.count == 2, a.allSatisfy({ !isBool($0) && $0.doubleValue == $0.doubleValue.rounded() && abs($0.doubleValue) < 1e6 }) {
        r.size = (a[0].intValue, a[1].intValue)
      } else {
        throw fail("size", "\"WxH\" or [width, height] in pixels")
      }
    }
    r.fps = try integer("fps")
    r.duration = try number("duration")
    r.time = try number("time")
    r.still = try bool("still")
    r.scale = try number("scale")
    r.codec = try string("codec")
    r.crf = try integer("crf")
    r.bitDepth = try integer("bitDepth")
    r.background = try string("background")
    r.rightToLeft = try bool("rtl")
    r.maxSpeedChange = try number("maxSpeedChange")
    // Files a preset names sit beside it: a relative path is read from the preset's folder.
    func besideThePreset(_ file: String?) -> String? {
      guard let file, !file.hasPrefix("/") else { return file }
      return ((path as NSString).deletingLastPathComponent as NSString).appendingPathComponent(file)
    }
    r.audio = besideThePreset(try string("audio"))
    r.levels = besideThePreset(try string("levels"))
    if let v = object["transition"] {
      // "rain:snow" or ["rain", "snow"]; the names are checked with the effect's own.
      if let text = v as? String {
        r.transition = text
      } else if let pair = v as? [String], pair.count == 2 {
        r.transition = pair.joined(separator: ":")
      } else {
        throw fail("transition", "\"from:to\" or [from, to], two weathers or voice states")
      }
    }
    if let a = try string("appearance") {
      guard let v = Appearance(rawValue: a) else { throw fail("appearance", "light or dark") }
      r.appearance = v
    }
    if let p = try string("palette") {
      guard let v = PaletteVersion(rawValue: p) else { throw fail("palette", "ios26 or ios18") }
      r.palette = v
    }
    if let v = object["outputs"] {
      guard let a = v as? [String], !a.isEmpty, a.count <= 16 else { throw fail("outputs", "a list of 1 to 16 file names") }
      for o in a where o.contains("/") || o.hasPrefix(".") || o.isEmpty {
        throw InputError("\(path): 'outputs': '\(o)' must be a plain file name (no folders), written beside the preset's other outputs")
      }
      r.outputs = a
    }
    if let v = object["parameters"] {
      guard let params = v as? [String: Any] else { throw fail("parameters", "an object of parameter names and values") }
      let type: any Effect.Type
      do { type = try RenderRequest.effectType(effect) } catch let e as InputError { throw InputError("\(path): 'effect': \(e)") }
      for key in params.keys.sorted() {
        guard let spec = type.info.parameter(named: key) else {
          let names = type.info.parameters.map(\.name)
          let hint = didYouMean(key, in: names)
          throw InputError("\(path): unknown key 'parameters.\(key)'.\(hint)")
        }
        do {
          r.parameters[key] = try parameterValue(params[key]!, spec: spec)
        } catch let e as ParameterError {
          throw InputError("\(path): 'parameters.\(key)': \(e.given.isEmpty ? "" : "'\(e.given)' is not valid; ")expected \(e.expected)")
        }
      }
    }
    return Preset(name: name, path: path, description: description, request: r)
  }

  /// A JSON value as the parameter's text form, then parsed by the parameter's own rules.
  static func parameterValue(_ value: Any, spec: ParameterSpec) throws -> ParameterValue {
    switch value {
    case let n as NSNumber where isBool(n):
      return try spec.parse(n.boolValue ? "true" : "false")
    case let n as NSNumber:
      return try spec.parse(ParameterValue.format(n.doubleValue))
    case let s as String:
      return try spec.parse(s)
    case let a as [String]:
      return try spec.parse(a.joined(separator: ","))
    case let a as [[String: Any]]:
      let parts = a.map { step -> String in
        let v = step["value"] as? String ?? step["weather"] as? String ?? step["state"] as? String ?? "?"
        let s = (step["seconds"] as? NSNumber).map { ParameterValue.format($0.doubleValue) } ?? "?"
        return "\(v):\(s)"
      }
      return try spec.parse(parts.joined(separator: ","))
    default:
      return try spec.parse("")
    }
  }

  static func isBool(_ n: NSNumber) -> Bool { String(describing: type(of: n)).contains("Boolean") }
}

/// `WxH` in pixels.
func parseSize(_ text: String, field: String) throws -> (Int, Int) {
  let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
  guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
    throw InputError("\(field): '\(text)' is not valid; expected WxH in pixels, like 1080x1920")
  }
  return (w, h)
}
