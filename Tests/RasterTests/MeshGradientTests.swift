import Testing

@testable import Raster

private func P(_ x: Float, _ y: Float) -> Point { SIMD2(x, y) }

/// A 3x3 mesh with the interior point off center and nine different colors.
private func sampleMesh(colors: [Color]? = nil) -> MeshGradient {
  let points: [Point] = [
    P(0, 0), P(0.6, 0), P(1, 0),
    P(0, 0.4), P(0.35, 0.62), P(1, 0.55),
    P(0, 1), P(0.45, 1), P(1, 1),
  ]
  let palette: [Color] =
    colors
    ?? (0..<9).map { (i: Int) -> Color in
      let f = Float(i)
      return Color(red: f / 8, green: (8 - f) / 8, blue: Float(i % 3) / 2)
    }
  return MeshGradient(width: 3, height: 3, points: points, colors: palette)
}

@Test func meshCornersAreExactlyTheirColorsAndPlaces() {
  let mesh = sampleMesh()
  for j in 0..<2 {
    for i in 0..<2 {
      for (u, v) in [(Float(0), Float(0)), (1, 0), (0, 1), (1, 1)] {
        let (pi, pj) = (i + Int(u), j + Int(v))
        #expect(mesh.color(patch: i, j, u: u, v: v) == mesh.colors[pj * 3 + pi].premultiplied)
        #expect(mesh.position(patch: i, j, u: u, v: v) == mesh.points[pj * 3 + pi])
      }
    }
  }
}

@Test(arguments: [Float(0), 0.1, 0.25, 0.5, 0.77, 1])
func meshEdgesStayOnTheBoundsEdges(t: Float) {
  let mesh = sampleMesh()
  for i in 0..<2 {
    #expect(mesh.position(patch: i, 0, u: t, v: 0).y == 0)
    #expect(mesh.position(patch: i, 1, u: t, v: 1).y == 1)
    #expect(mesh.position(patch: 0, i, u: 0, v: t).x == 0)
    #expect(mesh.position(patch: 1, i, u: 1, v: t).x == 1)
  }
}

@Test func aMeshOfOneColorIsFlatAndPaintsEveryPixelOnce() {
  // Half transparent: a pixel painted twice would show alpha 0.75, a missed one 0.
  let color = Color(red: 0.2, green: 0.5, blue: 0.9, alpha: 0.5)
  let image = Image(width: 37, height: 23)
  let surface = Surface(image: image, scale: 1)
  surface.context().drawMesh(sampleMesh(colors: Array(repeating: color, count: 9)))
  let want = color.premultiplied
  var worst: Float = 0
  for i in 0..<image.count {
    let d = image.pixels[i] - want
    worst = max(worst, (0..<4).map { Swift.abs(d[$0]) }.max()!)
  }
  #expect(worst < 1e-5)
}

@Test func aTwoByTwoMeshIsABilinearGradient() {
  // With one-sided Catmull-Rom derivatives at both ends, the Hermite curve is the straight line.
  let mesh = MeshGradient(
    width: 2, height: 2, points: [P(0, 0), P(1, 0), P(0, 1), P(1, 1)],
    colors: [.black, .white, .black, .white])
  let image = Image(width: 64, height: 2)
  Surface(image: image, scale: 1).context().drawMesh(mesh)
  for x in 0..<64 {
    let want = (Float(x) + 0.5) / 64
    #expect(abs(image[x, 1].x - want) < 1e-4, "pixel \(x)")
    #expect(image[x, 1].w == 1)
  }
}

@Test func meshSmoothColorsAreBicubic() {
  // Three columns black, white, black: Catmull-Rom gives the middle point zero slope, so a quarter
  // of the way the Hermite value is 0.5 · h01(0.5) + ... = 0.5 + 0.125 · 0.5 (left slope 1 at 0).
  let mesh = MeshGradient(
    width: 3, height: 2,
    points: [P(0, 0), P(0.5, 0), P(1, 0), P(0, 1), P(0.5, 1), P(1, 1)],
    colors: [.black, .white, .black, .black, .white, .black])
  let c = mesh.color(patch: 0, 0, u: 0.5, v: 0.3)
  // h01(0.5) = 0.5, h10(0.5) = 0.125 times the start slope 1, h11 times the end slope 0.
  #expect(abs(c.x - 0.625) < 1e-6)
  let linear = MeshGradient(width: 3, height: 2, points: mesh.points, colors: mesh.colors, smoothsColors: false)
  #expect(abs(linear.color(patch: 0, 0, u: 0.5, v: 0.3).x - 0.5) < 1e-6)
}

@Test func meshUnderOpacityAndClipGoesThroughALayer() {
  let image = Image(width: 8, height: 8)
  var context = Surface(image: image, scale: 1).context()
  context.opacity = 0.5
  context.clip(to: Path(rect: Rect(x: Float(0), y: 0, width: 4, height: 8)))
  context.drawMesh(sampleMesh(colors: Array(repeating: .white, count: 9)))
  #expect(abs(image[1, 3].w - 0.5) < 1e-6)
  #expect(image[6, 3].w == 0)
}

@Test func aMeshTooSmallDrawsNothing() {
  let image = Image(width: 4, height: 4)
  Surface(image: image, scale: 1).context().drawMesh(
    MeshGradient(width: 3, height: 3, points: [P(0, 0)], colors: [.white]))
  #expect(image[2, 2] == .zero)
}

