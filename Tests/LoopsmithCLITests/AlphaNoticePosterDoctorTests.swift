import Foundation
import Raster
import Testing
import Video
import _TestSupport

/// Alpha never lost silently, posters from the same render, and `doctor`, through the real binary.
@Suite struct AlphaNoticePosterDoctorTests {
  static let small = ["--size", "32x32", "--fps", "10", "--duration", "1", "--quiet"]
  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  // MARK: - Notices

  @Test func aTransparentEffectIntoAnOpaqueFormatGetsOneNotice() throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(["render", "voice-orb", "-o", dir.path("x.mp4")] + Self.small)
    #expect(r.status == 0, "\(r.stderr)")
    let notes = r.stderr.split(separator: "\n").filter { $0.hasPrefix("Note:") }
    #expect(notes.count == 1, "\(r.stderr)")
    let note = String(notes.first ?? "")
    #expect(note.contains("voice-orb") && note.contains("x.mp4 (h264)"), "\(note)")
    #expect(note.contains("--background") && note.contains("--alpha stacked"), "\(note)")
  }

  @Test func backgroundSilencesTheNoticeAndAlphaKeepingOutputsNeverGetIt() throws {
    let dir = TemporaryDirectory()
    for args in [
      ["voice-orb", "-o", dir.path("a.mp4"), "--background", "#102030"],
      ["voice-orb", "-o", dir.path("b.webm")],  // VP9 keeps alpha
      ["voice-orb", "-o", dir.path("c.mp4"), "--alpha", "stacked"],
      ["color-orbs", "-o", dir.path("d.mp4")],  // opaque: nothing is lost
    ] {
      let r = try runLoopsmith(["render"] + args + Self.small)
      #expect(r.status == 0, "\(args): \(r.stderr)")
      #expect(!r.stderr.contains("Note:"), "\(args): \(r.stderr)")
    }
  }

  @Test func hevcWithAlphaSaysWhyInOneLine() throws {
    let dir = TemporaryDirectory()
    for alpha in [["--alpha", "native"], ["--background", "transparent"]] {
      let r = try runLoopsmith(
        ["render", "voice-orb", "--codec", "hevc", "-o", dir.path("h.mp4")] + alpha + Self.small)
      #expect(r.status == 2, "\(alpha): \(r.stderr)")
      let lines = r.stderr.split(separator: "\n")
      #expect(lines.count == 1, "\(r.stderr)")
      #expect(r.stderr.contains("libx265 3.5") && r.stderr.contains("ProRes 4444"), "\(r.stderr)")
      #expect(r.stderr.contains("--alpha stacked"), "\(r.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir.path("h.mp4")))
    }
  }

  @Test func stackedAlphaNeedsAnH264OrHEVCOutput() throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(["render", "voice-orb", "-o", dir.path("x.webm"), "--alpha", "stacked"] + Self.small)
    #expect(r.status == 2 && r.stderr.contains("--alpha stacked") && r.stderr.contains(".mp4"), "\(r.stderr)")
    let both = try runLoopsmith(
      ["render", "voice-orb", "-o", dir.path("y.mp4"), "--alpha", "stacked", "--background", "white"] + Self.small)
    #expect(both.status == 2 && both.stderr.contains("--background"), "\(both.stderr)")
  }

  // MARK: - Posters

  /// The pixels of every frame of a file, as decoded.
  static func frames(_ path: String) throws -> [Image] { try Decoded.frames(path).frames }

  static func meanDifference(_ a: Image, _ b: Image) -> Double {
    var sum = 0.0
    for y in 0..<a.height {
      for x in 0..<a.width {
        let d = a[x, y] - b[x, y]
        sum += Double(Swift.abs(d.x) + Swift.abs(d.y) + Swift.abs(d.z) + Swift.abs(d.w))
      }
    }
    return sum / Double(a.width * a.height * 4) * 255
  }

  @Test func thePosterIsFrameZeroOfTheSameRender() throws {
    let dir = TemporaryDirectory()
    // APNG is lossless: the PNG poster must be its frame 0 exactly, alpha included.
    let r = try runLoopsmith(["render", "voice-orb", "-o", dir.path("x.apng"), "--poster", "--json"] + Self.small)
    #expect(r.status == 0, "\(r.stderr)")
    let frames = try Self.frames(dir.path("x.apng"))
    let poster = try Self.frames(dir.path("x.png"))
    #expect(frames.count == 10 && poster.count == 1)
    let first = try #require(frames.first), still = try #require(poster.first)
    #expect(still.width == 32 && still.height == 32)
    #expect(Self.meanDifference(first, still) == 0, "poster differs from frame 0")
    // ... and not frame 5: the orb moves, so the comparison can fail.
    #expect(Self.meanDifference(frames[5], still) > 0.1)
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    let posters = try #require(json["posters"] as? [[String: Any]])
    #expect(posters.first?["path"] as? String == dir.path("x.png"))
  }

  @Test func aVideosPosterMatchesItsDecodedFrameZero() throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(
      ["render", "aurora-mesh", "-o", dir.path("v.mp4"), "--poster", dir.path("p.webp"), "--crf", "12"] + Self.small)
    #expect(r.status == 0, "\(r.stderr)")
    let video = try Self.frames(dir.path("v.mp4"))
    let poster = try #require(try Self.frames(dir.path("p.webp")).first)
    #expect(!FileManager.default.fileExists(atPath: dir.path("v.png")), "a named poster replaces the default one")
    #expect(Self.meanDifference(video[0], poster) < 3, "\(Self.meanDifference(video[0], poster))")
    #expect(Self.meanDifference(video[0], poster) < Self.meanDifference(video[5], poster))
  }

  @Test func badPostersAreRefusedBeforeAnyWork() throws {
    let dir = TemporaryDirectory()
    for (output, poster, words) in [
      ("v.mp4", "p.gif", "expected a file name ending in .png, .jpg (.jpeg) or .webp"),
      ("v.webp", "v.webp", "also an output"),
    ] {
      let r = try runLoopsmith(
        ["render", "color-orbs", "-o", dir.path(output), "--poster=\(dir.path(poster))"] + Self.small)
      #expect(r.status == 2 && r.stderr.contains(words), "\(poster): \(r.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir.path(output)))
    }
  }

  @Test func aSegmentKeepsTheNoticeAndOnlyTheFirstTakesAPoster() throws {
    let dir = TemporaryDirectory()
    let late = try runLoopsmith(
      ["render", "voice-orb", "-o", dir.path("b.mp4"), "--frames", "5:10", "--poster"] + Self.small)
    #expect(late.status == 2 && late.stderr.contains("--poster: shows frame 0"), "\(late.stderr)")
    let first = try runLoopsmith(
      ["render", "voice-orb", "-o", dir.path("a.mp4"), "--frames", "0:5", "--poster"] + Self.small)
    #expect(first.status == 0, "\(first.stderr)")
    #expect(
      first.stderr.contains("Note:") && FileManager.default.fileExists(atPath: dir.path("a.png")), "\(first.stderr)")
  }

  // MARK: - Doctor

  static func pkgConfigVersion(_ library: String) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/pkg-config")
    p.arguments = ["--modversion", library]
    return try runToEnd(p).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func doctorJSONListsWhatTheBuildHas() throws {
    let r = try runLoopsmith(["doctor", "--json"], in: Self.packageRoot)
    #expect(r.status == 0, "\(r.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    #expect(json["ok"] as? Bool == true)
    let libraries = try #require(json["libraries"] as? [String: String])
    for name in ["libavcodec", "libavformat", "libavutil", "libswscale"] {
      #expect(libraries[name] == (try Self.pkgConfigVersion(name)), "\(name): \(libraries)")
    }
    let formats = try #require(json["formats"] as? [[String: Any]])
    // Every container and codec of the format table, each container's default first.
    let pairs = formats.map { "\($0["extension"]!)/\($0["codec"]!)" }
    let expected = OutputFormat.allCases.flatMap { f in f.spec.codecs.map { "\(f.rawValue)/\($0.rawValue)" } }
    #expect(pairs == expected)
    for f in formats {
      #expect(f["canWrite"] as? Bool == true, "\(f)")
      let components = try #require(f["components"] as? [[String: Any]])
      #expect(components.contains { $0["kind"] as? String == "muxer" })
      #expect(components.contains { $0["kind"] as? String == "encoder" && $0["role"] as? String == "video" })
    }
    let mp4 = try #require(formats.first { $0["extension"] as? String == "mp4" })
    #expect(mp4["codec"] as? String == "h264" && mp4["default"] as? Bool == true)
    let names = (mp4["components"] as? [[String: Any]] ?? []).map { "\($0["kind"]!) \($0["name"]!)" }
    #expect(
      names.contains("encoder libx264") && names.contains("muxer mp4") && names.contains("encoder aac"), "\(names)")
    let webm = try #require(formats.first { $0["extension"] as? String == "webm" })
    let webmNames = (webm["components"] as? [[String: Any]] ?? []).map { "\($0["kind"]!) \($0["name"]!)" }
    #expect(webmNames.contains("decoder libvpx-vp9"), "\(webmNames)")
    let cpu = try #require(json["cpu"] as? [String: Any])
    #expect(cpu["architecture"] as? String == "x86_64")
    let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
    let machine = cpu["machine"] as? [String] ?? []
    #expect(machine.contains("sse2") && machine.allSatisfy { cpuinfo.contains(" \($0)") }, "\(machine)")
    // A debug build compiles for the baseline; whatever it uses, the machine must have.
    #expect(cpu["compiledButMissing"] as? [String] == [], "\(cpu)")
    let presets = try #require(json["presets"] as? [[String: Any]])
    #expect(presets.first?["folder"] as? String == "presets" && presets.first?["exists"] as? Bool == true)
    let files = try FileManager.default.contentsOfDirectory(
      atPath: Self.packageRoot.appendingPathComponent("presets").path)
    #expect(presets.first?["presets"] as? Int == files.filter { $0.hasSuffix(".json") && $0 != "schema.json" }.count)
  }

  @Test func doctorInWordsAndItsErrors() throws {
    let r = try runLoopsmith(["doctor"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("libavcodec ") && r.stdout.contains(".mp4 h264 *") && r.stdout.contains("libx264"))
    let bad = try runLoopsmith(["doctor", "extra"])
    #expect(bad.status == 2 && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
  }
}
