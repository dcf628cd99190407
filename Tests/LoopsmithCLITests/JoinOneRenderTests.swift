import Foundation
import Testing
import Video
import _TestSupport

/// `join` joins the segments of one render, of every codec, and only those (issue 47): HEVC
/// segments differ in the SEI libx265 writes into their extradata, not in their parameter sets;
/// segments of two renders differ in their preset tag or a stream parameter; Y4M segments are
/// refused for an MP4 for being raw pictures.
@Suite struct JoinOneRenderTests {
  static let rate = ["--fps", "4", "--duration", "12"]  // 48 frames

  static func render(_ effect: String, _ flags: [String], frames: String, to path: String) throws {
    let r = try runLoopsmith(["render", effect, "--quiet"] + rate + flags + ["--frames", frames, "-o", path])
    #expect(r.status == 0, "\(r.stderr)")
  }

  @Test(arguments: [
    ("hevc", "mp4", "32x56"), ("h264", "mp4", "32x56"), ("vp9", "webm", "32x56"), ("av1", "mp4", "64x64"),
  ])
  func segmentsOfOneRenderJoinToTheirOwnFrames(codec: String, ext: String, size: String) throws {
    let dir = TemporaryDirectory("loopsmith-join-one")
    let flags = ["--codec", codec, "--size", size]
    let (a, b, out) = (dir.path("a." + ext), dir.path("b." + ext), dir.path("joined." + ext))
    try Self.render("color-orbs", flags, frames: "0:4", to: a)
    try Self.render("color-orbs", flags, frames: "4:48", to: b)
    let r = try runLoopsmith(["join", a, b, "-o", out, "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains(#""frames" : 48"#), "\(r.stdout)")
    // Copied packets decode to the segments' own pictures, every one of them.
    let (info, joined) = try Decoded.frames(out, keepAlpha: false)
    let segments = try Decoded.frames(a, keepAlpha: false).frames + Decoded.frames(b, keepAlpha: false).frames
    #expect(joined.count == 48 && segments.count == 48 && info.frameCount == 48)
    #expect(info.formatDuration == 12.0)
    for (i, (x, y)) in zip(joined, segments).enumerated() {
      #expect(Decoded.meanSquaredError(x, y) == 0, "frame \(i)")
    }
    let check = try runLoopsmith(["check", out])
    #expect(check.stdout.contains("frames 48, duration 12.0000 s, key frame at 0: yes"), "\(check.stdout)")
  }

  @Test(arguments: [
    (
      "color-orbs", "aurora-mesh", [String](), "mp4",
      "its preset tag (effect aurora-mesh) differs from a.mp4's (effect color-orbs); expected segments of one render"
    ),
    (
      "color-orbs", "color-orbs", ["--set", "speed=2"], "mp4",
      #"its preset tag (parameters {"speed":"2"}) differs from a.mp4's (no parameters)"#
    ),
    ("voice-orb", "voice-orb", ["--background", "black"], "webm", "alpha no does not match a.webm's yes"),
    ("color-orbs", "color-orbs", ["--codec", "hevc"], "mp4", "codec hevc does not match a.mp4's h264"),
    // Raw pictures of the same size and rate: only the preset tag's hash on each frame tells them
    // apart (today's main joined them).
    ("color-orbs", "aurora-mesh", [String](), "y4m", "(their preset tags differ: "),
    ("color-orbs", "color-orbs", ["--set", "speed=2"], "y4m", "; expected segments of one render"),
  ])
  func segmentsOfTwoRendersAreRefused(
    first: String, second: String, flags: [String], ext: String, words: String
  )
    throws
  {
    let dir = TemporaryDirectory("loopsmith-join-one")
    let (a, b, out) = (dir.path("a." + ext), dir.path("b." + ext), dir.path("joined." + ext))
    try Self.render(first, ["--size", "32x56"], frames: "0:4", to: a)
    try Self.render(second, ["--size", "32x56"] + flags, frames: "4:48", to: b)
    let r = try runLoopsmith(["join", a, b, "-o", out])
    #expect(r.status == 2)
    #expect(r.stderr.hasPrefix("Error: \(b): "), "\(r.stderr)")
    // Both files named: the words say "a.mp4's" for the first segment's full path.
    #expect(r.stderr.contains(words.replacingOccurrences(of: "a.\(ext)'s", with: "\(a)'s")), "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test func y4mSegmentsIntoAnMP4AreRefusedForBeingRawPictures() throws {
    let dir = TemporaryDirectory("loopsmith-join-one")
    let (a, b) = (dir.path("a.y4m"), dir.path("b.y4m"))
    try Self.render("color-orbs", ["--size", "32x56"], frames: "0:4", to: a)
    try Self.render("color-orbs", ["--size", "32x56"], frames: "4:48", to: b)
    let r = try runLoopsmith(["join", a, b, "-o", dir.path("j.mp4")])
    #expect(r.status == 2)
    #expect(
      r.stderr
        == "Error: \(a): a Y4M segment (raw pictures) cannot be copied into -o j.mp4, which holds encoded packets; expected -o FILE.y4m to join Y4M segments, or segments rendered as .mp4\n"
    )
    #expect(!FileManager.default.fileExists(atPath: dir.path("j.mp4")))
    // And the other way round: MP4 segments into a Y4M.
    let (c, d) = (dir.path("c.mp4"), dir.path("d.mp4"))
    try Self.render("color-orbs", ["--size", "32x56"], frames: "0:4", to: c)
    try Self.render("color-orbs", ["--size", "32x56"], frames: "4:48", to: d)
    let back = try runLoopsmith(["join", c, d, "-o", dir.path("j.y4m")])
    #expect(back.status == 2)
    #expect(back.stderr.contains("\(c): not a Y4M file, and -o j.y4m is Y4M"), "\(back.stderr)")
  }

  @Test func aY4MSegmentWhoseFramesAreNotItsHeadersSizeIsRefused() throws {
    // Both headers say 16x56 over frames of 32x56: they match each other, but not their frames.
    let dir = TemporaryDirectory("loopsmith-join-one")
    let (a, b, out) = (dir.path("a.y4m"), dir.path("b.y4m"), dir.path("j.y4m"))
    try Self.render("color-orbs", ["--size", "32x56"], frames: "0:4", to: a)
    try Self.render("color-orbs", ["--size", "32x56"], frames: "4:48", to: b)
    for path in [a, b] {
      var data = try Data(contentsOf: URL(fileURLWithPath: path))
      let at = try #require(data.range(of: Data(" W32 ".utf8)))
      data.replaceSubrange(at, with: Data(" W16 ".utf8))
      try data.write(to: URL(fileURLWithPath: path))
    }
    let r = try runLoopsmith(["join", a, b, "-o", out])
    #expect(r.status == 2)
    // 4 frames of "FRAME XLOOPSMITHTAG=<16 hex>\n" (37 bytes) and 32x56 + 2 x 16x28 samples, where
    // 16x56 needs 37 + 1344 bytes.
    #expect(
      r.stderr
        == "Error: \(a): holds 10900 bytes of frames, not 4 frames of 1381 bytes (its header's size); its tag says frames 0:4 of 48\n"
    )
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  /// libav reads a Y4M header line of at most 96 bytes: a segment's at 1080x1920 was 100 on
  /// today's main, and `check` (like every libav program) could not open it.
  @Test func aFullSizeY4MSegmentOpensInLibav() throws {
    let dir = TemporaryDirectory("loopsmith-join-one")
    let a = dir.path("a.y4m")
    let r = try runLoopsmith(
      [
        "render", "color-orbs", "--quiet", "--fps", "4", "--duration", "12", "--size", "1080x1920", "--frames", "46:48",
        "-o", a,
      ])
    #expect(r.status == 0, "\(r.stderr)")
    let header = try #require(String(data: try Data(contentsOf: URL(fileURLWithPath: a)).prefix(200), encoding: .ascii))
    #expect(
      header.hasPrefix(
        "YUV4MPEG2 W1080 H1920 F4:1 Ip C420jpeg XCOLORRANGE=LIMITED XLOOPSMITH=46:48:48\nFRAME XLOOPSMITHTAG="))
    let check = try runLoopsmith(["check", a])
    #expect(check.stdout.contains("rawvideo  yuv420p 1080x1920 4/1 fps"), "\(check.stdout)\(check.stderr)")
    #expect(check.stdout.contains("frames 2,"), "\(check.stdout)")
  }

