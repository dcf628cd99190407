import Effects
import Foundation
import Loopsmith
import Timing
import Video

/// The `loopsmith` command line: parses, calls the library, prints, and returns an exit status.
public enum CLI {
  public static let version = loopsmithVersion

  static let overview = "Renders the SwiftUI Blocks effects into video files that loop without a seam."

  static let usage = """
    OVERVIEW: \(overview)

    USAGE: loopsmith <command> [options]

    COMMANDS:
      render <effect | preset.json>   Render one video or still.
      batch <preset.json | folder>... --out DIR
                                      Render many presets, skipping what is up to date.
      list                            Effects, their parameters and defaults, and presets.
      plan <effect | preset.json>     The loop plan: each layer's strategy and speed change.
      check <video>                   Decode a file and report its loop seam and compatibility.
      join <segment>... -o <path>     Join the segments of one render (render --frames A:B).
      schema                          Print the JSON Schema of preset files.
      doctor [--json]                 What this build can encode, decode and mux.
      help <command>                  The command's help, as '<command> --help' prints it.

    OPTIONS:
      --version                       Show the version.
      -h, --help                      Show help information.

    See 'loopsmith <command> --help' for a command's options.
    """

  /// Runs a command line (without the program name); output goes to the given streams.
  public static func run(_ args: [String], stdout: TextSink = .stdout, stderr: TextSink = .stderr) -> Int32 {
    guard let command = args.first else {
      stderr.write(usage + "\n")
      return 2
    }
    let rest = Array(args.dropFirst())
    let json = rest.contains("--json")
    do {
      switch command {
      case "-h", "--help":
        stdout.write(usage + "\n")
        return 0
      case "help":
        // `help render` is `render --help`: the same text from the same declarations.
        guard let name = rest.first else {
          stdout.write(usage + "\n")
          return 0
        }
        guard let help = helps[name], rest.count == 1 else {
          let names = helps.keys.sorted()
          throw InputError(
            "help: '\(rest.joined(separator: " "))' is not a command; expected one of \(names.joined(separator: ", ")).\(didYouMean(name, in: names))"
          )
        }
        stdout.write(help() + "\n")
        return 0
      case "--version":
        stdout.write("loopsmith \(version)\n")
        return 0
      case "render": return try RenderCommand.run(rest, stdout: stdout, stderr: stderr)
      case "list": return try ListCommand.run(rest, stdout: stdout)
      case "plan": return try PlanCommand.run(rest, stdout: stdout)
      case "check": return try CheckCommand.run(rest, stdout: stdout, stderr: stderr)
      case "batch": return try BatchCommand.run(rest, stdout: stdout, stderr: stderr)
      case "schema": return try SchemaCommand.run(rest, stdout: stdout)
      case "join": return try JoinCommand.run(rest, stdout: stdout, stderr: stderr)
      case "doctor": return try DoctorCommand.run(rest, stdout: stdout)
      default:
        let commands = ["render", "batch", "list", "plan", "check", "schema", "join", "doctor"]
        let hint = didYouMean(command, in: commands)
        throw InputError("Unknown command '\(command)'; expected one of \(commands.joined(separator: ", ")).\(hint)")
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

  /// Each command's help, as `<command> --help` prints it.
  static let helps: [String: () -> String] = [
    "render": { RenderCommand.help }, "batch": { BatchCommand.help }, "list": { ListCommand.help },
    "plan": { PlanCommand.help }, "check": { CheckCommand.help }, "schema": { SchemaCommand.help },
    "join": { JoinCommand.help }, "doctor": { DoctorCommand.help },
  ]

  static func jsonString(_ value: Any) -> String {
    guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .prettyPrinted]),
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

  public var isTerminal: Bool { fd.map { isatty($0) == 1 } ?? false }

  public func write(_ s: String) {
    lock.withLock {
      if let fd {
        let bytes = Array(s.utf8)
        var offset = 0
        while offset < bytes.count {
          let n = bytes[offset...].withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count) }
          if n <= 0 { break }
          offset += n
        }
      } else {
        text += s
      }
    }
  }
}
