import Effects
import Foundation
import Loopsmith
import Video

/// One command-line option: its names, whether it takes a value, and its help.
struct OptionSpec {
  let long: String
  let short: Character?
  let value: String?  // the value's placeholder, or nil for a flag
  let help: String
  let repeatable: Bool
  /// The value may be left out (`--poster` alone is ""): the next word is the value only when it
  /// ends in one of these extensions.
  var optionalValueExtensions: [String]? = nil
  /// The values a shell completes after the flag (a choice setting's names), or nil.
  var choices: [String]? = nil

  init(_ long: String, short: Character? = nil, value: String? = nil, repeatable: Bool = false, _ help: String) {
    (self.long, self.short, self.value, self.help, self.repeatable) = (long, short, value, help, repeatable)
  }

  /// A render setting's flag, from its row of the table.
  init(setting: RenderSetting) {
    var repeatable = false
    var takesValue = true
    switch setting.kind {
    case .outputs: repeatable = true
    case .toggle: takesValue = false
    default: break
    }
    self.init(
      setting.flag, short: setting.short, value: takesValue ? setting.placeholder : nil, repeatable: repeatable,
      setting.helpLine)
    if setting.valueOptional { optionalValueExtensions = [".png", ".jpg", ".jpeg", ".webp"] }
    if case .choice(let names) = setting.kind { choices = names }
    if case .integers(let values) = setting.kind { choices = values.map(String.init) }
  }
}

/// Arguments split into positionals and options, checked against a table.
struct ParsedArguments {
  var positionals: [String] = []
  /// Values in order of appearance, per long name ("" for flags).
  var options: [String: [String]] = [:]
  /// How each value's flag was typed (`-o`, `--output`), in the same order.
  var typed: [String: [String]] = [:]

  /// Each value of `--name` with the flag as typed, the last given first.
  func occurrences(_ name: String) -> [(typed: String, value: String)] {
    Array(zip(typed[name] ?? [], options[name] ?? []).reversed())
  }

  func has(_ name: String) -> Bool { options[name] != nil }
  func last(_ name: String) -> String? { options[name]?.last }
  func all(_ name: String) -> [String] { options[name] ?? [] }

  /// The last value of `--name` as a whole number, nil when absent.
  func int(_ name: String) throws -> Int? {
    guard let v = last(name) else { return nil }
    guard let n = DecimalText.int(v) else {
      throw InputError("--\(name): '\(v)' is not valid; expected a whole number")
    }
    return n
  }

  /// The last value of `--name` as a finite number, nil when absent.
  func double(_ name: String) throws -> Double? {
    guard let v = last(name) else { return nil }
    guard let n = DecimalText.double(v) else {
      throw InputError("--\(name): '\(v)' is not valid; expected a decimal number, like 2.5")
    }
    return n
  }

