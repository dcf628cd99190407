import Effects
import Foundation
import Loopsmith
import Timing
import Video

/// The `loopsmith` command line: parses, calls the library, prints, and returns an exit status.
public enum CLI {
  public static let version = loopsmithVersion

  static let overview = "Renders the SwiftUI Blocks effects into video files that loop without a seam."

  /// One command: how the usage lists it, its help, and what runs it. The usage, `help <command>`,
  /// `<command> --help` and the dispatch all read this table, so a new command is one row.
  struct Command {
    let name: String
    /// The command with its arguments, as the usage lists it (`render <effect | preset.json>`).
    let synopsis: String
    let summary: String
    let help: () -> String
    let run: (_ args: [String], _ stdout: TextSink, _ stderr: TextSink) throws -> Int32
  }

  static let commands: [Command] = [
    Command(
      name: "render", synopsis: "render <effect | preset.json>", summary: "Render one video or still.",
      help: { RenderCommand.help }, run: { try RenderCommand.run($0, stdout: $1, stderr: $2) }),
    Command(
      name: "batch", synopsis: "batch <preset.json | folder>... --out DIR",
      summary: "Render many presets, skipping what is up to date.", help: { BatchCommand.help },
      run: { try BatchCommand.run($0, stdout: $1, stderr: $2) }),
    Command(
      name: "list", synopsis: "list", summary: "Effects, their parameters and defaults, and presets.",
      help: { ListCommand.help }, run: { args, out, _ in try ListCommand.run(args, stdout: out) }),
    Command(
      name: "plan", synopsis: "plan <effect | preset.json>",
      summary: "The loop plan: each layer's strategy and speed change.", help: { PlanCommand.help },
      run: { args, out, _ in try PlanCommand.run(args, stdout: out) }),
    Command(
      name: "check", synopsis: "check <video>...",
      summary: "Decode files and report each one's seam and compatibility.",
      help: { CheckCommand.help }, run: { try CheckCommand.run($0, stdout: $1, stderr: $2) }),
    Command(
      name: "schema", synopsis: "schema", summary: "Print the JSON Schema of preset files.",
      help: { SchemaCommand.help }, run: { args, out, _ in try SchemaCommand.run(args, stdout: out) }),
    Command(
      name: "join", synopsis: "join <segment>... -o <path>",
      summary: "Join the segments of one render (render --frames A:B).", help: { JoinCommand.help },
      run: { try JoinCommand.run($0, stdout: $1, stderr: $2) }),
    Command(
      name: "doctor", synopsis: "doctor [--json]", summary: "What this build can encode, decode and mux.",
      help: { DoctorCommand.help }, run: { args, out, _ in try DoctorCommand.run(args, stdout: out) }),
    Command(
      name: "completions", synopsis: "completions <bash | zsh | fish>",
      summary: "Print a shell completion script.", help: { CompletionsCommand.help },
      run: { args, out, _ in try CompletionsCommand.run(args, stdout: out) }),
  ]

  static var commandNames: [String] { commands.map(\.name) }

  static var usage: String {
    let width = 32
    func row(_ left: String, _ right: String) -> String {
      // A synopsis too long for its column takes a line of its own, the summary under it.
      left.count + 2 > width
        ? "  \(left)\n" + String(repeating: " ", count: width + 2) + right
        : "  " + left.padding(toLength: width, withPad: " ", startingAt: 0) + right
    }
    let rows =
      commands.map { row($0.synopsis, $0.summary) }
      + [row("help <command>", "The command's help, as '<command> --help' prints it.")]
    return """
      OVERVIEW: \(overview)

      USAGE: loopsmith <command> [options]

      COMMANDS:
      \(rows.joined(separator: "\n"))

      OPTIONS:
      \(row("--version", "Show the version."))
      \(row("-h, --help", "Show help information."))

      See 'loopsmith <command> --help' for a command's options.
      """
  }

  /// Runs the command line of the process and returns its exit status: `run`'s, or 1 with one
  /// line on stderr when stdout could not be written (`--json > /dev/full`, `list` into a
  /// closed pipe), whatever the command itself answered.
  public static func main(_ args: [String]) -> Int32 {
    let status = run(args)
    guard let code = TextSink.stdout.failure else { return status }
    TextSink.stderr.write("Error: stdout: cannot write: \(String(cString: strerror(code)))\n")
    return status == 0 ? 1 : status
  }

