// loopsmith-bench: how fast Loopsmith renders and encodes, per effect (`make bench`; README, Performance).
//
// A benchmark, not a test: it prints a table and writes bench/results.json. Render-only numbers
// are the median of BENCH_RUNS runs (default 3) of a BENCH_FRAMES-frame clip (default 60, 2 s at
// 30 fps; each run allocates its surfaces and ring afresh: 0.1-0.2 ms of CPU a frame outside the
// frames' drawing, measured, and the first touch of each thread's layers). Encoding numbers come
// from BENCH_ENCODE_RUNS pairs of runs (default 3) of a clip of BENCH_ENCODE_FRAMES (default 60),
// after an untimed encode that warms the encoder up (the first of a process is slower), each
// ratio the median of the pairs' own ratios (a pair's two runs are side by side in time):
// x264 medium holds 40 frames of lookahead before it encodes any, so a shorter clip would not
// overlap rendering with encoding at all. Beside wall-clock
// frames a second it records CPU milliseconds a frame, which other processes on the machine
// barely move. BENCH_ONLY=name,name limits it to some cases; BENCH_MEMORY=0 skips the memory renders,
// BENCH_MEMORY=name,name measures those cases' memory (default color-orbs and weather thunderstorm);
// BENCH_ENCODE=0 skips the encoding figures.
// Beside each scene it runs Skia's CPU rasterizer on the same scene, size and core count (bench/skia_bench.py,
// with the Python that BENCH_SKIA_PYTHON names; `make bench` sets one up), and it measures the
// machine's memory bandwidth with a copy loop, so each scene shows how far it is from the memory
// roofline. For thread scaling it measures the machine's own ceiling beside each scene (the 1 to
// all-cores speed-up of one of our shading loops on L1-sized tiles of each thread's own, sharing
// nothing: `kernelCeiling`), alternates the 1-thread and all-core runs, and profiles where the
// render threads' time goes (`RenderThreadProfile`: CPU a frame, faults, idle, waiting for a ring
// slot, preempted by other processes); docs/PERFORMANCE.md, Thread scaling. It profiles one
// thread's frame by kind of work too (`DrawProfile`: fills, blurred fills, layers, the conversion
// and the rest) and prints that table after the main one. Then it prints each target
// (docs/PERFORMANCE.md), met or MISSED, with the evidence for a miss: a scaling miss names the
// ceiling, and says so when the machine's own ceiling is below the target; a render+encode miss
// names the render CPU a frame that 1.05 leaves beside the least time the frame's bytes take
// through memory on one thread, so it says whether memory or computing bounds it; both name the
// frame's four costliest kinds of work.
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
  + Weather.Kind.allCases.map {
    Case(name: "weather \($0.rawValue)", effect: "weather", parameters: ["weather": $0.rawValue], size: (1080, 1920))
  }
  + [
    Case(name: "blob-morph-loader", effect: "blob-morph-loader", size: (1080, 1920)),
    Case(name: "blob-morph-loader default", effect: "blob-morph-loader", size: nil),
    Case(name: "blob-morph-loader 1080x1080", effect: "blob-morph-loader", size: (1080, 1080)),
    Case(name: "voice-orb", effect: "voice-orb", size: (1080, 1920)),
  ]

/// Every case above, then each registered effect without one, at 1080x1920.
let allCases =
  namedCases
  + EffectRegistry.names.filter { name in !namedCases.contains { $0.effect == name } }
  .map { Case(name: $0, effect: $0, size: (1080, 1920)) }

/// The job of a whole CLI-like render of `seconds` at 5 frames a second for the memory figures
/// (`loopsmith render EFFECT --duration S --fps 5 --max-speed-change 1`), written to `output`.
func memoryJob(_ c: Case, seconds: Int, output: String) throws -> RenderJob {
  var r = RenderRequest()
  r.effect = c.effect
  let type = EffectRegistry.type(named: c.effect)!
  for (k, v) in c.parameters { r.parameters[k] = try type.info.parameter(named: k)!.parse(v) }
  r.size = c.size
  r.duration = Double(seconds)
  r.fps = 5
  r.maxSpeedChange = 1
  r.outputs = [output]
  return try r.job()
}

// `loopsmith-bench --loop-report` (`make loop-report`): the codecs against every default loop (LoopReport.swift).
if CommandLine.arguments.count == 2, CommandLine.arguments[1] == "--loop-report" {
  do {
    try runLoopReport()
  } catch {
    log("loop-report: \(error)")
    exit(1)
  }
  exit(0)
}

// Encoder alone, as a child process for its peak memory: `loopsmith-bench --encode-raw CASE SECONDS
// RAW OUT` appends the frames in RAW (written by `ConvertedFrame.write`) to OUT through the writer
// the CLI would use; nothing is rendered in this process.
if CommandLine.arguments.count == 6, CommandLine.arguments[1] == "--encode-raw" {
  let a = CommandLine.arguments
  guard let c = allCases.first(where: { $0.name == a[2] }), let seconds = Int(a[3]) else { exit(2) }
  let j = try memoryJob(c, seconds: seconds, output: a[5])
  let writer = try VideoWriter(j.outputs[0])
  let frame = writer.converter.makeFrame()
  let fd = open(a[4], O_RDONLY)
  guard fd >= 0 else { exit(1) }
  var frames = 0
  while frame.read(from: fd) {
    try writer.append(frame)
    frames += 1
  }
  close(fd)
  _ = try writer.finish()
  exit(frames == j.frameCount ? 0 : 1)
}

let env = ProcessInfo.processInfo.environment
let renderRuns = max(1, Int(env["BENCH_RUNS"] ?? "") ?? 3)
let clipFrames = max(4, Int(env["BENCH_FRAMES"] ?? "") ?? 60)
let encodeRuns = max(1, Int(env["BENCH_ENCODE_RUNS"] ?? "") ?? 3)
let encodeFrames = max(4, Int(env["BENCH_ENCODE_FRAMES"] ?? "") ?? 60)
let only = env["BENCH_ONLY"].map { $0.split(separator: ",").map(String.init) }
let measureMemory = env["BENCH_MEMORY"] != "0"
/// BENCH_ENCODE=0 skips render+encode and encode-only: the render-only and Skia figures alone.
let measureEncoding = env["BENCH_ENCODE"] != "0"
/// The cases whose peak memory is measured: BENCH_MEMORY=name,name, or these two.
let memoryCases =
  env["BENCH_MEMORY"].flatMap { $0.isEmpty || $0 == "1" ? nil : $0.split(separator: ",").map(String.init) }
  ?? ["color-orbs", "weather thunderstorm"]
let skiaPython = env["BENCH_SKIA_PYTHON"].flatMap { $0.isEmpty ? nil : $0 }
let skiaSeconds = max(1, Double(env["BENCH_SKIA_SECONDS"] ?? "") ?? 4)
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
  r.encoderThreads = RenderSetting.defaultEncoderThreads  // what the CLI picks on any machine
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

