import Effects
import Foundation
import Loopsmith
import Testing
import Video
import _TestSupport

/// Help through the real binary: `help X` is `X --help` for every command, the lists in it come
/// from the tables the parser reads, and the README names the same commands.
@Suite struct HelpTests {
  static let commands = ["render", "batch", "join", "list", "plan", "check", "schema", "doctor", "completions"]
  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test(arguments: commands)
  func helpCommandIsCommandHelp(command: String) throws {
    let a = try runLoopsmith(["help", command]), b = try runLoopsmith([command, "--help"]),
      c = try runLoopsmith([command, "-h"])
    #expect(a.status == 0 && b.status == 0 && c.status == 0)
    #expect(a.stdout == b.stdout && b.stdout == c.stdout)
    #expect(a.stdout.hasPrefix("OVERVIEW: ") || a.stdout.contains("USAGE: loopsmith \(command)"), "\(a.stdout)")
    #expect(a.stdout.contains("USAGE: loopsmith \(command)"))
    #expect(a.stderr.isEmpty)
  }

  @Test func topLevelHelpListsEveryCommand() throws {
    let r = try runLoopsmith(["--help"])
    #expect(r.status == 0)
    #expect(try runLoopsmith(["help"]).stdout == r.stdout)
    for command in Self.commands + ["help"] {
      #expect(r.stdout.contains("\n  \(command) "), "\(command)")
    }
    let bad = try runLoopsmith(["help", "rendr"])
    #expect(bad.status == 2)
    #expect(
      bad.stderr.hasPrefix(
        "Error: help: 'rendr' is not a command; expected one of render, batch, list, plan, check, schema, join, doctor, completions."
      ),
      "\(bad.stderr)")
  }

  /// Every effect, format and render flag, from the registry and the tables the parser reads.
  @Test func renderHelpListsTheTables() throws {
    let help = try runLoopsmith(["help", "render"]).stdout
    for name in EffectRegistry.names { #expect(help.contains(name), "\(name)") }
    for format in OutputFormat.allCases { #expect(help.contains(".\(format.rawValue)"), "\(format)") }
    for setting in RenderSetting.all { #expect(help.contains("--\(setting.flag)"), "\(setting.flag)") }
    for flag in ["--set", "--weather", "--state", "--level", "--progress", "--quiet", "--json", "--null"] {
      #expect(help.contains(flag), "\(flag)")
    }
    let plan = try runLoopsmith(["help", "plan"]).stdout
    for name in EffectRegistry.names { #expect(plan.contains(name), "plan: \(name)") }
  }

  /// The commands the README runs are the commands, and every command is in the README.
  @Test func readmeNamesTheSameCommands() throws {
    let readme = try String(contentsOf: Self.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
    var named = Set<String>()
    var rest = readme[...]
    while let r = rest.range(of: "loopsmith ") {
      let word = rest[r.upperBound...].prefix { $0.isLetter }
      // Only words that start a command line or a code span (`loopsmith render`), not prose.
      let before = rest[..<r.lowerBound].last
      if before == nil || before == "\n" || before == "`" || before == " " && rest[..<r.lowerBound].hasSuffix("time ") {
        if !word.isEmpty { named.insert(String(word)) }
      }
      rest = rest[r.upperBound...]
    }
    #expect(named.isSubset(of: Set(Self.commands + ["help"])), "\(named)")
    #expect(named.contains("help"))
    for command in Self.commands { #expect(named.contains(command), "README never shows loopsmith \(command)") }
  }
}
