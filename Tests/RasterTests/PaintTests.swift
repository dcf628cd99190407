import Foundation
import Testing
import _TestSupport

@testable import Raster

@Suite struct PaintTests {
  let gradient = Gradient(stops: [
    .init(color: Color(red: 1, green: 0, blue: 0), location: 0),
    .init(color: Color(red: 0, green: 0, blue: 1), location: 0.5),
    .init(color: Color(red: 0, green: 0, blue: 1, alpha: 0), location: 1),
  ])

  @Test func gradientValuesAtAndBetweenStops() {
    #expect(gradient.color(at: 0) == Pixel(1, 0, 0, 1))
    #expect(gradient.color(at: -3) == Pixel(1, 0, 0, 1))  // padded
    #expect(gradient.color(at: 0.25) == Pixel(0.5, 0, 0.5, 1))
    #expect(gradient.color(at: 0.5) == Pixel(0, 0, 1, 1))
    #expect(gradient.color(at: 0.75) == Pixel(0, 0, 0.5, 0.5))  // premultiplied: no dark fringe
    #expect(gradient.color(at: 2) == .zero)
  }

  @Test func straightInterpolationKeepsTheColorOfAFadeToClear() {
    let white = Gradient(colors: [.white, .clear], alphaInterpolation: .straight)
    // Straight RGBA halfway from white to transparent black is grey (0.5) at alpha 0.5.
    #expect(white.color(at: 0.5) == Pixel(0.25, 0.25, 0.25, 0.5))
    let pre = Gradient(colors: [.white, .clear])
    #expect(pre.color(at: 0.5) == Pixel(0.5, 0.5, 0.5, 0.5))
  }

  @Test func evenlySpacedColorsSitAtIOverNMinusOne() {
    let g = Gradient(colors: [.white, .black, .white])
    #expect(g.stops.map(\.location) == [0, 0.5, 1])
  }

  @Test func aLinearGradientFillRunsFromStartToEnd() {
    let image = Image(width: 10, height: 1)
    let shading = Shading.linearGradient(Gradient(colors: [.black, .white]), start: Point(0, 0), end: Point(10, 0))
    Surface(image: image, scale: 1).context().fill(Path(rect: Rect(x: 0, y: 0, width: 10, height: 1)), with: shading)
    for x in 0..<10 {
      // Sampled at pixel centers: t = (x + 0.5) / 10.
      #expect(abs(image[x, 0].x - (Float(x) + 0.5) / 10) < 1e-3)
    }
  }

  @Test func aRadialGradientDependsOnDistanceOnly() {
    let image = Image(width: 21, height: 21)
    let shading = Shading.radialGradient(
      Gradient(colors: [.white, .black]), center: Point(10.5, 10.5), startRadius: 0, endRadius: 10)
    Surface(image: image, scale: 1).context().fill(Path(rect: Rect(x: 0, y: 0, width: 21, height: 21)), with: shading)
    #expect(abs(image[10, 10].x - 1) < 1e-3)
    #expect(abs(image[15, 10].x - 0.5) < 2e-3)
    #expect(abs(image[10, 15].x - image[15, 10].x) < 1e-4)
    #expect(image[0, 0].x == 0)
  }

  @Test func screenFollowsItsFormula() {
    let s = Pixel(0.2, 0.5, 0.8, 1), d = Pixel(0.4, 0.5, 0.1, 1)
    #expect(ScreenKernel.blend(s, d) == s + d - s * d)
    let image = Image(width: 1, height: 1)
    image.fill(Pixel(0.4, 0.5, 0.1, 1))
    var ctx = Surface(image: image, scale: 1).context()
    ctx.blendMode = .screen
    ctx.fill(
      Path(rect: Rect(x: 0, y: 0, width: 1, height: 1)),
      with: .color(Color(red: 0.2, green: 0.5, blue: 0.8, alpha: 0.5)))
    // On an opaque canvas: out = dst + a C (1 - dst) (docs/SWIFTUI-SEMANTICS.md, Compositing).
    let expected = Pixel(0.4 + 0.5 * 0.2 * 0.6, 0.5 + 0.5 * 0.5 * 0.5, 0.1 + 0.5 * 0.8 * 0.9, 1)
    #expect(maxDifference(image[0, 0], expected) < 1e-6)
  }

