import CLibAV
import Foundation
import Raster
import Testing
import Video
import _TestSupport

/// `join --key-frames first` (and `batch --merge --key-frames first`) through the real binary: three
/// H.264 or VP9 segments become one loop with a single key frame, at frame 0, the same frames and
/// exact timing, tagged like a whole render and within the encoder's own noise of one; the default
/// still copies every packet; values, codecs and flags that cannot work are refused.
@Suite struct KeyFramesJoinTests {
  static let flags = SegmentJoinTests.flags
  static let ranges = SegmentJoinTests.ranges

  /// The VP9 loop whole and in the suite's three segments, rendered once.
  static let webm: TemporaryDirectory = {
    let dir = TemporaryDirectory("loopsmith-keyframes")
    let whole = try! runLoopsmith(flags + ["-o", dir.path("whole.webm")])
    precondition(whole.status == 0, whole.stderr)
    for range in ranges {
      let r = try! runLoopsmith(
        flags + ["--frames", range, "-o", dir.path("s\(range.replacingOccurrences(of: ":", with: "-")).webm")])
      precondition(r.status == 0, r.stderr)
    }
    return dir
  }()

  static func webmSegments() -> [String] {
    ranges.map { webm.path("s" + $0.replacingOccurrences(of: ":", with: "-") + ".webm") }
  }

