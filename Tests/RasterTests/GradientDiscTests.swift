import Foundation
import Testing

@testable import Raster

/// `fill(discs:)` draws its discs together a row at a time where it can; the result must stay
/// within one 8-bit code of one fill a disc, and be that fill's bits where it cannot.
@Suite struct GradientDiscTests {
  /// A falloff like Color Orbs', transparent from `fade` on.
  static func falloff(_ color: Color, fade: Float = 0.9, end: Double = 0) -> Gradient {
    Gradient(stops: [
      .init(color: color.opacity(0.9), location: 0),
      .init(color: color.opacity(0.45), location: fade / 2),
      .init(color: color.opacity(0), location: fade),
      .init(color: color.opacity(end), location: 1),
    ])
  }

  static let discs: [GradientDisc] = [
    GradientDisc(falloff(Color(red: 1, green: 0.2, blue: 0.5)), center: Point(10, 12), endRadius: 30),
    GradientDisc(falloff(Color(red: 0.3, green: 0.9, blue: 0.2)), center: Point(41.3, 30.7), endRadius: 17.6),
    GradientDisc(falloff(Color(red: 0.1, green: 0.4, blue: 1)), center: Point(60, -5), startRadius: 3, endRadius: 22),
    GradientDisc(falloff(Color(red: 1, green: 1, blue: 1), fade: 0.3), center: Point(20, 40), endRadius: 2.2),
    // Off the canvas.
    GradientDisc(falloff(Color(red: 0.9, green: 0.6, blue: 0)), center: Point(200, 10), endRadius: 20),
  ]

  /// The discs drawn on a dark base with `mode` and `opacity`, fused or one fill each.
  func render(
    fused: Bool, mode: BlendMode, opacity: Double = 1, scale: Float = 1,
    change: ((inout GraphicsContext) -> Void)? = nil, discs: [GradientDisc] = discs
  ) -> (image: Image, fusable: Bool) {
    let surface = Surface(image: Image(width: Int(64 * scale), height: Int(48 * scale)), scale: scale)
    surface.fusesDiscs = fused
    surface.clear()
    var context = surface.context()
    context.fill(
      Path(rect: Rect(x: 0, y: 0, width: 64, height: 48)), with: .color(Color(red: 0.05, green: 0.04, blue: 0.13)))
    context.blendMode = mode
    context.opacity = opacity
    change?(&context)
    context.fill(discs: discs)
    surface.finish()
    return (surface.image, context.fusesDiscs(discs))
  }

  static func bits(_ image: Image) -> [Pixel] { Array(UnsafeBufferPointer(start: image.pixels, count: image.count)) }

  /// The largest difference between the two images' pixels, in 8-bit codes after rounding.
  func codes(_ a: Image, _ b: Image) -> Int {
    var worst = 0
    for i in 0..<a.count {
      for c in 0..<4 {
        let x = Int((min(max(a.pixels[i][c], 0), 1) * 255).rounded())
        let y = Int((min(max(b.pixels[i][c], 0), 1) * 255).rounded())
        worst = max(worst, abs(x - y))
      }
    }
    return worst
  }

  @Test(arguments: [BlendMode.screen, .sourceOver], [Float(1), 3])
  func fusedDiscsStayWithinOneCodeOfOneFillEach(mode: BlendMode, scale: Float) {
    for opacity in [1.0, 0.6] {
      let fused = render(fused: true, mode: mode, opacity: opacity, scale: scale)
      let each = render(fused: false, mode: mode, opacity: opacity, scale: scale)
      #expect(fused.fusable && !each.fusable)
      #expect(codes(fused.image, each.image) <= 1)
      // The discs did draw: the center of the first is far from the base.
      #expect(fused.image[Int(10 * scale), Int(12 * scale)].x > 0.5)
    }
  }

  @Test func pixelsNoDiscReachesKeepTheBase() {
    let (image, fusable) = render(fused: true, mode: .screen)
    #expect(fusable)
    let base = Color(red: 0.05, green: 0.04, blue: 0.13).premultiplied
    // (63, 47) and (30, 47) are beyond every rim, (0, 30) inside the first.
    #expect(image[63, 47] == base)
    #expect(image[30, 47] == base)
    #expect(image[0, 30] != base)
  }

