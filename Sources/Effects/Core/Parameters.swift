import Foundation
import Raster

/// What a parameter holds.
public enum ParameterKind: Hashable, Sendable {
  /// A finite number within `range`.
  case number(ClosedRange<Double>)
  /// One color: `#RRGGBB`, `#RRGGBBAA` or a system color name.
  case color
  /// A comma-separated list of colors, at least `min` and at most `max`.
  case colors(min: Int, max: Int)
  /// One of the named options.
  case choice([String])
  case flag
  /// Steps of a sequence: `name:seconds,name:seconds`, names from the options.
  case steps([String])
}

/// A parameter's value.
public enum ParameterValue: Hashable, Sendable, CustomStringConvertible {
  case number(Double)
  case color(ColorValue)
  case colors([ColorValue])
  case choice(String)
  case flag(Bool)
  case steps([Step])

  public struct Step: Hashable, Sendable, Codable {
    public var value: String
    public var seconds: Double
    public init(value: String, seconds: Double) { (self.value, self.seconds) = (value, seconds) }
  }

  public var description: String {
    switch self {
    case .number(let v): ParameterValue.format(v)
    case .color(let c): c.description
    case .colors(let cs): cs.map(\.description).joined(separator: ",")
    case .choice(let s): s
    case .flag(let b): b ? "true" : "false"
    case .steps(let steps): steps.map { "\($0.value):\(ParameterValue.format($0.seconds))" }.joined(separator: ",")
    }
  }

  public static func format(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
  }
}

/// One row of an effect's parameter table: it drives `--set`, presets, `loopsmith list` and the
/// JSON Schema, so they cannot drift apart.
public struct ParameterSpec: Hashable, Sendable {
  public var name: String
  public var kind: ParameterKind
  /// The seed's default.
  public var defaultValue: ParameterValue
  public var help: String

  public init(_ name: String, _ kind: ParameterKind, default value: ParameterValue, help: String) {
    (self.name, self.kind, self.defaultValue, self.help) = (name, kind, value, help)
  }

  /// What a value must look like, for error messages and help.
  public var expected: String {
    switch kind {
    case .number(let r):
      "a number from \(ParameterValue.format(r.lowerBound)) to \(ParameterValue.format(r.upperBound))"
    case .color: "a color: #RRGGBB, #RRGGBBAA (the # may be left out) or one of \(Self.colorNames)"
    case .colors(let lo, let hi):
      "\(lo) to \(hi) comma-separated colors, each #RRGGBB, #RRGGBBAA (the # may be left out) or one of \(Self.colorNames)"
    case .choice(let options): "one of \(options.joined(separator: ", "))"
    case .flag: "true or false"
    case .steps(let options):
      "steps like name:seconds,name:seconds with names from \(options.joined(separator: ", ")) and seconds above 0"
    }
  }

  static var colorNames: String { SystemColor.allCases.map(\.rawValue).joined(separator: ", ") }

  /// Why one entry is no color, for the error: the nearest name when it looks like a misspelt one.
  static func notAColor(_ entry: String) -> String {
    let names = SystemColor.allCases.map(\.rawValue)
    let near = colorSuggestion(entry, names).map { "; did you mean '\($0)'?" } ?? ""
    return "'\(entry)' is not a color\(near)"
  }

  /// The name nearest `word` (one edit, two past six letters; two letters swapped are one), or nil.
  static func colorSuggestion(_ word: String, _ names: [String]) -> String? {
    func distance(_ a: [Character], _ b: [Character]) -> Int {
      var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
      for i in 0...a.count { d[i][0] = i }
      for j in 0...b.count { d[0][j] = j }
      for i in stride(from: 1, through: a.count, by: 1) {
        for j in stride(from: 1, through: b.count, by: 1) {
          d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
          if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
        }
      }
      return d[a.count][b.count]
    }
    let w = Array(word.lowercased())
    guard w.count <= 20 else { return nil }
    let limit = w.count > 6 ? 2 : 1
    let best = names.map { ($0, distance(w, Array($0))) }.min { $0.1 < $1.1 }
    return best.flatMap { $0.1 <= limit ? $0.0 : nil }
  }

  /// Parses a value given as text (`--set name=value`).
  public func parse(_ text: String) throws -> ParameterValue {
    let t = text.trimmingCharacters(in: .whitespaces)
    switch kind {
    case .number(let range):
      guard let v = DecimalText.double(t) else { throw ParameterError(self, given: text) }
      guard range.contains(v) else { throw ParameterError(self, given: text) }
      return .number(v)
    case .color:
      guard let c = ParameterSpec.parseColor(t) else {
        throw ParameterError(self, given: text, detail: ParameterSpec.notAColor(t))
      }
      return .color(c)
    case .colors(let lo, let hi):
      let parts = t.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
      var out: [ColorValue] = []
      for part in parts {
        let entry = part.trimmingCharacters(in: .whitespaces)
        guard let c = ParameterSpec.parseColor(entry) else {
          throw ParameterError(self, given: text, detail: ParameterSpec.notAColor(entry))
        }
        out.append(c)
      }
      guard out.count >= lo, out.count <= hi else {
        throw ParameterError(self, given: text, detail: "\(out.count) colors")
      }
      return .colors(out)
    case .choice(let options):
      guard let match = ParameterSpec.match(t, options) else { throw ParameterError(self, given: text) }
      return .choice(match)
    case .flag:
      switch t.lowercased() {
      case "true", "yes", "1", "on": return .flag(true)
      case "false", "no", "0", "off": return .flag(false)
      default: throw ParameterError(self, given: text)
      }
    case .steps(let options):
      var steps: [ParameterValue.Step] = []
      for part in t.split(separator: ",", omittingEmptySubsequences: false) {
        let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
        guard pieces.count == 2,
          let name = ParameterSpec.match(String(pieces[0]).trimmingCharacters(in: .whitespaces), options),
          let seconds = DecimalText.double(pieces[1].trimmingCharacters(in: .whitespaces)), seconds > 0, seconds <= 3600
        else { throw ParameterError(self, given: text, detail: "'\(part)' is not name:seconds") }
        steps.append(.init(value: name, seconds: seconds))
      }
      guard !steps.isEmpty, steps.count <= 1000 else { throw ParameterError(self, given: text) }
      return .steps(steps)
    }
  }