  /// Runs a command line (without the program name); output goes to the given streams.
  public static func run(_ args: [String], stdout: TextSink = .stdout, stderr: TextSink = .stderr) -> Int32 {
    guard let name = args.first else {
      stderr.write(usage + "\n")
      return 2
    }
    let rest = Array(args.dropFirst())
    let json = rest.contains("--json")
    do {
      switch name {
      case "-h", "--help":
        stdout.write(usage + "\n")
        return 0
      case "--version":
        stdout.write("loopsmith \(version)\n")
        return 0
      case "help":
        // `help render` is `render --help`: the same text from the same declarations.
        guard let topic = rest.first else {
          stdout.write(usage + "\n")
          return 0
        }
        guard let command = commands.first(where: { $0.name == topic }), rest.count == 1 else {
          throw InputError(
            "help: '\(rest.joined(separator: " "))' is not a command; expected one of \(commandNames.joined(separator: ", ")).\(didYouMean(topic, in: commandNames))"
          )
        }
        stdout.write(command.help() + "\n")
        return 0
      default:
        guard let command = commands.first(where: { $0.name == name }) else {
          throw InputError(
            "Unknown command '\(name)'; expected one of \(commandNames.joined(separator: ", ")).\(didYouMean(name, in: commandNames))"
          )
        }
        // No option takes a value starting with '-', so -h or --help anywhere asks for help.
        if rest.contains("-h") || rest.contains("--help") {
          stdout.write(command.help() + "\n")
          return 0
        }
        return try command.run(rest, stdout, stderr)
      }
    } catch {
      let status = exitStatus(for: error)
      let text = message(for: error).replacingOccurrences(of: "\n", with: " ")
      stderr.write("Error: \(text)\n")
      if json {
        stdout.write(jsonString(["status": "error", "error": text, "exitCode": Int(status)]) + "\n")
      }
      return status
    }
  }

  static func jsonString(_ value: Any) -> String {
    // Paths print as they are: `renders/a.mp4`, not `renders\/a.mp4`.
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: value, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]),
      let s = String(data: data, encoding: .utf8)
    else { return "{}" }
    return s
  }
}

/// Where text goes: a file descriptor, or a buffer in tests.
public final class TextSink: @unchecked Sendable {
  private let fd: Int32?
  private let lock = NSLock()
  public private(set) var text = ""

  init(fd: Int32?) { self.fd = fd }
  public static let stdout = TextSink(fd: 1)
  public static let stderr = TextSink(fd: 2)
  public static func buffer() -> TextSink { TextSink(fd: nil) }

  /// `text` with C0 controls other than newline and tab, DEL and C1 controls as U+FFFD.
  public static func printable(_ text: String) -> String {
    func isControl(_ v: UInt32) -> Bool { (v < 0x20 && v != 0x0A && v != 0x09) || (0x7F...0x9F).contains(v) }
    guard text.unicodeScalars.contains(where: { isControl($0.value) }) else { return text }
    return String(String.UnicodeScalarView(text.unicodeScalars.map { isControl($0.value) ? "\u{FFFD}" : $0 }))
  }

  public var isTerminal: Bool { fd.map { isatty($0) == 1 } ?? false }

  /// The error of the first write that failed (a full disk, a closed pipe), or nil: a command
  /// whose output was lost must not exit 0 (`CLI.main`).
  public var failure: Int32? { lock.withLock { firstError } }
  private var firstError: Int32?

  /// Writes `s` with every control character but newline and tab shown as U+FFFD: preset names
  /// and descriptions, file names and libav's messages come from files anyone may have written,
  /// and an escape sequence among them would reach the terminal. `control` (the progress line's
  /// own carriage return and erase) goes first, as it is.
  public func write(_ s: String, after control: String = "") {
    let s = control + Self.printable(s)
    lock.withLock {
      if let fd {
        let bytes = Array(s.utf8)
        var offset = 0
        while offset < bytes.count {
          let n = bytes[offset...].withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count) }
          if n < 0 && errno == EINTR { continue }
          if n <= 0 {
            if firstError == nil { firstError = n < 0 ? errno : EIO }
            break
          }
          offset += n
        }
      } else {
        text += s
      }
    }
  }
}
