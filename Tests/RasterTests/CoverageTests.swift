import Foundation
import Testing
import _TestSupport

@testable import Raster

/// Draws `path` in white on a transparent `width x height` image at scale 1 and returns each
/// pixel's alpha, row by row.
func alphas(_ path: Path, width: Int, height: Int, rule: FillRule = .nonZero) -> [[Float]] {
  let image = Image(width: width, height: height)
  let surface = Surface(image: image, scale: 1)
  surface.context().fill(path, with: .color(.white), rule: rule)
  return (0..<height).map { y in (0..<width).map { x in image[x, y].w } }
}

@Suite struct CoverageTests {
  @Test func anEdgeOnAHalfPixelCoversHalfThePixel() {
    let a = alphas(Path(rect: Rect(x: 1.5, y: 0, width: 2, height: 1)), width: 5, height: 1)
    #expect(a[0] == [0, 0.5, 1, 0.5, 0])
  }

  @Test func aRectangleCoversItsExactArea() {
    let a = alphas(Path(rect: Rect(x: 0.25, y: 0.5, width: 2.5, height: 1.25)), width: 4, height: 3)
    #expect(abs(a.joined().reduce(0, +) - 2.5 * 1.25) < 1e-5)
    #expect(abs(a[0][0] - 0.75 * 0.5) < 1e-6)  // a corner pixel: the overlap of both edges
    #expect(abs(a[1][1] - 0.75) < 1e-6)
  }

  @Test(arguments: [3.0, 7.3, 20.0])
  func aCircleCoversPiRSquared(radius: Double) {
    let size = Int(2 * radius) + 4
    let c = Point(Float(size) / 2 + 0.37, Float(size) / 2 - 0.21)
    let a = alphas(Path(ellipseIn: Rect(center: c, radius: Float(radius))), width: size, height: size)
    let area = Double(a.joined().reduce(0, +))
    // Chords sit inside the curve by at most the flattening tolerance (0.1 px), and by 2/3 of it
    // on average: the area is short by at most perimeter x tolerance.
    let exact = Double.pi * radius * radius
    #expect(area <= exact + 0.01)
    #expect(exact - area < 2 * .pi * radius * 0.1)
  }

  @Test func aTriangleSlopeCoversTheAreaUnderIt() {
    var p = Path()
    p.move(to: Point(0, 0))
    p.addLine(to: Point(4, 4))
    p.addLine(to: Point(0, 4))
    p.closeSubpath()
    let a = alphas(p, width: 4, height: 4)
    #expect(a[0] == [0.5, 0, 0, 0])
    #expect(a[3] == [1, 1, 1, 0.5])
    #expect(abs(a.joined().reduce(0, +) - 8) < 1e-5)
  }

  @Test func evenOddLeavesTheOverlapEmptyAndNonZeroFillsIt() {
    var p = Path()
    p.addRect(Rect(x: 0, y: 0, width: 4, height: 4))
    p.addRect(Rect(x: 2, y: 0, width: 4, height: 4))
    #expect(alphas(p, width: 6, height: 1, rule: .evenOdd)[0] == [1, 1, 0, 0, 1, 1])
    #expect(alphas(p, width: 6, height: 1, rule: .nonZero)[0] == [1, 1, 1, 1, 1, 1])
  }

  @Test func oppositeWindingsCancelUnderNonZero() {
    var p = Path()
    p.addRect(Rect(x: 0, y: 0, width: 4, height: 1))
    // The same rectangle the other way round: winding 0 inside.
    p.move(to: Point(0, 0))
    p.addLine(to: Point(0, 1))
    p.addLine(to: Point(2, 1))
    p.addLine(to: Point(2, 0))
    p.closeSubpath()
    #expect(alphas(p, width: 4, height: 1)[0] == [0, 0, 1, 1])
  }

  @Test func shapesPastTheEdgesAreClippedNotShifted() {
    let a = alphas(Path(rect: Rect(x: -10, y: -3, width: 12.5, height: 4)), width: 4, height: 2)
    #expect(a[0] == [1, 1, 0.5, 0])
    #expect(a[1] == [0, 0, 0, 0])
    let wide = alphas(Path(rect: Rect(x: 1, y: 0, width: 100, height: 1)), width: 4, height: 1)
    #expect(wide[0] == [0, 1, 1, 1])
  }

  @Test func nonFiniteGeometryDrawsNothing() {
    let a = alphas(Path(rect: Rect(x: .nan, y: 0, width: 2, height: 2)), width: 3, height: 3)
    #expect(a.joined().allSatisfy { $0 == 0 })
  }

  @Test func aStrokeOfWidthTwoCoversTwoRows() {
    var p = Path()
    p.move(to: Point(1, 3))
    p.addLine(to: Point(7, 3))
    let image = Image(width: 8, height: 6)
    Surface(image: image, scale: 1).context().stroke(p, with: .color(.white), lineWidth: 2)
    #expect((0..<6).map { image[4, $0].w } == [0, 0, 1, 1, 0, 0])
    // Butt caps: nothing beyond the ends.
    #expect(image[0, 3].w == 0 && image[7, 3].w == 0 && image[1, 3].w == 1)
  }