  @Test func sourceOverWithOpacityMultipliesAlpha() {
    let image = Image(width: 1, height: 1)
    image.fill(Pixel(0, 0, 1, 1))
    var ctx = Surface(image: image, scale: 1).context()
    ctx.opacity = 0.5
    ctx.fill(Path(rect: Rect(x: 0, y: 0, width: 1, height: 1)), with: .color(Color.white.opacity(0.5)))
    #expect(maxDifference(image[0, 0], Pixel(0.25, 0.25, 1, 1)) < 1e-6)  // 0.25 white over blue
  }

  @Test func hueRotationMatchesTheSVGTestVector() {
    let m = ColorMatrix.hueRotation(radians: 40 * .pi / 180)
    let expected: [SIMD3<Float>] = [
      [0.67896, -0.29231, 0.61335], [0.14175, 1.02331, -0.16506], [-0.45604, 0.62687, 0.82917],
    ]
    for (row, e) in zip([m.r, m.g, m.b], expected) {
      #expect(maxDifference(SIMD3(row.x, row.y, row.z), e) < 1e-4)
    }
  }

  /// The matrix maps the straight color and premultiplies again, `(M * rgb / a + offset) * a`;
  /// `apply` computes it as `M * rgb + offset * a`, without dividing. Over pixels with alphas
  /// from 1e-6 to 1 and colors a little beyond their alpha, the two agree within 4e-7 of the
  /// formula in double precision, a five-thousandth of half an 8-bit code (0.002).
  @Test func theColorMatrixIsTheStraightColorFormulaWithoutADivision() {
    let m = ColorMatrix.hueRotation(radians: 1.1).concatenating(.saturation(1.3)).concatenating(.brightness(0.05))
    var random = SeededRandom(seed: 41)
    var worst = 0.0
    for i in 0..<20_000 {
      let a = i % 5 == 0 ? pow(10, -6 * random.next()) : random.next()
      let p = Pixel(random.next() * a * 1.05, random.next() * a, random.next() * a, a)
      guard a > 0 else { continue }
      let out = m.apply(p)
      for (row, lane) in zip([m.r, m.g, m.b], 0..<3) {
        let straight = (0..<3).reduce(Double(row[3])) { $0 + Double(row[$1]) * Double(p[$1]) / Double(a) }
        worst = max(worst, abs(Double(out[lane]) - straight * Double(a)))
      }
      #expect(out.w == a)
    }
    #expect(worst < 4e-7, "largest difference \(worst)")
    #expect(worst > 0)  // float arithmetic: a check of the comparison itself
    #expect(m.apply(Pixel(0.3, 0.2, 0.1, 0)) == .zero)
    #expect(m.apply(Pixel(0.3, 0.2, 0.1, -0.5)) == .zero)
    #expect(m.apply(Pixel(0.3, 0.2, 0.1, .nan)) == .zero)
  }

  @Test func saturationZeroIsGreyAndOneIsIdentity() {
    let p = Pixel(0.9, 0.2, 0.1, 1)
    let grey = ColorMatrix.saturation(0).apply(p)
    #expect(abs(grey.x - grey.y) < 1e-6 && abs(grey.y - grey.z) < 1e-6)
    #expect(maxDifference(ColorMatrix.saturation(1).apply(p), p) < 1e-6)
    // Premultiplied in and out: half-transparent red keeps its alpha.
    #expect(ColorMatrix.brightness(0.1).apply(Pixel(0.25, 0, 0, 0.5)) == Pixel(0.3, 0.05, 0.05, 0.5))
  }
}

/// The largest difference between two vectors' lanes.
func maxDifference<V: SIMD>(_ a: V, _ b: V) -> V.Scalar where V.Scalar: FloatingPoint {
  var worst: V.Scalar = 0
  for i in a.indices { worst = max(worst, Swift.abs(a[i] - b[i])) }
  return worst
}

