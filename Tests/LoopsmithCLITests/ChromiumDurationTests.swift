import Foundation
import Testing
import _TestSupport

/// The loop lengths a browser reports, in a real headless Chromium (`make browser` installs it):
/// `video.duration` for MP4 and WebM with Opus, and each frame's duration through WebCodecs'
/// ImageDecoder for WebP and APNG, exact to the millisecond (docs/ENCODING.md, Exact durations).
@Suite struct ChromiumDurationTests {
  static let probe = """
    <!doctype html><html><body><pre id="report"></pre><script>
    const videos = ["a.mp4", "orb.webm", "orb.mp4"];
    const images = [["a.webp", "image/webp"], ["a.apng", "image/png"]];
    const out = {};
    function load(url) {
      return new Promise((resolve, reject) => {
        const x = new XMLHttpRequest(); x.open('GET', url); x.responseType = 'arraybuffer';
        x.onload = () => resolve(x.response); x.onerror = () => reject('cannot load ' + url); x.send();
      });
    }
    async function image([url, type]) {
      const decoder = new ImageDecoder({data: await load(url), type});
      await decoder.tracks.ready; await decoder.completed;
      const n = decoder.tracks.selectedTrack.frameCount, durations = [];
      for (let i = 0; i < n; i++) {
        const r = await decoder.decode({frameIndex: i}); durations.push(r.image.duration); r.image.close();
      }
      return {frames: n, durations};
    }
    function video(url) {
      return new Promise(resolve => {
        const v = document.createElement('video'); v.muted = true; v.preload = 'auto';
        v.onloadedmetadata = () => resolve({duration: v.duration});
        v.onerror = () => resolve({error: v.error ? v.error.code : -1});
        v.src = url; document.body.appendChild(v);
      });
    }
    let done = false;
    (async () => {
      try {
        for (const u of videos) out[u] = await video(u);
        for (const i of images) out[i[0]] = await image(i);
      } catch (e) { out.error = String(e); }
      done = true;
    })();
    // A timer stays pending until the results are in, so the virtual time budget does not run out
    // while media loads on a busy machine; the report is written once, complete.
    const started = Date.now();
    const tick = () => {
      if (done || Date.now() - started > 50000) {
        if (!done) out.timeout = true;
        document.getElementById('report').textContent = JSON.stringify(out);
      } else setTimeout(tick, 100);
    };
    tick();
    </script></body></html>
    """

  @Test func chromiumReportsEveryLoopExactToTheMillisecond() throws {
    let dir = TemporaryDirectory("loopsmith-chromium")
    let common = ["--scale", "0.2", "--fps", "30", "--duration", "1", "--max-speed-change", "1", "--quiet"]
    let orbs = try runLoopsmith(
      [
        "render", "color-orbs", "--size", "64x64", "-o", dir.path("a.mp4"), "-o", dir.path("a.webp"), "-o",
        dir.path("a.apng"),
      ]
        + common)
    #expect(orbs.status == 0, "\(orbs.stderr)")
    let wav = dir.path("voice.wav")
    try AudioFitTests.tone(wav, seconds: 1.6, frequency: 437.25)
    let voice = try runLoopsmith(
      ["render", "voice-orb", "--size", "64x64", "--audio", wav, "-o", dir.path("orb.webm"), "-o", dir.path("orb.mp4")]
        + common)
    #expect(voice.status == 0, "\(voice.stderr)")
    try Self.probe.write(toFile: dir.path("probe.html"), atomically: true, encoding: .utf8)

    // On a loaded machine a page can still be cut short; up to three runs, each its own browser.
    var report: [String: Any] = [:]
    for attempt in 1...3 {
      report = try Self.run(page: dir.path("probe.html"))
      if report["timeout"] == nil && report["a.apng"] != nil { break }
      if attempt == 3 { Issue.record("chromium did not finish the page: \(report)") }
    }
    #expect(report["error"] == nil, "\(report)")
    for name in ["a.mp4", "orb.webm", "orb.mp4"] {
      let duration = (report[name] as? [String: Any])?["duration"] as? Double
      #expect(duration.map { abs($0 - 1) < 0.0005 } == true, "\(name): \(String(describing: report[name]))")
    }
    // Frame i starts at round(i * 1000 / 30) ms; ImageDecoder reports microseconds.
    let grid = (0..<30).map { i in (((i + 1) * 2000 + 30) / 60 - (i * 2000 + 30) / 60) * 1000 }
    for name in ["a.webp", "a.apng"] {
      let durations = ((report[name] as? [String: Any])?["durations"] as? [Any])?.compactMap {
        ($0 as? NSNumber)?.intValue
      }
      #expect(durations == grid, "\(name): \(String(describing: report[name]))")
      #expect(durations?.reduce(0, +) == 1_000_000)
    }
  }

