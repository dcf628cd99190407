import Effects
import Foundation
import Loopsmith

/// `loopsmith completions bash|zsh|fish`: a completion script for the shell, generated from the
/// command table and each command's options, so a new command, flag or choice completes without
/// a hand-kept list. Effects, the presets found now, codecs and every choice setting's names
/// complete; a flag that takes a path completes files.
enum CompletionsCommand {
  static let shells = ["bash", "zsh", "fish"]

  static var help: String {
    helpText(
      usage: "loopsmith completions <bash | zsh | fish>",
      overview: """
        Print a completion script for the shell. Install it once:
          bash: loopsmith completions bash > ~/.local/share/bash-completion/completions/loopsmith
          zsh:  loopsmith completions zsh > ~/.zfunc/_loopsmith (with ~/.zfunc on $fpath)
          fish: loopsmith completions fish > ~/.config/fish/completions/loopsmith.fish
        Preset names are those found when the script is made.
        """,
      arguments: [("<shell>", "bash, zsh or fish.")], options: [])
  }

  static func run(_ args: [String], stdout: TextSink) throws -> Int32 {
    let parsed = try ParsedArguments(args, specs: [])
    guard parsed.positionals.count == 1, let shell = parsed.positionals.first, shells.contains(shell) else {
      throw InputError(
        "completions takes one shell; got \(parsed.positionals.isEmpty ? "none" : "'\(parsed.positionals.joined(separator: " "))'"); expected one of \(shells.joined(separator: ", "))"
      )
    }
    let table = Table()
    switch shell {
    case "bash": stdout.write(bash(table))
    case "zsh": stdout.write(zsh(table))
    default: stdout.write(fish(table))
    }
    return 0
  }

  /// What each command completes: its flags, the values some flags take, and its positionals.
  struct Table {
    enum Positional { case effectsAndPresets, files, foldersAndPresets, commands, shells, none }
    struct Entry {
      var name: String
      var summary: String
      var options: [OptionSpec]
      var positional: Positional
    }
    var entries: [Entry]
    /// Effects and the presets found now, for `render` and `plan`.
    var names: [String]

    init() {
      let options: [String: [OptionSpec]] = [
        "render": RenderCommand.options, "batch": BatchCommand.options, "list": ListCommand.options,
        "plan": PlanCommand.options, "check": CheckCommand.options, "schema": [], "join": JoinCommand.options,
        "doctor": DoctorCommand.options, "completions": [],
      ]
      let positional: [String: Positional] = [
        "render": .effectsAndPresets, "plan": .effectsAndPresets, "batch": .foldersAndPresets, "check": .files,
        "join": .files, "completions": .shells,
      ]
      entries =
        CLI.commands.map {
          Entry(
            name: $0.name, summary: $0.summary, options: Self.withValues(options[$0.name] ?? []),
            positional: positional[$0.name] ?? .none)
        } + [Entry(name: "help", summary: "A command's help.", options: [], positional: .commands)]
      names = EffectRegistry.names + PresetSearch.all().map(\.name)
    }

    /// The shorthands' names (they are parameters, not settings) and the command-line flags' own.
    static func withValues(_ options: [OptionSpec]) -> [OptionSpec] {
      options.map { o in
        var o = o
        switch o.long {
        case "weather": o.choices = Weather.Kind.allCases.map(\.rawValue)
        case "state": o.choices = VoiceOrbState.allCases.map(\.rawValue)
        case "progress": o.choices = ["auto", "plain", "json", "none"]
        case "poster-format": o.choices = ["png", "jpg", "webp"]
        case "key-frames": o.choices = ["first", "segments"]
        default: break
        }
        return o
      }
    }

    static func takesPath(_ o: OptionSpec) -> Bool {
      ["file", "path", "video", "dir", "source"].contains(o.value ?? "")
    }
  }

  /// Single-quoted for a shell: names come from preset files anyone may have written.
  static func quoted(_ words: [String]) -> String {
    "'" + words.filter { $0.allSatisfy { $0.isLetter || $0.isNumber || "-_.+".contains($0) } }.joined(separator: " ")
      + "'"
  }

