import Dispatch
import Effects
import Foundation
import Raster
import Timing
import Video

/// What a finished render wrote.
public struct RenderResult: Sendable {
  public var files: [WrittenFile]
  public var frames: Int
  /// The stills of frame 0 (`--poster`).
  public var posters: [WrittenFile] = []
  /// One line per output whose quality was searched (`--max-bytes`), for the user.
  public var notes: [String] = []
}

/// Renders a job's frames in parallel and encodes them in order into every output.
///
/// Each render thread takes the next frame as soon as it is free, draws it on its own surface
/// and converts it to the encoders' samples into a ring of converted frames; the calling thread
/// encodes them in order as they are done, and no thread waits for another's frame
/// (docs/PERFORMANCE.md, Thread scaling). Memory stays flat however long the video is: a ring of
/// 2 x `threads` converted frames per output, and a band of float rows per thread (`bandRows`,
/// docs/PERFORMANCE.md, Band rendering): each frame is drawn and converted a band at a time
/// while the band is in cache, blurs and shadows included. A frame whose drawing cannot be
/// banded (a large blur before another filter, which no effect draws) is drawn whole into a
/// float frame of its thread's, made the first time one is needed, as is frame 0 when posters
/// are asked for.
public enum RenderPipeline {
  /// Renders `job`; `progress(done, total)` is called on the calling thread after every
  /// `threads` frames encoded, and after the last.
  ///
  /// With `discard` every frame is drawn and converted for the job's outputs as usual, but
  /// nothing is encoded or written (`render --null`): the render alone, for timing it.
  ///
  /// With `profile` each render thread's time is recorded into it (the bench's thread-scaling
  /// profile); nothing else changes.
  public static func run(
    _ job: RenderJob, discard: Bool = false, profile: RenderThreadProfile? = nil,
    progress: (@Sendable (Int, Int) -> Void)? = nil
  ) throws -> RenderResult {
    try Cancellation.check()
    // A size budget renders the frames again for each try until each file fits (SizeBudget).
    if !discard, job.maxBytes != nil || job.platform != nil {
      return try SizeBudget.run(job, progress: progress)
    }
    let converters = job.outputs.map(FrameConverter.init)
    var writers: [VideoWriter] = []
    var posters: [VideoWriter] = []  // the stills of frame 0
    do {
      if !discard {
        for (settings, converter) in zip(job.outputs, converters) {
          writers.append(try VideoWriter(settings, converter: converter))
        }
        for settings in job.posters { posters.append(try VideoWriter(settings)) }
      }
      try drawFrames(
        job, converters: converters, into: writers, posters: posters, palettes: writers, progress: progress,
        profile: profile)
      // A signal during the flush (an encoder's lookahead can take seconds) or after it stops the
      // render like one between frames: no output is renamed into place.
      for writer in writers + posters { try writer.flush(interrupt: Cancellation.check) }
      try Cancellation.check()
      var files: [WrittenFile] = []
      var posterFiles: [WrittenFile] = []
      for writer in writers { files.append(try writer.commit()) }
      for poster in posters { posterFiles.append(try poster.commit()) }
      return RenderResult(files: files, frames: job.frameCount, posters: posterFiles)
    } catch {
      // Files already renamed into place are complete and stay; the others leave nothing.
      (writers + posters).forEach { $0.cancel() }
      throw error
    }
  }

