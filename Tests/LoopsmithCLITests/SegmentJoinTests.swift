import Foundation
import Raster
import Testing
import Video
import _TestSupport

/// `render --frames A:B` and `join`, through the real binary: a loop rendered in three uneven
/// segments and joined is the loop rendered whole (Y4M byte for byte; H.264 the same frames,
/// timing and key frames, within the encoder's own noise), and segments that do not make one
/// loop are refused.
@Suite struct SegmentJoinTests {
  /// 30 frames of color-orbs at 36x64, 10 fps.
  static let flags = ["render", "color-orbs", "--quiet"] + size + rate
  static let size = ["--size", "36x64"]
  static let rate = ["--fps", "10", "--duration", "3"]
  static let ranges = ["0:7", "7:19", "19:30"]

  /// The whole loop and its three segments, each in Y4M and H.264, rendered once for the suite.
  static let renders: TemporaryDirectory = {
    let dir = TemporaryDirectory("loopsmith-segments")
    let whole = try! runLoopsmith(flags + ["-o", dir.path("whole.y4m"), "-o", dir.path("whole.mp4")])
    precondition(whole.status == 0, whole.stderr)
    for range in ranges {
      let name = "s" + range.replacingOccurrences(of: ":", with: "-")
      let r = try! runLoopsmith(
        flags + ["--frames", range, "-o", dir.path(name + ".y4m"), "-o", dir.path(name + ".mp4")])
      precondition(r.status == 0, r.stderr)
    }
    return dir
  }()

  static func segments(_ ext: String) -> [String] {
    ranges.map { renders.path("s" + $0.replacingOccurrences(of: ":", with: "-") + "." + ext) }
  }

