import Dispatch
import Effects
import Foundation
import Raster
import Video

/// A loop re-rendered losslessly in memory, frame by frame, to compare a file with
/// (`check --against`): the same effect, values and loop plan, at the file's size and rate.
final class LoopSource: @unchecked Sendable {
  let job: RenderJob
  /// Whether the file kept alpha; otherwise its frames were drawn over `background` by the converter.
  var keepAlpha: Bool { job.outputs[0].keepAlpha }
  var background: SIMD3<Float> {
    let c = job.outputs[0].background
    return SIMD3(c.red, c.green, c.blue)
  }
  private let effect: any Effect
  private let surfaces: [Surface]
  private var batchStart = -1

  /// The job for `request` at `width` x `height` and the file's rate; `path` is the file, whose
  /// extension gives the format (and so whether alpha was kept).
  init(request: RenderRequest, path: String, width: Int, height: Int, fps: Rational, threads: Int) throws {
    var r = request
    r.outputs = [path]
    r.size = (width, height)
    if r.fps == nil, fps.denominator > 0, fps.numerator % fps.denominator == 0 {
      r.fps = fps.numerator / fps.denominator
    }
    r.threads = 1
    let job = try r.job()
    self.job = job
    effect = job.makeEffect()
    surfaces = (0..<max(1, threads)).map { _ in
      Surface(image: Image(width: job.width, height: job.height), scale: Float(job.scale))
    }
  }

  var frameCount: Int { job.frameCount }

  /// Frame `index` of the loop (0..<frameCount), premultiplied; frames are drawn a batch at a
  /// time on every surface, in order, so ask for them in order. The image is reused by the next batch.
  func frame(_ index: Int) -> Image {
    let n = surfaces.count
    if batchStart < 0 || index < batchStart || index >= batchStart + n {
      batchStart = index
      let count = min(n, job.frameCount - index)
      DispatchQueue.concurrentPerform(iterations: count) { slot in
        RenderPipeline.draw(self.effect, job: self.job, frame: index + slot, on: self.surfaces[slot])
      }
    }
    return surfaces[index - batchStart].image
  }
}
