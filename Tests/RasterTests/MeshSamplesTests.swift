import Testing

@testable import Raster

/// A large opaque mesh is painted from samples 8 pixels apart (`MeshSamples`): where its color
/// is linear, interpolation gives what filling every pixel gives, to the rounding, borders
/// included; a mesh that bends sharply is filled at every pixel; bands give the whole frame's
/// bits. The aurora's own differences are pinned in EffectsTests (AuroraSamplesTests).

private func P(_ x: Float, _ y: Float) -> Point { SIMD2(x, y) }

/// A 2x2 mesh over the frame whose colors change linearly across and down (the fourth corner
/// is the other three's sum less the first): an affine picture, which triangles and samples
/// both give exactly.
private func linearMesh() -> MeshGradient {
  let c00 = Pixel(0.1, 0.8, 0.3, 1), c10 = Pixel(0.9, 0.2, 0.4, 1), c01 = Pixel(0.2, 0.7, 0.6, 1)
  let c11 = c10 + c01 - c00
  let colors = [c00, c10, c01, c11].map { Color(red: $0.x, green: $0.y, blue: $0.z) }
  return MeshGradient(width: 2, height: 2, points: [P(0, 0), P(1, 0), P(0, 1), P(1, 1)], colors: colors)
}

/// `mesh` drawn on a `width` x `height` frame, from samples or not, whole or in bands of 128.
private func draw(_ mesh: MeshGradient, width: Int, height: Int, sampled: Bool, banded: Bool = false) -> Image {
  let out = Image(width: width, height: height)
  if !banded {
    let surface = Surface(image: out, scale: 1)
    surface.samplesMeshes = sampled
    var context = surface.context()
    context.drawMesh(mesh)
    surface.finish()
    return out
  }
  return drawnInBands(width: width, height: height, bandRows: 128, setUp: { $0.samplesMeshes = sampled }) {
    $0.drawMesh(mesh)
  }
}

private func largestDifference(_ a: Image, _ b: Image) -> Float {
  var worst: Float = 0
  for i in 0..<a.count {
    let d = a.pixels[i] - b.pixels[i]
    worst = max(worst, max(max(abs(d.x), abs(d.y)), max(abs(d.z), abs(d.w))))
  }
  return worst
}

/// Whether `mesh` on a `width` x `height` layer is painted from samples.
private func isSampled(_ mesh: MeshGradient, width: Int, height: Int) -> Bool {
  let surface = Surface(image: Image(width: width, height: height), scale: 1)
  let frame = Rect(x: Float(0), y: 0, width: Float(width), height: Float(height))
  let prepared = MeshRaster.prepared(
    mesh, in: frame, transform: .identity, for: surface.canvasLayer, cache: nil, sampling: true)
  return prepared?.samples != nil
}

/// Sizes whose outer samples sit 4, 2.5 or 1.5 and 2 pixels from the edges (`MeshSamples.placed`),
/// so the interpolation carries the outer cells on over up to 3.5 pixels.
@Test(arguments: [(256, 256), (301, 263), (1083, 300)])
func aLinearMeshFromSamplesIsItsTrianglesToTheRounding(width: Int, height: Int) {
  let mesh = linearMesh()
  #expect(isSampled(mesh, width: width, height: height))
  let sampled = draw(mesh, width: width, height: height, sampled: true)
  let filled = draw(mesh, width: width, height: height, sampled: false)
  #expect(largestDifference(sampled, filled) < 2e-6)
  // Every pixel painted, opaque; the corners are the corner colors, near enough.
  #expect((0..<sampled.count).allSatisfy { sampled.pixels[$0].w == 1 })
  #expect(abs(sampled[0, 0].x - 0.1) < 0.01 && abs(sampled[width - 1, 0].x - 0.9) < 0.01)
  // Bands of 128 rows give the whole frame's bits.
  let banded = draw(mesh, width: width, height: height, sampled: true, banded: true)
  #expect((0..<sampled.count).allSatisfy { sampled.pixels[$0] == banded.pixels[$0] })
}