/// One render-only run: frames a second, CPU milliseconds a frame (the whole process), and where
/// the render threads' time went.
struct ProfiledRun {
  var fps: Double, cpu: Double
  var profile: RenderThreadProfile
}

func profiledRun(_ j: RenderJob) throws -> ProfiledRun {
  let profile = RenderThreadProfile()
  let t0 = now(), c0 = cpuSeconds()
  _ = try RenderPipeline.run(j, discard: true, profile: profile)
  let (wall, cpu) = (now() - t0, cpuSeconds() - c0)
  return ProfiledRun(fps: Double(j.frameCount) / wall, cpu: cpu * 1000 / Double(j.frameCount), profile: profile)
}

/// `repeats` render-only runs of `j` back to back, taken as one: frames a second and CPU a frame
/// over them all, and each run's profile. A cheap scene's 60 frames take 13-40 ms on two threads,
/// where one stretch of the host's other work moves a single run by a tenth; repeated to half a
/// second, the 1-thread and all-core runs of a pair each see several.
func profiledRuns(_ j: RenderJob, repeats: Int) throws -> (fps: Double, cpu: Double, runs: [ProfiledRun]) {
  var runs: [ProfiledRun] = []
  let t0 = now(), c0 = cpuSeconds()
  for _ in 0..<repeats { runs.append(try profiledRun(j)) }
  let (wall, cpu) = (now() - t0, cpuSeconds() - c0)
  let frames = Double(j.frameCount * repeats)
  return (frames / wall, cpu * 1000 / frames, runs)
}

/// How many times to repeat a clip whose one-thread run took `seconds` so that it takes about
/// `target` seconds: at least 1, at most 50.
func repeatsFor(seconds: Double, target: Double = 0.5) -> Int {
  max(1, min(50, Int((target / max(seconds, 1e-4)).rounded(.up))))
}

/// The render threads' time over runs, medians of the runs' figures: a frame's CPU milliseconds
/// while drawing and converting (user + system; system alone), page faults a frame, and shares of
/// the threads' wall time: idle (no frame to draw: waiting on another thread or the encoder) and
/// preempted (drawing, but off the CPU: other processes had it).
struct ProfileSummary {
  var renderCPU = 0.0, systemCPU = 0.0, faults = 0.0, idle = 0.0, preempted = 0.0
  /// The share of the threads' wall time spent waiting for a ring slot (part of `idle`).
  var waiting = 0.0
  /// CPU milliseconds a frame of the whole run outside the frames' drawing: setting up (surfaces,
  /// the ring), handing frames over, tearing down.
  var outsideCPU = 0.0

  init() {}

  init(_ runs: [ProfiledRun]) {
    func each(_ f: (RenderThreadProfile, Double) -> Double) -> Double {
      median(
        runs.map { run in
          let frames = Double(run.profile.threads.reduce(0) { $0 + $1.frames })
          return f(run.profile, max(frames, 1))
        })
    }
    renderCPU = each { p, n in p.threads.reduce(0) { $0 + $1.user + $1.system } * 1000 / n }
    systemCPU = each { p, n in p.threads.reduce(0) { $0 + $1.system } * 1000 / n }
    faults = each { p, n in Double(p.threads.reduce(0) { $0 + $1.faults }) / n }
    idle = each { p, _ in 1 - p.threads.reduce(0) { $0 + $1.busy } / (Double(p.threads.count) * p.wall) }
    waiting = each { p, _ in p.threads.reduce(0) { $0 + $1.waiting } / (Double(p.threads.count) * p.wall) }
    preempted = each { p, _ in
      let busy = p.threads.reduce(0) { $0 + $1.busy }
      return busy > 0 ? max(0, busy - p.threads.reduce(0) { $0 + $1.user + $1.system }) / busy : 0
    }
    outsideCPU = median(runs.map { $0.cpu }) - renderCPU
  }
}

/// The machine's own thread-scaling ceiling, measured now, beside the scenes: the speed-up from 1
/// thread to `threads` of one of our shading loops (five soft gradient discs screened over a
/// 32x32 float tile, 16 KB: L1-sized, as `fill(discs:)` draws Color Orbs) on a tile and discs of
/// each thread's own, so the threads share no memory and wait on nothing. Whatever keeps it
/// below `threads` is the machine's: other processes on the cores, the hypervisor, shared
/// execution units or clocks. Rounds of one and of all threads alternate; the median of the
/// rounds' ratios, their lowest and highest, and how much CPU a tile costs more on all threads
/// than on one (1 = none: what is lost is then time the threads were off the CPU).
func kernelCeiling(
  threads: Int, rounds: Int = 5, seconds: Double = 0.12
) -> (
  ratio: Double, low: Double, high: Double, cpuRise: Double
) {
  final class Tile: @unchecked Sendable {
    let surface = Surface(image: Image(width: 32, height: 32), scale: 1)
    let discs = (0..<5).map { i in
      let color = Color(red: 0.2 * Float(i), green: 0.9 - 0.15 * Float(i), blue: 0.6, alpha: 1)
      let falloff = Gradient(stops: [
        .init(color: color.opacity(0.9), location: 0), .init(color: color.opacity(0.45), location: 0.5),
        .init(color: color.opacity(0), location: 1),
      ])
      return GradientDisc(falloff, center: Point(Float(7 * i), Float(30 - 6 * i)), endRadius: Float(200 + 20 * i))
    }
    /// Draws the tile `count` times; returns this thread's CPU seconds meanwhile.
    func draw(_ count: Int) -> Double {
      let c0 = RenderThreadProfile.threadCPUSeconds()
      for _ in 0..<count {
        surface.clear()
        var context = surface.context()
        context.fill(
          Path(rect: Rect(x: 0, y: 0, width: 32, height: 32)), with: .color(Color(red: 0, green: 0, blue: 0.1)))
        context.blendMode = .screen
        context.fill(discs: discs)
        surface.finish()
      }
      return RenderThreadProfile.threadCPUSeconds() - c0
    }
  }
  let tiles = (0..<threads).map { _ in Tile() }
  // Calibrate: tiles a round, so one thread takes about `seconds`.
  var count = 64
  while true {
    let t0 = now()
    _ = tiles[0].draw(count)
    let t = now() - t0
    if t > seconds / 4 { count = max(1, Int(Double(count) * seconds / t)); break }
    count *= 4
  }
  // Each thread's CPU seconds, a cache line apart.
  let cpus = UnsafeMutablePointer<Double>.allocate(capacity: 8 * threads)
  defer { cpus.deallocate() }
  var ratios: [Double] = [], rises: [Double] = []
  for _ in 0..<rounds {
    let t0 = now()
    let cpu1 = tiles[0].draw(count)
    let wall1 = now() - t0
    let t1 = now()
    DispatchQueue.concurrentPerform(iterations: threads) { i in cpus[8 * i] = tiles[i].draw(count) }
    let wallAll = now() - t1
    ratios.append(Double(threads) * wall1 / wallAll)
    rises.append((0..<threads).reduce(0) { $0 + cpus[8 * $1] } / Double(threads) / cpu1)
  }
  return (median(ratios), ratios.min()!, ratios.max()!, median(rises))
}

