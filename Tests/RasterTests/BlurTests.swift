import Foundation
import Testing
import _TestSupport

@testable import Raster

@Suite struct BlurTests {
  /// An exact Gaussian of a one-pixel-wide vertical line, sampled at column centers.
  func exactLine(width: Int, at x0: Int, sigma: Float) -> [Float] {
    (0..<width).map { x in
      let d = Float(x - x0)
      return exp(-d * d / (2 * sigma * sigma)) / (sigma * (2 * Float.pi).squareRoot())
    }
  }

  func blurredLine(width: Int, height: Int, at x0: Int, sigma: Float) -> [Float] {
    let image = Image(width: width, height: height)
    for y in 0..<height { image[x0, y] = Pixel(1, 1, 1, 1) }
    GaussianBlur().apply(sigma: sigma, to: image.pixels, width: width, height: height)
    return (0..<width).map { image[$0, height / 2].w }
  }

  @Test(arguments: [1.5, 3.0, 4.0])
  func theDirectBlurIsAnExactGaussian(sigma: Float) {
    let got = blurredLine(width: 41, height: 41, at: 20, sigma: sigma)
    let want = exactLine(width: 41, at: 20, sigma: sigma)
    let total = got.reduce(0, +)
    #expect(abs(total - 1) < 1e-3)  // mass kept
    #expect(zip(got, want).map { abs($0 - $1) }.max()! < 0.003)
  }

  @Test(arguments: [6.0, 12.0, 28.0, 84.0])
  func theShrunkBlurOfALineStaysNearAnExactGaussian(sigma: Float) {
    let width = Int(8 * sigma) + 33
    // Tall enough that the middle row's vertical blur loses nothing past the top and bottom.
    let got = blurredLine(width: width, height: width, at: width / 2, sigma: sigma)
    let want = exactLine(width: width, at: width / 2, sigma: sigma)
    let peak = want.max()!
    let worst = zip(got, want).map { abs($0 - $1) }.max()!
    // Relative to the peak, the largest error of the shrink-blur-enlarge path on its worst input.
    #expect(worst / peak < 0.06)
    #expect(abs(got.reduce(0, +) - 1) < 0.01)
  }

  @Test(arguments: [6.0, 12.0, 28.0, 84.0])
  func aBlurredBarStaysWithinOnePercentOfTheExactProfile(sigma: Float) {
    let width = Int(12 * sigma) + 40
    let (a, b) = (width / 2 - Int(2 * sigma), width / 2 + Int(2 * sigma))
    let image = Image(width: width, height: width)
    for y in 0..<width { for x in a..<b { image[x, y] = Pixel(1, 1, 1, 1) } }
    GaussianBlur().apply(sigma: sigma, to: image.pixels, width: width, height: width)
    let s = sigma * Float(2).squareRoot()
    var worst: Float = 0
    for x in 0..<width {
      let c = Float(x) + 0.5
      let exact = 0.5 * (erf((Float(b) - c) / s) - erf((Float(a) - c) / s))
      worst = max(worst, abs(image[x, width / 2].w - exact))
    }
    #expect(worst < 0.01)
  }

  /// A tinted alpha blurred alone (`blurTinted`) against all four channels blurred: in white the
  /// same bits (the same sums in the same order), in a color within float rounding, on a band's
  /// rows and on all of them, at widths that are and are not whole vectors.
  @Test(arguments: [(37, 23, 2.5), (64, 40, 4.0), (9, 50, 3.3)])
  func aTintedAlphaBlursAsItsPixelsDo(width: Int, height: Int, sigma: Float) {
    var random = SeededRandom(seed: 0x9E37_79B9_7F4A_7C15)
    let alpha = (0..<(width * height)).map { i in i % 7 == 0 ? 0 : random.next() }
    for tint in [Pixel(1, 1, 1, 1), Pixel(0.3, 0.5, 0.2, 0.6)] {
      for rows in [0..<height, (height / 3)..<(height / 3 + 5)] {
        let whole = Image(width: width, height: height), tinted = Image(width: width, height: height)
        for i in 0..<alpha.count {
          whole.pixels[i] = tint * alpha[i]
          tinted.pixels[i] = Pixel(1, 1, 1, 1) * alpha[i]
        }
        let blur = GaussianBlur()
        blur.apply(sigma: sigma, to: whole.pixels, width: width, height: height, rows: rows)
        blur.blurTinted(tinted.pixels, width: width, height: height, sigma: sigma, rows: rows, tint: tint)
        var worst: Float = 0
        for y in rows {
          for x in 0..<width {
            let d = whole[x, y] - tinted[x, y]
            worst = max(worst, abs(d.x), abs(d.y), abs(d.z), abs(d.w))
          }
        }
        if tint == Pixel(1, 1, 1, 1) {
          #expect(worst == 0, "\(worst)")
        } else {
          #expect(worst < 1e-6, "\(worst)")
        }
      }
    }
  }