  /// Parses `--name value`, `--name=value`, `-o value`, flags, and `--` ending options.
  init(_ args: [String], specs: [OptionSpec]) throws {
    var i = 0
    var onlyPositionals = false
    func spec(long: String) -> OptionSpec? { specs.first { $0.long == long } }
    while i < args.count {
      let arg = args[i]
      i += 1
      if onlyPositionals || arg == "-" || !arg.hasPrefix("-") || DecimalText.double(arg) != nil {
        positionals.append(arg)
        continue
      }
      if arg == "--" { onlyPositionals = true; continue }
      var name: String
      var inline: String?
      var typedName = arg
      if arg.hasPrefix("--") {
        let body = arg.dropFirst(2)
        if let eq = body.firstIndex(of: "=") {
          name = String(body[..<eq])
          inline = String(body[body.index(after: eq)...])
          typedName = "--" + name
        } else {
          name = String(body)
        }
      } else {
        guard arg.count == 2, let s = specs.first(where: { $0.short == arg.last }) else {
          throw InputError("Unknown option '\(arg)'.\(Self.hint(arg, specs))")
        }
        name = s.long
      }
      guard let s = spec(long: name) else {
        throw InputError("Unknown option '--\(name)'.\(Self.hint("--" + name, specs))")
      }
      if let placeholder = s.value {
        let value: String
        if let inline {
          value = inline
        } else if let extensions = s.optionalValueExtensions {
          let next = i < args.count ? args[i].lowercased() : ""
          if !Self.isOption(next), extensions.contains(where: { next.hasSuffix($0) }) {
            value = args[i]
            i += 1
          } else if !Self.isOption(next), case let ext = (next as NSString).pathExtension, !ext.isEmpty, ext != "json" {
            // `--poster p.gif` is a poster in a format a still cannot be, not a second preset
            // (a preset ends in .json, an effect's name has no extension).
            let animated = OutputFormat.extensions.contains(ext) ? " (an animated .\(ext) is -o \(args[i]))" : ""
            throw InputError(
              "\(typedName): '\(args[i])' is not a still's path; expected one ending in "
                + extensions.joined(separator: ", ") + animated)
          } else {
            value = ""
          }
        } else {
          // The next word is the value unless it is another option: `--size -o a.mp4` is a missing
          // size, not a size of '-o'. A negative number is a value (`-1`, `-2x32`), and so is '-'.
          guard i < args.count, !Self.isOption(args[i]) else {
            throw InputError("Missing value for '\(typedName)'; expected \(placeholder).")
          }
          value = args[i]
          i += 1
        }
        if !s.repeatable, options[name] != nil {
          throw InputError("'--\(name)' given twice; expected it once.")
        }
        options[name, default: []].append(value)
        typed[name, default: []].append(typedName)
      } else {
        guard inline == nil else { throw InputError("'--\(name)' takes no value; got '\(inline!)'.") }
        options[name, default: []].append("")
        typed[name, default: []].append(typedName)
      }
    }
  }

  /// Whether a word is a flag (`--fps`, `-o`) rather than a value (`-`, `-1.5`, `-2x32`, `-inf`).
  static func isOption(_ word: String) -> Bool {
    if word.hasPrefix("--") { return true }
    guard word.hasPrefix("-"), word.count >= 2, Double(word) == nil else { return false }
    return word.dropFirst().first!.isLetter
  }

  /// The nearest flag; else, where `--set` is taken, the effect parameter the word is nearest
  /// (`--colour` is `--set colors=...`: parameters are no flags of their own).
  static func hint(_ given: String, _ specs: [OptionSpec]) -> String {
    let flag = didYouMean(given, in: specs.map { "--" + $0.long })
    guard flag.isEmpty, given.hasPrefix("--"), specs.contains(where: { $0.long == "set" }) else { return flag }
    var names: [String] = []
    for type in EffectRegistry.all {
      for p in type.info.parameters where !names.contains(p.name) { names.append(p.name) }
    }
    guard let name = suggestion(for: String(given.dropFirst(2)), in: names) else { return "" }
    // A closure, not a key path: the compiler crashes lowering `\.info.name` on the effect types.
    let owners = EffectRegistry.all.filter { $0.info.parameter(named: name) != nil }.map { $0.info.name }
    return " Did you mean '--set \(name)=...'? (a parameter of \(owners.joined(separator: ", ")))"
  }
}

/// Help in swift-argument-parser's layout: USAGE, ARGUMENTS, OPTIONS, aligned, help last.
func helpText(usage: String, overview: String, arguments: [(String, String)], options: [OptionSpec]) -> String {
  var lines = ["OVERVIEW: \(overview)", "", "USAGE: \(usage)", ""]
  if !arguments.isEmpty {
    lines.append("ARGUMENTS:")
    let w = arguments.map(\.0.count).max()! + 2
    for (name, help) in arguments { lines.append("  " + name.padding(toLength: w, withPad: " ", startingAt: 0) + help) }
    lines.append("")
  }
  lines.append("OPTIONS:")
  let labels = options.map { o -> String in
    let short = o.short.map { "-\($0), " } ?? ""
    return short + "--" + o.long + (o.value.map { " <\($0)>" } ?? "")
  }
  let all = labels + ["-h, --help"]
  let w = all.map(\.count).max()! + 2
  for (label, o) in zip(labels, options) {
    lines.append("  " + label.padding(toLength: w, withPad: " ", startingAt: 0) + o.help)
  }
  lines.append("  " + "-h, --help".padding(toLength: w, withPad: " ", startingAt: 0) + "Show help information.")
  return lines.joined(separator: "\n")
}