  static func bash(_ t: Table) -> String {
    var cases = ""
    for e in t.entries {
      var values = ""
      for o in e.options where o.value != nil {
        let flags = (["--" + o.long] + (o.short.map { ["-\($0)"] } ?? [])).joined(separator: "|")
        if let choices = o.choices {
          values += "        \(flags)) COMPREPLY=($(compgen -W \(quoted(choices)) -- \"$cur\")); return ;;\n"
        } else if Table.takesPath(o) {
          values += "        \(flags)) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
        } else {
          values += "        \(flags)) return ;;\n"
        }
      }
      let flags = e.options.flatMap { ["--" + $0.long] + ($0.short.map { ["-\($0)"] } ?? []) } + ["--help"]
      let positional: String
      switch e.positional {
      case .effectsAndPresets:
        positional =
          "COMPREPLY=($(compgen -W \(quoted(t.names)) -- \"$cur\") $(compgen -f -X '!*.json' -- \"$cur\") $(compgen -d -- \"$cur\"))"
      case .foldersAndPresets:
        positional = "COMPREPLY=($(compgen -d -- \"$cur\") $(compgen -f -X '!*.json' -- \"$cur\"))"
      case .files: positional = "COMPREPLY=($(compgen -f -- \"$cur\"))"
      case .commands: positional = "COMPREPLY=($(compgen -W \(quoted(t.entries.map(\.name))) -- \"$cur\"))"
      case .shells: positional = "COMPREPLY=($(compgen -W \(quoted(shells)) -- \"$cur\"))"
      case .none: positional = ""
      }
      cases += """
            \(e.name))
              case "$prev" in
        \(values)      esac
              if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \(quoted(flags)) -- "$cur")); return; fi
              \(positional)
              ;;

        """
    }
    return """
      # loopsmith completion for bash (loopsmith completions bash), generated from its command table.
      _loopsmith() {
        local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
        COMPREPLY=()
        if [[ $COMP_CWORD -eq 1 ]]; then
          COMPREPLY=($(compgen -W \(quoted(t.entries.map(\.name) + ["--version", "--help"])) -- "$cur"))
          return
        fi
        case ${COMP_WORDS[1]} in
      \(cases)  esac
      }
      complete -o filenames -F _loopsmith loopsmith

      """
  }

  static func zsh(_ t: Table) -> String {
    var cases = ""
    for e in t.entries {
      var specs: [String] = []
      for o in e.options {
        let description = o.help.split(separator: "\n").first.map(String.init) ?? ""
        let text = description.replacingOccurrences(of: "'", with: "'\\''").replacingOccurrences(of: "[", with: "(")
          .replacingOccurrences(of: "]", with: ")").replacingOccurrences(of: ":", with: " ")
        var action = ""
        if o.value != nil {
          if let choices = o.choices {
            action = ":\(o.value ?? "value"):(\(choices.joined(separator: " ")))"
          } else if Table.takesPath(o) {
            action = ":\(o.value ?? "path"):_files"
          } else {
            action = ":\(o.value ?? "value"): "
          }
        }
        let prefix = o.repeatable ? "*" : ""
        specs.append("'\(prefix)--\(o.long)[\(String(text.prefix(80)))]\(action)'")
        if let short = o.short { specs.append("'\(prefix)-\(short)[\(String(text.prefix(80)))]\(action)'") }
      }
      let positional: String
      switch e.positional {
      case .effectsAndPresets:
        positional =
          "'*:effect or preset:(\(t.names.filter { !$0.contains("'") }.joined(separator: " ")))' '*:preset file:_files -g \"*.json\"'"
      case .foldersAndPresets: positional = "'*:folder or preset:_files'"
      case .files: positional = "'*:file:_files'"
      case .commands: positional = "'1:command:(\(t.entries.map(\.name).joined(separator: " ")))'"
      case .shells: positional = "'1:shell:(\(shells.joined(separator: " ")))'"
      case .none: positional = ""
      }
      cases +=
        "    \(e.name)) _arguments \\\n      \((specs + [positional]).filter { !$0.isEmpty }.joined(separator: " \\\n      ")) ;;\n"
    }
    let commands = t.entries.map { "'\($0.name):\($0.summary.replacingOccurrences(of: "'", with: "'\\''"))'" }
    return """
      #compdef loopsmith
      # loopsmith completion for zsh (loopsmith completions zsh), generated from its command table.
      _loopsmith() {
        if (( CURRENT == 2 )); then
          local -a commands
          commands=(\(commands.joined(separator: " ")))
          _describe command commands
          return
        fi
        words=("${(@)words[2,-1]}")
        (( CURRENT-- ))
        case $words[1] in
      \(cases)  esac
      }
      _loopsmith "$@"

      """
  }

  static func fish(_ t: Table) -> String {
    func escaped(_ s: String) -> String {
      s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
    }
    var lines = [
      "# loopsmith completion for fish (loopsmith completions fish), generated from its command table.",
      "complete -c loopsmith -f",
    ]
    for e in t.entries {
      lines.append(
        "complete -c loopsmith -n '__fish_use_subcommand' -a '\(e.name)' -d '\(escaped(e.summary))'")
      let when = "-n '__fish_seen_subcommand_from \(e.name)'"
      for o in e.options {
        var line = "complete -c loopsmith \(when) -l \(o.long)"
        if let short = o.short { line += " -s \(short)" }
        if o.value != nil {
          line += " -r"
          if let choices = o.choices { line += " -a '\(choices.joined(separator: " "))'" }
          if Table.takesPath(o) { line += " -F" }
        }
        let help = o.help.split(separator: "\n").first.map(String.init) ?? ""
        lines.append(line + " -d '\(escaped(String(help.prefix(80))))'")
      }
      switch e.positional {
      case .effectsAndPresets:
        lines.append(
          "complete -c loopsmith \(when) -a '\(t.names.filter { !$0.contains("'") }.joined(separator: " "))' -F")
      case .foldersAndPresets, .files: lines.append("complete -c loopsmith \(when) -F")
      case .commands: lines.append("complete -c loopsmith \(when) -a '\(t.entries.map(\.name).joined(separator: " "))'")
      case .shells: lines.append("complete -c loopsmith \(when) -a '\(shells.joined(separator: " "))'")
      case .none: break
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