  @Test func aBlurredOperationSpreadsPastItsShapeAndKeepsItsMass() {
    let image = Image(width: 40, height: 40)
    var ctx = Surface(image: image, scale: 1).context()
    ctx.addFilter(.blur(radius: 3))
    ctx.fill(Path(rect: Rect(x: 15, y: 15, width: 10, height: 10)), with: .color(.white))
    var mass: Float = 0
    for i in 0..<image.count { mass += image.pixels[i].w }
    #expect(abs(mass - 100) < 0.5)
    #expect(image[13, 20].w > 0.05)  // outside the square, inside 3 sigma
    // At the center the 2-D Gaussian over ±5 px holds erf(5 / (3√2))² = 0.818 of the mass.
    #expect(abs(image[20, 20].w - 0.818) < 0.01)
  }
}

/// A fill under a large blur is drawn straight at the blur's shrunk scale; the same fill through
/// the full-size path (an identity color matrix first keeps it there) must look the same.
@Suite struct ShrunkDrawingTests {
  func render(_ sigma: Float, fullSize: Bool, _ draw: (GraphicsContext) -> Void) -> Image {
    let surface = Surface(image: Image(width: 240, height: 180), scale: 1)
    var context = surface.context()
    context.fill(
      Path(rect: Rect(x: 0, y: 0, width: 240, height: 180)), with: .color(Color(red: 0.1, green: 0.2, blue: 0.4)))
    if fullSize { context.addFilter(.colorMatrix(.identity)) }
    context.addFilter(.blur(radius: sigma))
    draw(context)
    return surface.image
  }

  /// The largest difference of any channel, in 8-bit codes.
  func worst(_ a: Image, _ b: Image) -> Float {
    var worst: Float = 0
    for i in 0..<a.count {
      let d = a.pixels[i] - b.pixels[i]
      worst = max(worst, abs(d.x), abs(d.y), abs(d.z), abs(d.w))
    }
    return worst * 255
  }

  /// The block each blur draws at: as large as 4 pixels and sigma / 7 allow, dividing the shrink.
  @Test func theDrawnBlockFollowsSigma() {
    let blocks = [6, 13, 14, 27, 28, 30, 56, 84, 500].map { GraphicsContext.drawnFactor(sigma: Float($0)) }
    #expect(blocks == [1, 1, 2, 2, 4, 4, 4, 4, 4])
    for sigma in stride(from: Float(4.5), through: 400, by: 0.5) {
      #expect(GaussianBlur.shrinkFactor(sigma: sigma) % GraphicsContext.drawnFactor(sigma: sigma) == 0)
    }
  }

  @Test(arguments: [6.0, 12.0, 14, 28.0, 30, 84.0, 90])
  func oneEllipse(sigma: Float) {
    let draw: (GraphicsContext) -> Void = {
      $0.fill(
        Path(ellipseIn: Rect(x: 37.3, y: 41.6, width: 121.5, height: 57.2)),
        with: .color(Color(red: 1, green: 0.9, blue: 0.8).opacity(0.7)))
    }
    let error = worst(render(sigma, fullSize: false, draw), render(sigma, fullSize: true, draw))
    // One convex polygon of one color is drawn at the whole shrink, exact but for float rounding.
    #expect(error < 0.01, "\(error) codes")
  }

