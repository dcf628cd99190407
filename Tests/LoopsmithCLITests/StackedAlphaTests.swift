import Foundation
import Raster
import Testing
import Video
import _TestSupport

@Suite struct StackedAlphaTests {
  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  /// The page: the stacked MP4 through player/loopsmith-alpha.js (WebGL, then canvas 2D), and the
  /// PNG of the same frame, each composited over one checkerboard and read back.
  static let page =
    """
    <!doctype html><html><body><pre id="result"></pre>
    <video id="v" muted playsinline preload="auto" src="s.mp4"></video>
    <img id="p" src="s.png">
    <script src="loopsmith-alpha.js"></script>
    <script>
    const video = document.getElementById('v'), poster = document.getElementById('p');
    const out = document.getElementById('result');
    function board(w, h) {
      const c = document.createElement('canvas'); c.width = w; c.height = h;
      const g = c.getContext('2d', { willReadFrequently: true });
      for (let y = 0; y < h; y += 8) for (let x = 0; x < w; x += 8) {
        g.fillStyle = ((x + y) / 8) % 2 ? '#d0d0d0' : '#404040'; g.fillRect(x, y, 8, 8);
      }
      return [c, g];
    }
    function over(source, w, h) {
      const [c, g] = board(w, h); g.drawImage(source, 0, 0, w, h); return g.getImageData(0, 0, w, h).data;
    }
    function compare(a, b) {
      let sum = 0, max = 0, n = 0;
      for (let i = 0; i < a.length; i += 4) for (let k = 0; k < 3; k++) {
        const d = Math.abs(a[i + k] - b[i + k]); sum += d; max = Math.max(max, d); n++;
      }
      return { mean: sum / n, max: max };
    }
    function run() {
      const w = video.videoWidth, h = video.videoHeight / 2;
      const expected = over(poster, w, h);
      // The poster's own alpha: how much of the frame is see-through, so the test knows it tests something.
      const probe = document.createElement('canvas'); probe.width = w; probe.height = h;
      const pg = probe.getContext('2d'); pg.drawImage(poster, 0, 0);
      const alpha = pg.getImageData(0, 0, w, h).data;
      let clear = 0, opaque = 0;
      for (let i = 3; i < alpha.length; i += 4) { if (alpha[i] < 128) clear++; if (alpha[i] > 250) opaque++; }
      const report = { width: w, height: h, videoHeight: video.videoHeight, clear: clear / (w * h),
        opaque: opaque / (w * h), renderers: {} };
      for (const wanted of ['webgl', '2d']) {
        const canvas = document.createElement('canvas');
        try {
          const player = LoopsmithAlpha.attach(video, canvas, { renderer: wanted });
          player.draw(); player.stop();
          report.renderers[wanted] = Object.assign({ used: player.renderer, canvas: canvas.width + 'x' + canvas.height },
            compare(over(canvas, w, h), expected));
        } catch (e) { report.renderers[wanted] = { error: String(e) }; }
      }
      // The video drawn as it is, top half only, without its alpha: what ignoring alpha looks like.
      const naive = document.createElement('canvas'); naive.width = w; naive.height = h;
      naive.getContext('2d').drawImage(video, 0, 0, w, h, 0, 0, w, h);
      report.withoutAlpha = compare(over(naive, w, h), expected);
      out.textContent = JSON.stringify(report);
    }
    // Whether the video hands back a picture: a busy machine can return an empty one just after
    // the seek (every sample 0, even the alpha half's), so the page reads again a little later.
    function decoded() {
      const c = document.createElement('canvas'); c.width = video.videoWidth; c.height = video.videoHeight;
      const g = c.getContext('2d', { willReadFrequently: true }); g.drawImage(video, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      for (let i = 0; i < d.length; i += 4) if (d[i] || d[i + 1] || d[i + 2]) return true;
      return false;
    }
    const attempt = (n) => {
      try {
        if (!decoded() && n < 40) { setTimeout(() => attempt(n + 1), 50); return; }
        run();
      } catch (e) { out.textContent = JSON.stringify({ error: String(e) }); }
    };
    let pending = 2;
    const ready = () => { if (--pending === 0) attempt(0); };
    poster.complete ? ready() : poster.addEventListener('load', ready);
    // Frame 0 decoded for this very position before any read-back: seek to it once the data is in.
    video.addEventListener('loadeddata', () => {
      video.addEventListener('seeked', ready, { once: true });
      video.currentTime = 0;
    }, { once: true });
    video.addEventListener('error', () => { out.textContent = JSON.stringify({ error: 'video ' + video.error.code }); });
    </script></body></html>
    """

  /// `--alpha stacked` played by the repository's player in headless Chromium over a checkerboard,
  /// against the PNG poster of the same frame over the same checkerboard: mean error within 2 codes,
  /// in WebGL and in the canvas 2D fallback.
  @Test func theStackedVideoComposesLikeItsPNGInChromium() throws {
    let dir = TemporaryDirectory()
    let r = try runLoopsmith([
      "render", "voice-orb", "--size", "64x64", "--fps", "10", "--duration", "1", "--alpha", "stacked",
      "-o", dir.path("s.mp4"), "--poster", "--quiet",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(!r.stderr.contains("Note:"), "stacked alpha keeps alpha: no notice")
    let info = try VideoReader(path: dir.path("s.mp4")).info
    #expect(info.width == 64 && info.height == 128 && info.codecName == "h264")
    try FileManager.default.copyItem(
      atPath: Self.packageRoot.appendingPathComponent("player/loopsmith-alpha.js").path,
      toPath: dir.path("loopsmith-alpha.js"))
    try Self.page.write(toFile: dir.path("page.html"), atomically: true, encoding: .utf8)
    let dom = try #require(
      try HeadlessChromium.dumpDOM(
        dir.path("page.html"), extra: ["--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]),
      "Chromium did not finish the page")
    let result = try #require(HeadlessChromium.result(dom) as? [String: Any], "no result in \(dom.prefix(2000))")
    #expect(result["error"] == nil, "\(result)")
    #expect(result["width"] as? Int == 64 && result["height"] as? Int == 64, "\(result)")
    // The voice orb is an opaque orb on a see-through frame: both kinds of pixel are compared.
    #expect((result["clear"] as? Double ?? 0) > 0.2 && (result["opaque"] as? Double ?? 0) > 0.02, "\(result)")
    let renderers = try #require(result["renderers"] as? [String: [String: Any]])
    for name in ["webgl", "2d"] {
      let r = try #require(renderers[name], "\(result)")
      #expect(r["used"] as? String == name, "\(name): \(r)")
      #expect(r["canvas"] as? String == "64x64", "\(name): \(r)")
      #expect((r["mean"] as? Double ?? 99) <= 2, "\(name): mean error over the checkerboard: \(r)")
    }
    // Ignoring alpha is far off, so the comparison above can fail.
    #expect((result["withoutAlpha"] as? [String: Any])?["mean"] as? Double ?? 0 > 10, "\(result)")
  }
}