// MARK: - Painting a chunk of rows at a time, and crossfades

/// The sample mesh with its interior point moved: another moment of it.
private func movedMesh(colors: [Color]? = nil) -> MeshGradient {
  var mesh = sampleMesh(colors: colors)
  mesh.points[4] = P(0.58, 0.41)
  mesh.points[1] = P(0.3, 0)
  return mesh
}

private func bits(_ image: Image) -> [UInt32] {
  (0..<image.count).flatMap { i -> [UInt32] in
    let p = image.pixels[i]
    return [p.x.bitPattern, p.y.bitPattern, p.z.bitPattern, p.w.bitPattern]
  }
}

/// Draws `draw` on a fresh frame whole, and band by band (bands of 10 rows) on a band surface
/// whose image held another frame; returns both frames' pixels.
private func wholeAndBanded(
  width: Int, height: Int, _ draw: (inout GraphicsContext) -> Void
) -> (whole: Image, banded: Image) {
  let whole = Image(width: width, height: height)
  var context = Surface(image: whole, scale: 1).context()
  draw(&context)
  let banded = drawnInBands(
    width: width, height: height, bandRows: 10,
    beforeBand: { $0.image.pixels.update(repeating: Pixel(7, -3, 0.5, 9), count: $0.image.count) },  // an old frame
    draw)
  return (whole, banded)
}

@Test(arguments: [[0.3, 0.7], [0.75, 0.25, 0.4], [1.5, -0.2, .nan]])
func aCrossfadeOfMeshesIsDrawBlendedToTheBit(weights: [Double]) {
  // Opaque meshes that tile the frame (painted over without clearing) and half transparent ones
  // (cleared first), three moments mixing through the loop over moments, weights held to 0...1.
  for alpha: Float in [1, 0.5] {
    let palette = (0..<9).map { Color(red: Float($0) / 8, green: 0.3, blue: 1 - Float($0) / 9, alpha: alpha) }
    let moments = [sampleMesh(colors: palette), movedMesh(colors: palette), sampleMesh(colors: palette.reversed())]
    let meshes = Array(moments.prefix(weights.count))
    for (width, height) in [(61, 97), (40, 33)] {
      let fused = wholeAndBanded(width: width, height: height) { $0.drawBlended(meshes: meshes, weights: weights) }
      let layered = wholeAndBanded(width: width, height: height) { context in
        context.drawBlended(weights: weights) { i, c in c.drawMesh(meshes[i]) }
      }
      #expect(bits(fused.whole) == bits(layered.whole), "alpha \(alpha) \(width)x\(height)")
      #expect(bits(fused.banded) == bits(layered.whole), "alpha \(alpha) \(width)x\(height), banded")
      #expect(bits(layered.banded) == bits(layered.whole), "alpha \(alpha) \(width)x\(height), layers banded")
    }
  }
}

@Test func aCrossfadeOverADrawnFrameGoesThroughLayers() {
  // Something drawn first: the meshes are mixed in a layer and composited over it.
  let (whole, banded) = wholeAndBanded(width: 30, height: 24) { context in
    context.fill(Path(rect: Rect(x: Float(0), y: 0, width: 30, height: 24)), with: .color(.white))
    var faded = context
    faded.opacity = 0.5
    faded.drawBlended(meshes: [sampleMesh(), movedMesh()], weights: [0.5, 0.5])
  }
  #expect(bits(whole) == bits(banded))
  // Half the mix over white: no channel below a half.
  #expect((0..<whole.count).allSatisfy { whole.pixels[$0].x >= 0.5 && whole.pixels[$0].w == 1 })
}

@Test func onlyAnOpaqueMeshOnTheFramesBorderTilesIt() throws {
  let surface = Surface(image: Image(width: 37, height: 23), scale: 1)
  let frame = Rect(x: Float(0), y: 0, width: 37, height: 23)
  func tiles(_ mesh: MeshGradient, in rect: Rect? = nil) throws -> Bool {
    try #require(
      MeshRaster.triangles(
        mesh, in: rect ?? frame, transform: .identity, for: surface.canvasLayer, cache: nil)
    ).tiles
  }
  #expect(try tiles(sampleMesh()))
  #expect(try tiles(movedMesh()))
  #expect(try !tiles(sampleMesh(colors: Array(repeating: Color(red: 1, green: 0, blue: 0, alpha: 0.9), count: 9))))
  // Short of the frame's right edge, or folded over itself (the interior point pulled past a corner).
  #expect(try !tiles(sampleMesh(), in: Rect(x: Float(0), y: 0, width: 36, height: 23)))
  var folded = sampleMesh()
  folded.points[4] = P(1.4, 1.3)
  #expect(try !tiles(folded))
}

@Test func aFoldedMeshOverAnOldFrameLeavesNoOldPixel() {
  // Where no triangle reaches, the band's old frame must not show: a folded mesh is cleared under.
  var folded = sampleMesh()
  folded.points[4] = P(1.4, 1.3)
  let (whole, banded) = wholeAndBanded(width: 37, height: 23) { $0.drawMesh(folded) }
  #expect(bits(whole) == bits(banded))
  let (tiled, tiledBanded) = wholeAndBanded(width: 37, height: 23) { $0.drawMesh(movedMesh()) }
  #expect(bits(tiled) == bits(tiledBanded))
  #expect((0..<tiled.count).allSatisfy { tiled.pixels[$0].w == 1 })
}