  /// The sun's rays: thin triangles, each blurred alone, turning either way.
  @Test(arguments: [12.0, 36.0])
  func triangles(sigma: Float) {
    let draw: (GraphicsContext) -> Void = {
      for (i, tip) in [Point(200, 40), Point(30, 150), Point(220, 170)].enumerated() {
        var wedge = Path()
        wedge.move(to: Point(120, 90))
        wedge.addLine(to: tip)
        wedge.addLine(to: tip + Point(i == 1 ? 9 : -9, 11))
        wedge.closeSubpath()
        $0.fill(wedge, with: .color(.white.opacity(0.1 + 0.05 * Double(i))))
      }
    }
    let error = worst(render(sigma, fullSize: false, draw), render(sigma, fullSize: true, draw))
    #expect(error < 0.01, "\(error) codes")
  }

  /// Every sigma where the drawn block changes (2 from 14, 4 from 28) and the weathers' own at
  /// scales 1-3 (clouds 28, 56, 84; fog 30, 60, 90).
  @Test(arguments: [6.0, 12, 14, 20, 27, 28, 30, 56, 60, 84, 90])
  func overlappingEllipsesInOnePath(sigma: Float) {
    let draw: (GraphicsContext) -> Void = {
      var path = Path()
      for i in 0..<4 {
        path.addEllipse(in: Rect(x: 30 + Double(i) * 25, y: 50 + Double(i % 2) * 9, width: 80, height: 40))
      }
      $0.fill(path, with: .color(.white))
    }
    let error = worst(render(sigma, fullSize: false, draw), render(sigma, fullSize: true, draw))
    #expect(error < 0.5, "\(error) codes")
  }

  @Test func atDisplayScaleThreeInALayer() {
    func make(_ fullSize: Bool) -> Image {
      let surface = Surface(image: Image(width: 240, height: 180), scale: 3)
      var context = surface.context()
      context.fill(
        Path(rect: Rect(x: 0, y: 0, width: 80, height: 60)), with: .color(Color(red: 0.1, green: 0.2, blue: 0.4)))
      context.opacity = 0.8
      context.drawLayer { layer in
        if fullSize { layer.addFilter(.colorMatrix(.identity)) }
        layer.addFilter(.blur(radius: 9))
        layer.fill(Path(ellipseIn: Rect(x: 10, y: 14, width: 50, height: 20)), with: .color(.white.opacity(0.6)))
      }
      return surface.image
    }
    let error = worst(make(false), make(true))
    #expect(error < 0.5, "\(error) codes")
  }

  @Test(arguments: [6.0, 28.0, 84.0])
  func severalFillsPartlyOffTheCanvas(sigma: Float) {
    let draw: (GraphicsContext) -> Void = {
      $0.fill(Path(ellipseIn: Rect(x: -60, y: 20, width: 150, height: 50)), with: .color(.white.opacity(0.5)))
      $0.fill(Path(ellipseIn: Rect(x: 150, y: 120, width: 150, height: 90)), with: .color(.white.opacity(0.5)))
      $0.fill(Path(ellipseIn: Rect(x: 60, y: 60, width: 60, height: 30)), with: .color(.white.opacity(0.5)))
    }
    let error = worst(render(sigma, fullSize: false, draw), render(sigma, fullSize: true, draw))
    #expect(error < 0.5, "\(error) codes")
  }

  @Test func aRadialGradient() {
    let draw: (GraphicsContext) -> Void = {
      let g = Gradient(colors: [.white, Color(red: 1, green: 0, blue: 0).opacity(0)])
      $0.fill(
        Path(ellipseIn: Rect(x: 40, y: 30, width: 140, height: 120)),
        with: .radialGradient(g, center: Point(110, 90), startRadius: 0, endRadius: 70))
    }
    let error = worst(render(12, fullSize: false, draw), render(12, fullSize: true, draw))
    #expect(error < 0.5, "\(error) codes")
  }
}