  /// Decodes each file's sound with Web Audio at 48 kHz: its length in samples and the first
  /// sample of the left channel above 0.1.
  static let soundProbe = """
    <!doctype html><html><body><pre id="report"></pre><script>
    const out = {};
    let done = false;
    (async () => {
      try {
        const context = new AudioContext({sampleRate: 48000});
        for (const url of ["orb.webm", "orb.mp4"]) {
          const sound = await context.decodeAudioData(await (await fetch(url)).arrayBuffer());
          const left = sound.getChannelData(0);
          out[url] = {length: sound.length, rate: sound.sampleRate, onset: left.findIndex(x => Math.abs(x) > 0.1)};
        }
      } catch (e) { out.error = String(e); }
      done = true;
    })();
    // Short ticks keep the page waiting in virtual time while the decoder works in real time.
    const tick = () => done ? document.getElementById('report').textContent = JSON.stringify(out) : setTimeout(tick, 10);
    tick();
    </script></body></html>
    """

  /// Chromium decodes the sound of a 2 s loop to exactly 96000 samples in MP4 (AAC) and WebM
  /// (Opus), the tone's onset where the source has it. Before the CodecDelay was a whole
  /// millisecond, Chromium took Opus's 6.5 ms pre-skip as the 7 ms its first block's time says:
  /// 95976 samples, the onset 23 samples early.
  @Test func chromiumDecodesTheSoundToExactlyTheLoop() throws {
    let dir = TemporaryDirectory("loopsmith-chromium")
    let wav = dir.path("onset.wav")
    try ExactDurationTests.onsetWAV(wav, seconds: 2)
    let r = try runLoopsmith([
      "render", "voice-orb", "--audio", wav, "-o", dir.path("orb.webm"), "-o", dir.path("orb.mp4"), "--size", "32x32",
      "--scale", "0.1", "--fps", "30", "--duration", "2", "--max-speed-change", "1", "--background", "black", "--quiet",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    try Self.soundProbe.write(toFile: dir.path("sound.html"), atomically: true, encoding: .utf8)
    var report: [String: Any] = [:]
    for attempt in 1...3 {
      if let dom = try HeadlessChromium.dumpDOM(dir.path("sound.html"), budget: 600_000) {
        report = HeadlessChromium.result(dom, id: "report") as? [String: Any] ?? [:]
      }
      if report["orb.mp4"] != nil || report["error"] != nil { break }
      if attempt == 3 { Issue.record("chromium did not finish the page: \(report)") }
    }
    #expect(report["error"] == nil, "\(report)")
    for name in ["orb.webm", "orb.mp4"] {
      let row = report[name] as? [String: Any]
      #expect(row?["length"] as? Int == 96000, "\(name): \(String(describing: row))")
      #expect(row?["rate"] as? Int == 48000, "\(name): \(String(describing: row))")
      let onset = row?["onset"] as? Int ?? -1
      #expect(abs(onset - ExactDurationTests.onset) <= 3, "\(name): \(String(describing: row))")
    }
  }

  /// The JSON the page wrote into `<pre id="report">`: empty when it wrote none, `timeout` when
  /// the browser did not finish in two minutes.
  static func run(page: String) throws -> [String: Any] {
    guard let dom = try HeadlessChromium.dumpDOM(page, budget: 60000) else { return ["timeout": true] }
    return HeadlessChromium.result(dom, id: "report") as? [String: Any] ?? [:]
  }
}
