import Foundation
import Testing
import _TestSupport

/// `loopsmith completions`: the bash script, loaded in a real bash, completes what the command
/// table says (commands, effects, presets found, choice values, files), and a preset whose name
/// would run code in the shell is left out; zsh's and fish's scripts name every command and flag.
@Suite struct CompletionsTests {
  /// What bash completes for `words` (the last one being completed), with the script sourced.
  static func complete(_ words: [String], script: String, in dir: TemporaryDirectory) throws -> [String] {
    let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    let program = """
      source ./loopsmith.bash
      complete -p loopsmith
      COMP_WORDS=(\(quoted)); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=(); _loopsmith
      printf '%s\\n' "${COMPREPLY[@]}"
      """
    try script.write(toFile: dir.path("loopsmith.bash"), atomically: true, encoding: .utf8)
    let r = try SharedFolderTests.shell(
      "cd '\(dir.url.path)' && bash --norc --noprofile -c \(shellQuoted(program))", seconds: 30)
    #expect(r.status == 0, "\(r.stderr)")
    var lines = r.stdout.split(separator: "\n").map(String.init)
    // The first line is `complete -p`'s: the function is registered for loopsmith.
    #expect(lines.first == "complete -o filenames -F _loopsmith loopsmith", "\(lines)")
    lines.removeFirst()
    return lines.sorted()
  }

  static func shellQuoted(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'" }

  @Test func bashCompletesCommandsEffectsPresetsAndChoices() throws {
    let dir = TemporaryDirectory("completions")
    try FileManager.default.createDirectory(atPath: dir.path("presets"), withIntermediateDirectories: true)
    let preset = #"{"version":1,"effect":"weather","outputs":["a.mp4"]}"#
    for name in ["weather-dusk", "x$(touch pwned)", "y'; touch pwned2; '"] {
      try preset.write(toFile: dir.path("presets/\(name).json"), atomically: true, encoding: .utf8)
    }
    try "".write(toFile: dir.path("orb.wav"), atomically: true, encoding: .utf8)
    let r = try runLoopsmith(["completions", "bash"], in: dir.url)
    #expect(r.status == 0, "\(r.stderr)")
    let script = r.stdout
    #expect(try Self.complete(["loopsmith", "ren"], script: script, in: dir) == ["render"])
    #expect(try Self.complete(["loopsmith", "render", "wea"], script: script, in: dir) == ["weather", "weather-dusk"])
    #expect(
      try Self.complete(["loopsmith", "render", "weather", "--weather", "th"], script: script, in: dir) == [
        "thunderstorm"
      ])
    #expect(
      try Self.complete(["loopsmith", "render", "voice-orb", "--state", "s"], script: script, in: dir) == ["speaking"])
    #expect(
      try Self.complete(["loopsmith", "render", "weather", "--codec", "h"], script: script, in: dir) == [
        "h264", "hevc",
      ])
    #expect(
      try Self.complete(["loopsmith", "render", "weather", "--aud"], script: script, in: dir) == [
        "--audio", "--audio-fit",
      ])
    #expect(
      try Self.complete(["loopsmith", "render", "voice-orb", "--audio", "orb"], script: script, in: dir) == ["orb.wav"])
    #expect(
      try Self.complete(["loopsmith", "join", "a", "--key-frames", ""], script: script, in: dir) == [
        "first", "segments",
      ])
    #expect(try Self.complete(["loopsmith", "help", "ch"], script: script, in: dir) == ["check"])
    // Names that would run code are not in the script, and nothing ran.
    #expect(!script.contains("pwned"))
    #expect(!FileManager.default.fileExists(atPath: dir.path("pwned")))
    #expect(!FileManager.default.fileExists(atPath: dir.path("pwned2")))
  }

  @Test func zshAndFishScriptsNameEveryCommandAndFlag() throws {
    for shell in ["zsh", "fish"] {
      let r = try runLoopsmith(["completions", shell])
      #expect(r.status == 0, "\(r.stderr)")
      for word in ["render", "batch", "check", "join", "plan", "doctor", "completions"] {
        #expect(r.stdout.contains(shell == "zsh" ? "    \(word)) _arguments" : "-a '\(word)'"), "\(shell): \(word)")
      }
      for flag in ["weather", "codec", "max-bytes", "key-frames", "gallery"] {
        #expect(r.stdout.contains(shell == "zsh" ? "--\(flag)[" : "-l \(flag)"), "\(shell): --\(flag)")
      }
      #expect(r.stdout.contains(shell == "zsh" ? "(h264 hevc vp9 av1 prores)" : "-a 'h264 hevc vp9 av1 prores'"))
    }
    let bad = try runLoopsmith(["completions", "tcsh"])
    #expect(bad.status == 2)
    #expect(bad.stderr == "Error: completions takes one shell; got 'tcsh'; expected one of bash, zsh, fish\n")
  }

  /// Where zsh or fish is installed, its script parses (`zsh -n`, `fish -n`).
  @Test(arguments: ["zsh", "fish"])
  func theScriptParsesWhereTheShellIsInstalled(shell: String) throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/\(shell)") else {
      Issue.record("\(shell) is not installed; run make shells (make test does)")
      return
    }
    let dir = TemporaryDirectory("completions")
    let r = try runLoopsmith(["completions", shell])
    try r.stdout.write(toFile: dir.path("script"), atomically: true, encoding: .utf8)
    let parsed = try SharedFolderTests.shell("\(shell) -n '\(dir.path("script"))'", seconds: 30)
    #expect(parsed.status == 0, "\(parsed.stderr)")
  }
}