/// Layers over a canvas with nothing on it are drawn straight into it; the result must be the
/// same bits as through a layer (a clip of the whole canvas keeps the layer path).
@Suite struct DirectLayerTests {
  func render(throughLayer: Bool, _ draw: (inout GraphicsContext) -> Void) -> Image {
    let surface = Surface(image: Image(width: 64, height: 48), scale: 2)
    surface.clear()
    var context = surface.context()
    if throughLayer { context.clip(to: Path(rect: Rect(x: 0, y: 0, width: 32, height: 24))) }
    draw(&context)
    surface.finish()
    return surface.image
  }

  func moment(_ i: Int, _ context: inout GraphicsContext) {
    context.fill(
      Path(rect: Rect(x: 0, y: 0, width: 32, height: 24)), with: .color(Color(red: 0.1, green: 0.1, blue: 0.3)))
    context.blendMode = .screen
    let center = Point(8 + Float(i) * 11.3, 12)
    context.fill(
      Path(ellipseIn: Rect(center: center, radius: 9)),
      with: .radialGradient(Gradient(colors: [.white, .clear]), center: center, startRadius: 0, endRadius: 9))
    context.blendMode = .sourceOver
    context.addFilter(.blur(radius: 3))
    context.fill(Path(ellipseIn: Rect(x: 3, y: 14 - Double(i), width: 9, height: 5)), with: .color(.white.opacity(0.5)))
  }

  func same(_ a: Image, _ b: Image) -> Bool {
    (0..<a.count).allSatisfy { a.pixels[$0] == b.pixels[$0] }
  }

  @Test(arguments: [[1.0], [0.7, 0.3], [0.2, 0.5, 0.3]])
  func aBlendOfMomentsIsTheSameBitsDrawnDirectly(weights: [Double]) {
    let draw: (inout GraphicsContext) -> Void = { $0.drawBlended(weights: weights) { i, c in self.moment(i, &c) } }
    let direct = render(throughLayer: false, draw)
    #expect(same(direct, render(throughLayer: true, draw)))
    #expect(direct[20, 20].w == 1)  // something was drawn
  }

  /// A crossfade composited through a clip is blended into its layers only over the clip's rect
  /// (`Layer.visible`): inside the rect the same bits as drawn without the clip, outside it
  /// nothing, for a blur large enough to be streamed (16 px, spreading 48 px past the clip) and a
  /// small one, on a whole frame and in bands.
  @Test(arguments: [false, true])
  func aClippedCrossfadeIsTheSameBitsInsideItsClip(banded: Bool) {
    let (width, height) = (96, 80)
    let clip = IntRect(x: 20, y: 16, width: 40, height: 32)  // 10, 8, 20 x 16 points at scale 2
    func moments(_ i: Int, _ context: inout GraphicsContext) {
      context.addFilter(.blur(radius: 8))
      context.fill(
        Path(ellipseIn: Rect(x: 4 + 6 * Double(i), y: 6, width: 30, height: 14)),
        with: .color(Color(red: 0.9, green: 0.4, blue: 0.2, alpha: 0.8)))
      var sharp = context
      sharp.addFilter(.blur(radius: 1.5))
      sharp.fill(Path(ellipseIn: Rect(x: 24, y: 20 - Double(i), width: 12, height: 8)), with: .color(.white))
    }
    func render(clipped: Bool) -> Image {
      let draw = { (context: inout GraphicsContext) in
        if clipped { context.clip(to: Path(rect: Rect(x: 10, y: 8, width: 20, height: 16))) }
        context.drawBlended(weights: [0.35, 0.65]) { i, c in moments(i, &c) }
      }
      guard banded else {
        let surface = Surface(image: Image(width: width, height: height), scale: 2)
        surface.clear()
        var context = surface.context()
        draw(&context)
        surface.finish()
        return surface.image
      }
      return drawnInBands(width: width, height: height, bandRows: 16, scale: 2, draw)
    }
    let (free, clipped) = (render(clipped: false), render(clipped: true))
    var inside = true, outside = true
    for y in 0..<height {
      for x in 0..<width {
        if clip.x <= x && x < clip.maxX && clip.y <= y && y < clip.maxY {
          inside = inside && clipped[x, y] == free[x, y]
        } else {
          outside = outside && clipped[x, y] == .zero
        }
      }
    }
    #expect(inside)
    #expect(outside)
    // The blur spread the fill past the clip: the unclipped frame has it there.
    #expect(free[clip.maxX + 20, 20].w > 0.01 && free[clip.x + 4, clip.y + 4].w > 0.1)
  }

