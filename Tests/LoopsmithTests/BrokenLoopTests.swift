import Foundation
import Raster
import Testing
import Video
import _TestSupport

@testable import Loopsmith

/// `check` rejects loops made wrong on purpose: frames from the wrong period (a jump at the seam)
/// and a last frame that repeats the first (a stall), both encoded as real H.264.
@Suite struct BrokenLoopTests {
  /// Writes the rain loop's frames at the given times into an MP4 and checks it.
  func checkRain(times: [Double]) throws -> LoopCheck {
    try checkFrames(of: try job("weather", ["weather": "rain"], size: (64, 112), fps: 10), at: times, as: "rain.mp4")
  }

  @Test func theRightPeriodPasses() throws {
    let n = 120  // the rain's 12 s loop at 10 fps
    let report = try checkRain(times: (0..<n).map { Double($0) / 10 })
    #expect(report.passed, "\(report.failures)")
  }

  @Test func aWrongPeriodJumpsAtTheSeam() throws {
    let report = try checkRain(times: (0..<100).map { Double($0) / 10 })  // 10 s of a 12 s loop
    #expect(!report.passed)
    #expect(report.failures.contains { $0.contains("jumps at the seam") }, "\(report.failures)")
  }

  @Test func aDuplicatedLastFrameStalls() throws {
    // Frame N rendered as well: t = T repeats frame 0 (docs/ENCODING.md, Seamless loops).
    let report = try checkRain(times: (0...120).map { Double($0) / 10 })
    #expect(!report.passed)
    #expect(report.failures.contains { $0.contains("stall") }, "\(report.failures)")
  }
}

/// `job`'s effect drawn at `times` (64x112, 10 fps) into a file named `name` (its format by the
/// extension), then checked on its own: a loop whose frames come from any times a test picks.
func checkFrames(of job: RenderJob, at times: [Double], as name: String) throws -> LoopCheck {
  let dir = TemporaryDirectory()
  let settings = try OutputSettings(path: dir.path(name), width: 64, height: 112, fps: 10, frameCount: times.count)
  let writer = try VideoWriter(settings)
  let surface = Surface(image: Image(width: 64, height: 112), scale: Float(job.scale))
  let effect = job.makeEffect()
  for t in times {
    surface.image.fill(.zero)
    var context = surface.context()
    effect.draw(in: &context, clock: job.clock(ofFrame: 0).at(t))
    try writer.append(surface.image)
  }
  _ = try writer.finish()
  return try LoopCheck.run(path: dir.path(name))
}