  @Test func aMiterJoinFillsTheCornerAndABevelCutsIt() {
    var p = Path()
    p.move(to: Point(2, 10))
    p.addLine(to: Point(10, 10))
    p.addLine(to: Point(10, 2))
    let image = Image(width: 14, height: 14)
    Surface(image: image, scale: 1).context().stroke(p, with: .color(.white), lineWidth: 4)
    #expect(image[11, 11].w == 1)  // the square miter corner is filled
    // A needle-sharp turn exceeds the limit of 10 and gets a bevel: no spike far past the point.
    var sharp = Path()
    sharp.move(to: Point(2, 10))
    sharp.addLine(to: Point(30, 10.5))
    sharp.addLine(to: Point(2, 11))
    let wide = Image(width: 60, height: 20)
    Surface(image: wide, scale: 1).context().stroke(sharp, with: .color(.white), lineWidth: 2)
    #expect((40..<60).allSatisfy { x in (0..<20).allSatisfy { wide[x, $0].w == 0 } })
  }

  @Test func theDisplayScaleMultipliesLengths() {
    let image = Image(width: 6, height: 6)
    Surface(image: image, scale: 3).context().fill(
      Path(rect: Rect(x: 0, y: 0, width: 1, height: 1)), with: .color(.white))
    #expect(image[2, 2].w == 1 && image[3, 3].w == 0)
  }

  @Test func aClipMasksLaterOperations() {
    let image = Image(width: 4, height: 1)
    var ctx = Surface(image: image, scale: 1).context()
    ctx.clip(to: Path(rect: Rect(x: 1, y: 0, width: 1.5, height: 1)))
    ctx.fill(Path(rect: Rect(x: 0, y: 0, width: 4, height: 1)), with: .color(.white))
    #expect((0..<4).map { image[$0, 0].w } == [0, 1, 0.5, 0])
  }

  /// A clip to a rectangle on whole pixels is not rasterized (`ClipMask.solid`): what it draws
  /// is the bits of the same rectangle clipped as a path the rasterizer covers (a fifth point
  /// on its top edge), for fills, a blurred fill, a faded layer and a clip inside it, whole and
  /// in bands.
  @Test func aWholePixelRectangleClipsAsItsCoverageWould() {
    func scene(asPath: Bool) -> (inout GraphicsContext) -> Void {
      { c in
        let box = Rect(x: 3, y: 2, width: 30, height: 40)
        var path = Path(rect: box)
        if asPath {
          path = Path()
          path.move(to: Point(3, 2))
          path.addLine(to: Point(20, 2))
          path.addLine(to: Point(33, 2))
          path.addLine(to: Point(33, 42))
          path.addLine(to: Point(3, 42))
          path.closeSubpath()
        }
        c.fill(
          Path(rect: Rect(x: 0, y: 0, width: 41, height: 77)), with: .color(Color(red: 0.1, green: 0.2, blue: 0.3)))
        c.clip(to: path)
        let ramp = Shading.linearGradient(
          Gradient(colors: [.white, Color(red: 1, green: 0, blue: 0).opacity(0.4)]), start: Point(0, 0),
          end: Point(30, 40))
        c.fill(Path(ellipseIn: Rect(x: -4, y: 5, width: 30, height: 45)), with: ramp)
        var glow = c
        glow.addFilter(.blur(radius: 6))
        glow.opacity = 0.55
        glow.fill(Path(ellipseIn: Rect(x: 10, y: 10, width: 30, height: 20)), with: .color(.white))
        var faded = c
        faded.opacity = 0.7
        faded.drawLayer { inner in
          inner.clip(to: Path(ellipseIn: Rect(x: 5, y: 20, width: 25, height: 25)))
          inner.fill(Path(rect: Rect(x: 0, y: 0, width: 41, height: 77)), with: .color(.white))
        }
      }
    }
    let solid = drawWholeAndInBands(width: 41, height: 77, bandRows: 10, scene(asPath: false))
    let path = drawWholeAndInBands(width: 41, height: 77, bandRows: 10, scene(asPath: true))
    #expect(solid.banded && path.banded)
    // Compared through a Bool: a failure names the case, not thousands of values.
    let sameWhole = channelBits(solid.whole) == channelBits(path.whole)
    let sameBands = channelBits(solid.assembled) == channelBits(path.whole)
    #expect(sameWhole, "a solid clip's whole frame differs from the clip's coverage")
    #expect(sameBands, "a solid clip's bands differ from the clip's coverage")
    #expect(solid.whole[2, 20].x == Color(red: 0.1, green: 0.2, blue: 0.3).premultiplied.x, "outside the clip")
  }
}

/// Axis-aligned rectangles skip edge accumulation; they must cover exactly what the general
/// rasterizer covers (a clip of the whole canvas keeps the general path).
@Suite struct RectangleFillTests {
  func render(_ rect: Rect, shading: Shading, mode: BlendMode, general: Bool) -> Image {
    let surface = Surface(image: Image(width: 40, height: 30), scale: 1)
    var context = surface.context()
    context.fill(
      Path(rect: Rect(x: 0, y: 0, width: 40, height: 30)),
      with: .color(Color(red: 0.2, green: 0.3, blue: 0.4).opacity(0.5)))
    if general { context.clip(to: Path(rect: Rect(x: -5, y: -5, width: 50, height: 40))) }
    context.blendMode = mode
    context.opacity = 0.8
    context.fill(Path(rect: rect), with: shading)
    return surface.image
  }

