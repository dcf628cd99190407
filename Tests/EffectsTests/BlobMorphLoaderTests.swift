import Foundation
import Raster
import Testing
import Timing

@testable import Effects

@Test(arguments: [0.0, 0.4, 3.3, 77.7])
func blobOutlineIsClosedAndStartsWhereItEnds(time: Double) {
  let path = BlobMorphLoaderMath.path(side: 96, clock: Clock(time: time), speed: 1)
  guard case .move(let start)? = path.elements.first else {
    Issue.record("the outline does not start with a move")
    return
  }
  let quads = path.elements.compactMap { e -> Point? in
    if case .quad(_, let to) = e { return to }
    return nil
  }
  #expect(quads.count == 16)
  #expect(quads.last == start)
  #expect(path.elements.last == .close)
}

@Test(arguments: [0.0, 1.1, 2.9, 1e6])
func blobRadiiStayWithinAThirdOfTheBase(time: Double) {
  let base = 96 * 0.31
  for r in BlobMorphLoaderMath.radii(side: 96, clock: Clock(time: time), speed: 1) {
    #expect(r >= base * 0.68 - 1e-9 && r <= base * 1.32 + 1e-9)
  }
}

@Test func blobRadiusAtTimeZeroIsTheSeeds() {
  // Point 1 at angle 2π/16: swell = 0.16 sin(2a) + 0.10 sin(3a) + 0.06 sin(5a).
  let a = 2 * Double.pi / 16
  let swell = 0.16 * sin(2 * a) + 0.10 * sin(3 * a) + 0.06 * sin(5 * a)
  let r = BlobMorphLoaderMath.radii(side: 100, clock: Clock(time: 0), speed: 1)[1]
  #expect(abs(r - 31 * (1 + swell)) < 1e-9)
}

@Test func loaderLeavesItsCornersTransparentAndFillsItsMiddle() {
  let image = Image(width: 64, height: 64)
  var context = Surface(image: image, scale: 64.0 / 96).context()
  let effect = BlobMorphLoader(
    values: ParameterValues(specs: BlobMorphLoader.info.parameters), environment: RenderEnvironment())
  effect.draw(in: &context, clock: Clock(time: 2))
  // The glow's Gaussian tail is far below one 8-bit step there: a PNG stores alpha 0.
  for (x, y) in [(0, 0), (63, 0), (0, 63), (63, 63)] { #expect(image[x, y].w * 255 < 0.5) }
  #expect(image[32, 32].w > 0.99)
  for i in 0..<image.count { #expect(image.pixels[i].w.isFinite && image.pixels[i].w <= 1.0001) }
  // The glow reaches past the crisp edge: some pixels are neither clear nor solid.
  #expect((0..<image.count).contains { image.pixels[$0].w > 0.02 && image.pixels[$0].w < 0.5 })
}

@Test func loaderIsClippedToItsSquare() {
  // A 32 pt loader in a 64 pt video: nothing outside the centered square, the glow included.
  let image = Image(width: 64, height: 64)
  var context = Surface(image: image, scale: 1).context()
  let values = ParameterValues(specs: BlobMorphLoader.info.parameters, given: ["size": .number(32)])
  BlobMorphLoader(values: values, environment: RenderEnvironment()).draw(in: &context, clock: Clock(time: 0))
  for y in 0..<64 {
    for x in 0..<64 where x < 16 || x >= 48 || y < 16 || y >= 48 { #expect(image[x, y].w == 0) }
  }
}
