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
/// Frames render in batches of one frame per thread with `concurrentPerform`, each thread in its
/// own surface, and are converted to the encoders' samples on the same threads. While one batch
/// is encoded on a serial queue, the next renders into the other half of a two-batch ring, so
/// memory stays flat however long the video is: `threads` float frames plus 2 x `threads`
/// converted frames per output.
public enum RenderPipeline {
  /// Renders `job`; `progress(done, total)` is called on the encoder queue after each batch.
  ///
  /// With `discard` every frame is drawn and converted for the job's outputs as usual, but
  /// nothing is encoded or written (`render --null`): the render alone, for timing it.
  public static func run(
    _ job: RenderJob, discard: Bool = false, progress: (@Sendable (Int, Int) -> Void)? = nil
  ) throws -> RenderResult {
    try Cancellation.check()
    // A size budget renders once and encodes the kept frames until each file fits (SizeBudget).
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
        job, converters: converters, into: writers, posters: posters, palettes: writers, progress: progress)
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

  /// Draws every frame of `job` in parallel batches, one frame a render thread, and hands each
  /// output's converted frames to its sink in order on one encoder queue; the next batch draws
  /// while the last one is handed over. Frame 0 goes to `posters` as drawn, and the GIF writers
  /// among `palettes` get their palette frames first. Throws the first error, or `Interrupted`.
  static func drawFrames(
    _ job: RenderJob, converters: [FrameConverter], into sinks: [any FrameSink], posters: [VideoWriter],
    palettes: [VideoWriter], progress: (@Sendable (Int, Int) -> Void)?
  ) throws {
    let threads = max(1, min(job.threads, job.frameCount))
    let surfaces = (0..<threads).map { _ in
      Surface(image: Image(width: job.width, height: job.height), scale: Float(job.scale))
    }
    // ring[half][slot][output]
    let ring = (0..<2).map { _ in (0..<threads).map { _ in converters.map { $0.makeFrame() } } }
    try Cancellation.check()  // allocating large frames takes a moment; no file exists yet
    let shared = SharedRender(effect: job.makeEffect(), surfaces: surfaces, converters: converters, ring: ring)
    try samplePalettes(job: job, writers: palettes, shared: shared, threads: threads)
    let encoder = DispatchQueue(label: "loopsmith.encoder")
    let encoding = DispatchGroup()
    let failure = FailureBox()
    let total = job.frameCount
    let batches = (total + threads - 1) / threads
    let sinkBox = SinkBox(sinks)

    for batch in 0..<batches {
      if let signal = Cancellation.signal { failure.set(Interrupted(signal: signal)) }
      if failure.error != nil { break }
      let half = batch % 2
      let first = batch * threads
      let count = min(threads, total - first)
      // At most one batch is encoding here, the previous one, from the other half: this batch
      // renders while it encodes, and waits for it only before handing its own half over.
      DispatchQueue.concurrentPerform(iterations: count) { slot in
        shared.render(job: job, frame: first + slot, slot: slot, half: half)
      }
      if batch == 0 && Cancellation.signal == nil {
        do { for poster in posters { try poster.append(surfaces[0].image) } } catch { failure.set(error) }
      }
      encoding.wait()
      encoding.enter()
      encoder.async {
        defer { encoding.leave() }
        guard failure.error == nil else { return }
        do {
          for slot in 0..<count {
            try Cancellation.check()  // a large batch encodes for a while: stop between frames
            for (o, sink) in sinkBox.sinks.enumerated() { try sink.append(shared.ring[half][slot][o]) }
          }
          progress?(first + count, total)
        } catch {
          failure.set(error)
        }
      }
    }
    encoding.wait()
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
        shared.render(job: job, frame: frames[start + slot], slot: slot, half: 0)
      }
      try Cancellation.check()
      for slot in 0..<count {
        for o in sampling { try writers[o].addPaletteSample(shared.ring[0][slot][o]) }
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
}

/// What the render threads share. Each `concurrentPerform` iteration touches only its own slot
/// (its surface and its ring entries), and the encoder reads a half only after the batch that
/// filled it has finished, so no two threads ever touch the same memory: `@unchecked Sendable`.
private final class SharedRender: @unchecked Sendable {
  let effect: any Effect
  let surfaces: [Surface]
  let converters: [FrameConverter]
  let ring: [[[ConvertedFrame]]]

  init(effect: any Effect, surfaces: [Surface], converters: [FrameConverter], ring: [[[ConvertedFrame]]]) {
    (self.effect, self.surfaces, self.converters, self.ring) = (effect, surfaces, converters, ring)
  }

  func render(job: RenderJob, frame: Int, slot: Int, half: Int) {
    // A stopped render skips its remaining frames; the batch loop then throws `Interrupted`.
    guard Cancellation.signal == nil else { return }
    let surface = surfaces[slot]
    RenderPipeline.draw(effect, job: job, frame: job.firstFrame + frame, on: surface)
    for (o, converter) in converters.enumerated() {
      converter.convert(surface.image, into: ring[half][slot][o], drawn: surface.drawn)
    }
  }
}

/// Where a render's converted frames go, in order: an encoder (`VideoWriter`), or the raw frame
/// file a size budget encodes from (SizeBudget).
protocol FrameSink: AnyObject {
  func append(_ frame: ConvertedFrame) throws
}

extension VideoWriter: FrameSink {}

/// The sinks, handed to the encoder queue; only that queue uses them while a batch encodes.
private final class SinkBox: @unchecked Sendable {
  let sinks: [any FrameSink]
  init(_ sinks: [any FrameSink]) { self.sinks = sinks }
}

/// The first error any thread hit.
private final class FailureBox: @unchecked Sendable {
  private let lock = NSLock()
  private var first: (any Error)?
  var error: (any Error)? { lock.withLock { first } }
  func set(_ e: any Error) { lock.withLock { if first == nil { first = e } } }
}