/// Peak resident memory in MB of `loopsmith` run as a child with `args`: its VmHWM, read from
/// /proc while it runs. (wait4's ru_maxrss will not do: a spawned child's count starts from this
/// process's own peak, which holds the pre-rendered frames.)
func childPeakMB(_ args: [String], program: String = "loopsmith") -> Double? {
  let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
    program
  ).path
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

/// Runs `argv` with its standard output into a pipe and returns that output, or nil when it fails.
func output(of argv: [String]) -> String? {
  let argv = argv.map { strdup($0) } + [nil]
  defer { argv.forEach { free($0) } }
  var fds: [Int32] = [0, 0]
  guard pipe(&fds) == 0 else { return nil }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
  posix_spawn_file_actions_addclose(&actions, fds[0])
  var pid: pid_t = 0
  let spawned = posix_spawnp(&pid, argv[0]!, &actions, nil, argv, environ)
  close(fds[1])
  defer { close(fds[0]) }
  guard spawned == 0 else { return nil }
  var data = Data()
  var buffer = [UInt8](repeating: 0, count: 4096)
  while true {
    let n = read(fds[0], &buffer, buffer.count)
    if n <= 0 { break }
    data.append(contentsOf: buffer[0..<n])
  }
  var status: Int32 = 0
  waitpid(pid, &status, 0)
  return status == 0 ? String(data: data, encoding: .utf8) : nil
}

/// Skia's frames a second on the scene mirroring `c` at `width` x `height`, one process a core
/// (bench/skia_bench.py); nil when no Python with skia-python was given or the scene has no mirror.
func skiaRate(_ c: Case, width: Int, height: Int) -> Double? {
  guard let python = skiaPython else { return nil }
  let scene = c.effect == "weather" ? "weather " + (c.parameters["weather"] ?? "") : c.effect
  let args = [
    python, "bench/skia_bench.py", scene, "--size", "\(width)x\(height)", "--processes", "\(cores)", "--seconds",
    "\(skiaSeconds)",
  ]
  guard let text = output(of: args), let data = text.data(using: .utf8),
    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let fps = object["fps"] as? Double
  else {
    log("skia: \(args.joined(separator: " ")) failed")
    return nil
  }
  return fps
}

/// The machine's memory bandwidth in GB/s (10^9 bytes, read plus written) for `threads` threads
/// copying their own 64 MB buffers with memcpy, far beyond any cache: the best of 5 rounds.
func copyBandwidth(threads: Int) -> Double {
  let bytes = 64 << 20
  let buffers = (0..<threads).map { _ in
    (
      UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64),
      UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
    )
  }
  defer {
    buffers.forEach {
      $0.0.deallocate(); $0.1.deallocate()
    }
  }
  for (a, b) in buffers {
    memset(a, 1, bytes)
    memset(b, 2, bytes)
  }
  var best = 0.0
  for _ in 0..<5 {
    let t0 = now()
    DispatchQueue.concurrentPerform(iterations: threads) { i in
      for _ in 0..<4 { memcpy(buffers[i].1, buffers[i].0, bytes) }
    }
    best = max(best, Double(2 * 4 * bytes * threads) / (now() - t0) / 1e9)
  }
  return best
}

/// Where a scene's thread scaling goes (`ProfileSummary`), one line.
func scalingProfile(_ r: Row) -> String {
  let (a, b) = (r.profile1, r.profileAll)
  return String(
    format:
      "scaling %.2f (pairs %.2f-%.2f); render threads' CPU a frame %.2f ms on 1T, %.2f on %dT (system %.2f, %.2f; faults %.0f, %.0f), outside the frames %.2f, %.2f; %dT threads idle %.1f%% (%.1f%% waiting for a ring slot), preempted %.1f%% (1T %.1f%%)",
    r.scaling, r.pairScalings.min() ?? 0, r.pairScalings.max() ?? 0, a.renderCPU, b.renderCPU, cores, a.systemCPU,
    b.systemCPU, a.faults, b.faults, a.outsideCPU, b.outsideCPU, cores, 100 * b.idle, 100 * b.waiting,
    100 * b.preempted, 100 * a.preempted)
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
  /// Milliseconds a frame on one thread by kind of work (`DrawProfile`), conversion included.
  var work: [(name: String, ms: Double)] = []
  /// The costliest kinds of work, one thread's milliseconds a frame and share: where a miss's
  /// time goes.
  var workProfile: String {
    let total = work.reduce(0) { $0 + $1.ms }
    guard total > 0 else { return "not profiled" }
    let top = work.sorted { $0.ms > $1.ms }.prefix(4).filter { $0.ms > 0 }
    return "one thread's frame (\(String(format: "%.1f", total)) ms) by kind of work: "
      + top.map { String(format: "%@ %.1f ms (%.0f%%)", $0.name, $0.ms, 100 * $0.ms / total) }.joined(separator: ", ")
  }
  var mp4 = 0.0, mp4Encode = 0.0, webm = 0.0, webmEncode = 0.0
  var mp4CPU = 0.0, mp4EncodeCPU = 0.0, webmCPU = 0.0, webmEncodeCPU = 0.0
  /// CPU milliseconds a frame of the render threads (drawing and converting) while rendering and
  /// encoding together: what of `mp4CPU - mp4EncodeCPU` is the rendering's own work, beside the
  /// render-only figure (`profileAll.renderCPU`).
  var mp4RenderThreadsCPU = 0.0, webmRenderThreadsCPU = 0.0
  var memory10: Double?, memory60: Double?, null10: Double?, null60: Double?
  /// Peak MB of the encoder alone: the same frames, from a file, through the same writer.
  var encoder10: Double?, encoder60: Double?
  /// Skia's render-only frames a second on the same scene, size and core count.
  var skia: Double?
  /// The share of the clip's frames drawn a band at a time (the rest draw whole).
  var bandedShare = 0.0
  /// Bytes a frame moves through main memory at least: a banded frame's float rows stay in cache
  /// and only its YUV samples are written (1.5 bytes a pixel); a whole frame's float pixels are
  /// written once and read once by the conversion too (16 + 16 + 1.5).
  var frameBytes: Double { Double(width * height) * (bandedShare * 1.5 + (1 - bandedShare) * 33.5) }
  /// Thread scaling: the median of the pairs' own (`pairScalings`).
  var scaling: Double { median(pairScalings) }
  /// Each alternating pair of runs' scaling (all cores / one thread), its spread how noisy
  /// `scaling` is.
  var pairScalings: [Double] = []
  /// How many times each render-only run of the pairs repeats the clip (`repeatsFor`).
  var repeats = 1
  /// The machine's ceiling measured just before this scene's runs (`kernelCeiling`).
  var ceiling = 0.0, ceilingLow = 0.0, ceilingHigh = 0.0, ceilingCPURise = 0.0
  /// Where the render threads' time went, on one thread and on all cores.
  var profile1 = ProfileSummary(), profileAll = ProfileSummary()
  var ofCeiling: Double { scaling / ceiling }
  /// Render+encode time / encode-only time, and CPU / CPU: the median of each pair's ratio.
  var mp4Ratio = Double.nan, webmRatio = Double.nan, mp4CPURatio = Double.nan, webmCPURatio = Double.nan
}