/// A group of source-over fills drawn straight where its layer would composite plainly, and
/// through the layer where it fades (`drawSourceOverLayer`).
@Suite struct SourceOverGroupTests {
  func render(opacity: Double, straight: Bool) -> Image {
    let surface = Surface(image: Image(width: 160, height: 120), scale: 1)
    var context = surface.context()
    context.fill(
      Path(rect: Rect(x: 0, y: 0, width: 160, height: 120)),
      with: .linearGradient(
        Gradient(colors: [Color(red: 0.1, green: 0.2, blue: 0.5), Color(red: 0.6, green: 0.7, blue: 0.9)]),
        start: Point(0, 0), end: Point(0, 120)))
    context.opacity = opacity
    let content: (inout GraphicsContext) -> Void = { group in
      group.addFilter(.blur(radius: 9))
      for i in 0..<3 {
        var puffs = Path()
        puffs.addEllipse(in: Rect(x: 10 + Double(i) * 35, y: 20 + Double(i) * 15, width: 70, height: 30))
        puffs.addEllipse(in: Rect(x: 40 + Double(i) * 35, y: 30 + Double(i) * 15, width: 60, height: 26))
        group.fill(puffs, with: .color(Color(red: 0.9, green: 0.92, blue: 0.95).opacity(0.6)))
      }
    }
    if straight { context.drawSourceOverLayer(content) } else { context.drawLayer(content) }
    return surface.image
  }

  @Test func aSourceOverGroupDrawsStraight() {
    let (layered, straight) = (render(opacity: 1, straight: false), render(opacity: 1, straight: true))
    var worst: Float = 0, moved = 0
    for i in 0..<layered.count {
      let d = layered.pixels[i] - straight.pixels[i]
      worst = max(worst, abs(d.x), abs(d.y), abs(d.z), abs(d.w))
      if d != .zero { moved += 1 }
    }
    #expect(worst * 255 < 0.01, "\(worst * 255) codes")
    #expect(moved > 0)  // drawn another way: not the layer's bits
    // Faded, the group keeps its layer: the same bits as drawLayer.
    let (a, b) = (render(opacity: 0.5, straight: false), render(opacity: 0.5, straight: true))
    #expect((0..<a.count).allSatisfy { a.pixels[$0] == b.pixels[$0] })
  }
}

/// A layer's shadow: its alpha, tinted and blurred, under it. Large ones are made from the
/// alpha shrunk, without a full-size tinted copy; both sizes must match an exact Gaussian.
@Suite struct ShadowTests {
  /// The exact shadow alpha at `x` of a bar covering columns `lo..<hi` (every row), blurred by sigma.
  func exact(_ x: Float, _ lo: Float, _ hi: Float, sigma: Float) -> Float {
    func phi(_ t: Float) -> Float { 0.5 * (1 + Float(erf(Double(t / (sigma * 2.0.squareRoot().asFloat))))) }
    return phi(hi - x) - phi(lo - x)
  }

  @Test(arguments: [3.0, 8.0, 30.0])
  func aShadowBesideATallBarIsAnErfProfile(sigma: Float) {
    let (w, h) = (400, 200)
    let surface = Surface(image: Image(width: w, height: h), scale: 1)
    surface.clear()
    let context = surface.context()
    // A bar taller than the image, so each row is the same 1-D problem, near the left edge, so
    // the shadow's spread past the image is part of it.
    context.drawLayer(shadow: .black, radius: Double(sigma)) {
      $0.fill(Path(rect: Rect(x: 40, y: -200, width: 100, height: 600)), with: .color(.white))
    }
    surface.finish()
    // Left of the bar the image is the shadow alone: black at the shadow's alpha.
    var worst: Float = 0
    for x in 0..<40 {
      let got = surface.image[x, h / 2].w
      worst = max(worst, abs(got - exact(Float(x) + 0.5, 40, 140, sigma: sigma)))
    }
    #expect(worst < 0.02, "\(worst)")
    #expect(surface.image[90, h / 2] == Pixel(1, 1, 1, 1))  // the layer over its shadow
  }
}

private extension Double {
  var asFloat: Float { Float(self) }
}
