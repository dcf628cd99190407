import Foundation
import Testing
import Video
import _TestSupport

@testable import LoopsmithCLI

/// `render --web DIR` through the real binary: the folder holds exactly the files
/// `<loopsmith-loop>` chooses between, the poster, the player and an index.html with the README's
/// snippet (docs/WEB-PLAYER.md, A folder for a site).
@Suite struct WebFolderTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  // 8 frames: a shorter loop gives the crossfading layers under two frames, which render notes.
  static let small = ["--size", "32x56", "--fps", "4", "--duration", "2", "--quiet"]

  static func files(_ dir: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
  }

  static func text(_ path: String) throws -> String {
    try String(contentsOfFile: path, encoding: .utf8)
  }

  /// The player copied and compiled in equals player/ byte for byte: `make player-source` regenerates it.
  @Test func theCompiledInPlayerIsPlayersOwn() throws {
    for (file, text) in WebFolder.scripts {
      let own = try Data(contentsOf: Self.repository.appendingPathComponent("player/" + file))
      #expect(Data(text.utf8) == own, "\(file) differs from player/\(file): run make player-source")
    }
  }

  /// A transparent effect: the stacked MP4, the VP9 WebM with alpha, the poster, the player and the page.
  @Test func aTransparentEffectGetsStackedAndNativeAlpha() throws {
    let tmp = TemporaryDirectory()
    let dir = tmp.path("site/orb")
    let r = try runLoopsmith(["render", "voice-orb", "--web", dir, "--json"] + Self.small)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      try Self.files(dir)
        == [
          "index.html", "loopsmith-loop.js", "loopsmith-loop.mjs", "voice-orb-stacked.mp4", "voice-orb.png",
          "voice-orb.webm",
        ]
    )
    let stacked = try Decoded.frames(dir + "/voice-orb-stacked.mp4")
    #expect(
      stacked.info.codecName == "h264" && stacked.frames.first?.height == 112 && stacked.frames.first?.width == 32)
    let webm = try Decoded.frames(dir + "/voice-orb.webm")
    #expect(webm.info.codecName.hasPrefix("vp9") && webm.frames.first?.height == 56)
    #expect(webm.frames.contains { f in (0..<f.count).contains { f.pixels[$0].w < 0.5 } }, "the WebM keeps alpha")
    #expect(!stacked.frames.isEmpty && stacked.frames.count == webm.frames.count)
    let poster = try Decoded.frames(dir + "/voice-orb.png")
    #expect(poster.frames.count == 1 && poster.frames[0].width == 32 && poster.frames[0].height == 56)
    for (file, text) in WebFolder.scripts {
      #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + file)) == Data(text.utf8))
    }
    let html = try Self.text(dir + "/index.html")
    let snippet = """
      <script src="loopsmith-loop.js"></script>
      <loopsmith-loop poster="voice-orb.png">
        <source src="voice-orb-stacked.mp4" type="video/mp4" data-alpha="stacked">
        <source src="voice-orb.webm" type="video/webm" data-alpha="native">
      </loopsmith-loop>
      """
    #expect(html.contains(snippet), "\(html)")
    #expect(html.contains("<title>voice-orb</title>"))
    #expect(!(try Self.files(tmp.path("site"))).contains { $0.hasPrefix(".") }, "no staging folder is left")
    // The summary names the files where they are, not where they were staged.
    let summary = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    let outputs = (summary["outputs"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
    #expect(outputs == [dir + "/voice-orb-stacked.mp4", dir + "/voice-orb.webm"], "\(r.stdout)")
    #expect((summary["web"] as? [String: Any])?["page"] as? String == dir + "/index.html", "\(r.stdout)")
  }

  /// An opaque effect: one H.264 MP4 and its poster, and the README's snippet with one plain source.
  @Test func anOpaqueEffectGetsOneMP4() throws {
    let tmp = TemporaryDirectory()
    let dir = tmp.path("aurora")
    let r = try runLoopsmith(["render", "aurora-mesh", "--web", dir] + Self.small)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(!r.stderr.contains("Note:"), "\(r.stderr)")
    #expect(
      try Self.files(dir) == [
        "aurora-mesh.mp4", "aurora-mesh.png", "index.html", "loopsmith-loop.js", "loopsmith-loop.mjs",
      ])
    let video = try Decoded.frames(dir + "/aurora-mesh.mp4")
    #expect(video.info.codecName == "h264" && video.frames.first?.height == 56 && !video.frames.isEmpty)
    #expect(try Decoded.frames(dir + "/aurora-mesh.png").frames.count == 1)
    let html = try Self.text(dir + "/index.html")
    let snippet = """
      <script src="loopsmith-loop.js"></script>
      <loopsmith-loop poster="aurora-mesh.png">
        <source src="aurora-mesh.mp4" type="video/mp4">
      </loopsmith-loop>
      """
    #expect(html.contains(snippet), "\(html)")
  }

  /// A preset's name is its file's, which may carry markup and quotes: the files take it as it
  /// is, the page escapes it everywhere (and percent-encodes it in URLs).
  @Test func aPresetNamedWithMarkupIsEscaped() throws {
    let tmp = TemporaryDirectory()
    // No slash: a preset's name is a file name.
    let name = #"<script>alert("x")'&"#
    try Data(#"{"effect": "aurora-mesh"}"#.utf8).write(to: URL(fileURLWithPath: tmp.path(name + ".json")))
    let dir = tmp.path("site")
    let r = try runLoopsmith(["render", tmp.path(name + ".json"), "--web", dir] + Self.small)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(try Self.files(dir).contains(name + ".mp4") && Self.files(dir).contains(name + ".png"))
    let html = try Self.text(dir + "/index.html")
    #expect(!html.contains("<script>alert") && !html.contains("alert(\"x\")"), "\(html)")
    #expect(html.contains("<title>&lt;script&gt;alert(&quot;x&quot;)&#39;&amp;</title>"), "\(html)")
    #expect(html.contains(#"<source src="%3Cscript%3Ealert(%22x%22)&#39;&amp;.mp4" type="video/mp4">"#), "\(html)")
    #expect(html.contains(#"<loopsmith-loop poster="%3Cscript%3Ealert(%22x%22)&#39;&amp;.png">"#), "\(html)")
    // Only the player's own <script> opens an element of that name.
    #expect(html.components(separatedBy: "<script").count == 2, "\(html)")
  }

  /// An existing folder gets the files added; --no-overwrite refuses one already there.
  @Test func anExistingFolderGetsTheFilesAdded() throws {
    let tmp = TemporaryDirectory()
    let dir = tmp.path("site")
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    try Data("mine".utf8).write(to: URL(fileURLWithPath: dir + "/about.html"))
    let r = try runLoopsmith(["render", "aurora-mesh", "--web", dir] + Self.small)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(
      try Self.files(dir) == [
        "about.html", "aurora-mesh.mp4", "aurora-mesh.png", "index.html", "loopsmith-loop.js", "loopsmith-loop.mjs",
      ])
    let again = try runLoopsmith(["render", "aurora-mesh", "--web", dir, "-n"] + Self.small)
    #expect(again.status == 2 && again.stderr.contains("aurora-mesh.mp4"), "\(again.stderr)")
  }

  /// A folder that cannot be made is one line on stderr and exit 1, with nothing left behind;
  /// -o or --poster beside --web is a bad argument (exit 2).
  @Test func anUnwritableFolderFailsCleanly() throws {
    let tmp = TemporaryDirectory()
    try Data("x".utf8).write(to: URL(fileURLWithPath: tmp.path("file")))
    for dir in [tmp.path("file/site"), tmp.path("file")] {
      let r = try runLoopsmith(["render", "aurora-mesh", "--web", dir] + Self.small)
      #expect(r.status == 1, "\(r.stderr)")
      let lines = r.stderr.split(separator: "\n")
      #expect(lines.count == 1 && lines[0].contains("--web: cannot write '\(dir)'"), "\(r.stderr)")
    }
    #expect(try Self.files(tmp.path("")) == ["file"])
    let replaced = [
      ["-o", tmp.path("a.mp4")], ["--poster"], ["--poster", tmp.path("p.png")], ["--out-dir", tmp.path("r")],
      ["--null"], ["--frames", "0:2"],
    ]
    for extra in replaced {
      let r = try runLoopsmith(["render", "aurora-mesh", "--web", tmp.path("site")] + extra + Self.small)
      #expect(r.status == 2 && r.stderr.contains("--web"), "\(extra): \(r.stderr)")
    }
    #expect(try Self.files(tmp.path("")) == ["file"], "a refused render leaves nothing")
  }

  /// The index.html a render writes, unchanged, plays in headless Chromium through WebCodecs: a
  /// page of the test's frames it and reports the element's `technique` and `source`. The page
  /// waits up to 90 s for a technique: the whole suite runs beside it, browsers of other tests too.
  @Test func chromiumPlaysTheFolderThroughWebCodecs() async throws {
    let tmp = TemporaryDirectory()
    let r = try runLoopsmith(["render", "voice-orb", "--web", tmp.path("orb")] + Self.small)
    #expect(r.status == 0, "\(r.stderr)")
    let page = """
      <!doctype html>
      <iframe src="orb/index.html" width="300" height="300"></iframe>
      <script>
        const frame = document.querySelector('iframe');
        const start = Date.now();
        (function look() {
          const loop = frame.contentDocument && frame.contentDocument.querySelector('loopsmith-loop');
          const technique = loop && loop.getAttribute('technique');
          if (technique === 'webcodecs' || technique === 'video-loop' || Date.now() - start > 90000) {
            fetch('/web', { method: 'POST', body: JSON.stringify({ technique, source: loop && loop.getAttribute('source') }) });
          } else {
            setTimeout(look, 100);
          }
        })();
      </script>
      """
    try Data(page.utf8).write(to: URL(fileURLWithPath: tmp.path("check.html")))
    let server = try LocalHTTPServer(root: tmp.url)
    defer { server.stop() }
    let session = try WebEngine.chromium.open(server.url("check.html"))
    defer { session.stop() }
    let body = try #require(await server.waitForPost("web", seconds: 120), "no report: \(session.logTail)")
    let report = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    #expect(report["technique"] as? String == "webcodecs", "\(report) \(session.logTail)")
    #expect((report["source"] as? String)?.hasSuffix("voice-orb-stacked.mp4") == true, "\(report)")
  }

  /// A render the job refuses names the folder's files, not the staging folder's, and leaves nothing.
  @Test func aFailedRenderLeavesNothing() throws {
    let tmp = TemporaryDirectory()
    // H.264's 4:2:0 needs an even size.
    let r = try runLoopsmith(["render", "aurora-mesh", "--web", tmp.path("site"), "--size", "33x57", "--quiet"])
    #expect(r.status == 2 && r.stderr.contains(tmp.path("site/aurora-mesh.mp4")), "\(r.stderr)")
    #expect(!r.stderr.contains(".loopsmith-web-"), "\(r.stderr)")
    #expect(try Self.files(tmp.path("")) == [], "\(r.stderr)")
  }

  /// A render that fails after the folder is staged (a size budget no quality meets, known only
  /// once encoded) exits 1 naming the file where it was to be, and leaves nothing at DIR.
  @Test func aFailureAfterStagingLeavesNothing() throws {
    let tmp = TemporaryDirectory()
    let r = try runLoopsmith(["render", "aurora-mesh", "--web", tmp.path("site"), "--max-bytes", "200"] + Self.small)
    #expect(r.status == 1 && r.stderr.contains(tmp.path("site/aurora-mesh.mp4")), "\(r.stderr)")
    #expect(!r.stderr.contains(".loopsmith-web-"), "\(r.stderr)")
    #expect(try Self.files(tmp.path("")) == [], "\(r.stderr)")
  }
}
