import Foundation
import Testing
import _TestSupport

/// Mutation fuzzing of real files through `check`, `join` and `render --audio`, seeded and
/// bounded: small renders of every format `check` reads, two segments of one render and a WAV,
/// each mutated (bits flipped, bytes and 32-bit words overwritten with edge values, slices cut,
/// repeated or dropped, the file truncated) and given to the real binary.
///
/// Every run must end within its deadline with status 0, 1 or 2, say what was wrong in one line
/// (or, for `check`, a report whose rule failed), never trap, and leave no output or temporary
/// behind when it fails. `make test` runs `MUTATIONS` tries (default 30); `make fuzz` runs this test
/// for `MUTATION_SECONDS` from `MUTATION_SEED`, and a failing try's file is kept in
/// `MUTATION_KEEP` (fuzz/.work/mutate) to replay.
@Suite struct MediaMutationTests {
  static let small = ["--size", "32x56", "--fps", "4", "--duration", "2", "--quiet"]

  enum Command { case check, join, audio }

  /// The seed files, rendered once per run: (file, the command it goes through).
  static func seeds(in dir: TemporaryDirectory) throws -> [(name: String, command: Command)] {
    let renders: [[String]] = [
      ["render", "color-orbs", "-o", "a.mp4", "-o", "a.webm", "-o", "a.gif", "-o", "a.apng", "-o", "a.mov"] + small,
      ["render", "aurora-mesh", "-o", "a.webp"] + small,
      ["render", "color-orbs", "--frames", "0:4", "-o", "seg0.mp4"] + small,
      ["render", "color-orbs", "--frames", "4:8", "-o", "seg1.mp4"] + small,
    ]
    for args in renders {
      let r = try runLoopsmith(args, in: dir.url)
      #expect(r.status == 0, "\(args.joined(separator: " ")): \(r.stderr)")
    }
    try wavBytes(samples: toneSamples(seconds: 2, frequency: 220, peak: 8000), rate: 48_000)
      .write(to: dir.url.appendingPathComponent("voice.wav"))
    let orb = try runLoopsmith(
      ["render", "voice-orb", "--state", "speaking", "--audio", "voice.wav", "--background", "black", "-o", "orb.mp4"]
        + small, in: dir.url)
    #expect(orb.status == 0, "\(orb.stderr)")
    return ["a.mp4", "a.webm", "a.gif", "a.apng", "a.webp", "a.mov", "orb.mp4"].map { ($0, .check) }
      + [("seg0.mp4", .join), ("voice.wav", .audio)]
  }

  /// `data` changed by one to four seeded mutations; `log` says which, to replay by hand.
  static func mutate(_ data: Data, _ random: inout SeededRandom, log: inout [String]) -> Data {
    var bytes = [UInt8](data)
    let words: [UInt32] = [0, 1, 0x7FFF_FFFF, 0xFFFF_FFFF, 0x8000_0000, 0xFFFF, 8, 16]
    for _ in 0..<(1 + random.nextInt() % 4) where !bytes.isEmpty {
      let at = random.nextInt() % bytes.count
      switch random.nextInt() % 7 {
      case 0:
        let bit = UInt8(1 << (random.nextInt() % 8))
        bytes[at] ^= bit
        log.append("flip \(bit) at \(at)")
      case 1:
        let value = UInt8(random.nextInt() % 256)
        bytes[at] = value
        log.append("byte \(value) at \(at)")
      case 2, 3:
        let word = words[random.nextInt() % words.count]
        for i in 0..<4 where at + i < bytes.count { bytes[at + i] = UInt8(truncatingIfNeeded: word >> (24 - 8 * i)) }
        log.append("word \(word) at \(at)")
      case 4:
        bytes.removeSubrange(at...)
        log.append("truncate at \(at)")
      case 5:
        let length = min(1 + random.nextInt() % 256, bytes.count - at)
        bytes.insert(contentsOf: bytes[at..<(at + length)], at: at)
        log.append("repeat \(length) at \(at)")
      default:
        let length = min(1 + random.nextInt() % 64, bytes.count - at)
        bytes.removeSubrange(at..<(at + length))
        log.append("drop \(length) at \(at)")
      }
    }
    return Data(bytes)
  }

