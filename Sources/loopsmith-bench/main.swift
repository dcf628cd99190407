// loopsmith-bench: how fast Loopsmith renders and encodes, per effect (`make bench`; README, Performance).
//
// A benchmark, not a test: it prints a table and writes bench/results.json. Render-only numbers
// are the median of BENCH_RUNS runs (default 3) of a BENCH_FRAMES-frame clip (default 60, 2 s at
// 30 fps; each run allocates its surfaces and ring afresh, which a shorter clip lets weigh on the
// fastest effects and on the 2-thread runs most). Encoding numbers come from BENCH_ENCODE_RUNS runs (default 1) of a longer clip,
// BENCH_ENCODE_FRAMES (default 60): x264 medium holds 40 frames of lookahead before it encodes
// any, so a shorter clip would not overlap rendering with encoding at all. Beside wall-clock
// frames a second it records CPU milliseconds a frame, which other processes on the machine
// barely move. BENCH_ONLY=name,name limits it to some cases; BENCH_MEMORY=0 skips the memory renders.
// After the table it prints each target of issue 6, met or missed, with the evidence for a miss.
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

let namedCases: [Case] =
  [
    Case(name: "color-orbs", effect: "color-orbs", size: (1080, 1920)),
    Case(name: "aurora-mesh", effect: "aurora-mesh", size: (1080, 1920)),
  ]
  + Weather.Kind.allCases.map { Case(name: "weather \($0.rawValue)", effect: "weather", parameters: ["weather": $0.rawValue], size: (1080, 1920)) }
  + [
    Case(name: "blob-morph-loader", effect: "blob-morph-loader", size: (1080, 1920)),
    Case(name: "blob-morph-loader default", effect: "blob-morph-loader", size: nil),
    Case(name: "blob-morph-loader 1080x1080", effect: "blob-morph-loader", size: (1080, 1080)),
    Case(name: "voice-orb", effect: "voice-orb", size: (1080, 1920)),
  ]

/// Every case above, then each registered effect without one, at 1080x1920.
let allCases = namedCases + EffectRegistry.names.filter { name in !namedCases.contains { $0.effect == name } }
  .map { Case(name: $0, effect: $0, size: (1080, 1920)) }

let env = ProcessInfo.processInfo.environment
let renderRuns = max(1, Int(env["BENCH_RUNS"] ?? "") ?? 3)
let clipFrames = max(4, Int(env["BENCH_FRAMES"] ?? "") ?? 60)
let encodeRuns = max(1, Int(env["BENCH_ENCODE_RUNS"] ?? "") ?? 1)
let encodeFrames = max(4, Int(env["BENCH_ENCODE_FRAMES"] ?? "") ?? 60)
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
func job(_ c: Case, frames: Int, output: String, threads: Int, scale: Double? = nil) throws -> RenderJob {
  var r = RenderRequest()
  r.scale = scale
  r.effect = c.effect
  let type = EffectRegistry.type(named: c.effect)!
  for (k, v) in c.parameters { r.parameters[k] = try type.info.parameter(named: k)!.parse(v) }
  r.size = c.size
  r.threads = threads
  r.encoderThreads = min(cores, 4)  // what the CLI picks for an all-cores render
  r.outputs = [output]
  // The default loop, cut to its first frames: weather's loops are whole multiples of 6 s.
  return try r.job().prefix(frames)
}

/// CPU seconds this process has used, on every thread: unlike wall time, it barely moves when
/// other processes share the cores.
func cpuSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) * 1e-6 }
  return s(usage.ru_utime) + s(usage.ru_stime)
}

/// Frames a second of `body`, which handles `frames` frames, and the CPU milliseconds it spent
/// a frame; the medians of `runs` runs.
func rate(frames: Int, runs: Int, _ body: () throws -> Void) rethrows -> (fps: Double, cpu: Double) {
  var rates: [Double] = [], cpu: [Double] = []
  for _ in 0..<runs {
    let t0 = now(), c0 = cpuSeconds()
    try body()
    rates.append(Double(frames) / (now() - t0))
    cpu.append((cpuSeconds() - c0) * 1000 / Double(frames))
  }
  return (median(rates), median(cpu))
}

