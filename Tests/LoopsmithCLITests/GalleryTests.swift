import Foundation
import Loopsmith
import Testing
import Video
import _TestSupport

/// `batch --gallery` over the real presets: every kind of preset (loops, stills, transition clips)
/// gets its video, a poster of its first frame, and a figure on the page.
@Suite struct GalleryTests {
  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  static let presets = packageRoot.appendingPathComponent("presets").path

  /// Every preset in presets/, tiny: each renders, has a poster, and the page links both by
  /// relative URLs that name files in the folder.
  @Test func everyPresetGetsAVideoAndAPoster() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("out")
    let r = try runLoopsmith([
      "batch", Self.presets, "--out", out, "--gallery", "--size", "16x16", "--scale", "0.05", "--fps", "2", "--quiet",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let names = try FileManager.default.contentsOfDirectory(atPath: Self.presets)
      .filter { $0.hasSuffix(".json") && $0 != "schema.json" }.map { String($0.dropLast(5)) }
    #expect(names.count > 60)
    let data = try Data(contentsOf: URL(fileURLWithPath: out).appendingPathComponent("manifest.json"))
    let rows = try #require(
      (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["outputs"] as? [[String: Any]])
    #expect(Set(rows.map { $0["preset"] as? String ?? "" }) == Set(names))
    for row in rows {
      #expect(row["status"] as? String == "rendered", "\(row)")
      let path = try #require(row["path"] as? String)
      #expect(FileManager.default.fileExists(atPath: "\(out)/\(path)"), "\(path)")
    }
    let html = try String(contentsOfFile: "\(out)/index.html", encoding: .utf8)
    #expect(!html.contains("class=\"failed\""))
    for name in names {
      let poster = "\(out)/posters/\(name).png"
      let image = try #require(try VideoReader(path: poster).nextFrame(), "\(name): no poster")
      #expect(image.width == 16 && image.height == 16)
      #expect(html.contains("poster=\"./posters/\(name).png\""), "\(name): the page shows no poster")
    }
    // Every relative URL on the page names a file in the folder.
    let urls = html.components(separatedBy: "=\"./").dropFirst().map { String($0.prefix { $0 != "\"" }) }
    #expect(urls.count >= 2 * names.count)
    for url in urls {
      let file = try #require(url.removingPercentEncoding)
      #expect(FileManager.default.fileExists(atPath: "\(out)/\(file)"), "\(url)")
    }

    // And every video passes `check` from its own tag, where the batch left it: a transition
    // clip is judged as no loop, and the level track's file is not beside the batch's outputs.
    let videos = rows.compactMap { $0["path"] as? String }.filter { !$0.hasSuffix(".png") }.map { "\(out)/\($0)" }
    #expect(videos.count >= names.count)  // a preset may write several
    let check = try runLoopsmith(["check", "--json"] + videos)
    #expect(check.status == 0, "\(check.stdout.prefix(2000))\(check.stderr)")
    let files = try #require(
      (try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any])?["files"] as? [[String: Any]])
    #expect(files.count == videos.count)
    for file in files {
      let path = file["path"] as? String ?? ""
      let name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
      let clip = name.contains("-to-")
      let notes = file["notes"] as? [String] ?? []
      #expect(file["passed"] as? Bool == true, "\(path): \(file["failures"] ?? "")")
      #expect(file["loop"] as? Bool == !clip, "\(path)")
      #expect(clip == notes.contains { $0.hasPrefix("a transition clip (") }, "\(path): \(notes)")
      if clip { #expect(file["transition"] as? String != nil, "\(path)") }
      // Compared with the source wherever the tag can be re-rendered.
      #expect((file["against"] == nil) == (name == "voice-orb-level-track"), "\(path): \(notes)")
    }
  }

  /// A transition's poster is its clip's first frame, which is frame 0 of the FROM value's loop:
  /// the PNG equals the clip's decoded frame 0 within the codec's noise.
  @Test(arguments: [("weather-rain-to-snow", "mp4"), ("voice-orb-idle-to-speaking", "webm")])
  func transitionPosterIsTheClipsFirstFrame(preset: String, ext: String) throws {
    let dir = TemporaryDirectory()
    let folder = dir.path("presets")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: "\(Self.presets)/\(preset).json", toPath: "\(folder)/\(preset).json")
    let out = dir.path("out")
    let r = try runLoopsmith([
      "batch", folder, "--out", out, "--gallery", "--size", "64x64", "--scale", "0.2", "--fps", "5", "--quiet",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let posterImage = try #require(try VideoReader(path: "\(out)/posters/\(preset).png").nextFrame())
    let poster = (0..<posterImage.count).map { posterImage.pixels[$0] }
    let clip = try VideoReader(path: "\(out)/\(preset).\(ext)")
    let firstImage = try #require(try clip.nextFrame())
    let first = (0..<firstImage.count).map { firstImage.pixels[$0] }
    var last = first
    while let f = try clip.nextFrame() { last = (0..<f.count).map { f.pixels[$0] } }
    func difference(_ a: [SIMD4<Float>], _ b: [SIMD4<Float>]) -> Float {
      var sum: Float = 0
      for (p, q) in zip(a, b) {
        let d = p - q
        sum += abs(d.x) + abs(d.y) + abs(d.z)
      }
      return sum / Float(3 * a.count)
    }
    #expect(posterImage.width == firstImage.width && posterImage.height == firstImage.height)
    let d0 = difference(poster, first)
    #expect(d0 < 0.02, "\(preset): poster vs frame 0 differ by \(d0)")
    #expect(d0 < difference(poster, last), "\(preset): the poster is nearer the clip's end than its start")
  }
}
