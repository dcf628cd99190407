// loopsmith-bench: how fast Loopsmith renders and encodes, per effect (`make bench`; README, Performance).
//
// A benchmark, not a test: it prints a table and writes bench/results.json. Every number is the
// median of BENCH_RUNS runs (default 3) of a short clip (BENCH_FRAMES frames, default 32, about
// 1 s at 30 fps): long enough to fill the encoders' lookahead, short enough that the whole table
// takes a few minutes on two cores. BENCH_ONLY=name,name limits it to some cases; BENCH_MEMORY=0
// skips the 10 s and 60 s memory renders.
import Dispatch
import Effects
import Foundation
import Loopsmith
import Raster
import Video

#if canImport(Glibc)
  import Glibc
#endif

struct Case {
  var name: String
  var effect: String
  var parameters: [String: String] = [:]
  var size: (Int, Int)?
}

let allCases: [Case] =
  [
    Case(name: "color-orbs", effect: "color-orbs", size: (1080, 1920)),
    Case(name: "aurora-mesh", effect: "aurora-mesh", size: (1080, 1920)),
  ]
  + Weather.Kind.allCases.map { Case(name: "weather \($0.rawValue)", effect: "weather", parameters: ["weather": $0.rawValue], size: (1080, 1920)) }
  + [
    Case(name: "blob-morph-loader default", effect: "blob-morph-loader", size: nil),
    Case(name: "blob-morph-loader", effect: "blob-morph-loader", size: (1080, 1080)),
    Case(name: "voice-orb", effect: "voice-orb", size: (1080, 1080)),
  ]

let env = ProcessInfo.processInfo.environment
let runs = max(1, Int(env["BENCH_RUNS"] ?? "") ?? 3)
let clipFrames = max(4, Int(env["BENCH_FRAMES"] ?? "") ?? 32)
let only = env["BENCH_ONLY"].map { $0.split(separator: ",").map(String.init) }
let measureMemory = env["BENCH_MEMORY"] != "0"
let cores = ProcessInfo.processInfo.activeProcessorCount
let workDir = NSTemporaryDirectory() + "loopsmith-bench-\(getpid())"
try FileManager.default.createDirectory(atPath: workDir, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: workDir) }

func now() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

