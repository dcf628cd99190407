import Foundation
import Raster
import Testing
import Video
import _TestSupport

/// JPEG posters and stills through the real binary, read back with libav's mjpeg decoder.
@Suite struct JPEGPosterTests {
  static let small = ["--size", "64x48", "--fps", "10", "--duration", "1", "--quiet"]

  /// The mean and the largest difference of two pictures' RGB, in 8-bit codes.
  static func error(_ a: Image, _ b: Image) -> (mean: Double, max: Float) {
    var sum = 0.0
    var largest: Float = 0
    for i in 0..<a.count {
      let d = a.pixels[i] - b.pixels[i]
      let e = SIMD3<Float>(Swift.abs(d.x), Swift.abs(d.y), Swift.abs(d.z)) * 255
      sum += Double(e.x + e.y + e.z)
      largest = Swift.max(largest, e.max())
    }
    return (sum / Double(a.count * 3), largest)
  }

  /// Whether the file is a whole JPEG: SOI first, EOI last.
  static func isJPEG(_ path: String) -> Bool {
    guard let data = FileManager.default.contents(atPath: path), data.count > 4 else { return false }
    return data.prefix(2) == Data([0xFF, 0xD8]) && data.suffix(2) == Data([0xFF, 0xD9])
  }

  /// The poster against frame 0 of a lossless APNG of the same render (the JPEG's own error) and
  /// of an H.264 MP4 (both encoders' errors): measured at 64x48, mean 0.7 and 1.95 codes, max 5.3
  /// and 11.2; frame 5 is further from it than frame 0, so the comparison can fail.
  @Test(arguments: [("v.apng", 1.2, Float(8)), ("v.mp4", 2.5, Float(16))])
  func aJPEGPosterIsItsVideosDecodedFrameZero(video name: String, mean: Double, max: Float) throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(
      ["render", "aurora-mesh", "-o", dir.path(name), "--poster", dir.path("p.jpg"), "--crf", "12"]
        .filter { !(name.hasSuffix(".apng") && ($0 == "--crf" || $0 == "12")) } + Self.small)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(!r.stderr.contains("Note:"), "an opaque effect loses nothing: \(r.stderr)")
    let video = try Decoded.frames(dir.path(name)).frames
    let (info, stills) = try Decoded.frames(dir.path("p.jpg"))
    #expect(
      info.codecName == "mjpeg" && info.pixelFormatName == "yuvj444p", "\(info.codecName) \(info.pixelFormatName)")
    #expect(Self.isJPEG(dir.path("p.jpg")))
    let poster = try #require(stills.first)
    #expect(stills.count == 1 && poster.width == 64 && poster.height == 48)
    let zero = Self.error(video[0], poster)
    #expect(zero.mean < mean && zero.max <= max, "\(name): \(zero)")
    #expect(Self.error(video[5], poster).mean > zero.mean, "\(name): \(Self.error(video[5], poster)) vs \(zero)")
    #expect(!FileManager.default.fileExists(atPath: dir.path("v.png")), "a named poster replaces the default one")
  }

  /// A still into .jpg or .jpeg takes the same path as a .png, within the JPEG's error of it.
  @Test(arguments: ["s.jpg", "s.JPEG"])
  func aStillIsAJPEGToo(name: String) throws {
    let dir = TemporaryDirectory()
    let png = try runLoopsmith(["render", "aurora-mesh", "-o", dir.path("s.png")] + Self.small)
    let jpg = try runLoopsmith(["render", "aurora-mesh", "-o", dir.path(name)] + Self.small)
    #expect(png.status == 0 && jpg.status == 0, "\(jpg.stderr)")
    #expect(Self.isJPEG(dir.path(name)))
    let exact = try #require(try Decoded.frames(dir.path("s.png")).frames.first)
    let lossy = try #require(try Decoded.frames(dir.path(name)).frames.first)
    let e = Self.error(exact, lossy)
    #expect(e.mean < 1.5 && e.max <= 12, "\(e)")
  }

  /// JPEG has no alpha: a transparent effect's JPEG poster is named in the alpha notice and drawn
  /// over black, or over --background, which silences the notice.
  @Test func aTransparentEffectsJPEGPosterGetsTheNoticeAndItsBackground() throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(
      ["render", "voice-orb", "-o", dir.path("o.webm"), "--poster", dir.path("o.jpg")] + Self.small)
    #expect(r.status == 0, "\(r.stderr)")
    let notes = r.stderr.split(separator: "\n").filter { $0.hasPrefix("Note:") }
    #expect(notes.count == 1, "\(r.stderr)")
    #expect(
      notes.first
        == "Note: voice-orb is transparent, but o.jpg (jpeg) has no alpha, so it is drawn over black; choose the colour with --background COLOR (silences this note), or keep alpha with --alpha stacked (.mp4 for player/loopsmith-alpha.js) or a .webm/.mov/.png/.webp output",
      "\(r.stderr)")
    let black = try #require(try Decoded.frames(dir.path("o.jpg")).frames.first)
    #expect(Self.error(black, Image(width: 64, height: 48)).max > 20, "the orb shows")
    let corner = black[0, 0]
    #expect(corner.x < 2 / 255 && corner.y < 2 / 255 && corner.z < 2 / 255, "\(corner)")

    let blue = try runLoopsmith(
      ["render", "voice-orb", "-o", dir.path("b.webm"), "--poster", dir.path("b.jpg"), "--background", "#204060"]
        + Self.small)
    #expect(blue.status == 0 && !blue.stderr.contains("Note:"), "\(blue.stderr)")
    let c = try #require(try Decoded.frames(dir.path("b.jpg")).frames.first)[0, 0] * 255
    #expect(Swift.abs(c.x - 0x20) <= 2 && Swift.abs(c.y - 0x40) <= 2 && Swift.abs(c.z - 0x60) <= 2, "\(c)")
  }

  /// Bad poster paths get one line and no file: an unknown extension (2), a folder that is a file (1).
  @Test func badJPEGPathsGetOneLineAndNoFile() throws {
    let dir = TemporaryDirectory()
    #expect(FileManager.default.createFile(atPath: dir.path("file"), contents: Data("x".utf8)))
    for (poster, status, words) in [
      ("p.jpe", Int32(2), "expected a file name ending in .png, .jpg (.jpeg) or .webp"),
      ("file/p.jpg", Int32(1), "file is not a folder"),
    ] {
      let r = try runLoopsmith(
        ["render", "color-orbs", "-o", dir.path("v.mp4"), "--poster=\(dir.path(poster))"] + Self.small)
      #expect(r.status == status && r.stderr.contains(words), "\(poster): \(r.stderr)")
      #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir.path("v.mp4")))
    }
    let still = try runLoopsmith(["render", "color-orbs", "-o", dir.path("file/s.jpg")] + Self.small)
    #expect((1...2).contains(still.status) && still.stderr.split(separator: "\n").count == 1, "\(still.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path) == ["file"])
  }

  /// `batch --gallery --poster-format jpg` writes JPEG posters of frame 0 and the page shows them;
  /// a later PNG run replaces them, and a bad format is one line and exit 2.
  @Test func theGalleryUsesJPEGPostersWhenAsked() throws {
    let dir = TemporaryDirectory()
    let presets = dir.path("presets")
    try FileManager.default.createDirectory(atPath: presets, withIntermediateDirectories: true)
    try Data(#"{"effect": "aurora-mesh", "outputs": ["mesh.mp4"]}"#.utf8).write(
      to: URL(fileURLWithPath: "\(presets)/mesh.json"))
    let out = dir.path("out")
    let tiny = ["--size", "32x24", "--fps", "5", "--duration", "1", "--quiet"]
    let r = try runLoopsmith(["batch", presets, "--out", out, "--gallery", "--poster-format", "jpg"] + tiny)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(Self.isJPEG("\(out)/posters/mesh.jpg"))
    #expect(!FileManager.default.fileExists(atPath: "\(out)/posters/mesh.png"))
    let poster = try #require(try Decoded.frames("\(out)/posters/mesh.jpg").frames.first)
    let video = try Decoded.frames("\(out)/mesh.mp4").frames
    #expect(poster.width == 32 && poster.height == 24)
    #expect(Self.error(video[0], poster).mean < 4, "\(Self.error(video[0], poster))")
    var html = try String(contentsOfFile: "\(out)/index.html", encoding: .utf8)
    #expect(html.contains("poster=\"./posters/mesh.jpg\""), "\(html)")

    let png = try runLoopsmith(["batch", presets, "--out", out, "--gallery", "--force"] + tiny)
    #expect(png.status == 0, "\(png.stderr)")
    html = try String(contentsOfFile: "\(out)/index.html", encoding: .utf8)
    #expect(html.contains("poster=\"./posters/mesh.png\"") && !html.contains("mesh.jpg"), "\(html)")
    #expect(!FileManager.default.fileExists(atPath: "\(out)/posters/mesh.jpg"))

    for (args, words) in [
      (
        ["--gallery", "--poster-format", "gif"],
        "--poster-format: 'gif' is not a poster format; expected png, jpg or webp"
      ),
      (["--poster-format", "jpg"], "--poster-format: only with --gallery"),
    ] {
      let bad = try runLoopsmith(["batch", presets, "--out", dir.path("bad")] + args + tiny)
      #expect(bad.status == 2 && bad.stderr.contains(words), "\(bad.stderr)")
      #expect(bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir.path("bad")))
    }
  }

  @Test func doctorListsTheMJPEGEncoderForJPEG() throws {
    let r = try runLoopsmith(["doctor", "--json"])
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    let formats = try #require(json["formats"] as? [[String: Any]])
    let jpg = try #require(formats.first { $0["extension"] as? String == "jpg" })
    #expect(jpg["codec"] as? String == "jpeg" && jpg["canWrite"] as? Bool == true && jpg["alpha"] as? Bool == false)
    let parts = try #require(jpg["components"] as? [[String: Any]])
    let names = parts.map {
      "\($0["kind"] as? String ?? "") \($0["name"] as? String ?? "") \($0["present"] as? Bool ?? false)"
    }
    #expect(names.contains("encoder mjpeg true") && names.contains("decoder mjpeg true"), "\(names)")
    let text = try runLoopsmith(["doctor"])
    #expect(text.stdout.contains(".jpg jpeg *"), "\(text.stdout)")
  }
}