  @Test func aLayerOverNothingIsTheSameBitsDrawnDirectly() {
    let draw: (inout GraphicsContext) -> Void = { $0.drawLayer { c in self.moment(1, &c) } }
    #expect(same(render(throughLayer: false, draw), render(throughLayer: true, draw)))
  }

  /// A band clears only what the bands before it drew (`Surface.drawBand`); what they drew must
  /// not show in it, wherever it lay.
  @Test func aBandShowsNothingOfTheBandsBefore() {
    let surface = Surface(width: 16, height: 24, bandRows: 8, scale: 1)
    let white = Pixel(1, 1, 1, 1)
    // Band 0: a square at columns 2-4, rows 2-4 of the image.
    let first = surface.band(0..<8) { $0.fill(Path(rect: Rect(x: 2, y: 2, width: 3, height: 3)), with: .color(.white)) }
    #expect(first[3, 3] == white && first[10, 3] == .zero)
    // Band 1 (frame rows 8-15): a square at columns 10-12, image rows 1-3; the first is gone.
    let second = surface.band(8..<16) {
      $0.fill(Path(rect: Rect(x: 10, y: 9, width: 3, height: 3)), with: .color(.white))
    }
    #expect(second[11, 2] == white)
    #expect(second[3, 3] == .zero && second[2, 2] == .zero && second[4, 4] == .zero)
    // Band 2: nothing drawn; neither square shows.
    let third = surface.band(16..<24) { _ in }
    #expect((0..<8).allSatisfy { y in (0..<16).allSatisfy { x in third[x, y] == .zero } })
    // A new frame's first band after an opaque fill of a band: every pixel of the fill is cleared.
    _ = surface.band(0..<8) { $0.fill(Path(rect: Rect(x: 0, y: 0, width: 16, height: 24)), with: .color(.white)) }
    let after = surface.band(8..<16) {
      $0.fill(Path(rect: Rect(x: 0, y: 8, width: 1, height: 1)), with: .color(.white))
    }
    #expect(after[0, 0] == white)
    #expect((0..<8).allSatisfy { y in (1..<16).allSatisfy { x in after[x, y] == .zero } } && after[0, 1] == .zero)
  }

  /// A band's first drawing may take the band's clear as done (`Layer.claimClear`) only when it
  /// writes every pixel the clear must write: what the band before drew. Then those pixels are
  /// left for it to write; otherwise nothing changes and the clear still happens.
  @Test func aBandsFirstDrawingTakesTheClearOnlyOverAllTheBandBeforeDrew() {
    let surface = Surface(width: 16, height: 24, bandRows: 8, scale: 1)
    let stale = Pixel(1, 1, 1, 1)
    // Band 0 draws columns 2-5 of its rows 1-3.
    _ = surface.band(0..<8) { $0.fill(Path(rect: Rect(x: 2, y: 1, width: 4, height: 3)), with: .color(.white)) }
    surface.drawBand(8..<16)
    let canvas = surface.canvasLayer
    // Not all of it: refused, and asking for a row still clears the square.
    #expect(!canvas.claimClear(within: IntRect(x: 2, y: 8, width: 3, height: 8)))
    #expect(!canvas.claimClear(within: IntRect(x: 0, y: 10, width: 16, height: 6)))
    #expect(canvas.row(9)[3] == .zero)
    // A new band over the same pixels: all of them (and more) is taken, and the square's pixels
    // are left as they were, for the caller to write.
    surface.finish()
    surface.drawBand(16..<24)
    _ = surface.band(0..<8) { $0.fill(Path(rect: Rect(x: 2, y: 1, width: 4, height: 3)), with: .color(.white)) }
    surface.drawBand(8..<16)
    #expect(canvas.claimClear(within: IntRect(x: 1, y: 8, width: 8, height: 5)))
    #expect(canvas.row(9)[3] == stale && canvas.row(9)[1] == .zero)
    // Taken once: a second claim finds nothing pending.
    #expect(!canvas.claimClear(within: IntRect(x: 0, y: 8, width: 16, height: 8)))
  }