/// Peak resident memory in MB of `loopsmith` run as a child with `args`: its VmHWM, read from
/// /proc while it runs. (wait4's ru_maxrss will not do: a spawned child's count starts from this
/// process's own peak, which holds the pre-rendered frames.)
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
  var peakKB = 0
  var status: Int32 = 0
  while true {
    if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
      let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    {
      peakKB = max(peakKB, kb)
    }
    let done = waitpid(pid, &status, WNOHANG)
    if done == pid { break }
    if done < 0 { return nil }
    usleep(20_000)
  }
  guard status == 0, peakKB > 0 else { return nil }
  return Double(peakKB) / 1024
}

struct Row {
  var name = "", fps = 0, width = 0, height = 0
  var size: String { "\(width)x\(height)" }
  var render1 = 0.0, renderAll = 0.0
  /// CPU milliseconds a frame, on all threads.
  var render1CPU = 0.0, renderAllCPU = 0.0
  /// Render only, all cores, at display scale 1 (1 pt = 1 px).
  var renderScale1 = 0.0
  /// Milliseconds a frame on one thread drawing, and converting to H.264's samples: where the
  /// render-only time goes.
  var drawMS = 0.0, convertMS = 0.0
  var mp4 = 0.0, mp4Encode = 0.0, webm = 0.0, webmEncode = 0.0
  var mp4CPU = 0.0, mp4EncodeCPU = 0.0, webmCPU = 0.0, webmEncodeCPU = 0.0
  var memory10: Double?, memory60: Double?, null10: Double?, null60: Double?
  var scaling: Double { renderAll / render1 }
  var mp4Ratio: Double { mp4Encode / mp4 }  // render+encode time / encode-only time
  var webmRatio: Double { webmEncode / webm }
  var mp4CPURatio: Double { mp4CPU / mp4EncodeCPU }  // render+encode CPU / encode-only CPU
  var webmCPURatio: Double { webmCPU / webmEncodeCPU }
}

