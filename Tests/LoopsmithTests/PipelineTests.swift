import Effects
import Foundation
import Raster
import Testing
import Timing
import Video
import _TestSupport

@testable import Loopsmith

/// A hash of a frame's pixels, bit for bit.
func checksum(_ image: Image) -> UInt64 {
  var h: UInt64 = 0xcbf2_9ce4_8422_2325
  for i in 0..<image.count {
    let p = image.pixels[i]
    for v in [p.x, p.y, p.z, p.w] {
      h = (h ^ UInt64(v.bitPattern)) &* 0x100_0000_01b3
    }
  }
  return h
}

func job(
  _ effect: String, _ set: [String: String] = [:], size: (Int, Int) = (36, 64), fps: Int? = nil,
  duration: Double? = nil, threads: Int = 1, output: String = "x.mp4"
) throws -> RenderJob {
  var r = RenderRequest()
  r.effect = effect
  r.size = size
  r.scale = 0.1
  r.fps = fps
  r.duration = duration
  r.threads = threads
  r.outputs = [output]
  let type = try #require(EffectRegistry.type(named: effect))
  for (k, v) in set { r.parameters[k] = try #require(type.info.parameter(named: k)).parse(v) }
  return try r.job()
}

func frame(_ job: RenderJob, _ index: Int) -> Image {
  let surface = Surface(image: Image(width: job.width, height: job.height), scale: Float(job.scale))
  RenderPipeline.draw(job.makeEffect(), job: job, frame: index, on: surface)
  return surface.image
}

@Suite struct LoopTests {
  static let cases: [(String, [String: String])] = [
    ("color-orbs", [:]), ("aurora-mesh", [:]), ("blob-morph-loader", [:]),
    ("voice-orb", ["state": "idle"]), ("voice-orb", ["state": "listening", "level": "0.6"]),
    ("voice-orb", ["state": "thinking"]), ("voice-orb", ["state": "speaking", "level": "0.9"]),
    ("weather", ["weather": "clearDay"]), ("weather", ["weather": "clearNight"]), ("weather", ["weather": "cloudy"]),
    ("weather", ["weather": "rain"]), ("weather", ["weather": "thunderstorm"]), ("weather", ["weather": "snow"]),
    ("weather", ["weather": "fog"]),
    ("weather", ["sequence": "rain:1.5,snow:1.5", "repeat": "true"]),
  ]

  /// The frame at t = T (frame N, one past the last) is frame 0 again, before any encoding.
  @Test(arguments: cases)
  func theLoopClosesOnFrameZero(effect: String, set: [String: String]) throws {
    let j = try job(effect, set, fps: 10)
    let plan = try #require(j.plan)
    #expect(j.frameCount == Int((plan.length * 10).rounded()))
    func step(_ a: Image, _ b: Image) -> Float {
      var worst: Float = 0
      for i in 0..<a.count { worst = max(worst, (a.pixels[i] - b.pixels[i]).max(), (b.pixels[i] - a.pixels[i]).max()) }
      return worst
    }
    let zero = frame(j, 0)
    // Phases whole to the last bit, and crossfaded layers drawn at the time within the loop, give
    // equal frames; Float rounding of large phases leaves < 1/4 code.
    #expect(step(zero, frame(j, j.frameCount)) < 1.0 / 1024, "\(effect) \(set): frame N differs from frame 0")
    if plan.crossfades {
      // And the crossfade reaches frame 0 by an ordinary step.
      let last = frame(j, j.frameCount - 1), beforeLast = frame(j, j.frameCount - 2)
      let seam = step(last, zero), ordinary = max(step(beforeLast, last), step(zero, frame(j, 1)))
      #expect(seam <= 1.5 * ordinary + 1.0 / 512, "\(effect) \(set): seam \(seam) against steps of \(ordinary)")
    }
    // And it moves: a frame in between differs.
    #expect(checksum(frame(j, j.frameCount / 2)) != checksum(zero))
  }

  @Test func framesDoNotDependOnTheThreadCount() throws {
    let one = try job("weather", ["weather": "rain"], fps: 10, threads: 1)
    let two = try job("weather", ["weather": "rain"], fps: 10, threads: 2)
    for i in [0, 3, 17] { #expect(checksum(frame(one, i)) == checksum(frame(two, i))) }
  }

  @Test func aWeatherLoopIsAWholeNumberOfLightningCycles() throws {
    for w in ["clearDay", "rain", "thunderstorm", "snow", "fog"] {
      let j = try job("weather", ["weather": w])
      #expect(j.duration.truncatingRemainder(dividingBy: 6) == 0, "\(w): \(j.duration) s")
    }
  }

  @Test func aThunderstormFlashesAtTheSameFramesInEveryCycle() throws {
    let j = try job("weather", ["weather": "thunderstorm"], fps: 10, duration: 12)
    func brightness(_ i: Int) -> Float {
      let f = frame(j, i)
      var s: Float = 0
      for k in 0..<f.count { s += f.pixels[k].x }
      return s / Float(f.count)
    }
    // Flashes at 0.4 s and 0.75 s of each 6 s cycle: frames 5 and 8 (0.5 s, 0.8 s), 65 and 68;
    // the frames a second later are dark in both cycles.
    for cycle in [0, 60] {
      #expect(brightness(cycle + 5) > brightness(cycle + 15) + 0.05)
      #expect(brightness(cycle + 8) > brightness(cycle + 18) + 0.05)
    }
  }
}

/// The render threads take frames as they come free and the frames are handed over in order
/// (RenderPipeline.drawFrames, docs/PERFORMANCE.md, Thread scaling).
@Suite struct PipelineThreadTests {
  /// Every frame, in order and with the same bytes, on any number of render threads: more
  /// threads than frames in flight, than cores, an odd number; the thunderstorm's frames differ
  /// in cost (flashes, drops), so the threads finish them out of order.
  @Test func framesArriveInOrderWithTheSameBytesOnAnyNumberOfThreads() throws {
    var reference: [[UInt8]] = []
    for threads in [1, 2, 3, 5] {
      let j = try job("weather", ["weather": "thunderstorm"], fps: 10, threads: threads).prefix(23)
      let converter = FrameConverter(j.outputs[0])
      let sink = CollectingFrames()
      let progress = ProgressLog()
      try RenderPipeline.drawFrames(
        j, converters: [converter], into: [sink], posters: [], palettes: [],
        progress: { done, total in progress.add(done, total) })
      #expect(sink.frames.count == 23, "\(threads) threads")
      if threads == 1 {
        reference = sink.frames
        // The frames differ from one another: an order mixed up would show.
        #expect(Set(reference).count > 20)
      } else {
        for i in 0..<23 where i < sink.frames.count {
          #expect(sink.frames[i] == reference[i], "frame \(i) on \(threads) threads")
        }
      }
      let calls = progress.calls
      #expect(calls.last?.0 == 23 && calls.allSatisfy { $0.1 == 23 }, "\(threads) threads: \(calls)")
      #expect(zip(calls, calls.dropFirst()).allSatisfy { $0.0 < $1.0 }, "\(threads) threads: \(calls)")
    }
  }

  /// A sink that fails stops the render with its error, after exactly the frames before it, and
  /// the render threads return (no thread waits forever for a slot).
  @Test func aFailingSinkStopsTheRenderWithItsError() throws {
    for threads in [1, 2, 4] {
      let j = try job("color-orbs", fps: 10, threads: threads).prefix(30)
      let sink = CollectingFrames(failAt: 7)
      #expect(throws: SinkFailure.self) {
        try RenderPipeline.drawFrames(
          j, converters: [FrameConverter(j.outputs[0])], into: [sink], posters: [], palettes: [], progress: nil)
      }
      #expect(sink.frames.count == 7, "\(threads) threads")
    }
  }

  /// With no sink (`--null`) the render threads run ahead of the calling thread, each frame
  /// handed over as drawn, and the calling thread only reports progress: held up (here by its
  /// first progress call) while they overwrite slots, it must still see every frame as done, not
  /// wait forever, and report each count once, rising to the last. Run on a thread of its own, so
  /// a hang fails the test instead of the suite.
  @Test func aNullRenderFinishesWhenTheCallingThreadFallsBehind() throws {
    let j = try job("color-orbs", fps: 10, threads: 2).prefix(40)
    let converter = FrameConverter(j.outputs[0])
    let progress = ProgressLog()
    let finished = DispatchSemaphore(value: 0)
    let worker = Thread {
      defer { finished.signal() }
      try? RenderPipeline.drawFrames(
        j, converters: [converter], into: [], posters: [], palettes: [],
        progress: { done, total in
          // The render threads draw the rest meanwhile.
          if progress.calls.isEmpty { Thread.sleep(forTimeInterval: 1) }
          progress.add(done, total)
        })
    }
    worker.start()
    #expect(finished.wait(timeout: .now() + 120) == .success, "the render did not finish")
    #expect(progress.calls.last?.0 == 40, "\(progress.calls)")
    let calls = progress.calls
    #expect(zip(calls, calls.dropFirst()).allSatisfy { $0.0 < $1.0 }, "\(calls)")
  }

  /// With no sink the calling thread is not woken for every frame drawn (on 2 cores it would be a
  /// third thread preempting a render thread: docs/PERFORMANCE.md, Thread scaling): it reports
  /// progress when it wakes, ten times a second or when the last frame is drawn. Woken for every
  /// frame, it would report about one call a frame; a bound from the run's own wall time keeps a
  /// slow machine from failing the test.
  @Test func aNullRenderWakesTheCallingThreadAFewTimesASecondNotEveryFrame() throws {
    let j = try job("color-orbs", fps: 30, threads: 2).prefix(300)
    #expect(j.frameCount == 300)
    let progress = ProgressLog()
    let start = Date()
    try RenderPipeline.drawFrames(
      j, converters: [FrameConverter(j.outputs[0])], into: [], posters: [], palettes: [],
      progress: { done, total in progress.add(done, total) })
    let seconds = Date().timeIntervalSince(start)
    let calls = progress.calls
    #expect(calls.last?.0 == 300 && calls.allSatisfy { $0.1 == 300 }, "\(calls)")
    #expect(Double(calls.count) <= seconds / 0.1 + 2, "\(calls.count) progress calls in \(seconds) s")
  }

  /// With no sink a render thread that ran a whole ring ahead of a slower one waits for a slot;
  /// the slower one's frame, once drawn, hands the slots over and must wake it (left asleep, the
  /// render would go on one thread). The calling thread's wait ends when the last frame is drawn.
  @Test func aRenderThreadARingAheadIsWokenWhenTheSlowerOneHandsItsFrameOver() throws {
    let queue = FrameQueue(frames: 6, slots: 4, handOverWhenDrawn: true)
    #expect(queue.take() == 0)  // the slower thread's frame, drawn below
    for frame in 1..<4 {
      #expect(queue.take() == frame)
      queue.drawn(frame)
    }
    let taken = TakenFrame()
    let woken = DispatchSemaphore(value: 0)
    Thread {
      taken.frame = queue.take()  // every slot is full until frame 0 is drawn
      woken.signal()
    }.start()
    let waitStart = Date()
    while queue.waitingToTake == 0 && Date().timeIntervalSince(waitStart) < 10 {
      Thread.sleep(forTimeInterval: 0.005)
    }
    #expect(queue.waitingToTake == 1, "the thread never waited for a slot")
    #expect(taken.frame == nil)
    queue.drawn(0)
    let wasWoken = woken.wait(timeout: .now() + 10) == .success
    #expect(wasWoken, "the thread waiting for a slot was not woken")
    if !wasWoken {
      queue.stop()
      woken.wait()
    }
    #expect(taken.frame == 4)
    #expect(queue.waitForAll(seconds: 0.01) == (4, false))
    #expect(queue.take() == 5)
    queue.drawn(4)
    queue.drawn(5)
    #expect(queue.waitForAll(seconds: 10) == (6, true))
  }

  /// SVT-AV1 run by root puts the thread that opens it on SCHED_FIFO priority 99, which render
  /// threads and processes started from it later inherit (a browser spinning at real-time
  /// priority starved this machine): the encoder is opened without the capability to, so the
  /// render's thread stays an ordinary one. Not root: nothing to refuse, the check still holds.
  /// The thread is put on SCHED_OTHER first: a test process started at real-time priority (as a
  /// CI runner may be) hands its policy to every thread it starts, which would fail the check
  /// without any help from the encoder; when it cannot be lowered, the policy must not change.
  @Test func anAV1RenderLeavesItsThreadOffRealTimePriority() throws {
    let dir = TemporaryDirectory()
    var r = RenderRequest()
    r.effect = "color-orbs"
    (r.size, r.fps, r.duration, r.threads, r.codec) = ((64, 64), 5, 1, 2, "av1")
    r.outputs = [dir.path("orbs.mp4")]
    let job = try r.job()
    let policy = PolicyBox()
    let finished = DispatchSemaphore(value: 0)
    let worker = Thread {
      defer { finished.signal() }
      var ordinary = sched_param(sched_priority: 0)
      _ = sched_setscheduler(0, SCHED_OTHER, &ordinary)
      policy.before = sched_getscheduler(0)
      do { _ = try RenderPipeline.run(job) } catch { policy.error = "\(error)" }
      policy.value = sched_getscheduler(0)
    }
    worker.start()
    #expect(finished.wait(timeout: .now() + 300) == .success)
    #expect(policy.error == nil, "\(policy.error ?? "")")
    #expect(
      policy.value == policy.before, "the rendering thread's policy went from \(policy.before) to \(policy.value)")
    if geteuid() != 0 {
      print("not root: SVT-AV1 could not have raised the thread's priority, so this check proves little here")
    }
    if policy.before != SCHED_OTHER {
      print("the test thread could not be put on SCHED_OTHER (policy \(policy.before)); only the change was checked")
    }
  }

  /// The profile counts every frame once, on the threads that drew them, and their busy time
  /// within the run's wall time.
  @Test func theThreadProfileCountsEveryFrame() throws {
    let j = try job("aurora-mesh", fps: 10, threads: 2).prefix(16)
    let profile = RenderThreadProfile()
    _ = try RenderPipeline.run(j, discard: true, profile: profile)
    #expect(profile.threads.count == 2)
    #expect(profile.threads.reduce(0) { $0 + $1.frames } == 16)
    for t in profile.threads {
      #expect(t.busy >= 0 && t.busy <= profile.wall && t.user + t.system >= 0)
    }
    #expect(profile.threads.reduce(0) { $0 + $1.user + $1.system } > 0)
  }
}

private struct SinkFailure: Error {}

/// Keeps the bytes of every frame handed over; throws at frame `failAt`.
private final class CollectingFrames: FrameSink {
  var frames: [[UInt8]] = []
  let failAt: Int?
  init(failAt: Int? = nil) { self.failAt = failAt }
  func append(_ frame: ConvertedFrame) throws {
    if frames.count == failAt { throw SinkFailure() }
    frames.append(BandRenderingTests.bytes(frame))
  }
}

/// The progress calls, from whichever thread makes them.
private final class ProgressLog: @unchecked Sendable {
  private let lock = NSLock()
  private var log: [(Int, Int)] = []
  func add(_ done: Int, _ total: Int) { lock.withLock { log.append((done, total)) } }
  var calls: [(Int, Int)] { lock.withLock { log } }
}

/// The frame a thread took.
private final class TakenFrame: @unchecked Sendable {
  private let lock = NSLock()
  private var taken: Int?
  var frame: Int? {
    get { lock.withLock { taken } }
    set { lock.withLock { taken = newValue } }
  }
}

/// What the rendering thread saw.
private final class PolicyBox: @unchecked Sendable {
  var before: Int32 = -1
  var value: Int32 = -1
  var error: String?
}