  @Test(arguments: [
    Rect(x: 3, y: 4, width: 20, height: 10), Rect(x: 3.25, y: 4.6, width: 20.3, height: 10.1),
    Rect(x: -7.5, y: 2.2, width: 60, height: 0.4), Rect(x: 10.3, y: -3, width: 0.6, height: 50),
  ])
  func aRectangleCoversWhatTheGeneralPathCovers(rect: Rect) {
    let ramp = Shading.linearGradient(
      Gradient(colors: [.white, Color(red: 1, green: 0, blue: 0).opacity(0.3)]), start: Point(0, 0), end: Point(40, 0))
    for (shading, mode) in [(Shading.color(.white.opacity(0.7)), BlendMode.sourceOver), (ramp, .screen)] {
      let fast = render(rect, shading: shading, mode: mode, general: false)
      let general = render(rect, shading: shading, mode: mode, general: true)
      var worst: Float = 0
      for i in 0..<fast.count {
        let d = fast.pixels[i] - general.pixels[i]
        worst = max(worst, abs(d.x), abs(d.y), abs(d.z), abs(d.w))
      }
      #expect(worst < 1e-5, "\(rect) \(mode): \(worst)")
    }
  }

  @Test func onlyUprightClosedRectanglesAreRectangles() {
    func lines(_ path: Path, _ t: Transform = .identity) -> Polylines {
      var l = Polylines()
      path.flatten(transform: t, into: &l)
      return l
    }
    let rect = Path(rect: Rect(x: 1, y: 2, width: 3, height: 4))
    #expect(lines(rect).rectangle?.min == Point(1, 2))
    #expect(lines(rect).rectangle?.max == Point(4, 6))
    #expect(lines(rect, .scale(2, 3)).rectangle?.max == Point(8, 18))
    #expect(lines(rect, .rotation(0.3)).rectangle == nil)
    #expect(lines(Path(ellipseIn: Rect(x: 0, y: 0, width: 4, height: 4))).rectangle == nil)
    var two = rect
    two.addRect(Rect(x: 10, y: 10, width: 1, height: 1))
    #expect(lines(two).rectangle == nil)
  }

  /// What `drawShrunk` draws at a blur's whole shrink: one convex polygon going once around.
  @Test func onlyOneConvexPolygonGoingOnceAroundIsConvex() {
    func lines(_ path: Path, _ t: Transform = .identity) -> Polylines {
      var l = Polylines()
      path.flatten(transform: t, into: &l)
      return l
    }
    func polygon(_ corners: [Point]) -> Polylines {
      var l = Polylines()
      l.addPolygon(corners)
      return l
    }
    let ellipse = Path(ellipseIn: Rect(x: 3, y: 5, width: 400, height: 90))
    #expect(lines(ellipse).isOneConvexPolygon)
    #expect(lines(ellipse, .rotation(0.7)).isOneConvexPolygon)
    #expect(lines(Path(rect: Rect(x: 1, y: 2, width: 3, height: 4))).isOneConvexPolygon)
    #expect(polygon([Point(0, 0), Point(10, 0), Point(0, 10)]).isOneConvexPolygon)
    #expect(polygon([Point(0, 0), Point(0, 10), Point(10, 0)]).isOneConvexPolygon)  // the other way round
    // The first corner repeated at the end (a closed run as flattening may leave it) changes nothing.
    #expect(polygon([Point(0, 0), Point(10, 0), Point(0, 10), Point(0, 0)]).isOneConvexPolygon)
    var two = ellipse
    two.addEllipse(in: Rect(x: 500, y: 5, width: 10, height: 10))
    #expect(!lines(two).isOneConvexPolygon)  // two subpaths, even apart
    #expect(!polygon([Point(0, 0), Point(10, 0), Point(10, 10), Point(5, 3), Point(0, 10)]).isOneConvexPolygon)
    // A pentagram turns the same way at every corner but goes around twice.
    let star = (0..<5).map { i in
      let a = Float(i * 2) * 2 * .pi / 5
      return Point(100 * cos(a), 100 * sin(a))
    }
    #expect(!polygon(star).isOneConvexPolygon)
    #expect(!polygon([Point(0, 0), Point(10, 0), Point(20, 0)]).isOneConvexPolygon)  // flat: straight back
    #expect(
      !polygon([Point(0, 0), Point(10, 0), Point(10, 10), Point(10, 20), Point(10, 10), Point(0, 10)])
        .isOneConvexPolygon)  // a spike
    #expect(!polygon([Point(0, 0), Point(10, 0)]).isOneConvexPolygon)
    #expect(!polygon([Point(0, 0), Point(.nan, 0), Point(0, 10)]).isOneConvexPolygon)
  }
}