  /// Checks a value that arrived typed (from a preset) against the kind.
  public func validate(_ value: ParameterValue) throws -> ParameterValue {
    switch (kind, value) {
    case (.number(let r), .number(let v)) where v.isFinite && r.contains(v): return value
    case (.color, .color): return value
    case (.colors(let lo, let hi), .colors(let cs)) where cs.count >= lo && cs.count <= hi: return value
    case (.colors, .color(let c)): return try validate(.colors([c]))
    case (.choice(let options), .choice(let s)):
      guard let m = ParameterSpec.match(s, options) else { throw ParameterError(self, given: s) }
      return .choice(m)
    case (.flag, .flag): return value
    case (.steps(let options), .steps(let steps)) where !steps.isEmpty:
      return .steps(
        try steps.map { step in
          guard let m = ParameterSpec.match(step.value, options), step.seconds.isFinite, step.seconds > 0,
            step.seconds <= 3600
          else {
            throw ParameterError(self, given: "\(step.value):\(step.seconds)")
          }
          return .init(value: m, seconds: step.seconds)
        })
    default: throw ParameterError(self, given: value.description)
    }
  }

  /// An option matched without regard to case, `-` or `_` (`clear-day` finds `clearDay`).
  static func match(_ text: String, _ options: [String]) -> String? {
    func fold(_ s: String) -> String { s.lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " } }
    let key = fold(text)
    return options.first { fold($0) == key }
  }

  /// `#RRGGBB`, `#RRGGBBAA`, either without its `#` (`ff0000`, as design tools copy it), or a
  /// system color name (`pink`; `grey` is `gray`).
  public static func parseColor(_ text: String) -> ColorValue? {
    let lower = text.lowercased()
    if let named = SystemColor(rawValue: lower == "grey" ? "gray" : lower) { return .system(named) }
    let hex = text.hasPrefix("#") ? text.dropFirst() : Substring(text)
    guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit), let v = UInt32(hex, radix: 16) else {
      return nil
    }
    let (rgb, a): (UInt32, UInt32) = hex.count == 6 ? (v, 255) : (v >> 8, v & 0xFF)
    return .rgb(Color(rgb255: Int(rgb >> 16 & 0xFF), Int(rgb >> 8 & 0xFF), Int(rgb & 0xFF), alpha: Float(a) / 255))
  }
}

/// A parameter value that does not fit its parameter.
public struct ParameterError: Error, CustomStringConvertible, Sendable {
  public let parameter: String
  public let given: String
  public let expected: String
  public let detail: String?

  init(_ spec: ParameterSpec, given: String, detail: String? = nil) {
    parameter = spec.name
    self.given = given
    expected = spec.expected
    self.detail = detail
  }

  public var description: String {
    "parameter '\(parameter)': '\(given)' is not valid\(detail.map { " (\($0))" } ?? ""); expected \(expected)"
  }
}

/// The values of every parameter of an effect, defaults filled in.
public struct ParameterValues: Hashable, Sendable {
  public private(set) var values: [String: ParameterValue]

  /// The defaults of `specs`, overridden by `given` (already validated against the specs).
  public init(specs: [ParameterSpec], given: [String: ParameterValue] = [:]) {
    var v: [String: ParameterValue] = [:]
    for spec in specs { v[spec.name] = given[spec.name] ?? spec.defaultValue }
    values = v
  }

  public subscript(name: String) -> ParameterValue? { values[name] }

  public func number(_ name: String) -> Double {
    if case .number(let v)? = values[name] { return v }
    return 0
  }
  public func color(_ name: String, _ env: RenderEnvironment) -> Color {
    if case .color(let c)? = values[name] { return c.resolved(env) }
    return .clear
  }
  public func colors(_ name: String, _ env: RenderEnvironment) -> [Color] {
    if case .colors(let cs)? = values[name] { return cs.map { $0.resolved(env) } }
    return []
  }
  public func choice(_ name: String) -> String {
    if case .choice(let s)? = values[name] { return s }
    return ""
  }
  public func flag(_ name: String) -> Bool {
    if case .flag(let b)? = values[name] { return b }
    return false
  }
  public func steps(_ name: String) -> [ParameterValue.Step] {
    if case .steps(let s)? = values[name] { return s }
    return []
  }
}