func uptime() -> String {
  (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(
    separator: " ") ?? "?"
}

func log(_ s: String) { FileHandle.standardError.write((s + "\n").data(using: .utf8)!) }

let startLoad = uptime()
let started = now()
log(
  "loopsmith-bench: \(cores) cores; render only: \(renderRuns) runs of \(clipFrames) frames; encoding: \(encodeRuns) pairs of runs of \(encodeFrames) frames; load \(startLoad)"
)
let bandwidth1 = copyBandwidth(threads: 1), bandwidthAll = copyBandwidth(threads: cores)
log(String(format: "memory bandwidth (copy): %.1f GB/s on 1 thread, %.1f on %d", bandwidth1, bandwidthAll, cores))
let machineCeiling = cores >= 2 ? kernelCeiling(threads: cores) : (ratio: 1, low: 1, high: 1, cpuRise: 1)
log(
  String(
    format:
      "thread-scaling ceiling (a shading loop on L1 tiles of each thread's own): %.2fx from 1 to %d threads (%.2f-%.2f), CPU a tile x%.2f",
    machineCeiling.ratio, cores, machineCeiling.low, machineCeiling.high, machineCeiling.cpuRise))
if skiaPython == nil { log("skia: BENCH_SKIA_PYTHON is not set; no Skia figures (make bench sets it)") }
/// The cases Skia draws too: every scene at 1080x1920, the loader at 1080x1080.
let skiaScenes = Set(allCases.filter { $0.size.map { $0 == (1080, 1920) } ?? false }.map(\.name))
  .subtracting(["blob-morph-loader"]).union(["blob-morph-loader 1080x1080"])
var rows: [Row] = []
for c in allCases where only.map({ $0.contains(c.name) || $0.contains(c.effect) }) ?? true {
  let mp4Path = workDir + "/clip.mp4", webmPath = workDir + "/clip.webm"
  var row = Row()
  row.name = c.name
  let all = try job(c, frames: clipFrames, output: mp4Path, threads: cores)
  (row.width, row.height) = (all.width, all.height)
  row.fps = all.fps
  log("\(c.name) \(row.size)")
  if cores >= 2 {
    (row.ceiling, row.ceilingLow, row.ceilingHigh, row.ceilingCPURise) = kernelCeiling(threads: cores, rounds: 3)
  }

  // Render only: drawn and converted to H.264's samples on the render threads, nothing encoded.
  // One thread and all cores alternate, run by run, so both see the same load; each run records
  // where its threads' time went (RenderThreadProfile).
  // A pair's two runs are side by side in time, so a slow stretch of a shared host moves both:
  // the scaling is the median of the pairs' own ratios, as for render+encode below. Each run
  // repeats the clip to about half a second on one thread (`repeatsFor`), timed by a first run.
  let one = try job(c, frames: clipFrames, output: mp4Path, threads: 1)
  let first = try profiledRun(one)
  row.repeats = repeatsFor(seconds: Double(one.frameCount) / first.fps)
  var ones: [(fps: Double, cpu: Double, runs: [ProfiledRun])] = [], alls = ones
  for _ in 0..<renderRuns {
    ones.append(try profiledRuns(one, repeats: row.repeats))
    alls.append(try profiledRuns(all, repeats: row.repeats))
  }
  (row.render1, row.render1CPU) = (median(ones.map(\.fps)), median(ones.map(\.cpu)))
  (row.renderAll, row.renderAllCPU) = (median(alls.map(\.fps)), median(alls.map(\.cpu)))
  (row.profile1, row.profileAll) = (ProfileSummary(ones.flatMap(\.runs)), ProfileSummary(alls.flatMap(\.runs)))
  row.pairScalings = zip(alls, ones).map { $0.fps / $1.fps }
  let unit = try job(c, frames: clipFrames, output: mp4Path, threads: cores, scale: 1)
  row.renderScale1 = try rate(frames: unit.frameCount, runs: renderRuns) {
    _ = try RenderPipeline.run(unit, discard: true)
  }.fps
  // Skia on the same scene, size and cores, right after ours: the same load, as near as can be.
  if skiaScenes.contains(c.name) { row.skia = skiaRate(c, width: row.width, height: row.height) }

  // Where one thread's time goes: the same frames drawn and converted as the pipeline does, a
  // band at a time with each band converted while in cache (whole frames where a frame cannot
  // band), the conversion timed apart from the drawing.
  do {
    let effect = one.makeEffect()
    let converter = FrameConverter(one.outputs[0])
    let canBand = RenderPipeline.bandRows < one.height && converter.convertsBands
    let band = Surface(width: one.width, height: one.height, bandRows: RenderPipeline.bandRows, scale: Float(one.scale))
    let whole = Surface(image: Image(width: one.width, height: one.height), scale: Float(one.scale))
    let converted = converter.makeFrame()
    /// Draws and converts frame `i` as the pipeline does, each conversion run by `converting`;
    /// whether the frame was drawn in bands.
    func drawAndConvert(_ i: Int, converting: (() -> Void) -> Void) -> Bool {
      let banded =
        canBand
        && RenderPipeline.drawBands(
          effect, job: one, frame: i, on: band, keepsSamples: RenderPipeline.keepsSamples(for: [converter])
        ) { rows in
          // As the pipeline converts: a band drawn as one mesh from samples from its samples
          // (docs/PERFORMANCE.md, Mesh samples), rows of the sky nothing drew on from their
          // colors, any other from its pixels, written first.
          let source = RenderPipeline.bandSource(band, converters: [converter])
          converting { RenderPipeline.convert(source, of: band, rows: rows, with: converter, into: converted) }
        }
      if !banded {
        RenderPipeline.draw(effect, job: one, frame: i, on: whole)
        converting { converter.convert(whole.image, into: converted, drawn: whole.drawn) }
      }
      return banded
    }
    var draws: [Double] = [], converts: [Double] = []
    var bandedFrames = 0
    for run in 0..<renderRuns {
      var total = 0.0, convert = 0.0
      for i in 0..<one.frameCount {
        let t0 = now()
        let banded = drawAndConvert(i) { conversion in
          let c0 = now()
          conversion()
          convert += now() - c0
        }
        total += now() - t0
        if run == 0 && banded { bandedFrames += 1 }
      }
      draws.append((total - convert) * 1000 / Double(one.frameCount))
      converts.append(convert * 1000 / Double(one.frameCount))
    }
    row.bandedShare = Double(bandedFrames) / Double(one.frameCount)
    (row.drawMS, row.convertMS) = (median(draws), median(converts))
    // By kind of work (`DrawProfile`): the clip once more a run with a profile on both surfaces,
    // the whole frame charged to the effect's code but for the drawing calls and the conversions
    // inside it, apart from the timed runs above, which its clock reads would slow. The pass of
    // median total is kept: a pass sees the host at another moment than the timed runs, and one
    // alone moved by a third and more (docs/PERFORMANCE.md, Measuring).
    let passes = (0..<renderRuns).map { _ -> DrawProfile in
      let profile = DrawProfile()
      (band.profile, whole.profile) = (profile, profile)
      for i in 0..<one.frameCount {
        _ = profile.measure(.effect) { drawAndConvert(i) { profile.measure(.conversion, $0) } }
      }
      return profile
    }
    let profile = passes.sorted { $0.totalSeconds < $1.totalSeconds }[passes.count / 2]
    row.work = DrawProfile.Work.allCases.map { ($0.name, profile.seconds($0) * 1000 / Double(one.frameCount)) }
  }

  for (path, isMP4) in measureEncoding ? [(mp4Path, true), (webmPath, false)] : [] {
    let j = try job(c, frames: encodeFrames, output: path, threads: cores)
    // Encode only: the same frames, rendered and converted beforehand, through the same writer.
    let settings = j.outputs[0]
    let converter = FrameConverter(settings)
    let effect = j.makeEffect()
    let surface = Surface(image: Image(width: j.width, height: j.height), scale: Float(j.scale))
    let converted = (0..<j.frameCount).map { i -> ConvertedFrame in
      RenderPipeline.draw(effect, job: j, frame: i, on: surface)
      return converter.convert(surface.image)
    }
    func encodeAlone() throws {
      let writer = try VideoWriter(settings)
      for f in converted { try writer.append(f) }
      _ = try writer.finish()
    }
    // The first encoder of a kind that a process runs is slower than the next (x264 medium on
    // Color Orbs' frames: 104 ms of CPU a frame first, 84-86 after, whichever of the two ran
    // first), so one untimed encode warms up, and the two are then timed in pairs, in turn.
    try encodeAlone()
    var togetherRuns: [(fps: Double, cpu: Double)] = [], aloneRuns: [(fps: Double, cpu: Double)] = []
    var renderThreadsCPU: [Double] = []
    for run in 0..<encodeRuns {
      let pair = [true, false].map { run.isMultiple(of: 2) ? $0 : !$0 }
      for renders in pair {
        if renders {
          let profile = RenderThreadProfile()
          togetherRuns.append(
            try rate(frames: j.frameCount, runs: 1) { _ = try RenderPipeline.run(j, profile: profile) })
          renderThreadsCPU.append(ProfileSummary([ProfiledRun(fps: 0, cpu: 0, profile: profile)]).renderCPU)
        } else {
          aloneRuns.append(try rate(frames: j.frameCount, runs: 1) { try encodeAlone() })
        }
      }
    }
    let together = (fps: median(togetherRuns.map(\.fps)), cpu: median(togetherRuns.map(\.cpu)))
    let alone = (fps: median(aloneRuns.map(\.fps)), cpu: median(aloneRuns.map(\.cpu)))
    // Each pair's ratio, its two runs side by side in time, so a slow stretch of the host moves
    // both: the median of those, not of the runs apart.
    let ratio = median(zip(togetherRuns, aloneRuns).map { $0.1.fps / $0.0.fps })
    let cpuRatio = median(zip(togetherRuns, aloneRuns).map { $0.0.cpu / $0.1.cpu })
    if isMP4 {
      (row.mp4, row.mp4Encode, row.mp4CPU, row.mp4EncodeCPU) = (together.fps, alone.fps, together.cpu, alone.cpu)
      (row.mp4Ratio, row.mp4CPURatio) = (ratio, cpuRatio)
      row.mp4RenderThreadsCPU = median(renderThreadsCPU)
    } else {
      (row.webm, row.webmEncode, row.webmCPU, row.webmEncodeCPU) = (together.fps, alone.fps, together.cpu, alone.cpu)
      (row.webmRatio, row.webmCPURatio) = (ratio, cpuRatio)
      row.webmRenderThreadsCPU = median(renderThreadsCPU)
    }
  }
  rows.append(row)
  log(
    String(
      format: "  draw %.1f ms + convert %.1f ms a frame (1T); scale 1: %.1f f/s", row.drawMS, row.convertMS,
      row.renderScale1))
  log("  " + scalingProfile(row))
  log("  " + row.workProfile)
  log(
    String(
      format:
        "  render 1T %.1f (%.0f ms cpu)  all %.1f (%.0f)  mp4 %.1f / %.1f (cpu %.0f / %.0f)  webm %.1f / %.1f (cpu %.0f / %.0f)  load %@",
      row.render1, row.render1CPU, row.renderAll, row.renderAllCPU, row.mp4, row.mp4Encode, row.mp4CPU,
      row.mp4EncodeCPU,
      row.webm, row.webmEncode, row.webmCPU, row.webmEncodeCPU, uptime()))
}

// Peak memory of whole CLI renders, 10 s against 60 s, all cores: with `--null` (the renderer
// alone: surfaces, layers, blur buffers, the converted-frame ring) and to MP4 (H.264 medium, so
// x264's own frames too). The frame rate is lowered to 5 so a 60 s render takes about half a
// minute; the ring and layers do not depend on it, and x264 fills its 40-frame lookahead either
// way (50 frames, weather 60, against 300).
var memory: [[String: Any]] = []
if measureMemory {
  for c in allCases
  where memoryCases.contains(c.name) && (only.map { $0.contains(c.name) || $0.contains(c.effect) } ?? true) {
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
      // The encoder alone: the same frames, rendered here and written to a file beforehand, fed
      // from it by a child process through the same writer with the same settings.
      let length = c.effect == "weather" && seconds == 10 ? 12 : seconds
      let raw = workDir + "/frames.raw", out = workDir + "/encoder.mp4"
      let j = try memoryJob(c, seconds: length, output: out)
      let converter = FrameConverter(j.outputs[0])
      let converted = converter.makeFrame()
      let effect = j.makeEffect()
      let surface = Surface(image: Image(width: j.width, height: j.height), scale: Float(j.scale))
      let fd = open(raw, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
      for i in 0..<j.frameCount {
        RenderPipeline.draw(effect, job: j, frame: i, on: surface)
        converter.convert(surface.image, into: converted, drawn: surface.drawn)
        guard converted.write(to: fd) else { fatalError("cannot write \(raw)") }
      }
      close(fd)
      log("memory: encoder alone, \(j.frameCount) frames")
      let mb = childPeakMB(["--encode-raw", c.name, "\(length)", raw, out], program: "loopsmith-bench")
      unlink(raw)
      entry["peakMB\(seconds)sEncoderAlone"] = mb ?? NSNull()
      if let i = rows.firstIndex(where: { $0.name == c.name }) {
        if seconds == 10 { rows[i].encoder10 = mb } else { rows[i].encoder60 = mb }
      }
    }
    memory.append(entry)
  }
}

// Conversion to each output's samples: one drawn 1080x1920 frame of the voice orb (transparent,
// so the outputs with an alpha plane keep it), converted on one thread, the median of 7. The
// render-only figures above convert for MP4; these show what the others cost on top of drawing.
var conversions: [(output: String, ms: Double)] = []
if let c = allCases.first(where: { $0.name == "voice-orb" }),
  only.map({ $0.contains(c.name) || $0.contains(c.effect) }) ?? true
{
  let outputs: [(name: String, file: String, codec: String?, bitDepth: Int?)] = [
    ("MP4, H.264 (yuv420p)", "conv.mp4", nil, nil), ("MP4, HEVC Main10 (yuv420p10)", "conv10.mp4", "hevc", 10),
    ("WebM, VP9 with alpha (yuva420p)", "conv.webm", nil, nil),
    ("MOV, ProRes 4444 (yuva444p10)", "conv.mov", nil, nil), ("WebP (RGBA)", "conv.webp", nil, nil),
  ]
  var drawn: Surface? = nil
  for o in outputs {
    var r = RenderRequest()
    r.effect = c.effect
    r.size = c.size
    r.outputs = [workDir + "/" + o.file]
    r.codec = o.codec
    r.bitDepth = o.bitDepth
    let j = try r.job().prefix(1)
    if drawn == nil {
      let surface = Surface(image: Image(width: j.width, height: j.height), scale: Float(j.scale))
      RenderPipeline.draw(j.makeEffect(), job: j, frame: 0, on: surface)
      drawn = surface
    }
    guard let surface = drawn else { continue }
    let converter = FrameConverter(j.outputs[0])
    let frame = converter.makeFrame()
    var times: [Double] = []
    for _ in 0..<7 {
      let t0 = now()
      converter.convert(surface.image, into: frame, drawn: surface.drawn)
      times.append((now() - t0) * 1000)
    }
    conversions.append((o.name, median(times)))
    log(String(format: "conversion of a 1080x1920 frame to %@: %.1f ms", o.name, median(times)))
  }
}
let endLoad = uptime()
let elapsed = now() - started

// MARK: - Table and JSON

// A figure that was not measured (a ratio of zeros) prints as "-" and goes to the JSON as null.
func f0(_ x: Double) -> String { x.isFinite ? String(format: "%.0f", x) : "-" }
func f1(_ x: Double) -> String { x.isFinite ? String(format: "%.1f", x) : "-" }
func f2(_ x: Double) -> String { x.isFinite ? String(format: "%.2f", x) : "-" }
func number(_ x: Double) -> Any { x.isFinite ? x : NSNull() }
func mb(_ x: Double?) -> String { x.map { String(Int($0.rounded())) } ?? "-" }
func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
let header = [
  "case", "size", "fps", "1T f/s", "\(cores)T f/s", "scale", "ceil", "of ceil", "@1x", "draw", "conv", "1T ms",
  "\(cores)T ms",
  "skia", "x skia", "roof%", "mp4 r+e", "mp4 enc", "ratio", "cpu x", "webm r+e", "webm enc", "ratio", "cpu x",
  "MB null", "MB mp4", "MB enc",
]
let widths = [28, 9, 3, 6, 6, 5, 5, 7, 6, 5, 5, 6, 6, 6, 6, 5, 7, 7, 5, 5, 8, 8, 5, 5, 9, 9, 9]
func line(_ cells: [String]) -> String {
  zip(cells, widths).enumerated().map { i, p in
    i == 0 ? p.0.padding(toLength: p.1, withPad: " ", startingAt: 0) : pad(p.0, p.1)
  }
  .joined(separator: " ")
}
var table = line(header)
for r in rows {
  table +=
    "\n"
    + line([
      r.name, r.size, "\(r.fps)", f1(r.render1), f1(r.renderAll), f2(r.scaling), f2(r.ceiling),
      r.ceiling > 0 ? f0(100 * r.ofCeiling) + "%" : "-", f1(r.renderScale1), f1(r.drawMS),
      f1(r.convertMS),
      f0(r.render1CPU), f0(r.renderAllCPU),
      r.skia.map(f1) ?? "-", r.skia.map { f1(r.renderScale1 / $0) } ?? "-",
      f0(100 * r.renderScale1 * r.frameBytes / (bandwidthAll * 1e9)),
      f1(r.mp4), f1(r.mp4Encode), f2(r.mp4Ratio), f2(r.mp4CPURatio),
      f1(r.webm), f1(r.webmEncode), f2(r.webmRatio), f2(r.webmCPURatio),
      r.null10 == nil ? "-" : "\(mb(r.null10))/\(mb(r.null60))",
      r.memory10 == nil ? "-" : "\(mb(r.memory10))/\(mb(r.memory60))",
      r.encoder10 == nil ? "-" : "\(mb(r.encoder10))/\(mb(r.encoder60))",
    ])
}
let notes = """
  f/s: frames a second (wall clock). 1T, \(cores)T: render only (drawn and converted to YUV on the render threads,
  nothing encoded; `loopsmith render --null`), 1 and \(cores) render threads, median of \(renderRuns) runs of \(clipFrames) frames
  (each run repeating them to about half a second on 1T: a cheap scene's 60 frames take 13-40 ms on 2T);
  scale = \(cores)T / 1T f/s, the median of the \(renderRuns) pairs' own (1T and \(cores)T runs alternate); ceil: the machine's own ceiling, measured just before
  the scene: the 1T to \(cores)T speed-up of one of our shading loops (Color Orbs' discs) on an L1-sized tile of
  each thread's own, which shares no memory and waits on nothing (\(f2(machineCeiling.ratio)) at the start of the run,
  \(f2(machineCeiling.low))-\(f2(machineCeiling.high)) over its rounds); of ceil = scale / ceil.
  @1x: \(cores)T f/s at display scale 1 (1 pt = 1 px) instead of the default 3.
  draw, conv: wall milliseconds a frame on one thread drawing the effect, and converting its float
  pixels to dithered BT.709 YUV (the same 1T clip, a band at a time as the pipeline draws it, the
  conversion timed apart): where render-only time goes.
  ms: CPU milliseconds a frame, all threads (load-independent).
  skia: Skia's CPU rasterizer on the same scene at scale 1, same size, one process a core (bench/skia_bench.py),
  run right after ours; x skia = @1x / skia. roof%: @1x as a share of the memory roofline, the f/s that
  \(f1(bandwidthAll)) GB/s (a copy loop on \(cores) threads; \(f1(bandwidth1)) on one) allows for the bytes a frame moves
  at least: 1.5 a pixel for a frame drawn in bands (its float rows stay in cache; only the YUV samples are
  written), 33.5 for one drawn whole (the float frame written and read once too).
  r+e: render and encode together (H.264 medium crf \(VideoCodec.h264.spec.quality?.defaultValue ?? 0) / VP9 crf \(VideoCodec.vp9.spec.quality?.defaultValue ?? 0), \(RenderSetting.defaultEncoderThreads) encoder threads); enc: the same
  frames, rendered beforehand, through the same writer alone, after one untimed warm-up encode; medians of
  \(encodeRuns) pairs of runs of \(encodeFrames) frames, the two in turn.
  ratio = r+e time / enc time; cpu x = r+e CPU / enc CPU, the work rendering adds: each the median of the
  pairs' own ratios.
  MB: peak resident memory (MB) of a CLI render of 10 s (weather 12 s) / 60 s at 5 frames/s, --null and to MP4;
  enc: the encoder alone, the same frames fed from a file through the same writer.
  load average (1, 5, 15 min) \(startLoad) at the start, \(endLoad) at the end; \(Int(elapsed)) s in all.

  """
// MARK: - Targets (docs/PERFORMANCE.md): each met, or MISSED with where the time or memory goes

struct Verdict {
  var target: String, name: String, value: Double, limit: Double, atMost: Bool, evidence: String
  var met: Bool { atMost ? value <= limit : value >= limit }
}
var verdicts: [Verdict] = []
/// Frames a second the memory roofline allows a frame of `bytes` on all cores.
func roofline(_ bytes: Double) -> Double { bandwidthAll * 1e9 / bytes }
for r in rows {
  let profile = String(format: "1T draw %.1f + convert %.1f ms a frame", r.drawMS, r.convertMS)
  let reached = r.renderScale1 / roofline(r.frameBytes)
  let roof = String(
    format:
      "the memory roofline (%.1f GB/s copy, %.1f MB a frame moved at least) allows %.0f f/s, %.0f%% of it reached: %@",
    bandwidthAll, r.frameBytes / 1e6, roofline(r.frameBytes), 100 * reached,
    reached > 0.5
      ? "memory traffic bounds it; fewer bytes a frame is the way on"
      : "the time goes to drawing, not to memory")
  if let skia = r.skia {
    verdicts.append(
      Verdict(
        target: "render-only \(r.size) scale 1, \(cores)T, / Skia", name: r.name, value: r.renderScale1 / skia,
        limit: 4, atMost: false,
        evidence: "\(f1(r.renderScale1)) f/s against Skia's \(f1(skia)); \(profile); \(roof)"))
  }
  if r.name == "color-orbs" {
    verdicts.append(
      Verdict(
        target: "render-only f/s \(r.size) scale 1, \(cores)T", name: r.name, value: r.renderScale1, limit: 150,
        atMost: false,
        evidence: "\(profile); \(roof)"))
  }
  if cores >= 2 && r.skia != nil {
    let bound =
      r.ceiling < 1.85
      ? String(
        format: "bounded by the machine: its own ceiling in this run is %.2fx (%.2f-%.2f), below the target; ",
        r.ceiling, r.ceilingLow, r.ceilingHigh)
      : String(format: "the machine's own ceiling in this run is %.2fx; ", r.ceiling)
    verdicts.append(
      Verdict(
        target: "thread scaling 1T to \(cores)T", name: r.name, value: r.scaling, limit: 1.85, atMost: false,
        evidence: bound
          + String(format: "the scene reaches %.0f%% of it; ", 100 * r.ofCeiling) + scalingProfile(r) + "; "
          + r.workProfile))
  }
  if r.size == "1080x1920" && measureEncoding {
    for (codec, ratio, cpu, encodeCPU, renderThreads) in [
      ("MP4 (H.264 medium)", r.mp4Ratio, r.mp4CPU, r.mp4EncodeCPU, r.mp4RenderThreadsCPU),
      ("WebM (VP9)", r.webmRatio, r.webmCPU, r.webmEncodeCPU, r.webmRenderThreadsCPU),
    ] {
      // What the run adds beyond the render threads' own work is the encoder's threads, the
      // kernel and the hand-over working beside the renderer (docs/PERFORMANCE.md).
      let rest = cpu - encodeCPU - renderThreads
      let others =
        rest >= 0
        ? String(format: "the other %.1f the encoder's threads and the kernel beside them", rest)
        : String(format: "the encoder's threads %.1f less than alone (this host's noise)", -rest)
      // The bound: what 1.05 leaves the render of the encoder's CPU, beside the least time the
      // frame's bytes take through memory on one thread (the roofline's floor for this work).
      let budget = 0.05 * encodeCPU
      let floor = r.frameBytes / (bandwidth1 * 1e9) * 1000
      let bound = String(
        format: "; 1.05 leaves the render %.1f ms of CPU a frame, and the %.1f MB a frame moves take %.1f ms at one "
          + "thread's %.1f GB/s copy: %@",
        budget, r.frameBytes / 1e6, floor, bandwidth1,
        floor < budget
          ? "drawing and converting, not memory traffic, are over it"
          : "memory traffic alone is over it, so fewer bytes a frame is the way on")
      verdicts.append(
        Verdict(
          target: "\(codec) render+encode / encode-only", name: r.name, value: ratio, limit: 1.05, atMost: true,
          evidence: String(
            format:
              "rendering adds %.0f%% to the encoder's CPU (%.0f of %.0f ms a frame): the render threads' own %.1f ms "
              + "(%.1f rendering alone; drawing %.1f and converting %.1f on one thread), %@; on %d cores both "
              + "compete for them",
            (cpu / encodeCPU - 1) * 100, cpu - encodeCPU, encodeCPU, renderThreads, r.profileAll.renderCPU,
            r.drawMS, r.convertMS, others, cores) + bound + "; " + r.workProfile))
    }
  }
  for (seconds, total, null, encoder) in [
    (10, r.memory10, r.null10, r.encoder10), (60, r.memory60, r.null60, r.encoder60),
  ] {
    if let null {
      verdicts.append(
        Verdict(
          target: "peak MB rendering alone (--null), \(seconds) s", name: r.name, value: null, limit: 150, atMost: true,
          evidence: String(
            format:
              "%.0f%% of the clip's frames drew in bands (a band of %d rows and band-sized layers a render thread); a frame drawn whole makes a %.0f MB float frame a thread, and layers their own",
            100 * r.bandedShare, RenderPipeline.bandRows, Double(r.width * r.height * 16) / 1e6)))
    }
    if let total, let encoder {
      verdicts.append(
        Verdict(
          target: "peak MB above the encoder alone, \(seconds) s to MP4", name: r.name, value: total - encoder,
          limit: 100, atMost: true,
          evidence:
            "the render to MP4 peaks at \(mb(total)) MB, the encoder alone (the same frames from a file) at \(mb(encoder)), rendering alone at \(mb(null))"
        ))
    }
  }
}
var verdictText = "targets (each a benchmark figure of this run; docs/PERFORMANCE.md):"
if cores >= 2 {
  verdictText +=
    String(
      format:
        "\n  (thread scaling: the machine's own ceiling, a shading loop on L1 tiles of each thread's own, is %.2fx at the start of the run, %.2f-%.2f over the scenes",
      machineCeiling.ratio, rows.map(\.ceiling).min() ?? 0, rows.map(\.ceiling).max() ?? 0)
    + (machineCeiling.ratio < 1.85 ? "; below 1.85, so no scene can meet the target on this machine now)" : ")")
}
for v in verdicts {
  let comparison = v.atMost ? "<=" : ">="
  var value = v.limit >= 100 || v.value >= 100 ? f0(v.value) : f2(v.value)
  // A miss that rounds to its limit shows a third decimal: "1.053 <= 1.05", not "1.05 <= 1.05".
  if !v.met && value == f2(v.limit) { value = String(format: "%.3f", v.value) }
  verdictText += "\n  \(v.met ? "met   " : "MISSED") \(v.target) \(v.name): \(value) \(comparison) \(v.limit)"
  if !v.met { verdictText += " -- \(v.evidence)" }
}
if !measureEncoding { verdictText += "\n  (render+encode against encode-only not measured: BENCH_ENCODE=0)" }
if !measureMemory { verdictText += "\n  (peak memory not measured: BENCH_MEMORY=0)" }
let missed = verdicts.filter { !$0.met }.count
verdictText += "\n  \(verdicts.count - missed) of \(verdicts.count) met\n"

print(table)
// Where one thread's frame goes, by kind of work (`DrawProfile`): a profile of every scene.
if rows.contains(where: { !$0.work.isEmpty }) {
  let kinds = DrawProfile.Work.allCases.map(\.name)
  print(
    "\none thread's frame by kind of work (DrawProfile; ms a frame, the median of \(renderRuns) profiled passes over the clip):"
  )
  print(
    "case".padding(toLength: 28, withPad: " ", startingAt: 0) + kinds.map { " " + pad($0, max(6, $0.count)) }.joined())
  for r in rows where !r.work.isEmpty {
    let cells = zip(kinds, r.work).map { " " + pad(f2($1.ms), max(6, $0.count)) }
    print(r.name.padding(toLength: 28, withPad: " ", startingAt: 0) + cells.joined())
  }
}
if !conversions.isEmpty {
  print("conversion of one 1080x1920 frame of the voice orb to each output's samples, one thread, ms:")
  for c in conversions {
    print("  " + c.output + String(repeating: " ", count: max(1, 34 - c.output.count)) + f1(c.ms))
  }
}
print(notes)
print(verdictText)
fflush(stdout)  // before the log line below, which goes to unbuffered stderr

let json: [String: Any] = [
  "cores": cores, "renderRuns": renderRuns, "renderFrames": clipFrames, "encodeRuns": encodeRuns,
  "encodeFrames": encodeFrames,
  "encodingMeasured": measureEncoding, "memoryMeasured": measureMemory,
  "memoryBandwidthGBs1Thread": bandwidth1,
  "threadScalingCeiling": machineCeiling.ratio, "threadScalingCeilingRange": [machineCeiling.low, machineCeiling.high],
  "memoryBandwidthGBsAllCores": bandwidthAll,
  "loadStart": startLoad, "loadEnd": endLoad, "seconds": Int(elapsed),
  "date": ISO8601DateFormatter().string(from: Date()),
  "cases": rows.map { r -> [String: Any] in
    [
      "name": r.name, "size": r.size, "fps": r.fps,
      "renderOnly1Thread": r.render1, "renderOnlyAllCores": r.renderAll, "threadScaling": number(r.scaling),
      "threadScalingPairs": r.pairScalings, "renderRunRepeats": r.repeats, "threadScalingCeiling": r.ceiling,
      "threadScalingCeilingRange": [r.ceilingLow, r.ceilingHigh], "threadScalingOfCeiling": number(r.ofCeiling),
      "renderThreadCPUms1Thread": r.profile1.renderCPU, "renderThreadCPUmsAllCores": r.profileAll.renderCPU,
      "outsideCPUms1Thread": r.profile1.outsideCPU, "outsideCPUmsAllCores": r.profileAll.outsideCPU,
      "idleShareAllCores": r.profileAll.idle, "waitingShareAllCores": r.profileAll.waiting,
      "preemptedShareAllCores": r.profileAll.preempted,
      "preemptedShare1Thread": r.profile1.preempted,
      "faultsAFrame1Thread": r.profile1.faults, "faultsAFrameAllCores": r.profileAll.faults,
      "renderOnly1ThreadCPUms": r.render1CPU, "renderOnlyAllCoresCPUms": r.renderAllCPU,
      "renderOnlyAllCoresScale1": r.renderScale1, "drawMS1Thread": r.drawMS, "convertMS1Thread": r.convertMS,
      "workMS1Thread": Dictionary(uniqueKeysWithValues: r.work.map { ($0.name, $0.ms) }),
      "mp4RenderEncode": r.mp4, "mp4EncodeOnly": r.mp4Encode, "mp4Ratio": number(r.mp4Ratio),
      "mp4CPURatio": number(r.mp4CPURatio), "mp4RenderThreadsCPUms": r.mp4RenderThreadsCPU,
      "webmRenderEncode": r.webm, "webmEncodeOnly": r.webmEncode, "webmRatio": number(r.webmRatio),
      "webmCPURatio": number(r.webmCPURatio), "webmRenderThreadsCPUms": r.webmRenderThreadsCPU,
      "peakMB10sNull": r.null10 ?? NSNull(), "peakMB60sNull": r.null60 ?? NSNull(),
      "peakMB10sMP4": r.memory10 ?? NSNull(), "peakMB60sMP4": r.memory60 ?? NSNull(),
      "peakMB10sEncoderAlone": r.encoder10 ?? NSNull(), "peakMB60sEncoderAlone": r.encoder60 ?? NSNull(),
      "skiaRenderOnlyAllCores": r.skia ?? NSNull(), "frameBytesAtLeast": r.frameBytes, "bandedShare": r.bandedShare,
      "rooflineFraction": r.renderScale1 * r.frameBytes / (bandwidthAll * 1e9),
    ]
  },
  "memory": memory,
  "conversionMSByOutput": Dictionary(uniqueKeysWithValues: conversions.map { ($0.output, $0.ms) }),
  "targets": verdicts.map { v -> [String: Any] in
    [
      "target": v.target, "name": v.name, "value": number(v.value), "limit": v.limit, "atMost": v.atMost, "met": v.met,
      "evidence": v.evidence,
    ]
  },
]
try FileManager.default.createDirectory(atPath: "bench", withIntermediateDirectories: true)
let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
try data.write(to: URL(fileURLWithPath: "bench/results.json"))
log("wrote bench/results.json")
