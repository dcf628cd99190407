import Foundation
import Loopsmith
import Raster
import Testing
import Video
import _TestSupport

/// `--quality` levels, `--max-bytes`, the Telegram presets and the loop tuning, through the real binary.
@Suite struct QualityBudgetTests {
  static let small = ["color-orbs", "--size", "96x160", "--duration", "1", "--fps", "10", "--quiet"]

  func bytes(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? -1
  }

  /// The file's decoded frames, every channel of every pixel: two encodes with the same settings
  /// decode alike, though their container comments (the preset tag) may differ.
  func decoded(_ path: String) throws -> [Float] {
    try Decoded.frames(path).frames.flatMap { frame in
      (0..<frame.count).flatMap { i in [frame.pixels[i].x, frame.pixels[i].y, frame.pixels[i].z, frame.pixels[i].w] }
    }
  }

  /// high > balanced > small in bytes for each codec, and --crf wins over --quality.
  @Test(arguments: [("mp4", "h264"), ("mp4", "hevc"), ("webm", "vp9")])
  func levelsAreOrdered(ext: String, codec: String) throws {
    let dir = TemporaryDirectory()
    var sizes: [String: Int] = [:]
    for level in ["high", "balanced", "small"] {
      let out = dir.path("\(level).\(ext)")
      let r = try runLoopsmith(["render"] + Self.small + ["--codec", codec, "--quality", level, "-o", out])
      #expect(r.status == 0, "\(r.stderr)")
      sizes[level] = bytes(out)
    }
    #expect(sizes["high"]! > sizes["balanced"]!, "\(codec): \(sizes)")
    #expect(sizes["balanced"]! > sizes["small"]!, "\(codec): \(sizes)")
    let plain = dir.path("plain.\(ext)")
    #expect(try runLoopsmith(["render"] + Self.small + ["--codec", codec, "-o", plain]).status == 0)
    // The default is balanced: the same pictures (the files' preset tags differ by the quality key).
    #expect(try decoded(plain) == decoded(dir.path("balanced.\(ext)")))
    // A number wins over a name.
    let spec = try #require(VideoCodec(rawValue: codec)?.spec.quality)
    let both = dir.path("both.\(ext)")
    let numbered = dir.path("numbered.\(ext)")
    let crf = String(spec.value(for: .small))
    #expect(
      try runLoopsmith(["render"] + Self.small + ["--codec", codec, "--quality", "high", "--crf", crf, "-o", both])
        .status == 0)
    #expect(try runLoopsmith(["render"] + Self.small + ["--codec", codec, "--crf", crf, "-o", numbered]).status == 0)
    #expect(try decoded(both) == decoded(numbered) && decoded(both) == decoded(dir.path("small.\(ext)")))
  }

  /// An animated WebP under a budget is loop-checked like the other formats (AnimatedWebP reads it).
  @Test func aWebPWithinABudgetIsLoopChecked() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("w.webp")
    let r = try runLoopsmith(["render"] + Self.small + ["--max-bytes", "1000000", "-o", out])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.contains("; the loop check passed (seam "), "\(r.stderr)")
    #expect(bytes(out) > 0 && bytes(out) <= 1_000_000)
  }

  @Test func badLevelIsRefused() throws {
    let out = TemporaryDirectory().path("x.mp4")
    let r = try runLoopsmith(["render"] + Self.small + ["--quality", "best", "-o", out])
    #expect(r.status == 2)
    #expect(r.stderr.contains("--quality") && r.stderr.contains("high, balanced, small"), "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  /// A budget below the default size is met by a lower quality, reported; one that cannot be met
  /// fails with exit 1, the smallest size reached, and no file.
  @Test func maxBytesFitsAndFails() throws {
    let dir = TemporaryDirectory()
    let free = dir.path("free.webm")
    #expect(try runLoopsmith(["render"] + Self.small + ["-o", free]).status == 0)
    let natural = bytes(free)
    let budget = natural * 6 / 10
    let fit = dir.path("fit.webm")
    let r = try runLoopsmith(
      [
        "render", "color-orbs", "--size", "96x160", "--duration", "1", "--fps", "10", "--max-bytes", "\(budget)", "-o",
        fit,
      ]
    )
    #expect(r.status == 0, "\(r.stderr)")
    #expect(bytes(fit) > 0 && bytes(fit) <= budget, "\(bytes(fit)) of \(budget)")
    #expect(r.stderr.contains("within --max-bytes") && r.stderr.contains("crf "), "\(r.stderr)")
    // The kept try passed the loop check, and `check` says the same of the written file.
    #expect(r.stderr.contains("; the loop check passed (seam "), "\(r.stderr)")
    let checked = try runLoopsmith(["check", fit])
    #expect(checked.status == 0 && checked.stdout.contains("PASS"), "\(checked.stdout)")
    // The decoded file is the whole loop.
    let reader = try VideoReader(path: fit)
    var frames = 0
    while try reader.nextFrame() != nil { frames += 1 }
    #expect(frames == 10)

    let none = dir.path("none.webm")
    let f = try runLoopsmith(["render"] + Self.small + ["--max-bytes", "0.2K", "-o", none])
    #expect(f.status == 1, "\(f.stderr)")
    #expect(f.stderr.contains("cannot fit") && f.stderr.contains("smallest it reached is"), "\(f.stderr)")
    #expect(f.stderr.split(separator: "\n").count == 1, "\(f.stderr)")
    #expect(!FileManager.default.fileExists(atPath: none))
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == ["fit.webm", "free.webm"])

    let bad = try runLoopsmith(["render"] + Self.small + ["--max-bytes", "lots", "-o", dir.path("b.webm")])
    #expect(bad.status == 2 && bad.stderr.contains("--max-bytes"), "\(bad.stderr)")
    let gif = try runLoopsmith(["render"] + Self.small + ["--max-bytes", "10K", "-o", dir.path("b.gif")])
    #expect(gif.status == 2 && gif.stderr.contains("no quality setting"), "\(gif.stderr)")
  }

  @Test func suffixes() {
    #expect(ByteSize.parse("256K") == 262_144 && ByteSize.parse("256kb") == 262_144)
    #expect(ByteSize.parse("1.5M") == 1_572_864 && ByteSize.parse("8GiB") == 8 << 30)
    #expect(ByteSize.parse("300000") == 300_000 && ByteSize.parse("2T") == 2 << 40)
    #expect(ByteSize.parse("0") == nil && ByteSize.parse("-3K") == nil && ByteSize.parse("K") == nil)
    #expect(ByteSize.parse("0.5") == nil && ByteSize.parse("lots") == nil && ByteSize.parse("9000000T") == nil)
  }

  /// The emoji preset (smallest of the Telegram ones) writes VP9 with alpha, 100x100, 3 s, within
  /// 256 KB; a sticker whose loop is too long is refused, naming the limit.
  @Test func telegramPresets() throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith(["render", "presets/telegram-emoji-voice-orb-speaking.json", "--out-dir", dir.url.path])
    #expect(r.status == 0, "\(r.stderr)")
    let path = dir.path("telegram-emoji-voice-orb-speaking.webm")
    let n = bytes(path)
    #expect(n > 0 && n <= 256 * 1024, "\(n) bytes")
    let reader = try VideoReader(path: path)
    #expect(reader.info.codecName == "vp9" && reader.info.width == 100 && reader.info.height == 100)
    #expect(reader.info.alphaMode && !reader.info.hasAudio)
    var frames = 0
    var transparent = 0
    while let image = try reader.nextFrame() {
      frames += 1
      if image[0, 0].w < 0.01 { transparent += 1 }
    }
    #expect(frames == 90, "\(frames) frames")
    #expect(transparent == 90, "the corner shows through in \(transparent) of \(frames) frames")

    let long = try runLoopsmith(
      ["render", "presets/telegram-sticker-voice-orb-idle.json", "--duration", "4", "--out-dir", dir.url.path])
    #expect(long.status == 2 && long.stderr.contains("at most 3 s"), "\(long.stderr)")
    let mp4 = try runLoopsmith(
      [
        "render", "voice-orb", "--platform", "telegram-sticker", "--size", "512x512", "--duration", "1", "-o",
        dir.path("s.mp4"),
      ])
    #expect(mp4.status == 2 && mp4.stderr.contains("VP9"), "\(mp4.stderr)")
  }

  /// The loop tuning reaches x264: its SEI lists the options it encoded with.
  @Test func x264TuningReachesTheEncoder() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("a.mp4")
    #expect(try runLoopsmith(["render"] + Self.small + ["-o", out]).status == 0)
    let data = try Data(contentsOf: URL(fileURLWithPath: out))
    let text = String(decoding: data, as: UTF8.self)
    let sei = try #require(text.range(of: "options: ").map { String(text[$0.upperBound...].prefix(1200)) })
    #expect(sei.contains("fast_pskip=0"), "\(sei)")
    #expect(sei.contains("decimate=0"), "\(sei)")
    // Without the tuning x264 medium has both on.
    var plain = try OutputSettings(path: dir.path("p.mp4"), width: 64, height: 64, fps: 10, frameCount: 2)
    plain.loopTuning = false
    let w = try VideoWriter(plain)
    for _ in 0..<2 { try w.append(w.converter.convert(Raster.Image(width: 64, height: 64))) }
    _ = try w.finish()
    let other = String(decoding: try Data(contentsOf: URL(fileURLWithPath: dir.path("p.mp4"))), as: UTF8.self)
    #expect(other.contains("fast_pskip=1") && other.contains("decimate=1"))
  }

  /// Codec options reach x265 (its SEI lists its options) and libvpx (a value it refuses fails
  /// the encode, so the options are not silently dropped).
  @Test func x265AndVP9OptionsReachTheEncoder() throws {
    let dir = TemporaryDirectory()
    func encode(_ s: OutputSettings) throws {
      let w = try VideoWriter(s)
      for _ in 0..<2 { try w.append(w.converter.convert(Raster.Image(width: 64, height: 64))) }
      _ = try w.finish()
    }
    var hevc = try OutputSettings(path: dir.path("h.mp4"), codec: .hevc, width: 64, height: 64, fps: 10, frameCount: 2)
    hevc.extraCodecOptions = [CodecOption("rskip", "0"), CodecOption("ipratio", "1.2")]
    try encode(hevc)
    let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: hevc.path)), as: UTF8.self)
    let sei = try #require(text.range(of: "x265.org - options: ").map { String(text[$0.upperBound...].prefix(3000)) })
    #expect(sei.contains(" no-rskip ") && sei.contains(" ipratio=1.20 "), "\(sei)")
    // One frame thread: more can hang libx265 3.5's rate control (Encoder).
    #expect(sei.contains(" frame-threads=1 "), "\(sei)")

    var s = try OutputSettings(path: dir.path("t.webm"), codec: .vp9, width: 64, height: 64, fps: 10, frameCount: 2)
    #expect(VideoCodec.vp9.loopTuning(alpha: false).contains(CodecOption("frame-parallel", "0")))
    try encode(s)
    s.extraCodecOptions = [CodecOption("frame-parallel", "7")]
    #expect(throws: VideoError.self) { _ = try VideoWriter(s) }
  }
}
