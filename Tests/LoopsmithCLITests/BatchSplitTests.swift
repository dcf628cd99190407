import Foundation
import Loopsmith
import Raster
import Testing
import Video
import _TestSupport

/// `batch --split N` and `batch --merge` through the real binary: two presets split in three over
/// three shards (one of them from Slurm's variables), merged, are the presets rendered by one
/// `batch` (Y4M byte for byte; H.264 and VP9 the same frames and timing within the encoders' own
/// noise), with the manifest and gallery of one batch; a missing or corrupt segment stops the
/// merge naming it, and re-running its shard completes the set.
@Suite struct BatchSplitTests {
  /// 30 frames of each preset at 24x24, 10 fps: parts of 10 frames.
  static let tiny = ["--size", "24x24", "--scale", "0.1", "--fps", "10", "--duration", "3", "--quiet"]
  static let presets = [
    "orbs": #"{"version": 1, "effect": "color-orbs", "maxSpeedChange": 1, "outputs": ["orbs.y4m", "orbs.mp4"]}"#,
    "aurora":
      #"{"version": 1, "effect": "aurora-mesh", "maxSpeedChange": 1, "outputs": ["aurora.webm", "aurora.y4m"]}"#,
  ]
  static let outputs = ["aurora.webm", "aurora.y4m", "orbs.mp4", "orbs.y4m"]

  /// The presets, their one-machine batch (`single`) and their three split shards (`shard-1` ...),
  /// rendered once for the suite; each test merges copies.
  static let renders: TemporaryDirectory = {
    let dir = TemporaryDirectory("loopsmith-split")
    try! FileManager.default.createDirectory(atPath: dir.path("presets"), withIntermediateDirectories: true)
    for (name, json) in presets {
      try! json.write(toFile: dir.path("presets/\(name).json"), atomically: true, encoding: .utf8)
    }
    let single = try! runLoopsmith(["batch", dir.path("presets"), "--out", dir.path("single"), "--gallery"] + tiny)
    precondition(single.status == 0, single.stderr)
    for k in 1...3 {
      let r = try! runLoopsmith(
        shardArguments(presets: dir.path("presets"), out: dir.path("shard-\(k)"), k), environment: shardEnvironment(k))
      precondition(r.status == 0, r.stderr)
    }
    return dir
  }()

  /// Shard 2 takes its index from a Slurm array's variables (task 1 of 0-2), the others from --shard.
  static func shardArguments(presets: String, out: String, _ k: Int) -> [String] {
    ["batch", presets, "--out", out, "--split", "3", "--gallery"]
      + (k == 2 ? [] : ["--shard", "\(k)/3"]) + tiny
  }

  static func shardEnvironment(_ k: Int) -> [String: String] {
    k == 2
      ? [
        "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "2",
        "SLURM_ARRAY_TASK_COUNT": "3",
      ]
      : [:]
  }

  /// Copies of the three shards' folders in a fresh folder, for a test to merge (and damage).
  static func copyShards() throws -> TemporaryDirectory {
    let dir = TemporaryDirectory("loopsmith-split-merge")
    for k in 1...3 {
      try FileManager.default.copyItem(atPath: renders.path("shard-\(k)"), toPath: dir.path("shard-\(k)"))
    }
    return dir
  }

  static func merge(_ dir: TemporaryDirectory) throws -> RunResult {
    try runLoopsmith(
      ["batch", "--merge"] + (1...3).map { dir.path("shard-\($0)") } + ["--out", dir.path("all"), "--gallery"])
  }

  static func manifest(_ dir: String) throws -> [[String: Any]] {
    let data = try Data(contentsOf: URL(fileURLWithPath: dir).appendingPathComponent("manifest.json"))
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    return try #require(object["outputs"] as? [[String: Any]])
  }

  @Test func eachShardRendersItsPartOfEveryPreset() throws {
    for k in 1...3 {
      let rows = try Self.manifest(Self.renders.path("shard-\(k)"))
      // Part K of each preset, four segments, each ten frames tagged with its range.
      #expect(rows.count == 4, "shard \(k): \(rows)")
      for row in rows {
        let output = try #require(row["segmentOf"] as? String)
        let path = try #require(row["path"] as? String)
        let ext = (output as NSString).pathExtension
        #expect(path == "segments/\((output as NSString).deletingPathExtension).part\(k)of3.\(ext)")
        #expect(row["part"] as? Int == k && row["parts"] as? Int == 3 && row["frames"] as? Int == 10)
        #expect(row["status"] as? String == "rendered")
        #expect(row["sha256"] as? String == SHA256.hex(ofFile: Self.renders.path("shard-\(k)/\(path)")))
      }
      // The poster is frame 0: the shard with part 1 draws it.
      let posters =
        (try? FileManager.default.contentsOfDirectory(atPath: Self.renders.path("shard-\(k)/posters"))) ?? []
      #expect(posters.sorted() == (k == 1 ? ["aurora.png", "orbs.png"] : []), "shard \(k)")
    }
    let y4m = try String(
      data: Data(contentsOf: URL(fileURLWithPath: Self.renders.path("shard-2/segments/orbs.part2of3.y4m"))).prefix(200),
      encoding: .isoLatin1)
    #expect(y4m?.contains("XLOOPSMITH=10:20:30\n") == true)
  }