  /// A real WebM segment whose VP9 pictures change size mid-stream, under its own tags and stream
  /// header (the same render's, so every tag and parameter agrees): `join` decodes every packet it
  /// copies and refuses the frame of another size, writing nothing.
  @Test func aSegmentWhosePicturesChangeSizeMidStreamIsRefused() throws {
    let dir = TemporaryDirectory("loopsmith-join-one")
    let quick = ["--fps", "4", "--duration", "2", "--quiet"]
    for (name, size, frames) in [("a", "32x56", "0:4"), ("b", "32x56", "4:8"), ("c", "48x64", "4:8")] {
      let r = try runLoopsmith(
        ["render", "color-orbs", "--size", size, "--frames", frames, "-o", dir.path(name + ".webm")] + quick)
      #expect(r.status == 0, "\(r.stderr)")
    }
    try remuxVP9(
      [(dir.path("b.webm"), 0..<2), (dir.path("c.webm"), 0..<2)], header: dir.path("b.webm"),
      into: dir.path("spliced.webm"), tags: true)
    let out = dir.path("j.webm")
    let whole = try runLoopsmith(["join", dir.path("a.webm"), dir.path("b.webm"), "-o", out])
    #expect(whole.status == 0, "the unspliced segments join: \(whole.stderr)")
    try? FileManager.default.removeItem(atPath: out)
    let r = try runLoopsmith(["join", dir.path("a.webm"), dir.path("spliced.webm"), "-o", out])
    #expect(r.status == 2)
    #expect(
      r.stderr.hasPrefix("Error: \(dir.path("spliced.webm")): frame 2 decodes to 48x64")
        && r.stderr.hasSuffix("expected one frame size throughout, as render --frames writes\n"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out))
  }
}
