import Foundation
import Loopsmith
import Video

/// `loopsmith doctor`: what this build can make, and why not where it cannot.
enum DoctorCommand {
  static let options = [OptionSpec("json", "Print the report as JSON on stdout.")]

  static var help: String {
    helpText(
      usage: "loopsmith doctor [--json]",
      overview:
        "What this build can make: the libav versions, each output format's muxer, encoders and decoders and whether they are present, the CPU features the build uses, and where presets are found. Exits 1 when a format's default codec cannot be written.",
      arguments: [], options: options)
  }

  static func run(_ args: [String], stdout: TextSink) throws -> Int32 {
    let parsed = try ParsedArguments(args, specs: options)
    if let extra = parsed.positionals.first {
      throw InputError("doctor takes no arguments; got '\(extra)'")
    }
    let formats = LibAVCapabilities.formats
    let broken = formats.filter { $0.isDefault && !$0.canWrite }
    let machine = CPUFeatures.machine()
    let compiled = CPUFeatures.compiled
    let missingOnMachine = machine.map { have in compiled.filter { !have.contains($0) } } ?? []
    let folders = PresetSearch.folders().map { folder -> (String, Bool, Int) in
      var isDir: ObjCBool = false
      let exists = FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) && isDir.boolValue
      let count =
        exists
        ? ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
          $0.hasSuffix(".json") && $0 != "schema.json" && !$0.hasPrefix(".")
        }.count : 0
      return (folder, exists, count)
    }

    if parsed.has("json") {
      let report: [String: Any] = [
        "loopsmith": CLI.version,
        "ok": broken.isEmpty,
        "ffmpeg": LibAVCapabilities.ffmpegVersion,
        "libraries": Dictionary(uniqueKeysWithValues: LibAVCapabilities.libraries.map { ($0.name, $0.version) }),
        "formats": formats.map { f -> [String: Any] in
          [
            "extension": f.format.rawValue, "codec": f.codec.rawValue, "default": f.isDefault,
            "canWrite": f.canWrite, "alpha": f.codec.spec.carriesAlpha,
            "components": f.components.map {
              ["kind": $0.kind, "name": $0.name, "role": $0.role, "present": $0.present] as [String: Any]
            },
          ]
        },
        "cpu": [
          "architecture": CPUFeatures.architecture, "compiled": compiled, "machine": machine ?? [],
          "compiledButMissing": missingOnMachine,
        ] as [String: Any],
        "presets": folders.map { ["folder": $0.0, "exists": $0.1, "presets": $0.2] as [String: Any] },
      ]
      stdout.write(CLI.jsonString(report) + "\n")
      return broken.isEmpty ? 0 : 1
    }

    var lines = ["loopsmith \(CLI.version)", "", "libav (FFmpeg \(LibAVCapabilities.ffmpegVersion)):"]
    for library in LibAVCapabilities.libraries { lines.append("  \(library.name) \(library.version)") }
    lines += ["", "formats (* default codec):"]
    for f in formats {
      let label = ".\(f.format.rawValue) \(f.codec.rawValue)\(f.isDefault ? " *" : "")"
      let parts = f.components.map { "\($0.kind) \($0.name)\($0.role == "video" ? "" : " (\($0.role))")" }
      let status =
        f.canWrite
        ? (f.missing.isEmpty ? "ok" : "ok, missing " + describe(f.missing))
        : "CANNOT WRITE: missing " + describe(f.missing)
      lines.append(
        "  " + label.padding(toLength: 16, withPad: " ", startingAt: 0) + status + " — " + parts.joined(separator: ", ")
      )
    }
    lines += [
      "",
      "cpu: \(CPUFeatures.architecture); build uses: \(compiled.isEmpty ? "baseline only" : compiled.joined(separator: " "))",
      "  machine has: \(machine.map { $0.joined(separator: " ") } ?? "unknown (no /proc/cpuinfo)")",
    ]
    if !missingOnMachine.isEmpty {
      lines.append(
        "  WARNING: the build uses \(missingOnMachine.joined(separator: " ")), which this machine lacks; build with CPU=x86-64"
      )
    }
    lines += ["", "presets (searched in this order):"]
    for (folder, exists, count) in folders {
      lines.append("  \(folder): " + (exists ? "\(count) preset\(count == 1 ? "" : "s")" : "absent"))
    }
    if !broken.isEmpty {
      lines += [
        "", "cannot write: " + broken.map { ".\($0.format.rawValue) (\($0.codec.rawValue))" }.joined(separator: ", "),
      ]
    }
    stdout.write(lines.joined(separator: "\n") + "\n")
    return broken.isEmpty ? 0 : 1
  }

  static func describe(_ components: [LibAVCapabilities.Component]) -> String {
    components.map { "\($0.kind) \($0.name)" }.joined(separator: ", ")
  }
}
