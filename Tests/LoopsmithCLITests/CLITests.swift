import Foundation
import Testing
import Video
import _TestSupport

/// The built binary, driven as a user or a CI script would.
@Suite struct CLITests {
  @Test func renderWritesAnMP4OfExactlyTheAskedFrames() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("orbs.mp4")
    let r = try runLoopsmith([
      "render", "color-orbs", "-o", out, "--size", "64x112", "--fps", "30", "--duration", "1", "--scale", "0.2",
      "--json", "--quiet",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let info = try VideoReader(path: out).info
    #expect(info.codecName == "h264" && info.pixelFormatName == "yuv420p")
    #expect(info.frameCount == 30 && info.width == 64 && info.height == 112)
    #expect(abs((info.formatDuration ?? 0) - 1) < 1e-6)
    #expect(info.colorPrimaries == "bt709" && info.colorTransfer == "bt709" && info.colorMatrix == "bt709")
    #expect(info.moovBeforeMdat == true && info.firstPacketIsKeyframe)
    #expect(r.stdout.contains("\"frames\" : 30"))
    #expect(r.stdout.contains("\"status\" : \"ok\""))
    #expect(r.stdout.contains("\"encoderThreads\" : "))
  }

  @Test func nullRendersEveryFrameAndWritesNothing() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("orbs.mp4")
    let r = try runLoopsmith([
      "render", "color-orbs", "-o", out, "--null", "--size", "64x112", "--fps", "10", "--duration", "1", "--scale",
      "0.2", "--json", "--quiet",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("\"frames\" : 10"))
    #expect(!FileManager.default.fileExists(atPath: out))
    let bare = try runLoopsmith([
      "render", "color-orbs", "--null", "--size", "64x112", "--fps", "10", "--duration", "1", "--quiet",
    ])
    #expect(bare.status == 0, "\(bare.stderr)")
    #expect(bare.stdout.isEmpty)  // no Y4M on stdout: --null without -o writes nothing either
    // A segment alone, as a bench times one part of a long loop: its frames, nothing written.
    let part = try runLoopsmith([
      "render", "color-orbs", "--null", "--frames", "2:5", "--size", "64x112", "--fps", "10", "--duration", "1",
      "--json", "--quiet",
    ])
    #expect(part.status == 0, "\(part.stderr)")
    #expect(part.stdout.contains("\"frames\" : 3"), "\(part.stdout)")
    // Without --null, stdout is still no place for a segment.
    let piped = try runLoopsmith([
      "render", "color-orbs", "-o", "-", "--frames", "2:5", "--size", "64x112", "--fps", "10", "--duration", "1",
    ])
    #expect(piped.status == 2)
    #expect(piped.stderr.contains("--frames: '-' (stdout) cannot be joined; expected a file"), "\(piped.stderr)")
  }

  @Test func aWebMLoopOfTheLoaderKeepsItsAlphaAndPassesCheck() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("blob.webm")
    let r = try runLoopsmith(["render", "blob-morph-loader", "-o", out, "--scale", "0.5", "--fps", "10", "--quiet"])
    #expect(r.status == 0, "\(r.stderr)")
    let reader = try VideoReader(path: out)
    #expect(reader.info.codecName == "vp9" && reader.info.alphaMode)
    let first = try #require(try reader.nextFrame())
    #expect(first[0, 0].w == 0)  // the corner is transparent
    let check = try runLoopsmith(["check", out])
    #expect(check.status == 0, "\(check.stdout)")
    #expect(check.stdout.contains("PASS"))
  }

