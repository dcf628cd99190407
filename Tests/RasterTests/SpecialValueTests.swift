import Foundation
import Testing

@testable import Raster

/// The rasterizer is total: any float reaching its API (coordinates, radii, widths, colours,
/// blur sigmas, transforms, gradient stops, weights) draws something or nothing and never traps,
/// and no NaN or infinity is left in the pixels.
@Suite struct SpecialValueTests {
  static let specials: [Float] = [
    .nan, .infinity, -.infinity, 1e30, -1e30, -0.0, .leastNonzeroMagnitude, .leastNormalMagnitude,
    .greatestFiniteMagnitude,
  ]

  /// A 16x16 canvas after `draw`, with every pixel checked finite and in range.
  static func render(_ draw: (inout GraphicsContext) -> Void) -> Image {
    let image = Image(width: 16, height: 16)
    let surface = Surface(image: image, scale: 1)
    var context = surface.context()
    draw(&context)
    surface.finish()
    for i in 0..<image.count {
      let p = image.pixels[i]
      #expect(p.x.isFinite && p.y.isFinite && p.z.isFinite && p.w.isFinite, "pixel \(i): \(p)")
      #expect(p.w >= 0 && p.w <= 1.0001, "pixel \(i): \(p)")
    }
    return image
  }

  @Test(arguments: specials)
  func aPathWithASpecialCoordinateDrawsNothingOrStaysInside(v: Float) {
    _ = Self.render { c in
      var p = Path()
      p.move(to: Point(2, 2))
      p.addLine(to: Point(v, 3))
      p.addQuadCurve(to: Point(12, v), control: Point(v, v))
      p.addCurve(to: Point(4, 12), control1: Point(v, 1), control2: Point(1, v))
      p.closeSubpath()
      c.fill(p, with: .color(.white))
      c.stroke(p, with: .color(.white), lineWidth: 2)
      c.fill(Path(rect: Rect(x: v, y: 0, width: 8, height: 8)), with: .color(.white))
      c.fill(Path(rect: Rect(x: 0, y: 0, width: v, height: v)), with: .color(.white))
      c.fill(Path(ellipseIn: Rect(center: Point(8, 8), radius: v)), with: .color(.white))
    }
  }

  @Test func aHugeRectangleCoversTheCanvasExactly() {
    let image = Self.render { c in
      c.fill(Path(rect: Rect(x: -1e30, y: -1e30, width: 2e30, height: 2e30)), with: .color(.white))
    }
    #expect(image[0, 0] == Pixel(1, 1, 1, 1) && image[15, 15] == Pixel(1, 1, 1, 1))
  }

  @Test func aNaNPathDrawsNothingAndANaNClipHidesEverything() {
    let image = Self.render { c in
      var p = Path()
      p.move(to: Point(0, 0))
      p.addLine(to: Point(.nan, 16))
      p.addLine(to: Point(16, 16))
      c.fill(p, with: .color(.white))
      var clipped = c
      clipped.clip(to: p)
      clipped.fill(Path(rect: Rect(x: 0, y: 0, width: 16, height: 16)), with: .color(.white))
    }
    #expect((0..<image.count).allSatisfy { image.pixels[$0] == .zero })
  }

  @Test(arguments: specials)
  func aSpecialLineWidthOrMiterNeverTraps(v: Float) {
    _ = Self.render { c in
      var p = Path()
      p.move(to: Point(2, 2))
      p.addLine(to: Point(14, 3))
      p.addLine(to: Point(3, 14))
      c.stroke(p, with: .color(.white), style: StrokeStyle(lineWidth: v, miterLimit: v))
      c.stroke(p, with: .color(.white), lineWidth: Double(v))
    }
  }

  @Test(arguments: specials)
  func aSpecialTransformNeverTraps(v: Float) {
    _ = Self.render { c in
      c.translateBy(x: Double(v), y: 1)
      c.fill(Path(rect: Rect(x: 2, y: 2, width: 8, height: 8)), with: .color(.white))
      var s = c
      s.scaleBy(x: Double(v), y: Double(v))
      s.fill(
        Path(ellipseIn: Rect(x: 2, y: 2, width: 8, height: 8)),
        with: .linearGradient(Gradient(colors: [.white, .black]), start: Point(0, 0), end: Point(8, 8)))
      var r = c
      r.rotate(by: Double(v))
      r.fill(
        Path(rect: Rect(x: 2, y: 2, width: 8, height: 8)),
        with: .radialGradient(Gradient(colors: [.white, .clear]), center: Point(8, 8), startRadius: 0, endRadius: 8))
      r.drawLayer(shadow: .black, radius: 3) {
        $0.fill(Path(rect: Rect(x: 4, y: 4, width: 4, height: 4)), with: .color(.white))
      }
    }
  }

  @Test(arguments: specials)
  func aSpecialGradientNeverTraps(v: Float) {
    // The crash `render color-orbs --scale 1e-20` found: a gradient whose t is NaN.
    let g = Gradient(stops: [
      .init(color: Color(red: v, green: 0.5, blue: 1, alpha: v), location: v), .init(color: .white, location: 0.5),
    ])
    _ = Self.render { c in
      let r = Rect(x: 0, y: 0, width: 16, height: 16)
      c.fill(Path(rect: r), with: .linearGradient(g, start: Point(v, 0), end: Point(16, v)))
      c.fill(Path(rect: r), with: .linearGradient(g, start: Point(1e-20, 0), end: Point(2e-20, 0)))
      c.fill(Path(ellipseIn: r), with: .radialGradient(g, center: Point(8, v), startRadius: v, endRadius: 8))
      c.fill(Path(ellipseIn: r), with: .radialGradient(g, center: Point(8, 8), startRadius: 0, endRadius: v))
      c.fill(Path(rect: r), with: .color(Color(red: v, green: v, blue: v, alpha: v)))
    }
  }