  /// Draws every frame of `job` on `job.threads` render threads, each taking the next frame when
  /// it is free (`FrameQueue`), and hands each output's converted frames to its sink in order on
  /// the calling thread while the next ones draw. Frame 0 goes to `posters` as drawn (by the
  /// thread that draws it), and the GIF writers
  /// among `palettes` get their palette frames first. Throws the first error, or `Interrupted`.
  /// Frames taller than `bandRows` (even) are drawn a band at a time where they can be.
  static func drawFrames(
    _ job: RenderJob, converters: [FrameConverter], into sinks: [any FrameSink], posters: [VideoWriter],
    palettes: [VideoWriter], progress: (@Sendable (Int, Int) -> Void)?, bandRows: Int = RenderPipeline.bandRows,
    profile: RenderThreadProfile? = nil
  ) throws {
    let threads = max(1, min(job.threads, job.frameCount))
    profile?.start(threads: threads)
    defer { profile?.stop() }
    let banded = bandRows < job.height && converters.allSatisfy(\.convertsBands)
    let bandSurfaces =
      banded
      ? (0..<threads).map { _ in
        Surface(width: job.width, height: job.height, bandRows: bandRows, scale: Float(job.scale))
      } : nil
    // ring[slot][output]: frame i is converted into slot i % ring.count.
    let ring = (0..<2 * threads).map { _ in converters.map { $0.makeFrame() } }
    try Cancellation.check()  // allocating large frames takes a moment; no file exists yet
    let shared = SharedRender(
      effect: job.makeEffect(), job: job, bandSurfaces: bandSurfaces, threads: threads, converters: converters,
      ring: ring)
    try samplePalettes(job: job, writers: palettes, shared: shared, threads: threads)
    let failure = FailureBox()
    let total = job.frameCount
    // With no sink (`--null`) a frame is handed over as soon as it and those before it are drawn:
    // the render threads never wait for this thread to be scheduled.
    let queue = FrameQueue(frames: total, slots: ring.count, handOverWhenDrawn: sinks.isEmpty)
    let posterBox = PosterBox(posters)
    let rendering = DispatchGroup()
    for thread in 0..<threads {
      rendering.enter()
      let worker = Thread {
        defer { rendering.leave() }
        while true {
          let taken = if let profile { profile.timeWaiting(thread: thread, queue.take) } else { queue.take() }
          guard let frame = taken else { break }
          // Frame 0 is drawn whole when a poster is asked for: the poster reads its float image.
          let whole = frame == 0 && !posterBox.writers.isEmpty
          let mark = profile?.mark()
          shared.render(frame: frame, thread: thread, slot: frame % ring.count, whole: whole)
          if let mark { profile?.add(since: mark, thread: thread) }
          if whole && Cancellation.signal == nil {
            do {
              for poster in posterBox.writers { try poster.append(shared.wholeSurface(thread).image) }
            } catch {
              failure.set(error)
              queue.stop()
            }
          }
          queue.drawn(frame)
        }
      }
      worker.stackSize = 8 << 20
      worker.start()
    }
    // This thread hands each frame over as soon as it is drawn, in order; its slot then takes
    // the frame `ring.count` later. With no sink the frames hand themselves over, and this thread
    // wakes only to report progress and to notice a signal, a few times a second: woken for
    // every frame, it is a third thread on the render threads' cores.
    do {
      if sinks.isEmpty {
        var reported = 0, finished = false
        while !finished {
          let (handed, done) = queue.waitForAll(seconds: 0.1)
          try Cancellation.check()
          if handed > reported { progress?(handed, total) }
          (reported, finished) = (handed, done)
        }
      } else {
        for frame in 0..<total {
          guard queue.wait(for: frame) else { break }
          try Cancellation.check()  // a frame skipped for a signal is not handed over
          for (o, sink) in sinks.enumerated() { try sink.append(ring[frame % ring.count][o]) }
          queue.handedOver(frame)
          if (frame + 1) % threads == 0 || frame + 1 == total { progress?(frame + 1, total) }
        }
      }
    } catch {
      failure.set(error)
    }
    queue.stop()
    rendering.wait()
    if let error = failure.error { throw error }
  }