  @Test func theStillAtTimeZeroIsAPNGOfTheEffect() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("still.png")
    let r = try runLoopsmith([
      "render", "weather", "--weather", "clearDay", "--time", "0", "--size", "90x160", "--scale", "0.25", "-o", out,
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let image = try #require(try VideoReader(path: out).nextFrame())
    // The sky's bottom color is the seed's (0.46, 0.72, 0.96) within 2 codes where nothing covers it.
    let p = image[5, 159]
    #expect(abs(p.x * 255 - 0.46 * 255) < 3 && abs(p.z * 255 - 0.96 * 255) < 3)
  }

  @Test func checkPassesALoopAndRejectsASpliceThatJumps() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("rain.mp4")
    let r = try runLoopsmith([
      "render", "weather", "--weather", "rain", "-o", out, "--size", "64x112", "--fps", "30", "--duration", "6",
      "--scale", "0.2", "--quiet",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let good = try runLoopsmith(["check", out, "--json"])
    #expect(good.status == 0, "\(good.stdout)")
    #expect(good.stdout.contains("\"passed\" : true"))
    // A clear night after rain: its first frame is far from the rain's last, a jump.
    let other = dir.path("other.mp4")
    _ = try runLoopsmith([
      "render", "weather", "--weather", "clearNight", "-o", other, "--size", "64x112", "--fps", "30", "--duration", "6",
      "--scale", "0.2", "--max-speed-change", "1", "--quiet",
    ])
    let splice = try runLoopsmith(["check", out, "--then", other])
    #expect(splice.status == 1)
    #expect(splice.stdout.contains("FAIL: seam ratio"))
  }

  @Test(arguments: [
    (["render"], "render needs an effect or a preset file"),
    (
      ["rendr"],
      "Unknown command 'rendr'; expected one of render, batch, list, plan, check, schema, join, doctor, completions. Did you mean 'render'?"
    ),
    (["render", "color-orb", "-o", "x.mp4"], "unknown effect 'color-orb'"),
    (["render", "color-orbs", "-o", "x.mp4", "--fsp", "24"], "Unknown option '--fsp'. Did you mean '--fps'?"),
    (["render", "color-orbs", "-o", "x.mp4", "--fps"], "Missing value for '--fps'"),
    (["render", "color-orbs", "-o", "x.mp4", "--fps", "0"], "--fps: '0' is not valid"),
    (["render", "color-orbs", "-o", "x.mp4", "--size", "63x64"], "even"),
    (["render", "color-orbs", "-o", "x.mp4", "--size", "big"], "--size: 'big' is not valid; expected WxH"),
    (["render", "color-orbs", "-o", "x.mp4", "--duration", "nan"], "--duration: 'nan' is not valid"),
    (["render", "color-orbs", "-o", "x.mp4", "--duration", "-1"], "--duration: '-1' is not valid"),
    (["render", "color-orbs", "-o", "x.mp4", "--set", "colors=#12345"], "--set colors: '#12345' is not valid"),
    (["render", "color-orbs", "-o", "x.mp4", "--set", "sped=1"], "Did you mean 'speed'?"),
    (["render", "color-orbs", "-o", "x.avi"], "'x.avi' has no known extension"),
    (["render", "weather", "--weather", "hail", "-o", "x.mp4"], "--weather: 'hail' is not valid"),
    (["render", "weather", "--weather", "thunderstorm", "--duration", "10", "-o", "x.mp4"], "--duration"),
    (["render", "voice-orb", "--level", "2", "-o", "x.webm"], "--level: '2' is not valid"),
    (["render", "color-orbs", "-o", "x.mp4", "--crf", "99"], "--crf: '99' is not valid"),
    (["render", "color-orbs", "-o", "x.mp4", "--time", "3"], "--time: shows one moment in a still (.png)"),
  ])
  func badInputGetsOneLineAndStatusTwoAndNoFile(args: [String], expected: String) throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(args + ["--quiet"], in: dir.url)
    #expect(r.status == 2)
    #expect(r.stderr.hasPrefix("Error: "))
    #expect(r.stderr.contains(expected), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1)
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).isEmpty)
  }

  @Test func aThunderstormLengthThatCannotLoopNamesTheNearestThatCan() throws {
    let r = try runLoopsmith(["render", "weather", "--weather", "thunderstorm", "--duration", "10", "-o", "x.mp4"])
    #expect(r.status == 2)
    #expect(r.stderr.contains("6") && r.stderr.contains("12"), "\(r.stderr)")
  }

  @Test func anOutputIntoAMissingFolderFailsWithThePathAndLeavesNothing() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("missing/orbs.mp4")
    let r = try runLoopsmith([
      "render", "color-orbs", "-o", out, "--size", "32x32", "--duration", "1", "--fps", "10", "--scale", "0.1",
      "--quiet",
    ])
    #expect(r.status == 1 || r.status == 2)
    #expect(r.stderr.contains("missing"))
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test func helpAndVersionPrintToStdout() throws {
    let help = try runLoopsmith(["render", "--help"])
    #expect(help.status == 0)
    #expect(help.stdout.contains("USAGE: loopsmith render <effect | preset.json> [options]"))
    #expect(help.stdout.contains("-h, --help"))
    let version = try runLoopsmith(["--version"])
    #expect(version.stdout == "loopsmith 0.1.0\n")
  }

  @Test func listShowsEveryEffectWithItsDefaultLoop() throws {
    let r = try runLoopsmith(["list"])
    #expect(r.status == 0)
    for name in ["color-orbs", "aurora-mesh", "blob-morph-loader", "voice-orb", "weather"] {
      #expect(r.stdout.contains("  \(name)  —"))
    }
    #expect(r.stdout.contains("s loop at"))
  }

  @Test func planShowsNoSpeedChangeAboveTheLimit() throws {
    let r = try runLoopsmith(["plan", "weather", "--weather", "rain", "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    let plan = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
    let rows = try #require(plan?["rows"] as? [[String: Any]])
    #expect(!rows.isEmpty)
    for row in rows { #expect(abs(row["speedChange"] as? Double ?? 1) <= 0.1 + 1e-9) }
    #expect((plan?["length"] as? Double).map { $0.truncatingRemainder(dividingBy: 6) == 0 } == true)
  }

  /// Loop A, the clip, then loop B, as an app plays them: both splices pass `check`, and a splice
  /// the wrong way round (the clip's end into loop A) is rejected.
  @Test(arguments: [
    (["weather", "--size", "64x112", "--scale", "0.2"], "--weather", "rain", "thunderstorm"),
    (["voice-orb", "--size", "64x64", "--scale", "0.16"], "--state", "idle", "speaking"),
  ])
  func aTransitionClipSplicesLoopAIntoLoopB(base: [String], flag: String, from: String, to: String) throws {
    let dir = TemporaryDirectory()
    let (a, clip, b) = (dir.path("a.mp4"), dir.path("clip.mp4"), dir.path("b.mp4"))
    let common = ["render"] + base + ["--fps", "10", "--threads", "2", "--quiet"]
    for (out, extra) in [(a, [flag, from]), (b, [flag, to]), (clip, ["--transition", "\(from):\(to)", "--json"])] {
      let r = try runLoopsmith(common + extra + ["-o", out])
      #expect(r.status == 0, "\(r.stderr)")
      if out == clip { #expect(r.stdout.contains("\"transition\"") && r.stdout.contains("\"toLoop\"")) }
    }
    for (first, then) in [(a, clip), (clip, b)] {
      let check = try runLoopsmith(["check", first, "--then", then])
      #expect(check.status == 0, "\(first) then \(then): \(check.stdout)")
    }
    let wrong = try runLoopsmith(["check", clip, "--then", a])
    #expect(wrong.status == 1, "\(wrong.stdout)")
  }

  /// A nearly still loop passes `check` after H.264 as it does before, with the same bytes twice
  /// (docs/ENCODING.md, Seams).
  @Test func aSlowLoopPassesCheckAfterH264() throws {
    let dir = TemporaryDirectory()
    let (one, two) = (dir.path("one.mp4"), dir.path("two.mp4"))
    for out in [one, two] {
      let r = try runLoopsmith([
        "render", "aurora-mesh", "-o", out, "--size", "64x112", "--scale", "0.2", "--fps", "10", "--threads", "2",
        "--quiet",
      ])
      #expect(r.status == 0, "\(r.stderr)")
    }
    let check = try runLoopsmith(["check", one, "--json"])
    #expect(check.status == 0, "\(check.stdout)")
    #expect(FileManager.default.contents(atPath: one) == FileManager.default.contents(atPath: two))
  }

  @Test func aTransitionPresetRendersTheClip() throws {
    let dir = TemporaryDirectory()
    let preset = dir.path("rain-to-snow.json")
    try
      #"{"effect": "weather", "transition": ["rain", "snow"], "size": "36x64", "scale": 0.1, "fps": 10, "outputs": ["clip.y4m"]}"#
      .write(toFile: preset, atomically: true, encoding: .utf8)
    let plan = try runLoopsmith(["plan", preset])
    #expect(plan.status == 0, "\(plan.stderr)")
    #expect(plan.stdout.contains("6 s transition rain -> snow, 60 frames at 10 fps, the change at 2.5 s"))
    #expect(plan.stdout.contains("snow/snow.near"))
  }
}