  @Test func y4mSegmentsJoinToTheWholeLoopByteForByte() throws {
    let dir = TemporaryDirectory("loopsmith-join")
    let out = dir.path("joined.y4m")
    let r = try runLoopsmith(["join"] + Self.segments("y4m") + ["-o", out, "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains(#""frames" : 30"#))
    // Each segment is its own frames only: 7, 12 and 11 frames, tagged with its range.
    let middle = try Decoded.frames(Self.segments("y4m")[1], keepAlpha: false)
    #expect(middle.1.count == 12)
    let header = try #require(
      String(
        data: try Data(contentsOf: URL(fileURLWithPath: Self.segments("y4m")[1])).prefix(200), encoding: .isoLatin1))
    #expect(header.contains("XLOOPSMITH=7:19:30\n"))
    let joined = try Data(contentsOf: URL(fileURLWithPath: out))
    let whole = try Data(contentsOf: URL(fileURLWithPath: Self.renders.path("whole.y4m")))
    #expect(joined.count == whole.count)
    #expect(joined == whole)
    // And decoded: the same 30 frames, pixel for pixel.
    let (_, a) = try Decoded.frames(out, keepAlpha: false)
    let (_, b) = try Decoded.frames(Self.renders.path("whole.y4m"), keepAlpha: false)
    #expect(a.count == 30 && b.count == 30)
    for (i, (x, y)) in zip(a, b).enumerated() { #expect(Decoded.meanSquaredError(x, y) == 0, "frame \(i)") }
  }

  @Test func partsKOfNCoverTheLoopOnce() throws {
    // 30 frames in 4 parts: 0:7, 7:15, 15:22, 22:30; whatever the machine count, one loop.
    let dir = TemporaryDirectory("loopsmith-join")
    var parts: [String] = []
    for k in 1...4 {
      let path = dir.path("p\(k).y4m")
      let r = try runLoopsmith(Self.flags + ["--frames", "\(k)/4", "-o", path])
      #expect(r.status == 0, "\(r.stderr)")
      parts.append(path)
    }
    let header = try #require(
      String(data: try Data(contentsOf: URL(fileURLWithPath: parts[2])).prefix(200), encoding: .isoLatin1))
    #expect(header.contains("XLOOPSMITH=15:22:30\n"))
    let out = dir.path("joined.y4m")
    let r = try runLoopsmith(["join"] + parts + ["-o", out])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: out))
        == Data(contentsOf: URL(fileURLWithPath: Self.renders.path("whole.y4m"))))
  }

  @Test func aTransitionClipSplitsAndJoinsToo() throws {
    // rain:snow at 10 fps is a 60-frame clip; its two halves join to the clip rendered whole.
    let dir = TemporaryDirectory("loopsmith-join")
    let clip = ["render", "weather", "--transition", "rain:snow", "--quiet"] + Self.size + ["--fps", "10"]
    let whole = try runLoopsmith(clip + ["-o", dir.path("whole.y4m"), "--json"])
    #expect(whole.status == 0, "\(whole.stderr)")
    #expect(whole.stdout.contains(#""frames" : 60"#))
    for k in 1...2 {
      let r = try runLoopsmith(clip + ["--frames", "\(k)/2", "-o", dir.path("h\(k).y4m")])
      #expect(r.status == 0, "\(r.stderr)")
    }
    let r = try runLoopsmith(["join", dir.path("h1.y4m"), dir.path("h2.y4m"), "-o", dir.path("joined.y4m")])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: dir.path("joined.y4m")))
        == Data(contentsOf: URL(fileURLWithPath: dir.path("whole.y4m"))))
  }

  @Test func h264SegmentsJoinWithoutReencodingWithinTheEncodersNoise() throws {
    let dir = TemporaryDirectory("loopsmith-join")
    let out = dir.path("joined.mp4")
    let r = try runLoopsmith(["join"] + Self.segments("mp4") + ["-o", out])
    #expect(r.status == 0, "\(r.stderr)")
    // Remuxed, not re-encoded: the joined file holds the segments' packets, so its size is theirs
    // give or take the containers' own boxes and the comments (range and preset tag) of each.
    let sizes = try Self.segments("mp4").map {
      try #require(FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int)
        - (VideoReader(path: $0).info.comment?.utf8.count ?? 0)
    }
    let size = try #require(FileManager.default.attributesOfItem(atPath: out)[.size] as? Int)
    #expect(abs(size - sizes.reduce(0, +)) < 2048, "joined \(size) bytes, segments \(sizes) without their comments")

    let (info, joined) = try Decoded.frames(out, keepAlpha: false)
    let (wholeInfo, whole) = try Decoded.frames(Self.renders.path("whole.mp4"), keepAlpha: false)
    let (_, source) = try Decoded.frames(Self.renders.path("whole.y4m"), keepAlpha: false)
    #expect(joined.count == 30 && info.frameCount == 30)
    #expect(info.frameRate == Rational(10, 1))
    // Exact timing: 30 packets of exactly 1/10 s, as in the whole render.
    #expect(info.formatDuration == 3.0 && wholeInfo.formatDuration == 3.0)
    #expect(info.streamDuration == 3.0)
    // A key frame where each segment starts, and nowhere else.
    #expect(info.firstPacketIsKeyframe)
    #expect(info.keyframeCount == 3 && wholeInfo.keyframeCount == 1)
    #expect(info.codecTag == "avc1" && info.moovBeforeMdat == true)

    // The encoder's noise is the whole render's own error against its source (the Y4M of the
    // same frames): 40.6 to 58.4 dB a frame here, 42.6 dB over the loop (mean squared error).
    // A segment's encoder cannot look past its last frame (mb-tree, rate control), so a frame just
    // before a cut may come out a little worse (39.2 dB measured, frame 18): each joined frame may
    // be at most twice (3 dB) as far from its source as the whole render's worst frame, and over
    // the loop within 0.5 dB of it (42.3 dB measured).
    let wholeError = zip(whole, source).map { Decoded.meanSquaredError($0, $1) }
    let joinedError = zip(joined, source).map { Decoded.meanSquaredError($0, $1) }
    let worstWhole = try #require(wholeError.max())
    for (i, e) in joinedError.enumerated() {
      #expect(
        e <= 2 * worstWhole,
        "frame \(i): \(Decoded.decibels(e)) dB against the source; the whole render's worst is \(Decoded.decibels(worstWhole)) dB"
      )
    }
    let (wholeMean, joinedMean) = (
      Decoded.decibels(wholeError.reduce(0, +) / 30), Decoded.decibels(joinedError.reduce(0, +) / 30)
    )
    #expect(joinedMean >= wholeMean - 0.5, "joined \(joinedMean) dB over the loop, whole \(wholeMean) dB")
    // Each frame in its place: closer to its own source frame than to its neighbours'.
    for i in 0..<30 {
      for j in [(i + 29) % 30, (i + 1) % 30] {
        #expect(
          joinedError[i] < Decoded.meanSquaredError(joined[i], source[j]), "frame \(i) looks like source frame \(j)")
      }
    }
    let check = try runLoopsmith(["check", out])
    #expect(check.status == 0, "\(check.stdout)")
    #expect(check.stdout.contains("frames 30, duration 3.0000 s, key frame at 0: yes"))
  }

  @Test(arguments: [
    ([0, 2, 1], "out of order"),
    ([0, 2], "a gap: frames 7:19 are missing"),
    ([0, 1], "frames 19:30 of the loop are missing"),
    ([1, 2], "expected the first segment to start at frame 0"),
    ([0, 1, 1, 2], "an overlap"),
  ])
  func segmentsThatDoNotMakeTheLoopAreRefused(order: [Int], words: String) throws {
    let dir = TemporaryDirectory("loopsmith-join")
    for ext in ["mp4", "y4m"] {
      let out = dir.path("joined." + ext)
      let r = try runLoopsmith(["join"] + order.map { Self.segments(ext)[$0] } + ["-o", out])
      #expect(r.status == 2)
      #expect(r.stderr.contains(words), "\(r.stderr)")
      #expect(r.stderr.split(separator: "\n").count == 1)
      #expect(!FileManager.default.fileExists(atPath: out))
    }
  }

  @Test func mismatchedSegmentsAreRefused() throws {
    let dir = TemporaryDirectory("loopsmith-join")
    let segments = Self.segments("mp4")
    // The middle segment at another size, then at another rate (30 frames at 15 fps).
    let cases: [([String], String)] = [
      (["--size", "40x64"] + Self.rate, "size 40x64 does not match"),
      (Self.size + ["--fps", "15", "--duration", "2"], "frame rate 15/1 does not match"),
    ]
    for (flags, words) in cases {
      let odd = dir.path("odd.mp4")
      let made = try runLoopsmith(["render", "color-orbs", "--quiet"] + flags + ["--frames", "7:19", "-o", odd])
      #expect(made.status == 0, "\(made.stderr)")
      let r = try runLoopsmith(["join", segments[0], odd, segments[2], "-o", dir.path("joined.mp4")])
      #expect(r.status == 2)
      #expect(r.stderr.contains(words), "\(r.stderr)")
      #expect(!FileManager.default.fileExists(atPath: dir.path("joined.mp4")))
    }
    // A whole render is not a segment; nor is Y4M into MP4.
    let whole = try runLoopsmith(["join", Self.renders.path("whole.mp4"), "-o", dir.path("j.mp4")])
    #expect(whole.status == 2 && whole.stderr.contains("not a segment"))
    let mixed = try runLoopsmith(["join"] + Self.segments("y4m") + ["-o", dir.path("j.mp4")])
    #expect(mixed.status == 2, "\(mixed.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.path("j.mp4")))
  }

  @Test(arguments: [
    "3:3", "5:2", "0:31", "-1:4", "a:b", "4", "1:2:3", "", "0/3", "4/3", "1/31", "1/0", "+1/2", "1:2/3",
  ])
  func badFrameRangesAreRefused(range: String) throws {
    let dir = TemporaryDirectory("loopsmith-join")
    let out = dir.path("s.mp4")
    let r = try runLoopsmith(Self.flags + ["--frames", range, "-o", out])
    #expect(r.status == 2)
    #expect(r.stderr.contains("--frames: '\(range)' is not valid; expected A:B"), "\(r.stderr)")
    #expect(r.stderr.contains("or K/N, part K of N equal parts"))
    #expect(r.stderr.contains("<= 30"))
    #expect(r.stderr.split(separator: "\n").count == 1)
    #expect(!FileManager.default.fileExists(atPath: out))
  }

  @Test func aStillHasNoFrameRange() throws {
    let dir = TemporaryDirectory("loopsmith-join")
    let r = try runLoopsmith(Self.flags + ["--frames", "0:1", "-o", dir.path("s.png")])
    #expect(r.status == 2)
    #expect(r.stderr.contains("--frames: a still has one frame"), "\(r.stderr)")
  }
}
