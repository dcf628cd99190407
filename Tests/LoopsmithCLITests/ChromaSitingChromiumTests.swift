import Foundation
import Raster
import Testing
import Video
import _TestSupport

/// Where Chromium puts our chroma: a one-pixel red line on grey, at an even and an odd column, in
/// H.264 MP4 and VP9 WebM, drawn into a canvas and read back (docs/ENCODING.md, Chroma siting).
@Suite struct ChromaSitingChromiumTests {
  static let columns = [20, 45]

  /// Both videos at once, each drawn at its own size into a 2D canvas and into WebGL (a texture
  /// sampled nearest, so the texture holds the browser's own conversion), then the centroid of
  /// R − G across each line over the middle rows; R − G moves with chroma alone.
  static let page =
    """
    <!doctype html><html><body><pre id="result"></pre><script>
    const files = ['line.mp4', 'line.webm'], columns = [20, 45], report = {};
    const out = document.getElementById('result');
    function offsets(data, w, h, flip) {
      const result = [];
      for (const column of columns) {
        let weight = 0, moment = 0;
        for (let y = 4; y < h - 4; y++) for (let x = column - 5; x <= column + 5; x++) {
          const i = ((flip ? h - 1 - y : y) * w + x) * 4, v = data[i] - data[i + 1];
          weight += v; moment += v * x;
        }
        result.push(moment / weight - column);
      }
      return result;
    }
    function canvas2d(video) {
      const c = document.createElement('canvas'); c.width = video.videoWidth; c.height = video.videoHeight;
      const g = c.getContext('2d', { willReadFrequently: true }); g.drawImage(video, 0, 0);
      return offsets(g.getImageData(0, 0, c.width, c.height).data, c.width, c.height, false);
    }
    function webgl(video) {
      const w = video.videoWidth, h = video.videoHeight;
      const c = document.createElement('canvas'); c.width = w; c.height = h;
      const gl = c.getContext('webgl', { preserveDrawingBuffer: true });
      if (!gl) return 'no WebGL';
      const program = gl.createProgram();
      for (const [type, source] of [[gl.VERTEX_SHADER,
        'attribute vec2 p; varying vec2 t; void main() { t = vec2(p.x, -p.y) * 0.5 + 0.5; gl_Position = vec4(p, 0, 1); }'],
        [gl.FRAGMENT_SHADER,
        'precision mediump float; varying vec2 t; uniform sampler2D s; void main() { gl_FragColor = texture2D(s, t); }']]) {
        const shader = gl.createShader(type); gl.shaderSource(shader, source); gl.compileShader(shader);
        gl.attachShader(program, shader);
      }
      gl.linkProgram(program); gl.useProgram(program);
      gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
      gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]), gl.STATIC_DRAW);
      gl.enableVertexAttribArray(0); gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
      gl.bindTexture(gl.TEXTURE_2D, gl.createTexture());
      for (const p of [gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER]) gl.texParameteri(gl.TEXTURE_2D, p, gl.NEAREST);
      for (const p of [gl.TEXTURE_WRAP_S, gl.TEXTURE_WRAP_T]) gl.texParameteri(gl.TEXTURE_2D, p, gl.CLAMP_TO_EDGE);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, video);
      gl.viewport(0, 0, w, h); gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
      const data = new Uint8Array(w * h * 4); gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, data);
      return offsets(data, w, h, true);  // readPixels starts at the bottom row
    }
    let pending = files.length;
    for (const file of files) {
      const video = document.createElement('video'); video.muted = true; video.preload = 'auto'; video.src = file;
      document.body.appendChild(video);
      video.addEventListener('loadeddata', () => {
        // A busy machine can hand back an empty picture just after the seek (no red anywhere, so
        // no centroid): read again a little later, up to 40 times, before reporting it.
        const measure = (attempt) => {
          try {
            const r = { size: video.videoWidth + 'x' + video.videoHeight, canvas2d: canvas2d(video), webgl: webgl(video) };
            const empty = [r.canvas2d, r.webgl].some(v => Array.isArray(v) && !v.every(Number.isFinite));
            if (empty && attempt < 40) { setTimeout(() => measure(attempt + 1), 50); return; }
            report[file] = r;
          } catch (e) { report[file] = { error: String(e) }; }
          if (--pending === 0) out.textContent = JSON.stringify(report);
        };
        video.addEventListener('seeked', () => measure(0), { once: true });
        video.currentTime = 0;
      }, { once: true });
      video.addEventListener('error', () => {
        report[file] = { error: 'video ' + video.error.code };
        if (--pending === 0) out.textContent = JSON.stringify(report);
      });
    }
    </script></body></html>
    """

  /// The line's colour lands on its column within 0.1 pixel in Chromium's software path (each
  /// chroma sample for its 2x2 block; a canvas and WebGL) and its GPU path (SwiftShader: chroma
  /// interpolated between centred samples; WebGL); 2x2 means missed by half a pixel (+0.5 on the
  /// even column, -0.5 on the odd one, in both paths).
  @Test(arguments: [false, true]) func aLinesColourLandsOnTheLineInChromium(gpu: Bool) throws {
    let dir = TemporaryDirectory()
    let image = Image(width: 64, height: 32)
    for y in 0..<32 {
      for x in 0..<64 { image[x, y] = Self.columns.contains(x) ? Pixel(1, 0, 0, 1) : Pixel(0.5, 0.5, 0.5, 1) }
    }
    for (file, crf) in [("line.mp4", 8), ("line.webm", 10)] {
      let settings = try OutputSettings(
        path: dir.path(file), width: 64, height: 32, fps: 10, frameCount: 2, crf: crf)
      let writer = try VideoWriter(settings)
      for _ in 0..<2 { try writer.append(image) }
      _ = try writer.finish()
    }
    try Self.page.write(toFile: dir.path("page.html"), atomically: true, encoding: .utf8)
    let flags = gpu ? ["--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"] : []
    let dom = try #require(
      try HeadlessChromium.dumpDOM(dir.path("page.html"), budget: 10000, extra: flags, disableGPU: !gpu),
      "Chromium did not finish the page")
    let result = try #require(HeadlessChromium.result(dom) as? [String: Any], "no result in \(dom.prefix(2000))")
    for file in ["line.mp4", "line.webm"] {
      let report = try #require(result[file] as? [String: Any], "\(file): \(result)")
      #expect(report["size"] as? String == "64x32", "\(file): \(report)")
      // With a GPU, a 2D canvas's read-back of a video frame sometimes comes back empty here; the
      // conversion is the one WebGL gets (both paths gave the same offsets whenever both answered).
      for path in gpu ? ["webgl"] : ["canvas2d", "webgl"] {
        let offsets = try #require(report[path] as? [Double], "\(file) \(path): \(report)")
        #expect(offsets.count == 2 && offsets.allSatisfy { abs($0) <= 0.1 }, "\(file) \(path), gpu \(gpu): \(offsets)")
      }
    }
  }
}