  /// Joined with `--key-frames first`, checked against the whole render of the same loop: one key
  /// frame, 30 frames of exactly 1/10 s, the whole render's tag, each frame close to the whole
  /// render's and in its place, and `check` passing against the tag. The errors of each frame
  /// against the source, and against the whole render, for the caller's bounds.
  static func checkKeyFramesFirst(
    segments: [String], whole: String, source: String, out: String, codecTag: String
  ) throws -> (joined: [Double], whole: [Double], apart: [Double]) {
    let r = try runLoopsmith(["join"] + segments + ["-o", out, "--key-frames", "first", "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains(#""keyFrames" : "first""#))
    #expect(r.stdout.contains(#""frames" : 30"#))

    let (info, joined) = try Decoded.frames(out, keepAlpha: false)
    let (wholeInfo, wholeFrames) = try Decoded.frames(whole, keepAlpha: false)
    let (_, sourceFrames) = try Decoded.frames(source, keepAlpha: false)
    #expect(joined.count == 30 && info.frameCount == 30)
    #expect(info.firstPacketIsKeyframe && info.keyframeCount == 1)
    #expect(info.frameRate == Rational(10, 1))
    #expect(info.formatDuration == 3.0 && info.streamDuration == wholeInfo.streamDuration)
    #expect(info.codecName == wholeInfo.codecName && info.pixelFormatName == wholeInfo.pixelFormatName)
    #expect(info.width == 36 && info.height == 64 && info.codecTag == codecTag)
    #expect(info.moovBeforeMdat == wholeInfo.moovBeforeMdat && info.editListCount == wholeInfo.editListCount)
    // The whole render's loopsmith-preset tag, which `check` re-renders the source from.
    #expect(info.comment != nil && info.comment == wholeInfo.comment)
    #expect(info.comment?.hasPrefix("loopsmith-preset ") == true)
    let packets = try videoPackets(out, fps: 10)
    #expect(packets.map(\.duration) == Array(repeating: 1, count: 30))
    #expect(packets.map(\.pts).sorted() == (0..<30).map(Int64.init))
    #expect(packets.filter(\.key).map(\.pts) == [0])

    let joinedError = zip(joined, sourceFrames).map { Decoded.meanSquaredError($0, $1) }
    let wholeError = zip(wholeFrames, sourceFrames).map { Decoded.meanSquaredError($0, $1) }
    let apart = zip(joined, wholeFrames).map { Decoded.meanSquaredError($0, $1) }
    // Each frame in its place: closer to its own source frame than to its neighbours'.
    for i in 0..<30 {
      for j in [(i + 29) % 30, (i + 1) % 30] {
        #expect(
          joinedError[i] < Decoded.meanSquaredError(joined[i], sourceFrames[j]),
          "frame \(i) looks like source frame \(j)")
      }
    }
    let check = try runLoopsmith(["check", out])
    #expect(check.status == 0, "\(check.stdout)")
    #expect(check.stdout.contains("frames 30, duration 3.0000 s, key frame at 0: yes"))
    #expect(check.stdout.contains("against the file's loopsmith-preset tag: 0 of 30 steps jump"), "\(check.stdout)")
    return (joinedError, wholeError, apart)
  }

  @Test func h264SegmentsJoinWithOneKeyFrameWithinTheEncodersNoise() throws {
    let dir = TemporaryDirectory("loopsmith-keyframes")
    let renders = SegmentJoinTests.renders
    let e = try Self.checkKeyFramesFirst(
      segments: SegmentJoinTests.segments("mp4"), whole: renders.path("whole.mp4"), source: renders.path("whole.y4m"),
      out: dir.path("joined.mp4"), codecTag: "avc1")
    // The encoder's noise: the whole render is 43.1 dB from its source over the loop (mean
    // squared error), its worst frame 41.3 dB. Decoded and encoded again at the same crf (18), the
    // joined loop is 41.3 dB from the source (one more generation of the codec's loss, 1.7 dB),
    // 42.1 dB from the whole render, its worst frame 39.8 dB from it (measured).
    let mean = { (a: [Double]) in Decoded.decibels(a.reduce(0, +) / Double(a.count)) }
    #expect(mean(e.joined) >= mean(e.whole) - 2.5, "joined \(mean(e.joined)) dB, whole \(mean(e.whole)) dB")
    #expect(mean(e.apart) >= 40, "\(mean(e.apart)) dB from the whole render")
    #expect(Decoded.decibels(e.apart.max()!) >= 37, "worst frame \(Decoded.decibels(e.apart.max()!)) dB")

    // --crf wins over the tag's quality: a coarser loop in fewer bytes.
    let coarse = dir.path("coarse.mp4")
    let r = try runLoopsmith(
      ["join"] + SegmentJoinTests.segments("mp4") + ["-o", coarse, "--key-frames", "first", "--crf", "40"])
    #expect(r.status == 0, "\(r.stderr)")
    let size = { (p: String) in (try? FileManager.default.attributesOfItem(atPath: p)[.size] as? Int) ?? 0 }
    #expect(size(coarse) < size(dir.path("joined.mp4")) / 2, "\(size(coarse)) against \(size(dir.path("joined.mp4")))")
  }

  @Test func vp9SegmentsJoinWithOneKeyFrameWithinTheEncodersNoise() throws {
    let dir = TemporaryDirectory("loopsmith-keyframes")
    let e = try Self.checkKeyFramesFirst(
      segments: Self.webmSegments(), whole: Self.webm.path("whole.webm"),
      source: SegmentJoinTests.renders.path("whole.y4m"), out: dir.path("joined.webm"), codecTag: "")
    // Measured: whole 38.8 dB from the source, joined 37.4 dB (crf 30 twice), 39.2 dB from the
    // whole render, its worst frame 35.9 dB.
    let mean = { (a: [Double]) in Decoded.decibels(a.reduce(0, +) / Double(a.count)) }
    #expect(mean(e.joined) >= mean(e.whole) - 2.5, "joined \(mean(e.joined)) dB, whole \(mean(e.whole)) dB")
    #expect(mean(e.apart) >= 37, "\(mean(e.apart)) dB from the whole render")
    #expect(Decoded.decibels(e.apart.max()!) >= 33, "worst frame \(Decoded.decibels(e.apart.max()!)) dB")
  }

  @Test func vp9AlphaStaysThroughTheNewEncode() throws {
    // The loader with its alpha plane (libvpx decodes it beside the picture): 30 frames at 48x48.
    let dir = TemporaryDirectory("loopsmith-keyframes")
    let loader = [
      "render", "blob-morph-loader", "--quiet", "--size", "48x48", "--fps", "5", "--duration", "6",
      "--max-speed-change", "1", "--alpha", "native",
    ]
    #expect(try runLoopsmith(loader + ["-o", dir.path("whole.webm")]).status == 0)
    let segments = ["0:10", "10:20", "20:30"].map { dir.path("s\($0.replacingOccurrences(of: ":", with: "-")).webm") }
    for (range, path) in zip(["0:10", "10:20", "20:30"], segments) {
      let r = try runLoopsmith(loader + ["--frames", range, "-o", path])
      #expect(r.status == 0, "\(r.stderr)")
    }
    let out = dir.path("joined.webm")
    let r = try runLoopsmith(["join"] + segments + ["-o", out, "--key-frames", "first"])
    #expect(r.status == 0, "\(r.stderr)")
    let (info, joined) = try Decoded.frames(out)
    let (wholeInfo, whole) = try Decoded.frames(dir.path("whole.webm"))
    #expect(wholeInfo.alphaMode && info.alphaMode)
    #expect(joined.count == 30 && info.keyframeCount == 1 && info.formatDuration == 6.0)
    // Alpha within the encoder's noise of the whole render's: 0.42 % of full scale on average
    // (measured), and really transparent somewhere (48 % of the pixels, around the loader).
    var difference = 0.0
    var transparent = 0
    for (a, b) in zip(joined, whole) {
      for i in 0..<a.count {
        difference += Double(abs(a.pixels[i].w - b.pixels[i].w))
        if a.pixels[i].w < 0.05 { transparent += 1 }
      }
    }
    difference /= Double(30 * 48 * 48)
    #expect(difference < 0.01, "alpha differs by \(difference) on average")
    #expect(transparent > 30 * 48 * 48 / 10, "\(transparent) transparent pixels")
    let check = try runLoopsmith(["check", out])
    #expect(check.status == 0, "\(check.stdout)")
  }

  @Test func theDefaultCopiesEveryPacket() throws {
    let dir = TemporaryDirectory("loopsmith-keyframes")
    for (ext, segments) in [("mp4", SegmentJoinTests.segments("mp4")), ("webm", Self.webmSegments())] {
      let out = dir.path("joined." + ext)
      let r = try runLoopsmith(["join"] + segments + ["-o", out, "--key-frames", "segments"])
      #expect(r.status == 0, "\(r.stderr)")
      // The segments' packets, byte for byte, each moved by its segment's first frame.
      var expected: [PacketRecord] = []
      for (range, path) in zip(Self.ranges, segments) {
        let start = Int64(range.split(separator: ":")[0])!
        expected += try videoPackets(path, fps: 10).map {
          var p = $0; p.pts += start; return p
        }
      }
      let joined = try videoPackets(out, fps: 10)
      #expect(joined.count == 30 && joined == expected, "\(ext)")
      #expect(joined.filter(\.key).map(\.pts) == [0, 7, 19], "\(ext)")
    }
  }

  @Test func oneSegmentHoldingTheLoopIsCopied() throws {
    // Its only key frame is already frame 0: nothing is encoded again.
    let dir = TemporaryDirectory("loopsmith-keyframes")
    let segment = dir.path("all.mp4")
    let made = try runLoopsmith(Self.flags + ["--frames", "0:30", "-o", segment])
    #expect(made.status == 0, "\(made.stderr)")
    let first = try runLoopsmith(["join", segment, "-o", dir.path("first.mp4"), "--key-frames", "first"])
    let copied = try runLoopsmith(["join", segment, "-o", dir.path("copied.mp4")])
    #expect(first.status == 0 && copied.status == 0, "\(first.stderr)")
    // The same packets as the segment and the plain join, with the whole render's tag added.
    let packets = try videoPackets(segment, fps: 10)
    #expect(packets.count == 30 && packets.filter(\.key).count == 1)
    #expect(try videoPackets(dir.path("first.mp4"), fps: 10) == packets)
    #expect(try videoPackets(dir.path("copied.mp4"), fps: 10) == packets)
    let tag = try VideoReader(path: SegmentJoinTests.renders.path("whole.mp4")).info.comment
    #expect(tag?.hasPrefix("loopsmith-preset ") == true)
    #expect(try VideoReader(path: dir.path("first.mp4")).info.comment == tag)
    #expect(try VideoReader(path: dir.path("copied.mp4")).info.comment == nil)
    let check = try runLoopsmith(["check", dir.path("first.mp4")])
    #expect(check.status == 0 && check.stdout.contains("against the file's loopsmith-preset tag"), "\(check.stdout)")
  }

  @Test func badRequestsAreRefusedWithOneLine() throws {
    let dir = TemporaryDirectory("loopsmith-keyframes")
    let prores = ["0:15", "15:30"].map { dir.path("p\($0.replacingOccurrences(of: ":", with: "-")).mov") }
    for (range, path) in zip(["0:15", "15:30"], prores) {
      let r = try runLoopsmith(Self.flags + ["--frames", range, "--codec", "prores", "-o", path])
      #expect(r.status == 0, "\(r.stderr)")
    }
    let expected =
      "expected segments of a codec with predicted frames (h264, hevc, vp9 or av1 in .mp4, .mov or .webm)"
    let mp4 = SegmentJoinTests.segments("mp4")
    let cases: [([String], String, String)] = [
      (
        mp4 + ["--key-frames", "all"], "joined.mp4",
        "Error: --key-frames: 'all' is not valid; expected first (one key frame, at frame 0: the video is encoded again) or segments (a key frame where each segment starts: copied, the default)"
      ),
      (
        SegmentJoinTests.segments("y4m") + ["--key-frames", "first"], "joined.y4m",
        "Error: --key-frames first: Y4M segments are raw pictures, every one a key frame; \(expected)"
      ),
      (
        prores + ["--key-frames", "first"], "joined.mov",
        "Error: --key-frames first: the segments are prores, whose every frame is a key frame; \(expected)"
      ),
      (
        mp4 + ["--crf", "20"], "joined.mp4",
        "Error: --crf: the segments are copied, not encoded; expected it with --key-frames first, which encodes the loop again"
      ),
      (
        mp4 + ["--key-frames", "first", "--crf", "55"], "joined.mp4",
        "Error: --crf: 55 is out of range for the segments' h264; expected 1 to 51"
      ),
    ]
    for (args, name, message) in cases {
      let out = dir.path(name)
      let r = try runLoopsmith(["join"] + args + ["-o", out])
      #expect(r.status == 2, "\(args): \(r.stderr)")
      #expect(r.stderr == message + "\n")
      #expect(!FileManager.default.fileExists(atPath: out))
    }
  }

  @Test func helpJoinNamesTheChoice() throws {
    let r = try runLoopsmith(["help", "join"])
    #expect(r.status == 0)
    let missing = missingFromHelp(
      r.stdout,
      usage:
        "USAGE: loopsmith join <segment>... -o <path> [--key-frames first|segments] [--crf n | --quality high|balanced|small] [--json]\n",
      options: ["--key-frames <first|segments>", "--crf <n>", "--quality <high|balanced|small>"])
    #expect(missing.isEmpty, "\(missing)")
    #expect(r.stdout.contains("first: one key frame, at frame 0"))
  }

  @Test func aSegmentFailingMidwayLeavesNoFile() throws {
    // The last segment cut short: its packets end early, so the encode stops after 19 frames.
    let dir = TemporaryDirectory("loopsmith-keyframes")
    var segments = SegmentJoinTests.segments("mp4")
    let cut = dir.path("cut.mp4")
    let data = try Data(contentsOf: URL(fileURLWithPath: segments[2]))
    try data.prefix(data.count - 1500).write(to: URL(fileURLWithPath: cut))
    segments[2] = cut
    let out = dir.path("joined.mp4")
    let r = try runLoopsmith(["join"] + segments + ["-o", out, "--key-frames", "first"])
    #expect(r.status != 0)
    #expect(r.stderr.hasPrefix("Error: ") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: out))
    #expect(try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted() == ["cut.mp4"])
  }

  @Test func batchMergeEncodesEachSplitLoopWithOneKeyFrame() throws {
    let dir = try BatchSplitTests.copyShards()
    let out = dir.path("all")
    let r = try runLoopsmith(
      ["batch", "--merge", dir.path("shard-1"), dir.path("shard-2"), dir.path("shard-3"), "--out", out]
        + ["--key-frames", "first"])
    #expect(r.status == 0, "\(r.stderr)")
    let single = BatchSplitTests.renders.path("single")
    for name in ["orbs.mp4", "aurora.webm"] {
      let (info, frames) = try Decoded.frames((out as NSString).appendingPathComponent(name), keepAlpha: false)
      let (wholeInfo, whole) = try Decoded.frames((single as NSString).appendingPathComponent(name), keepAlpha: false)
      #expect(frames.count == 30 && info.keyframeCount == 1 && info.firstPacketIsKeyframe, "\(name)")
      #expect(wholeInfo.keyframeCount == 1)
      #expect(info.formatDuration == 3.0, "\(name)")
      #expect(info.comment == wholeInfo.comment && info.comment != nil, "\(name)")
      let apart = zip(frames, whole).map { Decoded.meanSquaredError($0, $1) }
      #expect(Decoded.decibels(apart.reduce(0, +) / 30) >= 38, "\(name)")
      // Encoding again keeps what the split left in the pictures: at 24x24, VP9's copied segments
      // already step 3.2 codes at the seam where the source steps 0.95 (measured), more than
      // check's 1.5 x 0.95 + 1 against the tag, so the aurora is judged on its own steps only.
      let path = (out as NSString).appendingPathComponent(name)
      let check = try runLoopsmith(["check", path] + (name == "aurora.webm" ? ["--no-against"] : []))
      #expect(check.status == 0, "\(check.stdout)")
      #expect(check.stdout.contains("PASS"))
    }
    // Y4M holds only key frames: copied, byte for byte the one-machine render.
    #expect(
      try Data(contentsOf: URL(fileURLWithPath: (out as NSString).appendingPathComponent("orbs.y4m")))
        == Data(contentsOf: URL(fileURLWithPath: (single as NSString).appendingPathComponent("orbs.y4m"))))
    let bad = try runLoopsmith(["batch", "--merge", dir.path("shard-1"), "--out", out, "--key-frames", "one"])
    #expect(bad.status == 2)
    #expect(bad.stderr.hasPrefix("Error: --key-frames: 'one' is not valid; expected first"), "\(bad.stderr)")
    let unmerged = try runLoopsmith(["batch", dir.path("shard-1"), "--out", out, "--key-frames", "first"])
    #expect(unmerged.status == 2)
    #expect(
      unmerged.stderr
        == "Error: --key-frames: joins the segments of --split, so it goes with --merge; expected loopsmith batch --merge DIR... --out DIR --key-frames first\n"
    )
  }
}
