import Foundation
import Raster
import Testing
import Video
import _TestSupport

@testable import Loopsmith

/// `check` judges what a viewer sees: the seam's largest 16x16 block change against the file's
/// other steps, every step against the lossless source (`--against`, or the loopsmith-preset tag
/// the file carries), the audio seam; several files, one JSON document. Real encoders, small loops.
@Suite struct LoopCheckCLITests {
  /// The blob loader at 64x64 and 4 fps: 116 frames, the cheapest loop to draw in a debug build.
  static let loader = ["blob-morph-loader", "--size", "64x64", "--scale", "0.6", "--fps", "4"]

  /// Renders the loader into `outputs` with the real binary.
  func render(_ outputs: [String], extra: [String] = []) throws {
    let r = try runLoopsmith(["render"] + Self.loader + extra + outputs.flatMap { ["-o", $0] } + ["--quiet"])
    #expect(r.status == 0, "\(r.stderr)")
  }

  /// Writes the loader's frames in `order` (loop frame numbers) into `path` with the project's
  /// encoder, the file's comment set to `comment` (nil keeps the tag the job makes).
  func write(_ path: String, order: (Int) -> Int, comment: String?? = .none, side: Int = 64) throws -> Int {
    var request = RenderRequest()
    request.effect = "blob-morph-loader"
    (request.size, request.scale, request.fps, request.threads) = ((side, side), 0.6 * Double(side) / 64, 4, 1)
    request.outputs = [path]
    let job = try request.job()
    var settings = job.outputs[0]
    if case .some(let c) = comment { settings.comment = c }
    let writer = try VideoWriter(settings)
    let surface = Surface(image: Image(width: side, height: side), scale: Float(job.scale))
    let effect = job.makeEffect()
    for i in 0..<job.frameCount {
      RenderPipeline.draw(effect, job: job, frame: order(i), on: surface)
      try writer.append(surface.image)
    }
    _ = try writer.finish()
    return job.frameCount
  }