  /// Draws the frames GIF writers cut their palette from (a few, spread over the loop) and hands
  /// them over before the first frame is encoded, so the palette holds the whole loop's colours.
  /// Rendering is deterministic, so these frames equal the ones encoded later; memory stays flat.
  private static func samplePalettes(job: RenderJob, writers: [VideoWriter], shared: SharedRender, threads: Int) throws
  {
    // Every output of a job has the job's frame count, so the writers that sample ask for the same frames.
    let sampling = writers.indices.filter { !writers[$0].paletteSampleFrames.isEmpty }
    guard let firstSampling = sampling.first else { return }
    let frames = writers[firstSampling].paletteSampleFrames
    for start in stride(from: 0, to: frames.count, by: threads) {
      try Cancellation.check()
      let count = min(threads, frames.count - start)
      DispatchQueue.concurrentPerform(iterations: count) { slot in
        shared.render(frame: frames[start + slot], thread: slot, slot: slot)
      }
      try Cancellation.check()
      for slot in 0..<count {
        for o in sampling { try writers[o].addPaletteSample(shared.ring[slot][o]) }
      }
    }
  }

  /// Draws one frame into a surface's image: cleared, then the effect at the frame's clock.
  public static func draw(_ effect: any Effect, job: RenderJob, frame: Int, on surface: Surface) {
    surface.clear()
    var context = surface.context()
    effect.draw(in: &context, clock: job.clock(ofFrame: frame))
    surface.finish()
  }

  /// The rows of a band a render thread draws at once: 128 rows of 1080 float pixels are 2.2 MB,
  /// which stay in the shared L3 cache with the band's layers and the samples converted from
  /// them. The effect draws once a band, so fewer rows mean more of its calls: 32 and 64 rows
  /// cost clear night and snow more than they saved (docs/PERFORMANCE.md, Band rendering).
  /// Even, so 4:2:0 bands hold whole row pairs.
  public static let bandRows = 128

  /// Draws one frame on a band surface a band at a time, from the top, calling `band(rows)`
  /// after each band is drawn with the band's pixels in `surface.image` (its row 0 is frame row
  /// `rows.lowerBound`; `surface.drawn` holds what was drawn). Returns false when the frame's
  /// drawing needs the whole frame (`needsWholeFrame`): usually found in the first band, before
  /// `band` is called; found later, the caller converts the whole frame over the bands handed on.
  ///
  /// With `keepsSamples`, a band drawn as one mesh from samples, and the sky's rows nothing else
  /// drew on, are handed on unwritten (`Surface.finishKeepingSamples`): `band` converts what
  /// `bandSource` says, which calls `surface.finish()` when the pixels are to be read.
  public static func drawBands(
    _ effect: any Effect, job: RenderJob, frame: Int, on surface: Surface, keepsSamples: Bool = false,
    band: (Range<Int>) -> Void
  ) -> Bool {
    let clock = job.clock(ofFrame: frame)
    let rows = surface.image.height
    precondition(rows % 2 == 0 || rows >= surface.height, "a band of \(rows) rows splits 4:2:0 row pairs")
    var top = 0
    while top < surface.height {
      let rows = top..<min(top + rows, surface.height)
      surface.drawBand(rows)
      var context = surface.context()
      effect.draw(in: &context, clock: clock)
      // Drawing is the same calls in every band: the first tells whether bands can draw it.
      if surface.needsWholeFrame { return false }
      if keepsSamples { surface.finishKeepingSamples() } else { surface.finish() }
      band(rows)
      top = rows.upperBound
    }
    return true
  }
}

extension RenderPipeline {
  /// What a drawn band is converted from.
  public enum BandSource {
    /// One mesh drawn from samples (docs/PERFORMANCE.md, Mesh samples): its pixels are never written.
    case samples(SampledRows)
    /// The pixels, except rows of one color that nothing drew on (docs/PERFORMANCE.md, The sky
    /// left unwritten), which are converted from that color and never written.
    case rowColors
    /// The pixels, all written.
    case pixels
  }

  /// Whether bands for `converters` are finished keeping what they may take instead of pixels
  /// (`drawBands(keepsSamples:)`): every one takes a mesh's samples or the sky's row colors.
  public static func keepsSamples(for converters: [FrameConverter]) -> Bool {
    !converters.isEmpty && converters.allSatisfy { $0.convertsSamples || $0.convertsRowColors }
  }

