import Effects
import Foundation
import Video

/// A preset file: everything `render` takes, as JSON. The file name is the preset's name.
///
/// Unknown keys are errors that name the key path, never silently ignored.
public struct Preset: Sendable {
  public static let version = 1
  /// Every key a preset may hold: its own, then the render settings' (`RenderSetting.all`).
  public static let keys =
    ["$schema", "version", "description", "effect", "parameters"] + RenderSetting.all.compactMap(\.presetKey)

  public var name: String
  public var path: String
  public var description: String?
  public var request: RenderRequest

  /// Reads and checks a preset file; errors name the file and the key path.
  public static func load(path: String) throws -> Preset {
    let url = URL(fileURLWithPath: path)
    // Opened once, non-blocking, and sized before reading: a FIFO, a 10 GiB file or /dev/zero
    // named .json must not be read to find out.
    let data: Data
    do {
      data = try InputFile(path: path, limit: InputFile.Limit.preset, what: "preset file").readAll()
    } catch let e as VideoError {
      throw InputError(e.description)
    }
    guard !data.isEmpty else { throw InputError("\(path): empty file; expected a JSON object") }
    let name = url.deletingPathExtension().lastPathComponent
    return try decode(data, name: name, path: path)
  }

  /// Decodes preset JSON.
  public static func decode(_ data: Data, name: String, path: String) throws -> Preset {
    guard String(data: data, encoding: .utf8) != nil else {
      throw InputError("\(path): not UTF-8 text; expected a JSON object")
    }
    try StrictJSON.check(data, file: path)
    let json: Any
    do {
      json = try JSONSerialization.jsonObject(with: data, options: [])
    } catch {
      throw InputError(
        "\(path): not valid JSON (\((error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "parse error")); expected a JSON object"
      )
    }
    guard let object = json as? [String: Any] else {
      throw InputError("\(path): expected a JSON object at the top level")
    }
    func fail(_ key: String, _ expected: String) -> InputError {
      InputError("\(path): '\(key)': expected \(expected)")
    }
    for key in object.keys.sorted() where !keys.contains(key) {
      // A parameter of the effect put beside "effect" instead of inside "parameters".
      if let effect = object["effect"] as? String, let type = try? RenderRequest.effectType(effect),
        type.info.parameter(named: key) != nil
      {
        throw InputError(
          "\(path): unknown key '\(key)'; it is a parameter of \(type.info.name): expected it inside \"parameters\", as \"parameters\": {\"\(key)\": ...}"
        )
      }
      if let owner = EffectRegistry.all.first(where: { $0.info.parameter(named: key) != nil }) {
        throw InputError(
          "\(path): unknown key '\(key)'; it is a parameter of \(owner.info.name), not a preset key: expected it inside \"parameters\""
        )
      }
      let hint = didYouMean(key, in: keys)
      throw InputError("\(path): unknown key '\(key)'.\(hint)")
    }
    if let v = object["$schema"], !(v is String) {
      throw fail("$schema", "a string, the schema's URL or path (e.g. \"schema.json\")")
    }
    if let v = object["version"] {
      guard let n = v as? NSNumber, !isBool(n), n.doubleValue == Double(version) else {
        throw fail("version", "\(version)")
      }
    }
    var r = RenderRequest()
    guard let effect = object["effect"] else {
      throw InputError("\(path): missing key 'effect'; expected one of \(EffectRegistry.names.joined(separator: ", "))")
    }
    guard let effect = effect as? String else { throw fail("effect", "a string") }
    r.effect = effect
    var description: String?
    if let v = object["description"] {
      guard let s = v as? String else { throw fail("description", "a string") }
      description = s
    }
    for setting in RenderSetting.all {
      guard let key = setting.presetKey, let json = object[key] else { continue }
      var value = try setting.decode(json, field: "\(path): '\(key)'")
      if case .texts(let names) = value {
        for o in names where o.contains("/") || o.hasPrefix(".") || o.isEmpty {
          throw InputError(
            "\(path): '\(key)': '\(o)' must be a plain file name (no folders), written beside the preset's other outputs"
          )
        }
      }
      if setting.valueOptional, case .text(let o) = value, o.contains("/") || o.hasPrefix(".") {
        throw InputError("\(path): '\(key)': '\(o)' must be a plain file name (no folders), or true")
      }
      // Files a preset names sit beside it, confined to the preset's folder.
      if setting.isFile, case .text(let file) = value {
        value = .text(
          try Confinement.path(file, in: (path as NSString).deletingLastPathComponent, field: key, file: path))
      }
      setting.write(value, into: &r)
    }
    if let v = object["parameters"] {
      guard let params = v as? [String: Any] else {
        throw fail("parameters", "an object of parameter names and values")
      }
      let type: any Effect.Type
      do { type = try RenderRequest.effectType(effect) } catch let e as InputError {
        throw InputError("\(path): 'effect': \(e)")
      }
      for key in params.keys.sorted() {
        guard let spec = type.info.parameter(named: key) else {
          let names = type.info.parameters.map(\.name)
          let hint = didYouMean(key, in: names)
          throw InputError("\(path): unknown key 'parameters.\(key)'.\(hint)")
        }
        do {
          r.parameters[key] = try parameterValue(params[key]!, spec: spec)
        } catch let e as ParameterError {
          throw InputError(
            "\(path): 'parameters.\(key)': \(e.given.isEmpty ? "" : "'\(e.given)' is not valid\(e.detail.map { " (\($0))" } ?? ""); ")expected \(e.expected)"
          )
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

  static func isBool(_ n: NSNumber) -> Bool { Loopsmith.isBool(n) }
}

/// `WxH` in pixels.
package func parseSize(_ text: String, field: String, points: Bool = false) throws -> (Int, Int) {
  let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
  guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else {
    throw InputError(
      "\(field): '\(text)' is not valid; expected \(points ? "WxH in points, like 360x640" : "WxH in pixels, like 1080x1920")"
    )
  }
  return (w, h)
}