  /// Our own Color Orbs GIF passes `check --against` its source: its steps are luma's (and
  /// alpha's), and the chroma its palette's dither moves is judged against its own chroma steps.
  /// Judged on every plane alike, three steps of this file "jumped" (108->109 18.59 codes against
  /// the source's 10.87: chroma dither), and a 540x960 render failed even the plain `check` at
  /// its seam (Cb 6.17 codes against the source's 2.82).
  @Test func ourOwnGIFPassesOnWhatAViewerSees() throws {
    let dir = TemporaryDirectory()
    let gif = dir.path("orbs.gif")
    let flags = "color-orbs --size 128x224 --fps 10"
    let made = try runLoopsmith(["render"] + flags.split(separator: " ").map(String.init) + ["-o", gif, "--quiet"])
    #expect(made.status == 0, "\(made.stderr)")
    let r = try runLoopsmith(["check", gif, "--against", flags, "--json"])
    #expect(r.status == 0, "\(r.stdout)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    let row = try #require((json["files"] as? [[String: Any]])?.first)
    let against = try #require(row["against"] as? [String: Any])
    #expect((against["jumps"] as? [Any])?.isEmpty == true, "\(against["jumps"] ?? "")")
    let notes = row["notes"] as? [String] ?? []
    #expect(
      notes.contains { $0.hasPrefix("a palette's dither moves the chroma") && $0.contains("Cb over black") }, "\(notes)"
    )
  }

  @Test func aLoopCutInHalfFailsAtTheSeamAndAWholeOnePasses() throws {
    let dir = TemporaryDirectory()
    let (whole, half) = (dir.path("whole.mp4"), dir.path("half.mp4"))
    try render([whole])
    try render([half], extra: ["--frames", "0:58"])  // half of the 116-frame loop, as its own file
    let good = try runLoopsmith(["check", whole])
    #expect(good.status == 0, "\(good.stdout)")
    #expect(good.stdout.contains("PASS") && good.stdout.contains("against the file's loopsmith-preset tag"))
    let bad = try runLoopsmith(["check", half])
    #expect(bad.status == 1, "\(bad.stdout)")
    #expect(bad.stdout.contains("FAIL: seam ratio") && bad.stdout.contains("jumps at the seam"), "\(bad.stdout)")
  }

  @Test func severalFilesGiveOneJSONDocumentAndExitOneWhenAnyFails() throws {
    let dir = TemporaryDirectory()
    let (good, bad) = (dir.path("good.mp4"), dir.path("bad.mp4"))
    try render([good])
    try render([bad], extra: ["--frames", "0:58"])
    let both = try runLoopsmith(["check", good, bad, "--json"])
    #expect(both.status == 1, "\(both.stdout)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(both.stdout.utf8)) as? [String: Any])
    #expect(json["passed"] as? Bool == false)
    let files = try #require(json["files"] as? [[String: Any]])
    #expect(files.count == 2)
    #expect(files[0]["path"] as? String == good && files[0]["passed"] as? Bool == true)
    #expect(files[1]["path"] as? String == bad && files[1]["passed"] as? Bool == false)
    let seam = try #require(files[0]["seam"] as? Double)
    let threshold = try #require(files[0]["threshold"] as? Double)
    #expect(seam > 0 && seam <= threshold && threshold >= SeamJudgement.floor)
    let badSeam = try #require(files[1]["seam"] as? Double)
    #expect(badSeam > (files[1]["threshold"] as? Double ?? .infinity))
    // The worst step of the broken file is its seam; every step is listed, the seam last.
    let worst = try #require(files[1]["worstSteps"] as? [[String: Any]])
    #expect(worst.first?["step"] as? String == "seam")
    #expect((files[1]["steps"] as? [Double])?.count == 58)
    let against = try #require(files[0]["against"] as? [String: Any])
    #expect((against["sourceSteps"] as? [Double])?.count == 116)
    #expect((against["jumps"] as? [Any])?.isEmpty == true)
    let alone = try runLoopsmith(["check", good, good])
    #expect(alone.status == 0 && alone.stdout.components(separatedBy: "PASS").count == 3, "\(alone.stdout)")
  }

  @Test func againstFindsAFrameThatJumpsAheadAndTheTagAloneDoesNotFailIt() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("jump.mp4")
    // Frame 50 shows frame 62: the steps into and out of it jump 12 frames' motion.
    let n = try write(out, order: { $0 == 50 ? 62 : $0 })
    #expect(n == 116)
    let given = try runLoopsmith(
      ["check", out, "--against", Self.loader.joined(separator: " "), "--json"])
    #expect(given.status == 1, "\(given.stdout)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(given.stdout.utf8)) as? [String: Any])
    let row = try #require((json["files"] as? [[String: Any]])?.first)
    let jumps = try #require((row["against"] as? [String: Any])?["jumps"] as? [[String: Any]])
    let steps = Set(jumps.compactMap { $0["step"] as? String })
    #expect(steps.contains("49->50") && steps.contains("50->51") && !steps.contains("seam"), "\(jumps)")
    #expect(jumps.count <= 4, "\(jumps)")
    // The tag names the same loop: the jump is reported, but only a seam jump fails without --against.
    let tagged = try runLoopsmith(["check", out])
    #expect(tagged.status == 0, "\(tagged.stdout)")
    #expect(tagged.stdout.contains("note: ") && tagged.stdout.contains("49->50"), "\(tagged.stdout)")
    // A preset file names the source too.
    let preset = dir.path("loader.json")
    try #"{"effect": "blob-morph-loader", "fps": 4, "scale": 0.6}"#.write(
      toFile: preset, atomically: true, encoding: .utf8)
    let byPreset = try runLoopsmith(["check", out, "--against", preset])
    #expect(byPreset.status == 1 && byPreset.stdout.contains("jump beyond the source's motion"), "\(byPreset.stdout)")
  }

  /// At 256x256 (256 blocks a plane) the slack is 1.22 codes, not 1 (`Fidelity.slack(blocks:)`): coding
  /// noise has more blocks to reach its largest in. A frame that jumps ahead still fails there.
  @Test func aLargerPictureGetsMoreSlackAndStillFailsAJump() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("jump.mp4")
    let n = try write(out, order: { $0 == 50 ? 62 : $0 }, side: 256)
    #expect(n == 116)
    let given = try runLoopsmith(
      ["check", out, "--against", "blob-morph-loader --size 256x256 --scale 2.4 --fps 4", "--json"])
    #expect(given.status == 1, "\(given.stdout)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(given.stdout.utf8)) as? [String: Any])
    let against = try #require((json["files"] as? [[String: Any]])?.first?["against"] as? [String: Any])
    #expect(against["slack"] as? Double == 1.221, "\(against)")
    let jumps = try #require(against["jumps"] as? [[String: Any]])
    let steps = Set(jumps.compactMap { $0["step"] as? String })
    #expect(steps.contains("49->50") && steps.contains("50->51") && !steps.contains("seam"), "\(jumps)")
    let text = try runLoopsmith(["check", out, "--against", "blob-morph-loader --size 256x256 --scale 2.4 --fps 4"])
    #expect(text.stdout.contains("(file > 1.5 x source + 1.22 codes)"), "\(text.stdout)")
  }

  /// Every format `check` reads carries the tag: MP4, MOV and WebM in the container's comment,
  /// GIF, APNG and WebP in a block put in after libav's muxer (ImageComments).
  @Test func theTagRoundTripsThroughEveryFormatCheckReads() throws {
    let dir = TemporaryDirectory()
    let names = ["t.mp4", "t.mov", "t.webm", "t.gif", "t.apng", "t.webp"]
    try render(names.map(dir.path), extra: ["--set", "speed=0.8"])
    for name in names {
      let info = try VideoReader(path: dir.path(name)).info
      let request = try PresetTag.request(in: info, videoPath: dir.path(name))
      let r = try #require(request, "\(name): \(info.comment ?? "no comment")")
      #expect(r.effect == "blob-morph-loader" && r.fps == 4 && r.scale == 0.6)
      #expect(r.size?.width == 64 && r.size?.height == 64)
      #expect(r.parameters["speed"]?.description == "0.8")
      #expect(r.outputs.isEmpty)
    }
    // Every decodable format is checked, with or without a tag.
    let all = try runLoopsmith(["check"] + names.map(dir.path))
    #expect(all.status == 0, "\(all.stdout)")
    #expect(all.stdout.components(separatedBy: "against the file's loopsmith-preset tag").count == names.count + 1)
  }

  /// An animated WebP is checked like the others (libav 5.1 cannot decode one; `AnimatedWebP`
  /// does), and a broken one is one FAIL line while the other files are still checked.
  @Test func anAnimatedWebPIsCheckedAndABrokenOneFailsAlone() throws {
    let dir = TemporaryDirectory()
    let (webp, mp4) = (dir.path("l.webp"), dir.path("l.mp4"))
    try render([webp, mp4])
    let alone = try runLoopsmith(["check", webp])
    #expect(alone.status == 0 && alone.stdout.contains("against the file's loopsmith-preset tag"), "\(alone.stdout)")
    // Cut in the middle of a frame: a chunk now runs past the file's end.
    let broken = dir.path("broken.webp")
    let bytes = try Data(contentsOf: URL(fileURLWithPath: webp))
    try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: broken))
    let single = try runLoopsmith(["check", broken])
    #expect(single.status == 2, "\(single.stderr)")
    #expect(
      single.stderr == "Error: \(broken): a WebP chunk runs past the file's end\n" && single.stdout.isEmpty,
      "\(single.stderr)")
    let both = try runLoopsmith(["check", broken, mp4])
    #expect(both.status == 1, "\(both.stdout)")
    #expect(
      both.stdout.contains("FAIL: \(broken): ") && both.stdout.contains("runs past the file's end")
        && both.stdout.contains("PASS"), "\(both.stdout)")
  }

  @Test(arguments: [
    ("huge", "loopsmith-preset tag is over 65536 bytes"),
    ("json", "(loopsmith-preset tag): not valid JSON"),
    ("escape", "'levels': a path with '..'"),
    ("key", "(loopsmith-preset tag): unknown key 'outpts'"),
  ])
  func aHostileTagGivesOneClearLine(kind: String, expected: String) throws {
    let dir = TemporaryDirectory()
    let out = dir.path("hostile.mp4")
    let body =
      switch kind {
      case "huge": #"{"effect": "blob-morph-loader", "description": ""# + String(repeating: "x", count: 70_000) + "\"}"
      case "json": #"{"effect": "blob-morph-loader", "fps": 4,"#
      case "escape": #"{"effect": "voice-orb", "levels": "../../../etc/passwd"}"#
      default: #"{"effect": "blob-morph-loader", "outpts": ["x.mp4"]}"#
      }
    _ = try write(out, order: { $0 }, comment: PresetTag.prefix + body)
    let r = try runLoopsmith(["check", out])
    #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
    let failures = r.stdout.split(separator: "\n").filter { $0.contains("FAIL") }
    #expect(failures.count == 1 && failures[0].contains(expected), "\(r.stdout)")
    #expect(failures.first.map { $0.count < 400 } == true)
    // Without the comparison, the loop itself passes.
    let plain = try runLoopsmith(["check", out, "--no-against"])
    #expect(plain.status == 0, "\(plain.stdout)")
  }

  /// A transition clip is no loop: known as one from its tag or `--against`, its step from the
  /// last frame back to the first (day into night: a large one) is not judged, and `check` says
  /// so; taken for a loop (`--no-against`), that step is a seam that jumps.
  @Test func aTransitionClipIsJudgedAsNoLoop() throws {
    let dir = TemporaryDirectory()
    let clip = dir.path("clip.mp4")
    let made = try runLoopsmith([
      "render", "weather", "--transition", "clearDay:clearNight", "--size", "32x56", "--scale", "0.1", "--fps", "4",
      "-o", clip, "-o", dir.path("clip.gif"), "-o", dir.path("clip.apng"), "--quiet",
    ])
    #expect(made.status == 0, "\(made.stderr)")
    // GIF and APNG say so on their own too: their tag is in a comment block.
    for image in ["clip.gif", "clip.apng"] {
      let r = try runLoopsmith(["check", dir.path(image)])
      #expect(r.status == 0 && r.stdout.contains("a transition clip: last frame to first"), "\(image): \(r.stdout)")
    }
    let tagged = try runLoopsmith(["check", clip])
    #expect(tagged.status == 0, "\(tagged.stdout)")
    #expect(tagged.stdout.contains("note: a transition clip (clearDay to clearNight) is no loop"), "\(tagged.stdout)")
    #expect(tagged.stdout.contains("a transition clip: last frame to first"), "\(tagged.stdout)")
    let json = try runLoopsmith(["check", clip, "--json"])
    let row = try #require(
      ((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["files"] as? [[String: Any]])?
        .first)
    #expect(row["loop"] as? Bool == false && row["transition"] as? String == "clearDay:clearNight", "\(row)")
    let seam = try #require(row["seam"] as? Double)
    let threshold = try #require(row["threshold"] as? Double)
    #expect(seam > 4 * threshold, "day to night in one step: \(seam) against \(threshold)")
    let plain = try runLoopsmith(["check", clip, "--no-against"])
    #expect(plain.status == 1 && plain.stdout.contains("the loop jumps at the seam"), "\(plain.stdout)")
    let given = try runLoopsmith(["check", clip, "--against", "weather --transition clearDay:clearNight --scale 0.1"])
    #expect(given.status == 0 && given.stdout.contains("is no loop"), "\(given.stdout)")
  }

  /// A seam far smaller than both its neighbours is a repeated frame, unless the source's own seam
  /// has that shape: the weather tour slows into its seam at the end of a fade and starts fast,
  /// and passes with a note; the loader with its last frame replaced by its first still stalls.
  @Test func aSeamSmallBesideItsNeighboursStallsOnlyWhereTheSourceMoves() throws {
    let dir = TemporaryDirectory()
    let tour = dir.path("tour.mp4")
    let preset = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("presets/weather-tour.json").path
    let made = try runLoopsmith(
      ["render", preset, "--size", "16x16", "--scale", "0.05", "--fps", "4", "-o", tour, "--quiet"])
    #expect(made.status == 0, "\(made.stderr)")
    let tagged = try runLoopsmith(["check", tour])
    #expect(tagged.status == 0, "\(tagged.stdout)")
    #expect(tagged.stdout.contains("the loop slows into its seam; no frame repeats"), "\(tagged.stdout)")
    let alone = try runLoopsmith(["check", tour, "--no-against"])
    #expect(alone.status == 1 && alone.stdout.contains("(a stall)"), "\(alone.stdout)")

    let repeated = dir.path("repeated.mp4")
    #expect(try write(repeated, order: { $0 == 115 ? 0 : $0 }) == 116)
    let stalled = try runLoopsmith(["check", repeated])
    #expect(stalled.status == 1 && stalled.stdout.contains("(a stall)"), "\(stalled.stdout)")
    #expect(stalled.stdout.contains("against the file's loopsmith-preset tag"), "\(stalled.stdout)")
  }

  /// A sequence that plays once ends on its last value and starts on its first: `render` says the
  /// loop will jump there (and `check` finds it does); repeated, or ending where it starts, no note.
  @Test func aSequencePlayedOnceIsNamedAsJumpingAtTheSeam() throws {
    let dir = TemporaryDirectory()
    let tiny = ["--size", "16x16", "--scale", "0.05", "--fps", "4", "--quiet"]
    let once = try runLoopsmith(
      ["render", "weather", "--set", "sequence=clearDay:3,clearNight:3", "-o", dir.path("once.mp4")] + tiny)
    #expect(once.status == 0, "\(once.stderr)")
    let notes = once.stderr.split(separator: "\n").filter { $0.hasPrefix("Note:") }
    #expect(notes.count == 1, "\(once.stderr)")
    #expect(
      notes.first?.contains("the loop ends on clearNight and starts again on clearDay: it jumps at the seam") == true
        && notes.first?.contains("--set repeat=true") == true, "\(once.stderr)")
    let jumped = try runLoopsmith(["check", dir.path("once.mp4")])
    #expect(jumped.status == 1 && jumped.stdout.contains("the loop jumps at the seam"), "\(jumped.stdout)")
    for (name, sequence) in [
      ("repeat.mp4", ["sequence=clearDay:3,clearNight:3", "repeat=true"]),
      ("back.mp4", ["sequence=clearDay:3,clearNight:3,clearDay:3"]),
    ] {
      let r = try runLoopsmith(
        ["render", "weather"] + sequence.flatMap { ["--set", $0] } + ["-o", dir.path(name)] + tiny)
      #expect(r.status == 0 && !r.stderr.contains("Note:"), "\(name): \(r.stderr)")
    }
    let voice = try runLoopsmith(
      ["render", "voice-orb", "--set", "sequence=idle:2,speaking:3", "--background", "black", "-o", dir.path("v.mp4")]
        + tiny)
    #expect(voice.stderr.contains("ends on speaking and starts again on idle"), "\(voice.stderr)")
    #expect(!voice.stderr.contains("repeat=true"), "the voice orb has no repeat: \(voice.stderr)")
  }

  /// A sequence longer than the loop is cut: the steps that would start after the last frame are
  /// named, and the jump note names the weather the last frame really shows (today's main said
  /// nothing of the cut and named the sequence's last step, which never showed, as the ending).
  @Test func aSequenceTheLoopCutsNamesWhatNeverShows() throws {
    let dir = TemporaryDirectory()
    let tiny = ["--size", "16x16", "--scale", "0.05", "--fps", "2", "--duration", "12", "--quiet"]
    func notes(_ sequence: String) throws -> [String] {
      let r = try runLoopsmith(["render", "weather", "--set", "sequence=\(sequence)", "-o", dir.path("s.y4m")] + tiny)
      #expect(r.status == 0, "\(r.stderr)")
      return r.stderr.split(separator: "\n").filter { $0.hasPrefix("Note:") }.map(String.init)
    }
    // All thunderstorm for 12 s: no jump, and rain is cut.
    #expect(
      try notes("thunderstorm:20,rain:20") == [
        "Note: the sequence is cut by the 12 s loop: rain (from 20 s) never shows; a --duration past 20 s shows it, or shorten the steps before"
      ])
    let fog = try notes("rain:4,thunderstorm:4,fog:10,rain:3")
    #expect(fog.count == 2 && fog[0].contains("rain (from 18 s) never shows"), "\(fog)")
    #expect(fog.last?.contains("the loop ends on fog and starts again on rain") == true, "\(fog)")
    // Back on rain by the last frame: nothing cut that matters, no jump.
    #expect(try notes("rain:5,thunderstorm:5,rain:30") == [])
  }

  /// A level track the tag names is read beside the video: moved without it, the file is judged
  /// on its own, with a note, instead of failing for a file it never needed to play.
  @Test func aTagWhoseLevelFileIsNotBesideTheVideoIsJudgedOnItsOwn() throws {
    let dir = TemporaryDirectory()
    let levels = (0..<60).map { String(format: "%.4f,%.3f", Double($0) / 30, $0 % 10 < 5 ? 0.2 : 0.8) }
    try Data(levels.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dir.path("voice.csv")))
    let video = dir.path("orb.mp4")
    let made = try runLoopsmith(
      [
        "render", "voice-orb", "--levels", "voice.csv", "--size", "32x32", "--scale", "0.1", "--fps", "4", "-o", video,
        "--quiet",
      ],
      in: dir.url)
    #expect(made.status == 0, "\(made.stderr)")
    let here = try runLoopsmith(["check", video])
    #expect(here.status == 0 && here.stdout.contains("against the file's loopsmith-preset tag"), "\(here.stdout)")
    try FileManager.default.createDirectory(atPath: dir.path("moved"), withIntermediateDirectories: false)
    try FileManager.default.moveItem(atPath: video, toPath: dir.path("moved/orb.mp4"))
    let moved = try runLoopsmith(["check", dir.path("moved/orb.mp4")])
    #expect(moved.status == 0, "\(moved.stdout)")
    #expect(!moved.stdout.contains("against the file's"), "\(moved.stdout)")
    #expect(
      moved.stdout.contains("note: the file's loopsmith-preset tag names voice.csv, which is not beside the video"),
      "\(moved.stdout)")
    // --max-bytes checks its encodes the same way: into another folder, the track is not beside
    // them either, and the render still succeeds (it once failed here, writing nothing).
    let budget = try runLoopsmith(
      [
        "render", "voice-orb", "--levels", "voice.csv", "--size", "32x32", "--scale", "0.1", "--fps", "4", "-o",
        "moved/budget.webm", "--max-bytes", "1M",
      ], in: dir.url)
    #expect(budget.status == 0, "\(budget.stderr)")
    #expect(budget.stderr.contains("the loop check passed"), "\(budget.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir.path("moved/budget.webm")))
  }

  @Test func aToneCutMidWaveClicksAtTheAudioSeamAndAWholeOneDoesNot() throws {
    let dir = TemporaryDirectory()
    let (whole, cut) = (dir.path("whole.wav"), dir.path("cut.wav"))
    // 440 Hz over the 2 s loop is 880 whole cycles. The cut one is the loop's length too (so
    // --audio-fit leaves it alone), but its tone starts 0.501 s late: the loop ends mid-cycle
    // (659.56 cycles) and starts in silence.
    try writeWAV(to: whole, silent: 0, loud: 2)
    try writeWAV(to: cut, silent: 0.501, loud: 1.499)
    for (wav, clicks) in [(whole, false), (cut, true)] {
      let out = dir.path(clicks ? "cut.webm" : "whole.webm")
      let r = try runLoopsmith([
        "render", "voice-orb", "--state", "listening", "--audio", wav, "-o", out, "--size", "64x64", "--scale", "0.2",
        "--fps", "10", "--duration", "2", "--max-speed-change", "1", "--quiet",
      ])
      #expect(r.status == 0, "\(r.stderr)")
      let check = try runLoopsmith(["check", out, "--no-against", "--json"])
      let json = try #require(try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any])
      let row = try #require((json["files"] as? [[String: Any]])?.first)
      let audio = try #require(row["audio"] as? [String: Any])
      #expect(audio["passed"] as? Bool == !clicks, "\(wav): \(audio)")
      let failures = row["failures"] as? [String] ?? []
      #expect(failures.contains { $0.contains("a click") } == clicks, "\(failures)")
    }
  }

  @Test(arguments: [
    (["check"], "check needs a video file"),
    (
      ["check", "a.mp4", "--against", "fog-machine"], "--against: 'fog-machine' is neither a preset file nor an effect"
    ),
    (["check", "a.mp4", "--against", "weather --fsp 3"], "--against: Unknown option '--fsp'"),
    (["check", "a.mp4", "--against", "weather -o x.mp4"], "--against: takes no outputs"),
    (["check", "a.mp4", "--against", "weather", "--no-against"], "--against and --no-against"),
    (["check", "a.mp4", "a.mp4", "--then", "a.mp4"], "--then: checks a splice of one file"),
  ])
  func badArgumentsGetOneLineAndStatusTwo(args: [String], expected: String) throws {
    let dir = TemporaryDirectory()
    try Data([0]).write(to: dir.url.appendingPathComponent("a.mp4"))
    let r = try runLoopsmith(args, in: dir.url)
    #expect(r.status == 2, "\(r.stdout)\(r.stderr)")
    #expect(r.stderr.contains(expected) && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
  }
}