  /// What is wrong with one run's outcome, or nil.
  static func fault(_ r: RunResult, command: Command, output: String?) -> String? {
    guard [0, 1, 2].contains(r.status) else { return "status \(r.status)" }
    if r.stderr.contains("Fatal error") || r.stderr.contains("Program crashed") { return "a trap" }
    let lines = r.stderr.split(separator: "\n").filter { !$0.hasPrefix("Note: ") }
    if r.status != 0 {
      let reported = command == .check && r.status == 1 && lines.isEmpty && r.stdout.contains("FAIL")
      if !reported && (lines.count != 1 || !lines[0].hasPrefix("Error: ")) { return "not one error line" }
      if let output, FileManager.default.fileExists(atPath: output) { return "an output after a failure" }
    }
    return nil
  }

  @Test func mutatedMediaAreAnsweredInOneLineInBoundedTime() throws {
    let env = ProcessInfo.processInfo.environment
    let dir = TemporaryDirectory("media-mutation")
    let seeds = try Self.seeds(in: dir)
    let seconds = env["MUTATION_SECONDS"].flatMap(Double.init)
    let tries = seconds == nil ? env["MUTATIONS"].flatMap(Int.init) ?? 30 : Int.max
    var random = SeededRandom(seed: env["MUTATION_SEED"].flatMap(UInt64.init) ?? 47)
    let keep = env["MUTATION_KEEP"]
    let start = Date()
    var faults: [String] = []
    var runs = 0
    while runs < tries, seconds.map({ Date().timeIntervalSince(start) < $0 }) ?? true {
      defer { runs += 1 }
      let seed = seeds[runs % seeds.count]
      var log: [String] = []
      let data = Self.mutate(try Data(contentsOf: dir.url.appendingPathComponent(seed.name)), &random, log: &log)
      let ext = (seed.name as NSString).pathExtension
      let name = "m\(runs).\(ext)"
      try data.write(to: dir.url.appendingPathComponent(name))
      let output = dir.path("out\(runs).mp4")
      let args: [String]
      switch seed.command {
      case .check: args = ["check", name]
      case .join: args = ["join", name, "seg1.mp4", "-o", output]
      case .audio:
        args = ["render", "voice-orb", "--state", "speaking", "--audio", name, "-o", output] + Self.small
      }
      var r: RunResult?
      var hung = ""
      do {
        r = try runLoopsmith(args, in: dir.url, seconds: 120)
      } catch let e as ChildTimedOut {
        hung = e.stderrTail
      }
      let temporaries = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).filter {
        $0.hasSuffix(".loopsmith-tmp")
      }
      let problem =
        r.map {
          temporaries.isEmpty
            ? Self.fault($0, command: seed.command, output: output) : "temporaries left: \(temporaries)"
        }
        ?? "no answer within 120 s"
      if let problem {
        let said = r?.stderr ?? hung
        faults.append(
          "\(args.joined(separator: " ")) on \(seed.name) [\(log.joined(separator: ", "))]: \(problem): \(said.prefix(400))"
        )
        if let keep {
          try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
          try? data.write(to: URL(fileURLWithPath: keep).appendingPathComponent("mutate-\(runs)-\(seed.name)"))
        }
      }
      try? FileManager.default.removeItem(atPath: dir.path(name))
      try? FileManager.default.removeItem(atPath: output)
    }
    print("media mutation: \(runs) tries, \(faults.count) faults")
    #expect(faults.isEmpty, "\(faults.count) of \(runs) tries: \(faults.prefix(5).joined(separator: "\n"))")
  }
}
