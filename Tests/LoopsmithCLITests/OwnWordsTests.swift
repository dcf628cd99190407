import Foundation
import Testing
import _TestSupport

@testable import Effects

/// Inputs and outputs answered in their own words: a full stdout is an error, not exit 0; a level
/// file with Windows line ends reads as the same levels.
@Suite struct OwnWordsTests {
  /// Runs the binary with stdout on /dev/full.
  static func intoFullDisk(_ arguments: [String], in directory: URL? = nil) throws -> RunResult {
    let process = Process()
    process.executableURL = loopsmithBinary()
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
    process.standardOutput = full
    let err = Pipe()
    process.standardError = err
    try process.run()
    return try collect(process, stdout: nil, stderr: err, seconds: 300)
  }

  static let commands: [[String]] = [
    ["list"], ["--version"], ["help"], ["help", "render"], ["render", "--help"], ["schema"],
    ["plan", "weather", "--weather", "rain"], ["doctor"],
    ["render", "color-orbs", "--size", "32x56", "--time", "0", "-o", "still.png", "--json", "--quiet"],
  ]

  @Test(arguments: commands)
  func aCommandWhoseStdoutCannotBeWrittenFails(args: [String]) throws {
    let dir = TemporaryDirectory("own-words")
    let r = try Self.intoFullDisk(args, in: dir.url)
    #expect(r.status == 1, "\(args): status \(r.status): \(r.stderr)")
    #expect(r.stderr.hasSuffix("Error: stdout: cannot write: No space left on device\n"), "\(args): \(r.stderr)")
  }

  @Test func levelsWithWindowsLineEndsReadAsTheSameLevels() throws {
    let lf = "time,level\n0,0.1\n0.5,0.8\n1,0.3\n"
    let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
    let a = try LevelTrack(csv: lf)
    let b = try LevelTrack(csv: crlf)
    #expect(b.times == [0, 0.5, 1])
    #expect(a.times == b.times && a.levels == b.levels)
    // And through the binary: the two files draw the same frames.
    let dir = TemporaryDirectory("own-words-levels")
    try lf.write(toFile: dir.path("lf.csv"), atomically: true, encoding: .utf8)
    try crlf.write(toFile: dir.path("crlf.csv"), atomically: true, encoding: .utf8)
    for name in ["lf", "crlf"] {
      let r = try runLoopsmith(
        ["render", "voice-orb", "--levels", "\(name).csv", "--size", "32x56", "--fps", "4", "--duration", "1", "-o",
         "\(name).y4m", "--quiet"], in: dir.url)
      #expect(r.status == 0, "\(name): \(r.stderr)")
    }
    let frames = try ["lf", "crlf"].map { try Data(contentsOf: dir.url.appendingPathComponent("\($0).y4m")) }
    #expect(!frames[0].isEmpty && frames[0] == frames[1])
  }
}