func median(_ xs: [Double]) -> Double {
  let s = xs.sorted()
  return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// The job for a case: `frames` frames at the effect's frame rate, written to `output`.
func job(_ c: Case, frames: Int, output: String, threads: Int) throws -> RenderJob {
  var r = RenderRequest()
  r.effect = c.effect
  let type = EffectRegistry.type(named: c.effect)!
  for (k, v) in c.parameters { r.parameters[k] = try type.info.parameter(named: k)!.parse(v) }
  r.size = c.size
  r.threads = threads
  r.encoderThreads = min(cores, 4)  // what the CLI picks for an all-cores render
  r.outputs = [output]
  r.maxSpeedChange = 1  // a short clip is not a loop anyone watches; let any length plan
  let probe = try r.job()
  r.duration = Double(frames) / Double(probe.fps)
  return try r.job()
}

/// Frames a second of `body`, which handles `frames` frames; the median of `runs` runs.
func rate(frames: Int, _ body: () throws -> Void) rethrows -> Double {
  var rates: [Double] = []
  for _ in 0..<runs {
    let t0 = now()
    try body()
    rates.append(Double(frames) / (now() - t0))
  }
  return median(rates)
}

/// Peak resident memory in MB of `loopsmith` run as a child with `args` (ru_maxrss of wait4).
func childPeakMB(_ args: [String]) -> Double? {
  let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("loopsmith").path
  let argv = ([binary] + args).map { strdup($0) } + [nil]
  defer { argv.forEach { free($0) } }
  var pid: pid_t = 0
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
  defer { posix_spawn_file_actions_destroy(&actions) }
  guard posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0 else { return nil }
  var status: Int32 = 0
  var usage = rusage()
  guard wait4(pid, &status, 0, &usage) == pid, status == 0 else { return nil }
  return Double(usage.ru_maxrss) / 1024  // kilobytes on Linux
}

struct Row {
  var name = "", size = "", fps = 0
  var render1 = 0.0, renderAll = 0.0
  var mp4 = 0.0, mp4Encode = 0.0, webm = 0.0, webmEncode = 0.0
  var memory10: Double?, memory60: Double?
  var scaling: Double { renderAll / render1 }
  var mp4Ratio: Double { mp4Encode / mp4 }  // render+encode time / encode-only time
  var webmRatio: Double { webmEncode / webm }
}

func uptime() -> String {
  (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}

func log(_ s: String) { FileHandle.standardError.write((s + "\n").data(using: .utf8)!) }

let startLoad = uptime()
let started = now()
log("loopsmith-bench: \(cores) cores, \(runs) runs of \(clipFrames) frames, load \(startLoad)")
var rows: [Row] = []
for c in allCases where only.map({ $0.contains(c.name) || $0.contains(c.effect) }) ?? true {
  let mp4Path = workDir + "/clip.mp4", webmPath = workDir + "/clip.webm"
  var row = Row()
  row.name = c.name
  let all = try job(c, frames: clipFrames, output: mp4Path, threads: cores)
  row.size = "\(all.width)x\(all.height)"
  row.fps = all.fps
  let frames = all.frameCount
  log("\(c.name) \(row.size) \(frames) frames")

  // Render only: drawn and converted to H.264's samples on the render threads, nothing encoded.
  let one = try job(c, frames: clipFrames, output: mp4Path, threads: 1)
  row.render1 = try rate(frames: frames) { _ = try RenderPipeline.run(one, discard: true) }
  row.renderAll = try rate(frames: frames) { _ = try RenderPipeline.run(all, discard: true) }

  for (path, isMP4) in [(mp4Path, true), (webmPath, false)] {
    let j = try job(c, frames: clipFrames, output: path, threads: cores)
    let together = try rate(frames: frames) { _ = try RenderPipeline.run(j) }
    // Encode only: the same frames, rendered and converted beforehand, through the same writer.
    let settings = j.outputs[0]
    let converter = FrameConverter(settings)
    let effect = j.makeEffect()
    let surface = Surface(image: Image(width: j.width, height: j.height), scale: Float(j.scale))
    let converted = (0..<j.frameCount).map { i -> ConvertedFrame in
      RenderPipeline.draw(effect, job: j, frame: i, on: surface)
      return converter.convert(surface.image)
    }
    let alone = try rate(frames: frames) {
      let writer = try VideoWriter(settings)
      for f in converted { try writer.append(f) }
      _ = try writer.finish()
    }
    if isMP4 { (row.mp4, row.mp4Encode) = (together, alone) } else { (row.webm, row.webmEncode) = (together, alone) }
  }
  rows.append(row)
  log(String(format: "  render 1T %.1f  all %.1f  mp4 %.1f / %.1f  webm %.1f / %.1f", row.render1, row.renderAll, row.mp4, row.mp4Encode, row.webm, row.webmEncode))
}

// Peak memory of whole CLI renders (H.264 medium, all cores), 10 s against 60 s. The frame rate
// is lowered to 6 so the 60 s render takes under a minute; the ring and layers do not depend on
// it, and x264 holds its lookahead (40 frames) either way.
var memory: [[String: Any]] = []
if measureMemory {
  for c in allCases where ["color-orbs", "weather thunderstorm"].contains(c.name) && (only.map { $0.contains(c.name) || $0.contains(c.effect) } ?? true) {
    var entry: [String: Any] = ["name": c.name]
    for seconds in [10, 60] {
      var args = ["render", c.effect, "-o", workDir + "/memory.mp4", "--duration", "\(seconds)", "--fps", "6", "--quiet", "--max-speed-change", "1"]
      if let (w, h) = c.size { args += ["--size", "\(w)x\(h)"] }
      for (k, v) in c.parameters { args += ["--set", "\(k)=\(v)"] }
      log("memory: loopsmith \(args.joined(separator: " "))")
      let mb = childPeakMB(args)
      entry["peakMB\(seconds)s"] = mb ?? NSNull()
      if let i = rows.firstIndex(where: { $0.name == c.name }) {
        if seconds == 10 { rows[i].memory10 = mb } else { rows[i].memory60 = mb }
      }
    }
    memory.append(entry)
  }
}
let endLoad = uptime()
let elapsed = now() - started

// MARK: - Table and JSON

func f1(_ x: Double) -> String { String(format: "%.1f", x) }
func f2(_ x: Double) -> String { String(format: "%.2f", x) }
func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
let header = ["case", "size", "fps", "1T f/s", "\(cores)T f/s", "scale", "mp4 r+e", "mp4 enc", "ratio", "webm r+e", "webm enc", "ratio", "MB 10s", "MB 60s"]
let widths = [26, 9, 4, 7, 7, 6, 8, 8, 6, 9, 9, 6, 7, 7]
func line(_ cells: [String]) -> String {
  zip(cells, widths).enumerated().map { i, p in i == 0 ? p.0.padding(toLength: p.1, withPad: " ", startingAt: 0) : pad(p.0, p.1) }.joined(separator: " ")
}
var table = line(header)
for r in rows {
  table += "\n" + line([
    r.name, r.size, "\(r.fps)", f1(r.render1), f1(r.renderAll), f2(r.scaling), f1(r.mp4), f1(r.mp4Encode), f2(r.mp4Ratio),
    f1(r.webm), f1(r.webmEncode), f2(r.webmRatio), r.memory10.map { String(Int($0)) } ?? "-", r.memory60.map { String(Int($0)) } ?? "-",
  ])
}
let notes = """
  f/s: frames a second, median of \(runs) runs of a \(clipFrames)-frame clip. 1T/\(cores)T: render only (drawn and
  converted to YUV, nothing encoded), 1 and \(cores) render threads; scale = \(cores)T / 1T. r+e: the whole render and
  encode (H.264 medium crf 18 / VP9 crf 30, \(min(cores, 4)) encoder threads); enc: the same frames, rendered
  beforehand, through the same writer alone. ratio = (r+e time) / (enc time) = enc f/s / r+e f/s.
  MB: peak resident memory of a CLI render to MP4 of 10 s and 60 s (at 6 frames/s).
  load average \(startLoad) at the start, \(endLoad) at the end; \(Int(elapsed)) s in all.

  """
print(table)
print(notes)

let json: [String: Any] = [
  "cores": cores, "runs": runs, "clipFrames": clipFrames, "loadStart": startLoad, "loadEnd": endLoad,
  "seconds": Int(elapsed),
  "date": ISO8601DateFormatter().string(from: Date()),
  "cases": rows.map { r -> [String: Any] in
    [
      "name": r.name, "size": r.size, "fps": r.fps,
      "renderOnly1Thread": r.render1, "renderOnlyAllCores": r.renderAll, "threadScaling": r.scaling,
      "mp4RenderEncode": r.mp4, "mp4EncodeOnly": r.mp4Encode, "mp4Ratio": r.mp4Ratio,
      "webmRenderEncode": r.webm, "webmEncodeOnly": r.webmEncode, "webmRatio": r.webmRatio,
      "peakMB10s": r.memory10 ?? NSNull(), "peakMB60s": r.memory60 ?? NSNull(),
    ]
  },
  "memory": memory,
]
try FileManager.default.createDirectory(atPath: "bench", withIntermediateDirectories: true)
let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
try data.write(to: URL(fileURLWithPath: "bench/results.json"))
log("wrote bench/results.json")
