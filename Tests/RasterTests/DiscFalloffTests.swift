import Foundation
import Testing

@testable import Raster

/// The fused discs evaluate their falloffs from the stops (`Falloff`) eight pixels a channel at a
/// time, and a crossfade of them mixes its moments in the same pass: the colors must stay far
/// within half an 8-bit code of the gradient itself, and the crossfade must be the bits of
/// `drawBlended` drawing its moments one after the other.
@Suite struct DiscFalloffTests {
  static let base = Color(red: 0.05, green: 0.04, blue: 0.13)

  /// Color Orbs' falloff.
  static func orb(_ color: Color) -> Gradient {
    Gradient(stops: [
      .init(color: color.opacity(0.9), location: 0),
      .init(color: color.opacity(0.45), location: 0.5),
      .init(color: color.opacity(0), location: 1),
    ])
  }

  @Test func aFalloffIsItsGradientToAMillionth() throws {
    let bent = GradientDiscTests.falloff(Color(red: 1, green: 0.2, blue: 0.5), fade: 0.8)
    let padded = Gradient(stops: [
      .init(color: Color(red: 0.2, green: 0.9, blue: 0.4, alpha: 0.8), location: 0.2),
      .init(color: Color(red: 0.9, green: 0.1, blue: 0.4, alpha: 0.3), location: 0.6),
      .init(color: .clear, location: 0.7),
    ])
    let orb = Self.orb(Color(red: 0.99, green: 0.18, blue: 0.33))
    // Color Orbs' stops lie on one line: one multiply-add a channel, no choice of segment. So do
    // the first three of `bent` (a line to 0.8, then clear).
    for (gradient, pieces) in [(orb, 1), (bent, 2), (padded, 2)] {
      let falloff = try #require(Falloff(gradient))
      #expect(falloff.segments.count == pieces)
      var worst: Float = 0
      for i in 0...600 {
        let t = Float(i) / 600 * 1.2 - 0.1
        let held = min(max(t, falloff.low), falloff.high)
        let segment = falloff.segments.last { $0.from <= held } ?? falloff.segments[0]
        let d: Pixel = segment.a + segment.b * held - gradient.color(at: t)
        worst = max(worst, abs(d.x), abs(d.y), abs(d.z), abs(d.w))
      }
      #expect(worst <= 2e-6)
    }
    // Straight mixing is not straight pieces, and a step is not a piece.
    var straight = orb
    straight.alphaInterpolation = .straight
    let step = Gradient(stops: [
      .init(color: .white, location: 0), .init(color: .black, location: 0.5),
      .init(color: .white, location: 0.5), .init(color: .clear, location: 1),
    ])
    #expect(Falloff(straight) == nil)
    #expect(Falloff(step) == nil)
  }

  /// The fused fill against the discs computed here in double precision from the gradients
  /// themselves (`Gradient.color(at:)`) with the fused fill's coverage (`discCoverage`).
  @Test(arguments: [BlendMode.screen, .sourceOver], [1.0, 0.6])
  func fusedDiscsAreTheirGradientsWellWithinHalfACode(mode: BlendMode, opacity: Double) {
    let discs = GradientDiscTests.discs
    let surface = Surface(image: Image(width: 64, height: 48), scale: 1)
    surface.clear()
    var context = surface.context()
    context.fill(Path(rect: Rect(x: 0, y: 0, width: 64, height: 48)), with: .color(Self.base))
    context.blendMode = mode
    context.opacity = opacity
    #expect(context.fusesDiscs(discs))
    context.fill(discs: discs)
    surface.finish()
    var worst: Double = 0
    for y in 0..<48 {
      for x in 0..<64 {
        let b = Self.base.premultiplied
        var d = (Double(b.x), Double(b.y), Double(b.z), Double(b.w))
        for disc in discs {
          let dx = Double(x) + 0.5 - Double(disc.center.x), dy = Double(y) + 0.5 - Double(disc.center.y)
          let r = (dx * dx + dy * dy).squareRoot()
          let cover = Double(discCoverage(distance: Float(r), radius: disc.endRadius)) * opacity
          guard cover > 0 else { continue }
          let t = (r - Double(disc.startRadius)) / Double(disc.endRadius - disc.startRadius)
          let c = disc.gradient.color(at: Float(t))
          let s = (Double(c.x) * cover, Double(c.y) * cover, Double(c.z) * cover, Double(c.w) * cover)
          switch mode {
          case .screen:
            d = (s.0 + d.0 - s.0 * d.0, s.1 + d.1 - s.1 * d.1, s.2 + d.2 - s.2 * d.2, s.3 + d.3 - s.3 * d.3)
          case .sourceOver:
            d = (s.0 + d.0 * (1 - s.3), s.1 + d.1 * (1 - s.3), s.2 + d.2 * (1 - s.3), s.3 + d.3 * (1 - s.3))
          }
        }
        let p = surface.image[x, y]
        for (got, want) in [(p.x, d.0), (p.y, d.1), (p.z, d.2), (p.w, d.3)] {
          worst = max(worst, abs(Double(got) - want))
        }
      }
    }
    // Half a code is 0.00196; the fused fill stays a hundred times closer.
    #expect(worst <= 2e-5, "\(worst)")
  }