  @Test func theMergedSplitIsTheOneMachineBatch() throws {
    let dir = try Self.copyShards()
    let r = try Self.merge(dir)
    #expect(r.status == 0, "\(r.stderr)")
    let all = dir.path("all"), single = Self.renders.path("single")
    // Y4M, raw frames: byte for byte the whole render.
    for name in ["orbs.y4m", "aurora.y4m"] {
      #expect(SHA256.hex(ofFile: "\(all)/\(name)") == SHA256.hex(ofFile: "\(single)/\(name)"), "\(name)")
    }

    // H.264 and VP9, remuxed: 30 frames of exactly 1/10 s, a key frame where each part starts,
    // passing check; each frame within the encoder's noise of the whole render.
    for name in ["orbs.mp4", "aurora.webm"] {
      let (info, joined) = try Decoded.frames("\(all)/\(name)", keepAlpha: false)
      let (wholeInfo, whole) = try Decoded.frames("\(single)/\(name)", keepAlpha: false)
      let (_, source) = try Decoded.frames(
        "\(single)/\((name as NSString).deletingPathExtension).y4m", keepAlpha: false)
      #expect(joined.count == 30 && info.frameCount == 30 && whole.count == 30 && source.count == 30, "\(name)")
      #expect(info.frameRate == Rational(10, 1))
      #expect(info.formatDuration == 3.0 && wholeInfo.formatDuration == 3.0, "\(name)")
      #expect(info.firstPacketIsKeyframe && info.keyframeCount == 3, "\(name): \(info.keyframeCount) key frames")
      let check = try runLoopsmith(["check", "\(all)/\(name)"])
      #expect(check.status == 0, "\(check.stdout)")
      #expect(check.stdout.contains("frames 30, duration 3.0000 s, key frame at 0: yes"), "\(check.stdout)")
      // The encoder's noise, measured against the lossless source: a part's encoder starts fresh
      // and cannot look past its last frame, so the joined file is a little further from the
      // source than the whole render. Measured at 24x24, three parts of 10 frames: H.264 38.8 dB
      // over the loop against the whole render's 39.8 dB (worst frames 34.9 and 36.9 dB), VP9
      // 38.6 dB against 37.9 dB (34.9 and 35.8 dB); no frame more than twice (3 dB) as far as the
      // whole render's worst frame, and over the loop within 2 dB.
      let wholeError = zip(whole, source).map { Decoded.meanSquaredError($0, $1) }
      let joinedError = zip(joined, source).map { Decoded.meanSquaredError($0, $1) }
      let worstWhole = try #require(wholeError.max())
      for (i, e) in joinedError.enumerated() {
        #expect(
          e <= 2 * worstWhole,
          "\(name) frame \(i): \(Decoded.decibels(e)) dB against the source; the whole render's worst is \(Decoded.decibels(worstWhole)) dB"
        )
        // Each frame in its place: closer to its own source frame than to its neighbours' (the
        // orbs move enough from frame to frame at this size; the aurora's Y4M is checked above).
        for j in [(i + 29) % 30, (i + 1) % 30] where name == "orbs.mp4" {
          #expect(e < Decoded.meanSquaredError(joined[i], source[j]), "\(name) frame \(i) looks like source frame \(j)")
        }
      }
      let (wholeMean, joinedMean) = (
        Decoded.decibels(wholeError.reduce(0, +) / 30), Decoded.decibels(joinedError.reduce(0, +) / 30)
      )
      #expect(joinedMean >= wholeMean - 2, "\(name): joined \(joinedMean) dB over the loop, whole \(wholeMean) dB")
      // And against the whole render, frame by frame (measured: 35.9 dB the worst H.264 frame,
      // 33.5 dB the worst VP9 one).
      let apart = zip(joined, whole).map { Decoded.decibels(Decoded.meanSquaredError($0, $1)) }
      #expect(apart.allSatisfy { $0 >= 30 }, "\(name): joined against whole \(apart) dB")
    }