  /// How the band `surface` holds, finished with `finishKeepingSamples()`, is converted by every
  /// one of `converters`: from what they all take, its pixels written (`Surface.finish`) when
  /// they are read.
  public static func bandSource(_ surface: Surface, converters: [FrameConverter]) -> BandSource {
    if let sampled = surface.sampledRows, converters.allSatisfy({ $0.takes(sampled) }) { return .samples(sampled) }
    // Pending samples and pending rows exclude each other (a mesh over every pixel replaces the sky).
    if surface.keepsRowColors && converters.allSatisfy(\.convertsRowColors) {
      return .rowColors
    }
    surface.finish()
    return .pixels
  }

  /// Converts frame rows `rows` of the band `surface` holds into `frame` from `source`
  /// (`bandSource`).
  public static func convert(
    _ source: BandSource, of surface: Surface, rows: Range<Int>, with converter: FrameConverter,
    into frame: ConvertedFrame
  ) {
    switch source {
    case .samples(let sampled): converter.convert(samples: sampled, rows: rows, into: frame)
    case .rowColors:
      converter.convert(
        band: surface.image, rows: rows, into: frame, drawn: surface.drawn, pendingRow: surface.pendingRow)
    case .pixels: converter.convert(band: surface.image, rows: rows, into: frame, drawn: surface.drawn)
    }
  }
}

/// What the render threads share. Each render thread draws only on its own surfaces, a ring slot
/// is written by the one thread that took its frame and read by the encoding thread only after
/// that (`FrameQueue`, under its lock), and written again only after it was handed over, so no
/// two threads ever touch the same memory at once: `@unchecked Sendable`.
private final class SharedRender: @unchecked Sendable {
  let effect: any Effect
  let job: RenderJob
  /// Each thread's band surface, or nil when frames are drawn whole (a frame no taller than a
  /// band, or an output that converts whole frames).
  let bandSurfaces: [Surface]?
  /// Each thread's whole-frame surface, made when first needed: one box a thread, so no thread
  /// writes into an array another one reads.
  private let wholeSurfaces: [WholeSurfaceBox]
  let converters: [FrameConverter]
  /// Whether every output may take a band's samples or its rows' colors instead of its pixels
  /// (`RenderPipeline.bandSource`).
  let keepsSamples: Bool
  let ring: [[ConvertedFrame]]

  init(
    effect: any Effect, job: RenderJob, bandSurfaces: [Surface]?, threads: Int, converters: [FrameConverter],
    ring: [[ConvertedFrame]]
  ) {
    (self.effect, self.job, self.bandSurfaces, self.converters, self.ring) =
      (effect, job, bandSurfaces, converters, ring)
    keepsSamples = RenderPipeline.keepsSamples(for: converters)
    wholeSurfaces = (0..<threads).map { _ in WholeSurfaceBox() }
  }

  /// Thread `slot`'s whole-frame surface (only that thread, or the batch loop between batches,
  /// asks for it).
  func wholeSurface(_ slot: Int) -> Surface {
    if let surface = wholeSurfaces[slot].surface { return surface }
    let surface = Surface(image: Image(width: job.width, height: job.height), scale: Float(job.scale))
    wholeSurfaces[slot].surface = surface
    return surface
  }

  /// Draws `frame` on render thread `thread`'s surfaces and converts it into ring slot `slot`.
  func render(frame: Int, thread: Int, slot: Int, whole: Bool = false) {
    // A stopped render skips its remaining frames; the frames' hand-over then throws `Interrupted`.
    guard Cancellation.signal == nil else { return }
    let frames = ring[slot]
    if !whole, let surface = bandSurfaces?[thread] {
      let drawn = RenderPipeline.drawBands(
        effect, job: job, frame: job.firstFrame + frame, on: surface, keepsSamples: keepsSamples
      ) { rows in
        let source = RenderPipeline.bandSource(surface, converters: converters)
        for (o, converter) in converters.enumerated() {
          RenderPipeline.convert(source, of: surface, rows: rows, with: converter, into: frames[o])
        }
      }
      if drawn { return }
    }
    let surface = wholeSurface(thread)
    RenderPipeline.draw(effect, job: job, frame: job.firstFrame + frame, on: surface)
    for (o, converter) in converters.enumerated() {
      converter.convert(surface.image, into: frames[o], drawn: surface.drawn)
    }
  }
}