  /// A base color filled over the whole frame is only noted, and written row by row under the
  /// discs, rows no disc reaches included; over a cleared frame the discs' rows are written alone.
  @Test func aPendingBaseColorIsWrittenUnderTheDiscs() {
    let base = Color(red: 0.05, green: 0.04, blue: 0.13)
    let disc = GradientDisc(Self.falloff(.white, fade: 0.5), center: Point(20, 8), endRadius: 6)
    for withBase in [true, false] {
      let surface = Surface(image: Image(width: 40, height: 30), scale: 1)
      surface.image.fill(Pixel(9, 9, 9, 9))  // an old frame
      surface.clear()
      var context = surface.context()
      if withBase { context.fill(Path(rect: Rect(x: 0, y: 0, width: 40, height: 30)), with: .color(base)) }
      context.blendMode = .screen
      context.fill(discs: [disc])
      #expect(context.fusesDiscs([disc]))
      #expect(
        surface.drawn
          == (withBase ? IntRect(x: 0, y: 0, width: 40, height: 30) : IntRect(x: 12, y: 1, width: 16, height: 14)))
      surface.finish()
      let under = withBase ? base.premultiplied : .zero
      for y in [0, 16, 29] {
        for x in 0..<40 { #expect(surface.image[x, y] == under) }
      }
      #expect(surface.image[20, 8].x > 0.6)
    }
  }

  @Test func whatCannotBeFusedIsOneFillEachToTheBit() {
    let rotate: (inout GraphicsContext) -> Void = { $0.rotate(by: 0.3) }
    let stretch: (inout GraphicsContext) -> Void = { $0.scaleBy(x: 1, y: 1.5) }
    let clip: (inout GraphicsContext) -> Void = { $0.clip(to: Path(rect: Rect(x: 0, y: 0, width: 64, height: 48))) }
    let blur: (inout GraphicsContext) -> Void = { $0.addFilter(.blur(radius: 2)) }
    for change in [rotate, stretch, clip, blur] {
      let fused = render(fused: true, mode: .screen, change: change)
      #expect(!fused.fusable)
      #expect(Self.bits(fused.image) == Self.bits(render(fused: false, mode: .screen, change: change).image))
    }
    // A gradient that does not fade out by its end radius paints beyond it, and one still bright
    // on its rim (an orb's falloff on a disc 30 pixels wide) would show the rim's coverage.
    var opaqueEnd = Self.discs
    opaqueEnd[1].gradient = Self.falloff(.white, end: 0.2)
    var brightRim = Self.discs
    brightRim[0].gradient = Self.falloff(.white, fade: 1)
    for discs in [opaqueEnd, brightRim] {
      let fused = render(fused: true, mode: .screen, discs: discs)
      #expect(!fused.fusable)
      #expect(Self.bits(fused.image) == Self.bits(render(fused: false, mode: .screen, discs: discs).image))
    }
  }

  @Test func aTranslationAndUniformScaleStillFuse() {
    let move: (inout GraphicsContext) -> Void = {
      $0.translateBy(x: 3.25, y: -2)
      $0.scaleBy(x: 0.8, y: 0.8)
    }
    let fused = render(fused: true, mode: .screen, change: move)
    #expect(fused.fusable)
    #expect(codes(fused.image, render(fused: false, mode: .screen, change: move).image) <= 1)
  }

  /// The coverage the fused fill gives a disc against the flattened ellipse's (a white fill over
  /// nothing: its alpha is its coverage): within `rimCoverageError` on the rim, the same inside.
  @Test(arguments: [Float(2), 20, 200, 900])
  func rimCoverageStaysWithinItsBound(radius: Float) {
    let side = Int(2 * radius + 8)
    let cx = Float(side) / 2 + 0.37, cy = Float(side) / 2 - 0.21
    let image = Image(width: side, height: side)
    Surface(image: image, scale: 1).context().fill(
      Path(ellipseIn: Rect(center: Point(cx, cy), radius: radius)), with: .color(.white))
    var rim: Float = 0, inside: Float = 0
    for y in 0..<side {
      let dy = Float(y) + 0.5 - cy
      for x in 0..<side {
        let dx = Float(x) + 0.5 - cx
        let coverage = discCoverage(distance: (dx * dx + dy * dy).squareRoot(), radius: radius)
        let error = abs(coverage - image[x, y].w)
        if (dx * dx + dy * dy).squareRoot() < radius - 1 { inside = max(inside, error) } else { rim = max(rim, error) }
      }
    }
    #expect(rim > 0.05)  // the two differ on the rim...
    #expect(rim <= GraphicsContext.rimCoverageError(radius: radius))  // ...within the bound
    #expect(inside < 1e-6)
  }
}