  /// A frame whose last band is shorter than the others: that band's clear writes only its own
  /// rows, and what the band before it drew below them must still be cleared for the next frame's
  /// first band (the speaking voice orb at 240x240 showed a bar of its last frame's shadow at rows
  /// 112-121 when it was not).
  @Test func aShortLastBandLeavesNothingForTheNextFrame() {
    let surface = Surface(width: 16, height: 20, bandRows: 8, scale: 1)
    _ = surface.band(0..<8) { _ in }
    // A square in the band's last rows (image rows 14-15: the band's rows 6-7).
    let square = surface.band(8..<16) {
      $0.fill(Path(rect: Rect(x: 2, y: 14, width: 3, height: 2)), with: .color(.white))
    }
    #expect(square[3, 6] == Pixel(1, 1, 1, 1))
    _ = surface.band(16..<20) { _ in }  // 4 rows
    let next = surface.band(0..<8) { _ in }
    #expect((0..<8).allSatisfy { y in (0..<16).allSatisfy { x in next[x, y] == .zero } }, "\(next[3, 6])")
  }

  @Test func aClearedSurfaceShowsNothingOfTheFrameBefore() {
    let surface = Surface(image: Image(width: 16, height: 8), scale: 1)
    let stale = Pixel(0.3, 0.2, 0.1, 0.9)
    func frame(_ draw: (GraphicsContext) -> Void) -> Image {
      surface.image.fill(stale)  // the frame before, whatever it was
      surface.clear()
      draw(surface.context())
      surface.finish()
      return surface.image
    }
    // Nothing drawn: clear.
    #expect(frame { _ in }[5, 5] == .zero)
    // A small shape: clear around it, whichever rasterizer draws it.
    let small = frame { $0.fill(Path(rect: Rect(x: 2, y: 2, width: 3, height: 3)), with: .color(.white)) }
    #expect(small[3, 3] == Pixel(1, 1, 1, 1) && small[10, 5] == .zero)
    let round = frame { $0.fill(Path(ellipseIn: Rect(x: 1, y: 1, width: 6, height: 6)), with: .color(.white)) }
    #expect(round[4, 4] == Pixel(1, 1, 1, 1) && round[10, 5] == .zero)
    // An opaque color over everything is written as it is; a translucent one blends with clear.
    let base = Color(red: 0.2, green: 0.4, blue: 0.6)
    #expect(
      frame { $0.fill(Path(rect: Rect(x: 0, y: 0, width: 16, height: 8)), with: .color(base)) }[9, 7]
        == base.premultiplied)
    let faint = frame { $0.fill(Path(rect: Rect(x: 0, y: 0, width: 16, height: 8)), with: .color(base.opacity(0.5))) }
    #expect(faint[9, 7] == base.opacity(0.5).premultiplied)
    // An opaque rectangle short of the edge does not stand in for the clear.
    let short = frame { $0.fill(Path(rect: Rect(x: 0, y: 0, width: 15.5, height: 8)), with: .color(base)) }
    #expect(short[15, 3].w == 0.5 && short[15, 3].x == base.premultiplied.x * 0.5)
  }

  @Test func aSecondLayerStillGoesThroughALayer() {
    // Once something is drawn the target is not empty: a screen layer must blend with it.
    let surface = Surface(image: Image(width: 8, height: 8), scale: 1)
    surface.clear()
    var context = surface.context()
    context.fill(Path(rect: Rect(x: 0, y: 0, width: 8, height: 8)), with: .color(Color(red: 0.5, green: 0, blue: 0)))
    context.blendMode = .screen
    context.drawLayer {
      $0.fill(Path(rect: Rect(x: 0, y: 0, width: 8, height: 8)), with: .color(Color(red: 0, green: 0.5, blue: 0)))
    }
    surface.finish()
    #expect(surface.image[4, 4] == Pixel(0.5, 0.5, 0, 1))
  }
}

extension Surface {
  /// Band `rows` drawn by `draw` and finished: the surface's image, holding it.
  fileprivate func band(_ rows: Range<Int>, _ draw: (GraphicsContext) -> Void) -> Image {
    drawBand(rows)
    draw(context())
    finish()
    return image
  }
}
