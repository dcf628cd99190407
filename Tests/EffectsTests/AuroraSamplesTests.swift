import Foundation
import Testing
import Timing

@testable import Effects
@testable import Raster

/// A loop of `length` seconds that crossfades the mesh over its last `window` seconds.
private struct MeshCrossfade: MotionPlan {
  let length: Double
  let window: Double
  func plannedRate(for motion: Motion) -> Double { motion.rate }
  func crossfadeWindow(for layer: String) -> Double? { layer == "mesh" ? window : nil }
}

/// The aurora at `width` x `height` (its 360x640 design), painted from samples or filled at every
/// pixel, whole or in bands of 128 rows.
private func renderAurora(
  sampled: Bool, width: Int, height: Int, time: Double, given: [String: ParameterValue] = [:], banded: Bool = false
) -> Image {
  let effect = AuroraMesh(
    values: ParameterValues(specs: AuroraMesh.info.parameters, given: given), environment: RenderEnvironment())
  let bandRows = banded ? 128 : height
  let surface = Surface(width: width, height: height, bandRows: bandRows, scale: Float(width) / 360)
  surface.samplesMeshes = sampled
  return draw(effect, at: time, on: surface, bandRows: bandRows)
}

/// `effect` at `time` (the 12 s loop crossfading its last 4 s) drawn on `surface` a band of
/// `bandRows` rows at a time, the bands copied into one image.
private func draw(_ effect: AuroraMesh, at time: Double, on surface: Surface, bandRows: Int) -> Image {
  let (width, height) = (surface.width, surface.height)
  let clock = Clock(time: time, plan: MeshCrossfade(length: 12, window: 4))
  let out = Image(width: width, height: height)
  for start in stride(from: 0, to: height, by: bandRows) {
    let rows = start..<min(start + bandRows, height)
    surface.drawBand(rows)
    var context = surface.context()
    effect.draw(in: &context, clock: clock)
    surface.finish()
    out.row(rows.lowerBound).update(from: surface.image.pixels, count: rows.count * width)
  }
  return out
}

@Suite struct AuroraSamplesTests {
  /// The default aurora at full size and at half, at moments across its loop (10.5 s is in the
  /// crossfade of the 12 s loop, where two moments' samples are mixed): within half an 8-bit code
  /// of its triangles filled at every pixel, in every channel of every pixel.
  @Test(arguments: [(1080, 1920), (540, 960)])
  func theAuroraFromSamplesStaysWithinHalfACode(width: Int, height: Int) {
    for time in [0.0, 3.7, 10.5] {
      let sampled = renderAurora(sampled: true, width: width, height: height, time: time)
      let filled = renderAurora(sampled: false, width: width, height: height, time: time)
      var worst: Float = 0
      var differs = false
      for i in 0..<sampled.count {
        let d = sampled.pixels[i] - filled.pixels[i]
        worst = max(worst, max(max(abs(d.x), abs(d.y)), max(abs(d.z), abs(d.w))))
        if sampled.pixels[i] != filled.pixels[i] { differs = true }
      }
      #expect(worst <= 0.5 / 255, "time \(time): \(worst * 255) codes apart")
      // The samples were used: the pictures are not the same bits.
      #expect(differs, "time \(time)")
    }
  }

  /// Black, white and red, the most a mesh of the aurora's shape can bend: sampled where its
  /// bend allows, filled where it does not, and within half a code either way.
  @Test func anAuroraOfExtremeColorsStaysWithinHalfACode() throws {
    let given: [String: ParameterValue] = try [
      "first": .color(#require(ParameterSpec.parseColor("#000000"))),
      "second": .color(#require(ParameterSpec.parseColor("#ffffff"))),
      "third": .color(#require(ParameterSpec.parseColor("#ff0000"))),
    ]
    for time in [0.0, 6.2] {
      let sampled = renderAurora(sampled: true, width: 1080, height: 1920, time: time, given: given)
      let filled = renderAurora(sampled: false, width: 1080, height: 1920, time: time, given: given)
      var worst: Float = 0
      for i in 0..<sampled.count {
        let d = sampled.pixels[i] - filled.pixels[i]
        worst = max(worst, max(max(abs(d.x), abs(d.y)), abs(d.z)))
      }
      #expect(worst <= 0.5 / 255, "time \(time): \(worst * 255) codes apart")
    }
  }

  /// Bands of 128 rows fill the samples each band needs and give the whole frame's bits, in the
  /// crossfade too.
  @Test func bandsGiveTheWholeFramesBits() {
    for time in [3.7, 10.5] {  // moments sampled at this size (1.3 is not)
      let whole = renderAurora(sampled: true, width: 540, height: 960, time: time)
      let banded = renderAurora(sampled: true, width: 540, height: 960, time: time, banded: true)
      #expect((0..<whole.count).allSatisfy { whole.pixels[$0] == banded.pixels[$0] }, "time \(time)")
      // The samples were used: filling every pixel gives other bits.
      let filled = renderAurora(sampled: false, width: 540, height: 960, time: time)
      #expect((0..<whole.count).contains { whole.pixels[$0] != filled.pixels[$0] }, "time \(time)")
    }
  }
}

extension AuroraSamplesTests {
  /// One band surface drawing frame after frame hands each mesh's buffers on to the next
  /// (`MeshStorage`): every frame gives a fresh surface's bits, and the buffers are reused, not
  /// made again, once the first frames have made them.
  @Test func framesAfterFramesReuseTheMeshesBuffersToTheSameBits() {
    let effect = AuroraMesh(
      values: ParameterValues(specs: AuroraMesh.info.parameters), environment: RenderEnvironment())
    let (width, height) = (540, 960)
    let reused = Surface(width: width, height: height, bandRows: 128, scale: 1.5)
    var seen = Set<ObjectIdentifier>()
    var held: [Int] = []
    // Plain frames, then crossfaded ones (two meshes a frame), then plain again.
    for time in [0.2, 0.3, 0.4, 10.1, 10.2, 10.3, 1.0, 1.1] {
      let fresh = renderAurora(sampled: true, width: width, height: height, time: time)
      let image = draw(effect, at: time, on: reused, bandRows: 128)
      #expect((0..<image.count).allSatisfy { image.pixels[$0] == fresh.pixels[$0] }, "time \(time)")
      let storage = reused.meshes.storage
      for store in storage.samples { seen.insert(ObjectIdentifier(store)) }
      held.append(max(storage.samples.count, storage.triangles.count, storage.spans.count, storage.planes.count))
    }
    // Buffers go back and are taken again: no more of them than meshes alive at once (the two a
    // crossfade keeps, and one more while a new one is made), however many frames are drawn.
    #expect(!seen.isEmpty && seen.count <= 3, "sample buffers made: \(seen.count)")
    #expect(held.allSatisfy { $0 <= 3 }, "buffers held between frames: \(held)")
  }
}