func uptime() -> String {
  (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}

func log(_ s: String) { FileHandle.standardError.write((s + "\n").data(using: .utf8)!) }

let startLoad = uptime()
let started = now()
log("loopsmith-bench: \(cores) cores; render only: \(renderRuns) runs of \(clipFrames) frames; encoding: \(encodeRuns) runs of \(encodeFrames) frames; load \(startLoad)")
var rows: [Row] = []
for c in allCases where only.map({ $0.contains(c.name) || $0.contains(c.effect) }) ?? true {
  let mp4Path = workDir + "/clip.mp4", webmPath = workDir + "/clip.webm"
  var row = Row()
  row.name = c.name
  let all = try job(c, frames: clipFrames, output: mp4Path, threads: cores)
  (row.width, row.height) = (all.width, all.height)
  row.fps = all.fps
  let frames = all.frameCount
  log("\(c.name) \(row.size)")

  // Render only: drawn and converted to H.264's samples on the render threads, nothing encoded.
  let one = try job(c, frames: clipFrames, output: mp4Path, threads: 1)
  (row.render1, row.render1CPU) = try rate(frames: frames, runs: renderRuns) { _ = try RenderPipeline.run(one, discard: true) }
  (row.renderAll, row.renderAllCPU) = try rate(frames: frames, runs: renderRuns) { _ = try RenderPipeline.run(all, discard: true) }
  let unit = try job(c, frames: clipFrames, output: mp4Path, threads: cores, scale: 1)
  row.renderScale1 = try rate(frames: unit.frameCount, runs: renderRuns) { _ = try RenderPipeline.run(unit, discard: true) }.fps

  // Where one thread's time goes: the same frames drawn, then converted, each timed alone.
  do {
    let effect = one.makeEffect()
    let surface = Surface(image: Image(width: one.width, height: one.height), scale: Float(one.scale))
    let converter = FrameConverter(one.outputs[0])
    let converted = converter.makeFrame()
    var draws: [Double] = [], converts: [Double] = []
    for _ in 0..<renderRuns {
      var draw = 0.0, convert = 0.0
      for i in 0..<one.frameCount {
        let t0 = now()
        RenderPipeline.draw(effect, job: one, frame: i, on: surface)
        let t1 = now()
        converter.convert(surface.image, into: converted, drawn: surface.drawn)
        draw += t1 - t0
        convert += now() - t1
      }
      draws.append(draw * 1000 / Double(one.frameCount))
      converts.append(convert * 1000 / Double(one.frameCount))
    }
    (row.drawMS, row.convertMS) = (median(draws), median(converts))
  }

  for (path, isMP4) in [(mp4Path, true), (webmPath, false)] {
    let j = try job(c, frames: encodeFrames, output: path, threads: cores)
    let together = try rate(frames: j.frameCount, runs: encodeRuns) { _ = try RenderPipeline.run(j) }
    // Encode only: the same frames, rendered and converted beforehand, through the same writer.
    let settings = j.outputs[0]
    let converter = FrameConverter(settings)
    let effect = j.makeEffect()
    let surface = Surface(image: Image(width: j.width, height: j.height), scale: Float(j.scale))
    let converted = (0..<j.frameCount).map { i -> ConvertedFrame in
      RenderPipeline.draw(effect, job: j, frame: i, on: surface)
      return converter.convert(surface.image)
    }
    let alone = try rate(frames: j.frameCount, runs: encodeRuns) {
      let writer = try VideoWriter(settings)
      for f in converted { try writer.append(f) }
      _ = try writer.finish()
    }
    if isMP4 {
      (row.mp4, row.mp4Encode, row.mp4CPU, row.mp4EncodeCPU) = (together.fps, alone.fps, together.cpu, alone.cpu)
    } else {
      (row.webm, row.webmEncode, row.webmCPU, row.webmEncodeCPU) = (together.fps, alone.fps, together.cpu, alone.cpu)
    }
  }
  rows.append(row)
  log(String(format: "  draw %.1f ms + convert %.1f ms a frame (1T); scale 1: %.1f f/s", row.drawMS, row.convertMS, row.renderScale1))
  log(String(format: "  render 1T %.1f (%.0f ms cpu)  all %.1f (%.0f)  mp4 %.1f / %.1f (cpu %.0f / %.0f)  webm %.1f / %.1f (cpu %.0f / %.0f)  load %@",
    row.render1, row.render1CPU, row.renderAll, row.renderAllCPU, row.mp4, row.mp4Encode, row.mp4CPU, row.mp4EncodeCPU,
    row.webm, row.webmEncode, row.webmCPU, row.webmEncodeCPU, uptime()))
}

// Peak memory of whole CLI renders, 10 s against 60 s, all cores: with `--null` (the renderer
// alone: surfaces, layers, blur buffers, the converted-frame ring) and to MP4 (H.264 medium, so
// x264's own frames too). The frame rate is lowered to 5 so a 60 s render takes about half a
// minute; the ring and layers do not depend on it, and x264 fills its 40-frame lookahead either
// way (50 frames, weather 60, against 300).
var memory: [[String: Any]] = []
if measureMemory {
  for c in allCases where ["color-orbs", "weather thunderstorm"].contains(c.name) && (only.map { $0.contains(c.name) || $0.contains(c.effect) } ?? true) {
    var entry: [String: Any] = ["name": c.name]
    for seconds in [10, 60] {
      for null in [true, false] {
        // Weather loops are whole multiples of 6 s: its short render is 12 s.
        let length = c.effect == "weather" && seconds == 10 ? 12 : seconds
        var args = ["render", c.effect, "--duration", "\(length)", "--fps", "5", "--quiet", "--max-speed-change", "1"]
        args += null ? ["--null"] : ["-o", workDir + "/memory.mp4"]
        if let (w, h) = c.size { args += ["--size", "\(w)x\(h)"] }
        for (k, v) in c.parameters { args += ["--set", "\(k)=\(v)"] }
        log("memory: loopsmith \(args.joined(separator: " "))")
        let mb = childPeakMB(args)
        entry["peakMB\(seconds)s" + (null ? "Null" : "MP4")] = mb ?? NSNull()
        if let i = rows.firstIndex(where: { $0.name == c.name }) {
          switch (seconds, null) {
          case (10, true): rows[i].null10 = mb
          case (10, false): rows[i].memory10 = mb
          case (_, true): rows[i].null60 = mb
          default: rows[i].memory60 = mb
          }
        }
      }
    }
    memory.append(entry)
  }
}
let endLoad = uptime()
let elapsed = now() - started

// MARK: - Table and JSON

func f0(_ x: Double) -> String { String(format: "%.0f", x) }
func f1(_ x: Double) -> String { String(format: "%.1f", x) }
func f2(_ x: Double) -> String { String(format: "%.2f", x) }
func mb(_ x: Double?) -> String { x.map { String(Int($0.rounded())) } ?? "-" }
func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
let header = [
  "case", "size", "fps", "1T f/s", "\(cores)T f/s", "scale", "@1x", "draw", "conv", "1T ms", "\(cores)T ms",
  "mp4 r+e", "mp4 enc", "ratio", "cpu x", "webm r+e", "webm enc", "ratio", "cpu x", "MB null", "MB mp4",
]
let widths = [28, 9, 3, 6, 6, 5, 6, 5, 5, 6, 6, 7, 7, 5, 5, 8, 8, 5, 5, 9, 9]
func line(_ cells: [String]) -> String {
  zip(cells, widths).enumerated().map { i, p in i == 0 ? p.0.padding(toLength: p.1, withPad: " ", startingAt: 0) : pad(p.0, p.1) }
    .joined(separator: " ")
}
var table = line(header)
for r in rows {
  table += "\n" + line([
    r.name, r.size, "\(r.fps)", f1(r.render1), f1(r.renderAll), f2(r.scaling), f1(r.renderScale1), f1(r.drawMS), f1(r.convertMS),
    f0(r.render1CPU), f0(r.renderAllCPU),
    f1(r.mp4), f1(r.mp4Encode), f2(r.mp4Ratio), f2(r.mp4CPURatio),
    f1(r.webm), f1(r.webmEncode), f2(r.webmRatio), f2(r.webmCPURatio),
    r.null10 == nil ? "-" : "\(mb(r.null10))/\(mb(r.null60))", r.memory10 == nil ? "-" : "\(mb(r.memory10))/\(mb(r.memory60))",
  ])
}
let notes = """
  f/s: frames a second (wall clock). 1T, \(cores)T: render only (drawn and converted to YUV on the render threads,
  nothing encoded; `loopsmith render --null`), 1 and \(cores) render threads, median of \(renderRuns) runs of \(clipFrames) frames;
  scale = \(cores)T / 1T f/s; @1x: \(cores)T f/s at display scale 1 (1 pt = 1 px) instead of the default 3.
  draw, conv: wall milliseconds a frame on one thread drawing the effect, and converting the float
  frame to dithered BT.709 YUV (the same 1T clip, each step timed alone): where render-only time goes.
  ms: CPU milliseconds a frame, all threads (load-independent).
  r+e: render and encode together (H.264 medium crf 18 / VP9 crf 30, \(min(cores, 4)) encoder threads); enc: the same
  frames, rendered beforehand, through the same writer alone; median of \(encodeRuns) run(s) of \(encodeFrames) frames.
  ratio = r+e time / enc time (target <= 1.15 for MP4); cpu x = r+e CPU / enc CPU, the work rendering adds.
  MB: peak resident memory (MB) of a CLI render of 10 s (weather 12 s) / 60 s at 5 frames/s, --null and to MP4.
  load average (1, 5, 15 min) \(startLoad) at the start, \(endLoad) at the end; \(Int(elapsed)) s in all.

  """
// MARK: - Targets (issue 6): each met, or missed with where the time or memory goes

struct Verdict {
  var target: String, name: String, value: Double, limit: Double, atMost: Bool, evidence: String
  var met: Bool { atMost ? value <= limit : value >= limit }
}
var verdicts: [Verdict] = []
/// Render-only frames a second each effect must reach on all cores at 1080x1920: three times
/// what Skia's CPU rasterizer draws per core, for two cores.
let renderTargets: [String: Double] = [
  "color-orbs": 40, "aurora-mesh": 150, "weather cloudy": 20, "weather rain": 20, "weather fog": 20,
  "weather clearDay": 20, "weather thunderstorm": 15,
]
for r in rows {
  let perFrame = String(format: "1T draw %.1f + convert %.1f ms a frame", r.drawMS, r.convertMS)
  if let goal = renderTargets[r.name] {
    let budget = 1000 * Double(cores) / goal
    let evidence = "\(perFrame); the target leaves \(f1(budget)) ms of one core a frame"
    verdicts.append(Verdict(target: "render-only f/s, \(cores)T", name: r.name, value: r.renderAll, limit: goal, atMost: false, evidence: evidence))
    verdicts.append(Verdict(target: "render-only f/s, \(cores)T, scale 1", name: r.name, value: r.renderScale1, limit: goal, atMost: false, evidence: evidence))
  }
  if cores >= 2 {
    verdicts.append(Verdict(
      target: "thread scaling 1T to \(cores)T", name: r.name, value: r.scaling, limit: 1.8, atMost: false,
      evidence: String(
        format: "CPU a frame rises from %.1f ms on one thread to %.1f on %d: the threads share memory bandwidth (each frame writes, blends and converts %.0f MB of float pixels)",
        r.render1CPU, r.renderAllCPU, cores, Double(r.width * r.height * 16) / 1_048_576)))
  }
  if r.size == "1080x1920" {
    verdicts.append(Verdict(
      target: "MP4 render+encode / encode-only", name: r.name, value: r.mp4Ratio, limit: 1.15, atMost: true,
      evidence: String(
        format: "rendering adds %.0f%% to x264's CPU (%.0f of %.0f ms a frame); on %d cores both compete for them",
        (r.mp4CPURatio - 1) * 100, r.mp4CPU - r.mp4EncodeCPU, r.mp4EncodeCPU, cores)))
  }
  for (seconds, total, null) in [(10, r.memory10, r.null10), (60, r.memory60, r.null60)] {
    guard let total, let null else { continue }
    verdicts.append(Verdict(
      target: "peak MB, \(seconds) s to MP4", name: r.name, value: total, limit: 300, atMost: true,
      evidence: "the renderer alone (--null) peaks at \(mb(null)) MB; x264 medium adds \(mb(total - null))"))
  }
}
var verdictText = "targets (issue 6):"
for v in verdicts {
  let comparison = v.atMost ? "<=" : ">="
  let value = v.limit >= 100 || v.value >= 100 ? f0(v.value) : f2(v.value)
  verdictText += "\n  \(v.met ? "met   " : "MISSED") \(v.target) \(v.name): \(value) \(comparison) \(v.limit)"
  if !v.met { verdictText += " -- \(v.evidence)" }
}
let missed = verdicts.filter { !$0.met }.count
verdictText += "\n  \(verdicts.count - missed) of \(verdicts.count) met\n"

print(table)
print(notes)
print(verdictText)
fflush(stdout)  // before the log line below, which goes to unbuffered stderr

let json: [String: Any] = [
  "cores": cores, "renderRuns": renderRuns, "renderFrames": clipFrames, "encodeRuns": encodeRuns, "encodeFrames": encodeFrames,
  "loadStart": startLoad, "loadEnd": endLoad, "seconds": Int(elapsed),
  "date": ISO8601DateFormatter().string(from: Date()),
  "cases": rows.map { r -> [String: Any] in
    [
      "name": r.name, "size": r.size, "fps": r.fps,
      "renderOnly1Thread": r.render1, "renderOnlyAllCores": r.renderAll, "threadScaling": r.scaling,
      "renderOnly1ThreadCPUms": r.render1CPU, "renderOnlyAllCoresCPUms": r.renderAllCPU,
      "renderOnlyAllCoresScale1": r.renderScale1, "drawMS1Thread": r.drawMS, "convertMS1Thread": r.convertMS,
      "mp4RenderEncode": r.mp4, "mp4EncodeOnly": r.mp4Encode, "mp4Ratio": r.mp4Ratio, "mp4CPURatio": r.mp4CPURatio,
      "webmRenderEncode": r.webm, "webmEncodeOnly": r.webmEncode, "webmRatio": r.webmRatio, "webmCPURatio": r.webmCPURatio,
      "peakMB10sNull": r.null10 ?? NSNull(), "peakMB60sNull": r.null60 ?? NSNull(),
      "peakMB10sMP4": r.memory10 ?? NSNull(), "peakMB60sMP4": r.memory60 ?? NSNull(),
    ]
  },
  "memory": memory,
  "targets": verdicts.map { v -> [String: Any] in
    ["target": v.target, "name": v.name, "value": v.value, "limit": v.limit, "atMost": v.atMost, "met": v.met, "evidence": v.evidence]
  },
]
try FileManager.default.createDirectory(atPath: "bench", withIntermediateDirectories: true)
let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
try data.write(to: URL(fileURLWithPath: "bench/results.json"))
log("wrote bench/results.json")
