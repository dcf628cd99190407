import Foundation
import Testing
import Video
import _TestSupport

/// Every command README.md shows runs as written on the real binary, the way a user on a fresh
/// clone types it: from the repository's root (a scratch copy of it, so nothing is written into
/// the repository), with `loopsmith` on the PATH, in README order within each code block.
///
/// What a command is: every line of a fenced `sh` (or `bash`, `shell`, `console`, unlabelled)
/// block, comments dropped and `\` continuations joined, and every inline code span of two words
/// or more that starts with a program a reader would type (`loopsmith`, `time`, `make`, `sbatch`,
/// `apt-get`, `sudo`, `docker`, `kubectl`, `swift`). A command either runs here, or is listed in
/// `notRun` with the reason; a README command that is neither fails the test, naming its line, and
/// so does a listed command the README no longer shows.
///
/// The one change to a command as written is its size: `render` gets `--size 32x56` and `batch` `--size 32x32` (square, which every platform preset takes)
/// (a larger `--size` becomes one of its aspect with a 32-pixel shorter side; `--scale 0.1` instead
/// when the command sets `--points`; 64 pixels with AV1) and, unless they draw a still (`--time`),
/// `--fps 4` for a render and `--fps 1` for a batch (replacing another rate), so the whole README,
/// which batches every preset twice, costs about two CPU minutes. A block that splits a render with `--frames` (already tiny,
/// its ranges counted at its own rate) runs exactly as written. Each
/// command must exit 0; every file it creates or changes must be whole: videos and images decode
/// to their last frame with as many frames as packets (a still one; `--duration D` D x fps;
/// `--frames A:B` B - A), a batch manifest's rows name files that exist with its frame counts,
/// and no `.loopsmith-tmp` temporary is left behind.
@Suite struct ReadmeCommandTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let tinySize = "32x56"
  /// Frames a second: 4 for a render (enough samples for `check` to judge a seam), 1 for a batch,
  /// which renders every preset.
  static let tinyFPS = (render: 4, batch: 1)

  /// README commands a test cannot run as written, by their exact text, with the reason. `make`
  /// commands among them are still checked with `make -n` (the target exists and its variables parse).
  static let notRun: [String: String] = [
    "make demo": "a release build (minutes), then full-size renders; make -n checks the target",
    "make test": "the whole suite, of which this test is a part; make -n checks the target",
    "make deps": "installs Debian packages with apt-get; make -n checks the target",
    "apt-get update": "changes the machine's package lists",
    "make install PREFIX=/usr/local": "writes into /usr/local; PresetNameTests runs an installed copy",
    "make build CPU=x86-64": "a second release build (minutes); make -n checks the target",
    "make build": "a release build (minutes); make -n checks the target",
    "make schema": "rebuilds, then rewrites presets/schema.json; BatchCLITests checks it is current",
    "make renders":
      "every preset at full size, a long run; make -n checks the target, and docs/TESTING.md shows RENDERS_FLAGS for a tiny run",
    "make test-cluster": "installs and starts Slurm daemons (root); make -n checks the target",
    "make validate-examples": "installs validators from PyPI; make -n checks the target",
    "make bench": "a benchmark of several minutes, never a test; make -n checks the target",
    "make loop-report":
      "a benchmark that renders and encodes every default loop (many minutes); make -n checks the target",
    "export PRESETS=$PWD/presets/weather-tour.json RENDERS=$PWD/renders-tour":
      "sets up examples/slurm for a split render on a Slurm cluster; make test-cluster runs the block",
    "export SPLIT=3": "sets up examples/slurm for a split render on a Slurm cluster; make test-cluster runs the block",
    "loopsmith plan blob-morph-loader --duration 3":
      "exits 2 on purpose: the README quotes its refusal, which LoopPlanTests check",
    "export LOOPSMITH=$PWD/.build/release/loopsmith PRESETS=$PWD/presets RENDERS=$PWD/renders":
      "sets up examples/slurm for a Slurm cluster; make test-cluster runs the block",
    "export SHARDS=3 CPUS=1 MEM=1G": "sets up examples/slurm for a Slurm cluster; make test-cluster runs the block",
    "examples/slurm/submit.sh --size 32x32 --scale 0.1 --fps 4": "needs a Slurm cluster; make test-cluster runs it",
    "array=41": "names the Slurm array of the example; make test-cluster runs rerun.sh with its own",
    "examples/slurm/rerun.sh \"$array\" 0": "needs a Slurm cluster; make test-cluster runs it",
    "sbatch --array=0 examples/slurm/render-presets.sbatch --shard 1/4": "needs a Slurm cluster",
    "sbatch --dependency=afterok:JOB examples/slurm/merge.sbatch": "needs a Slurm cluster; JOB is a placeholder",
    "loopsmith batch --merge DIR... --out DIR": "a template (DIR); BatchTests and make test-cluster merge real shards",
    "loopsmith join part0.mp4 part1.mp4 part2.mp4 part3.mp4 -o loop.mp4":
      "joins the parts of the Slurm array sketched beside it; the Segments block runs join for real",
    "loopsmith batch presets --out renders --dry-run [--json]":
      "[--json] marks an option: it runs with and without it (runAs)",
    "loopsmith render presets/NAME.json": "a template (NAME); the Usage block renders presets by path",
    "loopsmith render NAME": "a template (NAME); the Usage block renders weather-rain by name",
    "loopsmith plan <clip>": "a template (<clip>); the Usage block runs plan",
    "make install": "writes into /usr/local; PresetNameTests runs an installed copy",
    "loopsmith batch": "names the command in a sentence",
    "loopsmith check": "names the command in a sentence",
    "loopsmith join": "names the command in a sentence",
  ]

  /// Commands the test runs in another form than written, each with that form.
  static let runAs: [String: [String]] = [
    "loopsmith batch presets --out renders --dry-run [--json]": [
      "loopsmith batch presets --out renders --dry-run", "loopsmith batch presets --out renders --dry-run --json",
    ]
  ]

  /// A command of the README: its line (1-based), its text as written without its comment, and
  /// the fenced block it belongs to (nil for inline code).
  struct Command: CustomStringConvertible, Sendable {
    var line: Int
    var text: String
    var block: Int?
    var description: String { "README.md:\(line): `\(text)`" }
  }

  /// A set of commands run in order in one scratch copy: a fenced block, or one inline command.
  struct Unit: CustomStringConvertible, Sendable {
    var commands: [Command]
    var description: String {
      guard let first = commands.first, let last = commands.last else { return "empty" }
      return first.block == nil ? "README.md:\(first.line)" : "README.md:\(first.line)-\(last.line)"
    }
  }

  static let programs: Set<String> = [
    "loopsmith", "time", "make", "sbatch", "apt-get", "sudo", "docker", "kubectl", "swift",
  ]

  /// The commands of `text` (README.md's), in order.
  static func commands(in text: String) -> [Command] {
    var result: [Command] = []
    var fence: String? = nil  // the open fence's language, when inside a block
    var block = 0
    var pending: (line: Int, text: String)? = nil  // a command continued with `\`
    var carry: (line: Int, text: String)? = nil  // an inline span still open at the end of a line
    for (index, raw) in text.components(separatedBy: "\n").enumerated() {
      let number = index + 1
      let trimmed = raw.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("```") {
        carry = nil
        if fence == nil {
          fence = String(trimmed.dropFirst(3)).trimmingCharacters(in: .whitespaces).lowercased()
          block += 1
        } else {
          fence = nil
        }
        continue
      }
      if let language = fence {
        guard ["sh", "bash", "shell", "console", ""].contains(language) else { continue }
        var line = withoutComment(trimmed)
        if language == "console", line.hasPrefix("$ ") { line = String(line.dropFirst(2)) }
        if line.isEmpty { continue }
        let continued = line.hasSuffix("\\")
        if continued { line = String(line.dropLast()).trimmingCharacters(in: .whitespaces) }
        if let p = pending {
          pending = (p.line, p.text + " " + line)
        } else {
          pending = (number, line)
        }
        if !continued, let p = pending {
          result.append(Command(line: p.line, text: p.text, block: block))
          pending = nil
        }
        continue
      }
      // Inline code spans on a prose line; a span may go on over the next lines of its paragraph.
      if trimmed.isEmpty {
        carry = nil
        continue
      }
      var rest = Substring(carry.map { "`" + $0.text + " " + raw } ?? raw)
      var spanLine = carry?.line ?? number
      carry = nil
      while let open = rest.firstIndex(of: "`") {
        let after = rest[rest.index(after: open)...]
        guard let close = after.firstIndex(of: "`") else {
          carry = (spanLine, String(after))
          break
        }
        let span = after[..<close].trimmingCharacters(in: .whitespaces)
        let words = span.split(separator: " ")
        if words.count >= 2, programs.contains(String(words[0])) {
          result.append(Command(line: spanLine, text: words.joined(separator: " "), block: nil))
        }
        rest = after[after.index(after: close)...]
        spanLine = number
      }
    }
    return result
  }

  /// `line` without a shell comment (a `#` at the start or after a space, outside quotes).
  static func withoutComment(_ line: String) -> String {
    var quote: Character? = nil
    var previous: Character = " "
    var end = line.endIndex
    for i in line.indices {
      let c = line[i]
      if let q = quote {
        if c == q { quote = nil }
      } else if c == "\"" || c == "'" {
        quote = c
      } else if c == "#", previous == " " || previous == "\t" {
        end = i
        break
      }
      previous = c
    }
    return line[..<end].trimmingCharacters(in: .whitespaces)
  }

  static func readme() throws -> String {
    try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
  }

  /// The units to run: each fenced block's commands that are not listed, and each such inline command.
  static func units() -> [Unit] {
    guard let text = try? readme() else { return [] }
    var units: [Unit] = []
    var byBlock: [Int: [Command]] = [:]
    var order: [Int] = []
    for command in commands(in: text) where notRun[command.text] == nil || runAs[command.text] != nil {
      if let block = command.block {
        if byBlock[block] == nil { order.append(block) }
        byBlock[block, default: []].append(command)
      } else {
        units.append(Unit(commands: [command]))
      }
    }
    return order.map { Unit(commands: byBlock[$0]!) } + units
  }

  /// Every README command is run or listed, and every listed command is still in the README.
  @Test func everyCommandIsRunOrListed() throws {
    let commands = Self.commands(in: try Self.readme())
    #expect(commands.count > 30, "found only \(commands.count) commands: is the README's code still fenced with ```sh?")
    let texts = Set(commands.map(\.text))
    for listed in Self.notRun.keys.sorted() {
      let shown = texts.contains(listed)
      #expect(shown, "ReadmeCommandTests.notRun lists `\(listed)`, which README.md no longer shows")
    }
    // Nothing but loopsmith itself runs: a command of another program must be listed, so that a
    // new one (a docker run, a script) is looked at before this test tries it.
    for command in commands where Self.notRun[command.text] == nil {
      let words = command.text.split(separator: " ").map(String.init)
      let program = words.first == "time" && words.count > 1 ? words[1] : words.first ?? ""
      #expect(
        program == "loopsmith",
        "\(command) is neither run by this test nor listed in ReadmeCommandTests.notRun with a reason")
    }
  }

  /// Each listed `make` command names a target the Makefile has, with variables it accepts.
  @Test func listedMakeCommandsAreRealTargets() throws {
    let scratch = TemporaryDirectory("readme-make")
    try FileManager.default.copyItem(
      at: Self.root.appendingPathComponent("Makefile"), to: scratch.url.appendingPathComponent("Makefile"))
    for command in Self.commands(in: try Self.readme()) where command.text.hasPrefix("make ") {
      let result = try Self.shell("make -n " + command.text.dropFirst(5), in: scratch.url)
      #expect(result.status == 0, "\(command): make -n exited \(result.status): \(result.stderr)")
    }
  }

  /// The units of the README, each in a fresh scratch copy of the repository.
  @Test(arguments: units())
  func readmeCommandsRun(unit: Unit) throws {
    let scratch = try Self.scratchCopy()
    // A block that splits a render by --frames runs as written: its ranges count frames at its own
    // rate, and its commands are already tiny.
    let asWritten = unit.commands.contains { $0.text.contains("--frames") }
    for command in unit.commands {
      for form in Self.runAs[command.text] ?? [command.text] {
        try Self.run(form, of: command, in: scratch.url, asWritten: asWritten)
      }
    }
  }

  /// A scratch copy of what a fresh clone has that commands read (presets, examples, docs, the
  /// Makefile), with `bin/loopsmith` linking the test build's binary.
  static func scratchCopy() throws -> TemporaryDirectory {
    let scratch = TemporaryDirectory("readme-commands")
    let fm = FileManager.default
    for entry in ["presets", "examples", "docs", "Makefile", "README.md"] {
      let source = root.appendingPathComponent(entry)
      if fm.fileExists(atPath: source.path) {
        try fm.copyItem(at: source, to: scratch.url.appendingPathComponent(entry))
      }
    }
    let bin = scratch.url.appendingPathComponent(".bin")
    try fm.createDirectory(at: bin, withIntermediateDirectories: true)
    try fm.createSymbolicLink(at: bin.appendingPathComponent("loopsmith"), withDestinationURL: loopsmithBinary())
    return scratch
  }

  /// `text` with the tiny size and rate applied to each `loopsmith render` and `loopsmith batch`
  /// it runs (between `&&`, `||`, `;` and `|`).
  static func tiny(_ text: String) -> String {
    var out: [String] = []
    var segment: [String] = []
    func flush() {
      out += tinySegment(segment)
      segment = []
    }
    for word in text.split(separator: " ").map(String.init) {
      if ["&&", "||", ";", "|"].contains(word) {
        flush()
        out.append(word)
      } else {
        segment.append(word)
      }
    }
    flush()
    return out.joined(separator: " ")
  }

  static func tinySegment(_ words: [String]) -> [String] {
    var words = words
    let start = words.first == "time" ? 1 : 0
    guard words.count > start + 1, words[start] == "loopsmith", ["render", "batch"].contains(words[start + 1]) else {
      return words
    }
    func value(_ flag: String) -> Int? {
      guard let i = words.firstIndex(of: flag), i + 1 < words.count else { return nil }
      return i + 1
    }
    func set(_ flag: String, _ v: String) {
      if let i = value(flag) { words[i] = v } else { words += [flag, v] }
    }
    let minimum = words.contains { $0.contains("av1") } ? 64 : 32  // AV1 takes 64 pixels a side
    if let i = value("--size") {
      let sides = words[i].split(separator: "x").compactMap { Int($0) }
      if sides.count == 2, sides[0] > 64 || sides[1] > 64 {
        // The same aspect (so --points still agrees), the shorter side `minimum` pixels, even sides.
        let k = Double(minimum) / Double(min(sides[0], sides[1]))
        words[i] = "\(2 * Int((Double(sides[0]) * k / 2).rounded()))x\(2 * Int((Double(sides[1]) * k / 2).rounded()))"
      }
    } else if value("--points") != nil {
      set("--scale", "0.1")
    } else {
      // A batch takes every preset, the platform ones too, whose limits (a Telegram emoji is square)
      // a tall size would break: a square one fits them all.
      set("--size", minimum == 64 ? "64x112" : words[start + 1] == "batch" ? "32x32" : tinySize)
    }
    if !words.contains("--time") { set("--fps", "\(words[start + 1] == "batch" ? tinyFPS.batch : tinyFPS.render)") }
    return words
  }

  struct Shell {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// Runs `command` with bash in `directory`, `directory/.bin` first on the PATH and no
  /// LOOPSMITH_PRESETS of the test's environment.
  static func shell(_ command: String, in directory: URL) throws -> Shell {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", command]
    process.currentDirectoryURL = directory
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = directory.appendingPathComponent(".bin").path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    environment["LOOPSMITH_PRESETS"] = nil
    process.environment = environment
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let r = try collect(process, stdout: out, stderr: err)
    return Shell(status: r.status, stdout: r.stdout, stderr: r.stderr)
  }

  /// Each regular file under `directory` with its size and modification time, `.bin` left out.
  static func snapshot(_ directory: URL) -> [String: String] {
    var files: [String: String] = [:]
    let base = directory.path + "/"
    guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return files }
    while let relative = walker.nextObject() as? String {
      if relative == ".bin" || relative.hasPrefix(".bin/") { continue }
      guard let attributes = try? FileManager.default.attributesOfItem(atPath: base + relative),
        attributes[.type] as? FileAttributeType == .typeRegular
      else { continue }
      let size = attributes[.size] as? Int ?? -1
      let date = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
      files[relative] = "\(size) \(date)"
    }
    return files
  }

  /// Runs one command (in the form `text`) in `directory` and checks its exit status and outputs.
  static func run(_ text: String, of command: Command, in directory: URL, asWritten: Bool) throws {
    let ran = asWritten ? text : tiny(text)
    let what = ran == command.text ? "\(command)" : "\(command) (run as `\(ran)`)"
    let before = snapshot(directory)
    let result = try shell(ran, in: directory)
    let stderrTail = result.stderr.split(separator: "\n").suffix(5).joined(separator: "\n")
    #expect(result.status == 0, "\(what) exited \(result.status):\n\(stderrTail)")
    guard result.status == 0 else { return }
    let after = snapshot(directory)
    let changed = after.keys.filter { before[$0] != after[$0] }.sorted()
    let words = ran.split(separator: " ").map(String.init)
    for (i, word) in words.enumerated() where word == "-o" && i + 1 < words.count && words[i + 1] != "-" {
      #expect(changed.contains(words[i + 1]), "\(what) did not write \(words[i + 1])")
    }
    let expected = expectedFrames(words)
    var decoded: [String: Int] = [:]
    for path in changed {
      let file = directory.appendingPathComponent(path).path
      let name = (path as NSString).lastPathComponent
      #expect(!name.hasSuffix(".loopsmith-tmp"), "\(what) left the temporary \(path)")
      let ext = (path as NSString).pathExtension.lowercased()
      if ["mp4", "webm", "mov", "gif", "apng", "png", "y4m", "webp"].contains(ext) {
        do {
          let frames = try frameCount(file)
          decoded[path] = frames
          #expect(frames >= 1, "\(what): \(path) holds no frame")
          if words.contains("--time") || ext == "png" {
            #expect(frames == 1, "\(what): \(path) is a still but holds \(frames) frames")
          } else if let expected {
            #expect(frames == expected, "\(what): \(path) holds \(frames) frames, the command asks for \(expected)")
          }
        } catch {
          Issue.record("\(what): \(path) does not decode: \(error)")
        }
      } else if ext == "json" {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect((try? JSONSerialization.jsonObject(with: data)) != nil, "\(what): \(path) is not JSON")
      }
    }
    // A batch manifest names files that exist, with the frame counts they hold.
    for path in changed where (path as NSString).lastPathComponent == "manifest.json" {
      let folder = (path as NSString).deletingLastPathComponent
      let data = try Data(contentsOf: directory.appendingPathComponent(path))
      let rows = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["outputs"] as? [[String: Any]] ?? []
      #expect(!rows.isEmpty, "\(what): \(path) lists no output")
      for row in rows {
        let status = row["status"] as? String ?? ""
        #expect(status == "rendered" || status == "skipped", "\(what): \(path): \(row)")
        guard let relative = row["path"] as? String else { continue }
        let output = folder.isEmpty ? relative : "\(folder)/\(relative)"
        #expect(after[output] != nil, "\(what): \(path) names \(relative), which does not exist")
        if let frames = row["frames"] as? Int, let counted = decoded[output] {
          #expect(counted == frames, "\(what): \(output) holds \(counted) frames, \(path) says \(frames)")
        }
      }
    }
  }

  /// The frame count a command states: `--frames A:B` B - A, else `--duration D` D x fps.
  static func expectedFrames(_ words: [String]) -> Int? {
    func value(_ flag: String) -> String? {
      guard let i = words.firstIndex(of: flag), i + 1 < words.count else { return nil }
      return words[i + 1]
    }
    if let range = value("--frames") {
      let ends = range.split(separator: ":").compactMap { Int($0) }
      return ends.count == 2 ? ends[1] - ends[0] : nil
    }
    if let duration = value("--duration").flatMap(Double.init), let fps = value("--fps").flatMap(Double.init) {
      return Int((duration * fps).rounded())
    }
    return nil
  }

  /// Decodes every frame of `path`, checking it holds as many frames as packets (an animated
  /// WebP: as its frames on its own rate's grid, `AnimatedWebP`).
  static func frameCount(_ path: String) throws -> Int {
    let reader = try VideoReader(path: path)
    var count = 0
    while let frame = try reader.nextFrame() {
      #expect(frame.width == reader.info.width && frame.height == reader.info.height, "\(path): frame \(count)")
      count += 1
    }
    #expect(count == reader.info.frameCount, "\(path): \(count) frames decoded of \(reader.info.frameCount) packets")
    return count
  }
}