@Test func onlyLargeGentleOpaqueMeshesAreSampled() {
  let mesh = linearMesh()
  #expect(isSampled(mesh, width: 512, height: 300))
  // Below 256 pixels a side, filling every pixel is cheap.
  #expect(!isSampled(mesh, width: 255, height: 512))
  // Not opaque.
  var faded = mesh
  faded.colors[0] = Color(red: 0.1, green: 0.8, blue: 0.3, alpha: 0.99)
  #expect(!isSampled(faded, width: 512, height: 512))
  // A 5x5 mesh of alternating black and white: its slopes turn by far more than 2 codes a
  // sample where triangles meet, so it is filled at every pixel, and drawn exactly so.
  let points = (0..<25).map { P(Float($0 % 5) / 4, Float($0 / 5) / 4) }
  let colors = (0..<25).map { $0 % 2 == 0 ? Color.black : Color.white }
  let sharp = MeshGradient(width: 5, height: 5, points: points, colors: colors)
  #expect(!isSampled(sharp, width: 512, height: 512))
  let a = draw(sharp, width: 512, height: 512, sampled: true)
  let b = draw(sharp, width: 512, height: 512, sampled: false)
  #expect(largestDifference(a, b) == 0)
}

@Test func theRowLoopIsTheScalarFormula() {
  // Samples i at first + 8 i: pixel x lies (x + 0.5 - first) / 8 - i of the way from sample i.
  // Widths leaving 8, 1, 4 and 7 pixels over: the first sample on a pixel's center or between two.
  for width in [65, 72, 75, 78] {
    let (columns, first) = MeshSamples.placed(width)
    #expect(first >= 0.5 && first <= 4 && first + Float(8 * (columns - 1)) <= Float(width) - 0.5)
    #expect(Float(width) - (first + Float(8 * (columns - 1))) == first)
    let line = UnsafeMutablePointer<Pixel>.allocate(capacity: columns)
    defer { line.deallocate() }
    for i in 0..<columns { line[i] = Pixel(Float(i * i) * 0.01, 1 - Float(i) * 0.1, Float(i % 3), 1) }
    let out = UnsafeMutablePointer<Pixel>.allocate(capacity: width)
    defer { out.deallocate() }
    out.initialize(repeating: Pixel(repeating: .nan), count: width)
    MeshSamples.across(line, columns: columns, first: first, width: width, into: out)
    for x in 0..<width {
      let i = min(max(Int(((Float(x) + 0.5 - first) / 8).rounded(.down)), 0), columns - 2)
      let t = (Float(x) + 0.5 - first) / 8 - Float(i)
      let expected = line[i] + (line[i + 1] - line[i]) * Pixel(repeating: t)
      #expect(out[x] == expected, "x \(x) of \(width)")
    }
  }
}

/// On the canvas a sampled mesh's pixels wait for the first reader (`Surface.sampledRows` until
/// then), and a drawing over the mesh has them written first.
@Test func samplesWaitForTheirFirstReaderAndGiveWayToTheNextDrawing() {
  let mesh = linearMesh()
  let expected = draw(mesh, width: 300, height: 300, sampled: true)
  let out = Image(width: 300, height: 300)
  let old = Pixel(7, 7, 7, 7)
  out.pixels.update(repeating: old, count: out.count)
  let surface = Surface(image: out, scale: 1)
  surface.clear()
  var context = surface.context()
  context.drawMesh(mesh)
  surface.finishKeepingSamples()
  let sampled = surface.sampledRows
  #expect(sampled?.rows == 0..<300 && sampled?.columns == 38 && sampled?.first == 2)
  #expect(out.pixels[0] == old && out.pixels[out.count - 1] == old, "not written yet")
  surface.finish()
  #expect(surface.sampledRows == nil)
  #expect((0..<out.count).allSatisfy { out.pixels[$0] == expected.pixels[$0] })
  // A square drawn over the mesh: the samples are written under it.
  surface.clear()
  context = surface.context()
  context.drawMesh(mesh)
  context.fill(Path(rect: Rect(x: Float(10), y: 10, width: 20, height: 20)), with: .color(.white))
  surface.finishKeepingSamples()
  #expect(surface.sampledRows == nil)
  #expect(out[15, 15] == Pixel(1, 1, 1, 1))
  #expect(out[100, 100] == expected[100, 100] && out[5, 5] == expected[5, 5])
}