/// One render thread's whole-frame surface, once made.
private final class WholeSurfaceBox: @unchecked Sendable {
  var surface: Surface?
}

/// Where a render's converted frames go, in order: an encoder (`VideoWriter`).
protocol FrameSink: AnyObject {
  func append(_ frame: ConvertedFrame) throws
}

extension VideoWriter: FrameSink {}

/// The poster writers, handed to the render threads; only the thread that draws frame 0 uses them.
private final class PosterBox: @unchecked Sendable {
  let writers: [VideoWriter]
  init(_ writers: [VideoWriter]) { self.writers = writers }
}

/// The frames' hand-over between the render threads and the thread that hands them to the sinks.
///
/// A render thread takes the next frame not yet taken as soon as it is free (`take`), so no
/// thread waits for another to finish its frame: a frame that costs more, or a thread the machine
/// preempts, holds back nothing but the hand-over of that frame. Frame i goes to ring slot
/// i % `slots`, so it is taken only once frame i - `slots` has been handed over (`handedOver`):
/// the ring's memory stays flat. The frames are handed over in order as each is drawn (`wait`),
/// or with no sink hand themselves over, the calling thread woken only by the last one
/// (`waitForAll`). One lock for all of it: it is taken a few times a frame. Internal for its tests.
final class FrameQueue: @unchecked Sendable {
  private let condition = NSCondition()
  private let frames: Int
  /// Each slot's frame, once drawn; -1 before.
  private var drawnInSlot: [Int]
  private var next = 0, handed = 0
  private var stopped = false
  /// Render threads waiting in `take` for a slot to be handed over.
  private var taking = 0
  /// How many threads wait in `take` for a slot now (for the tests).
  var waitingToTake: Int { condition.withLock { taking } }
  private let handOverWhenDrawn: Bool

  /// With `handOverWhenDrawn` (no sinks), frames are handed over as they are drawn, in order.
  init(frames: Int, slots: Int, handOverWhenDrawn: Bool = false) {
    self.frames = frames
    self.handOverWhenDrawn = handOverWhenDrawn
    drawnInSlot = Array(repeating: -1, count: slots)
  }

  /// The next frame to draw, when its slot is free; nil when every frame is taken or `stop` was called.
  func take() -> Int? {
    condition.lock()
    defer { condition.unlock() }
    while !stopped && next < frames && next >= handed + drawnInSlot.count {
      taking += 1
      condition.wait()
      taking -= 1
    }
    guard !stopped && next < frames else { return nil }
    next += 1
    return next - 1
  }

  /// `frame` is in its slot (or was skipped for a signal).
  func drawn(_ frame: Int) {
    condition.lock()
    drawnInSlot[frame % drawnInSlot.count] = frame
    if handOverWhenDrawn {
      let before = handed
      while handed < frames && drawnInSlot[handed % drawnInSlot.count] == handed { handed += 1 }
      // The thread in `waitForAll` is woken by the last frame only; a render thread that ran a
      // ring ahead of a slower one waits in `take` for the slots this frame hands over.
      if handed == frames || (handed > before && taking > 0) { condition.broadcast() }
    } else {
      condition.broadcast()
    }
    condition.unlock()
  }

  /// With `handOverWhenDrawn`: waits until every frame is drawn, `stop` is called, or `seconds`
  /// pass; returns how many frames are handed over, and whether waiting is over (all of them are,
  /// or `stop` was called).
  func waitForAll(seconds: Double) -> (handed: Int, finished: Bool) {
    condition.lock()
    defer { condition.unlock() }
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !stopped && handed < frames {
      if !condition.wait(until: deadline) { break }
    }
    return (handed, stopped || handed == frames)
  }