  @Test(arguments: specials)
  func aStraightGradientWithASpecialStopColorStaysFinite(v: Float) {
    // The raster fuzzer's NaN pixels: straight interpolation read the stop colors as given.
    let g = Gradient(
      stops: [
        .init(color: Color(red: v, green: v, blue: 0, alpha: v), location: 0), .init(color: .white, location: 1),
      ], alphaInterpolation: .straight)
    for t in [0, 0.5, 1] as [Float] {
      let p = g.color(at: t)
      #expect(p.x.isFinite && p.y.isFinite && p.z.isFinite && p.w.isFinite && p.w >= 0 && p.w <= 1, "t \(t): \(p)")
    }
    #expect(
      Gradient(colors: [Color(red: 0.25, green: 0.5, blue: 1, alpha: 0.75)]).stops[0].color
        == Color(red: 0.25, green: 0.5, blue: 1, alpha: 0.75))
  }

  @Test func aLookupOfNaNGivesTheFirstColor() {
    let table = GradientTable(Gradient(colors: [.black, .white])).entries
    table.withUnsafeBufferPointer { t in
      #expect(GradientTable.lookup(.nan, t.baseAddress!) == Pixel(0, 0, 0, 1))
      #expect(GradientTable.lookup(.infinity, t.baseAddress!) == Pixel(1, 1, 1, 1))
      #expect(GradientTable.lookup(-.infinity, t.baseAddress!) == Pixel(0, 0, 0, 1))
      #expect(GradientTable.lookup(1e30, t.baseAddress!) == Pixel(1, 1, 1, 1))
    }
  }

  @Test(arguments: specials)
  func aSpecialBlurOpacityOrWeightNeverTraps(v: Float) {
    _ = Self.render { c in
      var blurred = c
      blurred.addFilter(.blur(radius: v))
      blurred.fill(Path(rect: Rect(x: 4, y: 4, width: 8, height: 8)), with: .color(.white))
      var matrix = c
      matrix.addFilter(.colorMatrix(ColorMatrix(r: [v, 0, 0, 0], g: [0, 1, 0, 0], b: [0, 0, 1, v])))
      matrix.opacity = Double(v)
      matrix.fill(Path(rect: Rect(x: 2, y: 2, width: 8, height: 8)), with: .color(.white))
      c.drawBlended(weights: [Double(v), 0]) { i, layer in
        layer.fill(Path(rect: Rect(x: Float(i) * 4, y: 0, width: 8, height: 8)), with: .color(.white))
      }
      c.drawLayer(shadow: Color(red: v, green: 0, blue: 0, alpha: v), radius: Double(v)) {
        $0.fill(Path(rect: Rect(x: 4, y: 4, width: 4, height: 4)), with: .color(.white))
      }
    }
  }

  @Test(arguments: specials)
  func aMeshWithASpecialPointNeverTraps(v: Float) {
    let mesh = MeshGradient(
      width: 2, height: 2, points: [Point(0, 0), Point(1, 0), Point(v, 1), Point(1, v)],
      colors: [.white, Color(red: v, green: 0, blue: 0), .black, .white])
    _ = Self.render { c in
      c.drawMesh(mesh)
      c.drawMesh(mesh, in: Rect(x: v, y: 0, width: 16, height: v))
    }
  }

  @Test func aMeshReachingAboveTheCanvasMarksOnlyRowsOnIt() {
    // The raster fuzzer's heap corruption: the triangles' dirty rect began at row -1, and a
    // streamed blur of the layer then wrote a row before its pixels.
    let image = Image(width: 16, height: 16)
    let surface = Surface(image: image, scale: 1)
    let mesh = MeshGradient(
      width: 2, height: 2, points: [Point(0, 0), Point(1, 0), Point(0, 1), Point(1, 1)],
      colors: [.white, .white, .black, .black])
    surface.context().drawMesh(mesh, in: Rect(x: 0, y: -8, width: 16, height: 16))
    #expect(surface.drawn.y == 0 && surface.drawn.maxY <= 16, "\(surface.drawn)")
    var blurred = surface.context()
    blurred.addFilter(.blur(radius: 40))
    blurred.drawLayer { $0.drawMesh(mesh, in: Rect(x: 0, y: -1e6, width: 16, height: 2e6)) }
    surface.finish()
    #expect((0..<image.count).allSatisfy { image.pixels[$0].w.isFinite })
  }

  @Test func aBlurOfAHugeSigmaKeepsTheMeanInsteadOfTrapping() {
    let image = Image(width: 8, height: 8)
    image.fill(Pixel(1, 1, 1, 1))
    GaussianBlur().apply(sigma: 1e30, to: image.pixels, width: 8, height: 8)
    for i in 0..<image.count { #expect(image.pixels[i].w.isFinite) }
  }
}

/// Shadows up to the largest blur (4096 px) on canvases from 1 pixel up stay finite.
@Suite struct HugeShadowTests {
  @Test(arguments: [128, 256, 512, 1024, 2048, 4096] as [Double])
  func aHugeShadowOnASmallCanvasStaysFinite(radius: Double) {
    for size in [1, 7, 16, 24] {
      let image = Image(width: size, height: size)
      let surface = Surface(image: image, scale: 1)
      surface.context().drawLayer(shadow: .black, radius: radius) {
        $0.fill(Path(rect: Rect(x: 0, y: 0, width: 3, height: 3)), with: .color(.white))
      }
      surface.finish()
      #expect((0..<image.count).allSatisfy { image.pixels[$0].w.isFinite }, "size \(size)")
    }
  }
}