  /// Three moments of drifting orbs over a base, crossfaded.
  static func moments(_ shift: Double) -> [[GradientDisc]] {
    (0..<3).map { m in
      let s = Float(shift) + Float(m) * 7
      return [
        GradientDisc(orb(Color(red: 1, green: 0.2, blue: 0.5)), center: Point(10 + s, 12), endRadius: 30),
        GradientDisc(orb(Color(red: 0.3, green: 0.9, blue: 0.2)), center: Point(41.3, 30.7 - s), endRadius: 21.6),
        GradientDisc(orb(Color(red: 0.1, green: 0.4, blue: 1)), center: Point(60 - s, -5), endRadius: 26),
      ]
    }
  }

  func crossfade(
    fused: Bool, base: Color = base, weights: [Double], oldFrame: Pixel = Pixel(9, 9, 9, 9)
  ) -> Surface {
    let surface = Surface(image: Image(width: 67, height: 48), scale: 1)
    surface.image.fill(oldFrame)
    surface.clear()
    let context = surface.context()
    let moments = Self.moments(1.5)
    if fused {
      context.fill(base: base, blendedDiscs: Array(moments.prefix(weights.count)), weights: weights, mode: .screen)
    } else {
      context.drawBlended(weights: weights) { i, inner in
        inner.fill(Path(rect: Rect(x: 0, y: 0, width: 67, height: 48)), with: .color(base))
        inner.blendMode = .screen
        inner.fill(discs: moments[i])
      }
    }
    surface.finish()
    return surface
  }

  @Test func aFusedCrossfadeIsDrawBlendedToTheBit() {
    for weights in [[0.7, 0.3], [0.2, 0.5, 0.3], [1.4, -2]] {
      let fused = crossfade(fused: true, weights: weights)
      let each = crossfade(fused: false, weights: weights)
      #expect(GradientDiscTests.bits(fused.image) == GradientDiscTests.bits(each.image), "\(weights)")
      #expect(fused.drawn == each.drawn)
      // The orbs are there, and no pixel of the old frame is left.
      #expect(fused.image[10, 12].x > 0.5)
      #expect(GradientDiscTests.bits(fused.image).allSatisfy { $0.w <= 1.0001 })
    }
    // A translucent base is not a pending fill: the moments are drawn one after the other.
    let glass = Color(red: 0.5, green: 0.2, blue: 0.1, alpha: 0.5)
    let fused = crossfade(fused: true, base: glass, weights: [0.6, 0.4])
    #expect(
      GradientDiscTests.bits(fused.image)
        == GradientDiscTests.bits(crossfade(fused: false, base: glass, weights: [0.6, 0.4]).image))
    #expect(fused.image[66, 47].w < 0.6)
  }

  /// Screened, the fused discs hold the pixels as 1 - d and multiply (`ScreenLanes`): over an
  /// opaque base every pixel stays exactly opaque, and a pixel beyond every rim keeps the base's
  /// bits, also in a chunk of eight some rim crosses.
  @Test func screenedOverAnOpaqueBaseEveryPixelStaysOpaqueAndTheRestTheBase() {
    let discs = GradientDiscTests.discs
    let surface = Surface(image: Image(width: 64, height: 48), scale: 1)
    surface.clear()
    var context = surface.context()
    context.fill(Path(rect: Rect(x: 0, y: 0, width: 64, height: 48)), with: .color(Self.base))
    context.blendMode = .screen
    #expect(context.fusesDiscs(discs))
    context.fill(discs: discs)
    surface.finish()
    var beyond = 0
    for y in 0..<48 {
      for x in 0..<64 {
        let p = surface.image[x, y]
        #expect(p.w == 1, "\(x), \(y)")
        let reached = discs.contains { d in
          let dx = Float(x) + 0.5 - d.center.x, dy = Float(y) + 0.5 - d.center.y
          return (dx * dx + dy * dy).squareRoot() < d.endRadius + 0.5
        }
        if !reached {
          beyond += 1
          #expect(p == Self.base.premultiplied, "\(x), \(y)")
        }
      }
    }
    #expect(beyond > 100)
    #expect(surface.image[10, 12].x > 0.5)
  }
}