  /// With sinks: waits until `frame` is drawn; false when `stop` was called first.
  func wait(for frame: Int) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while !stopped && drawnInSlot[frame % drawnInSlot.count] != frame { condition.wait() }
    return !stopped
  }

  /// With sinks: `frame` was handed over, in order; its slot is free.
  func handedOver(_ frame: Int) {
    condition.lock()
    handed = frame + 1
    condition.broadcast()
    condition.unlock()
  }

  /// No more frames are taken; every waiting thread returns.
  func stop() {
    condition.lock()
    stopped = true
    condition.broadcast()
    condition.unlock()
  }
}

/// The first error any thread hit.
private final class FailureBox: @unchecked Sendable {
  private let lock = NSLock()
  private var first: (any Error)?
  var error: (any Error)? { lock.withLock { first } }
  func set(_ e: any Error) { lock.withLock { if first == nil { first = e } } }
}

/// Where each render thread's time went in a run (`RenderPipeline.run(_:discard:profile:)`), for
/// the bench's thread-scaling profile (docs/PERFORMANCE.md, Thread scaling): the CPU, faults and
/// involuntary switches of each thread while it drew and converted frames, the wall time it was
/// busy doing so, and the run's wall time. A thread's idle time is the run's wall time less its
/// busy time: waiting for a ring slot (`ThreadTimes.waiting`), or setting up and ending before the
/// others (the last frame: one thread draws it while the other has none left). Each thread
/// writes only its own entry; read them after the run.
public final class RenderThreadProfile: @unchecked Sendable {
  /// One render thread's sums over its frames.
  public final class ThreadTimes: @unchecked Sendable {
    public internal(set) var frames = 0
    /// Seconds of CPU in user and in system mode (page faults, mostly), and of wall time, spent
    /// drawing and converting frames.
    public internal(set) var user = 0.0, system = 0.0, busy = 0.0
    /// Page faults (minor) and involuntary context switches (the thread preempted) meanwhile.
    public internal(set) var faults = 0, preemptions = 0
    /// Wall seconds waiting for a frame to draw: for a ring slot the encoder has not handed over.
    public internal(set) var waiting = 0.0
    // Keeps two threads' sums off one cache line.
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
  }

  public private(set) var threads: [ThreadTimes] = []
  /// Wall seconds from the first frame to the last.
  public private(set) var wall = 0.0
  private var started = 0.0

  public init() {}

  /// One thread's clocks and counters at a moment.
  struct Mark {
    var wall = 0.0, user = 0.0, system = 0.0
    var faults = 0, preemptions = 0
  }

  func start(threads count: Int) {
    threads = (0..<count).map { _ in ThreadTimes() }
    started = Self.monotonic()
  }

  func stop() { wall = Self.monotonic() - started }

  func mark() -> Mark {
    var m = Mark(wall: Self.monotonic())
    // The thread's CPU clock is exact; its rusage times are tick samples scaled to it, which over
    // one frame can be off by milliseconds: they only split it into user and system.
    let cpu = Self.threadCPUSeconds()
    m.user = cpu
    #if os(Linux)
      var usage = rusage()
      getrusage(1, &usage)  // RUSAGE_THREAD, which the Glibc module does not export
      m.system = min(cpu, Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) * 1e-6)
      m.user = cpu - m.system
      (m.faults, m.preemptions) = (usage.ru_minflt, usage.ru_nivcsw)
    #endif
    return m
  }

  /// `take()`, its wall time added to thread `index`'s waiting.
  func timeWaiting(thread index: Int, _ take: () -> Int?) -> Int? {
    let t0 = Self.monotonic()
    defer { threads[index].waiting += Self.monotonic() - t0 }
    return take()
  }

  /// Adds what the calling thread did since `start` to thread `index`'s sums.
  func add(since start: Mark, thread index: Int) {
    let end = mark()
    let t = threads[index]
    t.frames += 1
    t.busy += end.wall - start.wall
    t.user += end.user - start.user
    t.system += end.system - start.system
    t.faults += end.faults - start.faults
    t.preemptions += end.preemptions - start.preemptions
  }

  /// The calling thread's CPU clock, in seconds.
  public static func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
  }

  static func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
  }
}