    // One manifest of the final files, with their sha256, as one batch writes it.
    let rows = try Self.manifest(all)
    #expect(rows.compactMap { $0["path"] as? String }.sorted() == Self.outputs)
    let singleRows = try Self.manifest(single)
    for row in rows {
      let path = try #require(row["path"] as? String)
      let other = try #require(singleRows.first { $0["path"] as? String == path })
      #expect(row["sha256"] as? String == SHA256.hex(ofFile: "\(all)/\(path)"), "\(path)")
      #expect(row["status"] as? String == "rendered" && row["frames"] as? Int == 30 && row["duration"] as? Double == 3)
      let size = try FileManager.default.attributesOfItem(atPath: "\(all)/\(path)")[.size] as? Int
      #expect(row["bytes"] as? Int == size, "\(path)")
      for field in ["preset", "format", "codec", "codecs", "width", "height", "points", "scale"] {
        #expect("\(row[field] ?? "-")" == "\(other[field] ?? "-")", "\(path): \(field)")
      }
      #expect(row["segmentOf"] == nil && row["part"] == nil)
    }
    // The gallery plays each file, with its preset's poster.
    let html = try String(contentsOfFile: "\(all)/index.html", encoding: .utf8)
    for path in ["orbs.mp4", "aurora.webm"] { #expect(html.contains("<source src=\"./\(path)\""), "\(path)") }
    for preset in ["orbs", "aurora"] {
      #expect(html.contains("poster=\"./posters/\(preset).png\""))
      #expect(FileManager.default.fileExists(atPath: "\(all)/posters/\(preset).png"))
    }
    #expect(!html.contains("segments/"))
    // The segments are gone, from the folders and their manifests, once joined.
    for k in 1...3 {
      #expect(!FileManager.default.fileExists(atPath: dir.path("shard-\(k)/segments")), "shard \(k)")
      #expect(try Self.manifest(dir.path("shard-\(k)")).isEmpty)
      #expect(try !String(contentsOfFile: dir.path("shard-\(k)/index.html"), encoding: .utf8).contains("segments/"))
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: all).filter { $0.contains("tmp") }.isEmpty)
  }

  @Test func aMissingSegmentStopsTheMergeAndItsShardCompletesTheSet() throws {
    let dir = try Self.copyShards()
    let segment = dir.path("shard-2/segments/aurora.part2of3.webm")
    try FileManager.default.removeItem(atPath: segment)
    let r = try Self.merge(dir)
    #expect(r.status == 1)
    #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    #expect(r.stderr.contains("\(segment): part 2 of 3 of aurora.webm (preset aurora) is missing"), "\(r.stderr)")
    // All or nothing: no output, no manifest, every other segment kept.
    #expect(!FileManager.default.fileExists(atPath: dir.path("all/orbs.mp4")))
    #expect(!FileManager.default.fileExists(atPath: dir.path("all/manifest.json")))
    #expect(FileManager.default.fileExists(atPath: dir.path("shard-2/segments/orbs.part2of3.mp4")))

    // Shard 2 again (by Slurm's variables, as its task would): only the part with the missing
    // segment renders (all of its preset's outputs: one render makes them all).
    let again = try runLoopsmith(
      Self.shardArguments(presets: Self.renders.path("presets"), out: dir.path("shard-2"), 2),
      environment: Self.shardEnvironment(2))
    #expect(again.status == 0, "\(again.stderr)")
    let rows = try Self.manifest(dir.path("shard-2"))
    let status = Dictionary(uniqueKeysWithValues: rows.map { ($0["path"] as! String, $0["status"] as! String) })
    #expect(
      status == [
        "segments/aurora.part2of3.webm": "rendered", "segments/aurora.part2of3.y4m": "rendered",
        "segments/orbs.part2of3.mp4": "skipped", "segments/orbs.part2of3.y4m": "skipped",
      ])
    let done = try Self.merge(dir)
    #expect(done.status == 0, "\(done.stderr)")
    for name in Self.outputs {
      let (info, frames) = try Decoded.frames(dir.path("all/\(name)"), keepAlpha: false)
      #expect(frames.count == 30 && info.frameCount == 30, "\(name)")
    }
    for name in ["orbs.y4m", "aurora.y4m"] {
      #expect(SHA256.hex(ofFile: dir.path("all/\(name)")) == SHA256.hex(ofFile: Self.renders.path("single/\(name)")))
    }
  }

  @Test func aSegmentNoShardListsOrACorruptOneIsNamed() throws {
    // A shard cut short before a part: its manifest does not list it.
    let dir = try Self.copyShards()
    let manifest = dir.path("shard-3/manifest.json")
    var object = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as? [String: Any])
    object["outputs"] = (object["outputs"] as! [[String: Any]]).filter { $0["segmentOf"] as? String != "orbs.mp4" }
    try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: manifest))
    let r = try Self.merge(dir)
    #expect(r.status == 1)
    #expect(
      r.stderr.contains("segments/orbs.part3of3.mp4: part 3 of 3 of orbs.mp4 (preset orbs) is missing: no manifest of"),
      "\(r.stderr)")
    #expect(!FileManager.default.fileExists(atPath: dir.path("all/orbs.y4m")))

    // A segment changed since its shard wrote it (a byte flipped in its last frame).
    let other = try Self.copyShards()
    let segment = other.path("shard-1/segments/orbs.part1of3.y4m")
    var bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
    bytes[bytes.count - 1] ^= 0x40
    try bytes.write(to: URL(fileURLWithPath: segment))
    let c = try Self.merge(other)
    #expect(c.status == 1)
    #expect(c.stderr.contains("\(segment): part 1 of 3 of orbs.y4m (preset orbs) is corrupt"), "\(c.stderr)")
    #expect(c.stderr.split(separator: "\n").count == 1)
    #expect(!FileManager.default.fileExists(atPath: other.path("all/orbs.y4m")))
    #expect(FileManager.default.fileExists(atPath: segment))
  }

  @Test func anyShardCountCoversEveryPartOnce() throws {
    // Two shards for three parts of two presets: the six parts in turn, 3 + 3.
    let dir = TemporaryDirectory("loopsmith-split")
    let presets = dir.path("presets")
    try FileManager.default.copyItem(atPath: Self.renders.path("presets"), toPath: presets)
    var seen: [String] = []
    for k in 1...2 {
      let r = try runLoopsmith(
        ["batch", presets, "--out", dir.path("out"), "--split", "3", "--shard", "\(k)/2", "--dry-run"] + Self.tiny)
      #expect(r.status == 0, "\(r.stderr)")
      seen += r.stdout.split(separator: "\n").filter { $0.hasPrefix("render") }.map { String($0) }
    }
    #expect(seen.count == 6, "\(seen)")
    for preset in ["aurora", "orbs"] {
      for part in 1...3 { #expect(seen.filter { $0.contains(" \(preset) part \(part)/3 -> ") }.count == 1) }
    }
    // A format join cannot put back together, or more parts than frames, fails its preset.
    try #"{"version": 1, "effect": "color-orbs", "outputs": ["orbs.gif"]}"#.write(
      toFile: "\(presets)/orbs.json", atomically: true, encoding: .utf8)
    let gif = try runLoopsmith(["batch", presets, "--out", dir.path("out"), "--split", "3", "--dry-run"] + Self.tiny)
    #expect(gif.stdout.contains("invalid     orbs part 1/3: --split: 'orbs.gif' cannot be joined"), "\(gif.stdout)")
    let many = try runLoopsmith(
      [
        "batch", presets, "--out", dir.path("out"), "--split", "31", "--shard", "1/31", "--dry-run",
      ] + Self.tiny)
    #expect(
      many.stdout.contains("--split 31: aurora has 30 frames; expected at most one part per frame"), "\(many.stdout)")
    for bad in ["0", "x", "10001"] {
      let r = try runLoopsmith(["batch", presets, "--out", dir.path("out"), "--split", bad] + Self.tiny)
      #expect(r.status == 2 && r.stderr.contains("--split"), "\(bad): \(r.stderr)")
    }
    let merge = try runLoopsmith(["batch", "--merge", dir.path("out"), "--out", dir.path("all"), "--split", "3"])
    #expect(merge.status == 2 && merge.stderr.contains("--split: not used with --merge"), "\(merge.stderr)")
  }

  @Test func oneFolderSplitsAndMergesInPlaceAgainAndAgain() throws {
    // Every part on one machine into one folder, merged there; then split again (the merged
    // outputs' entries give way to the new parts) and merged again.
    let dir = TemporaryDirectory("loopsmith-split")
    let preset = dir.path("aurora.json")
    try Self.presets["aurora"]!.write(toFile: preset, atomically: true, encoding: .utf8)
    let out = dir.path("out")
    let flags = ["--size", "16x16", "--scale", "0.1", "--fps", "10", "--duration", "1", "--quiet"]
    for round in 1...2 {
      let split = try runLoopsmith(["batch", preset, "--out", out, "--split", "2"] + flags)
      #expect(split.status == 0, "round \(round): \(split.stderr)")
      let parts = try Self.manifest(out).filter { $0["segmentOf"] != nil }
      #expect(parts.count == 4, "round \(round): \(parts)")
      let merge = try runLoopsmith(["batch", "--merge", out, "--out", out, "--quiet"])
      #expect(merge.status == 0, "round \(round): \(merge.stderr)")
      let rows = try Self.manifest(out)
      #expect(rows.compactMap { $0["path"] as? String }.sorted() == ["aurora.webm", "aurora.y4m"], "\(rows)")
      #expect(!FileManager.default.fileExists(atPath: "\(out)/segments"))
      let (info, frames) = try Decoded.frames("\(out)/aurora.webm", keepAlpha: false)
      #expect(frames.count == 10 && info.keyframeCount == 2, "round \(round)")
    }
  }
}
