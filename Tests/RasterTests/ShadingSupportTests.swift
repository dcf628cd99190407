import Testing

@testable import Raster

/// A radial gradient whose last stop is clear paints exactly clear beyond its end radius, so a
/// fill shades and blends only inside the end circle's box (`ShadingProgram.support`): the sun's
/// glow ends at 0.56 of its disk's radius. The pixels must be the bits the whole fill gives.
@Suite struct ShadingSupportTests {
  static let glow = Gradient(colors: [
    .white.opacity(0.9), Color(red: 1, green: 0.93, blue: 0.7).opacity(0.45), .clear,
  ])

  static func bits(_ p: Pixel) -> SIMD4<UInt32> {
    SIMD4(p.x.bitPattern, p.y.bitPattern, p.z.bitPattern, p.w.bitPattern)
  }

  /// A transform that scales unevenly and rotates, so the end circle is a tilted ellipse.
  static func tilted() -> GraphicsContext {
    let surface = Surface(image: Image(width: 97, height: 75), scale: 1)
    surface.clear()
    var context = surface.context()
    context.translateBy(x: 50, y: 36)
    context.rotate(by: 0.45)
    context.scaleBy(x: 1.6, y: 0.7)
    return context
  }

  /// The colors of a span from any pixel on are the bits the whole span gives them: the same
  /// groups of eight, each lane from the span's start.
  @Test func aRadialGradientShadesTheSameBitsFromAnyFirstPixel() {
    let program = ShadingProgram(
      .radialGradient(Self.glow, center: Point(3, -2), startRadius: 1.5, endRadius: 19),
      transform: Self.tilted().transform)
    let out = UnsafeMutablePointer<Pixel>.allocate(capacity: 48)
    let whole = UnsafeMutablePointer<Pixel>.allocate(capacity: 48)
    defer {
      out.deallocate()
      whole.deallocate()
    }
    for count in [1, 7, 8, 9, 16, 23, 48] {
      program.shade(row: 30, x: 21, count: count, into: whole)
      for first in 0..<count {
        out.update(repeating: Pixel(repeating: .nan), count: count)
        program.shade(row: 30, x: 21, count: count, into: out, from: first)
        for i in first..<count where Self.bits(out[i]) != Self.bits(whole[i]) {
          Issue.record("\(count) pixels from \(first): pixel \(i) is \(out[i]), the whole span's \(whole[i])")
        }
      }
    }
  }

  /// A linear gradient's pixel is the table's color at its own center's t, the same bits
  /// whatever span it is shaded in and from whichever pixel on: the eights of lanes and the tail
  /// make t as one pixel's lookup does. (A running sum along the span drifted by its rounding,
  /// so a column's color depended on where its span started.)
  @Test func aLinearGradientShadesEachPixelFromItsOwnColumn() {
    let gradient = Gradient(colors: [.white, Color(red: 0.2, green: 0.5, blue: 0.9).opacity(0.6), .clear])
    let program = ShadingProgram(
      .linearGradient(gradient, start: Point(-7, 3), end: Point(31, 12)), transform: Self.tilted().transform)
    guard case .linear(let ax, let ay, let c) = program.kind, ax != 0 else {
      Issue.record("not a sloped linear gradient: \(program.kind)")
      return
    }
    let out = UnsafeMutablePointer<Pixel>.allocate(capacity: 64)
    defer { out.deallocate() }
    program.table.withUnsafeBufferPointer { table in
      let y = 17
      for (x, count) in [(0, 64), (5, 1), (13, 7), (3, 8), (21, 9), (40, 23), (1000, 17)] {
        for first in Set([0, count / 2, count - 1]) {
          out.update(repeating: Pixel(repeating: .nan), count: count)
          program.shade(row: y, x: x, count: count, into: out, from: first)
          for i in first..<count {
            let alone = GradientTable.lookup(ax * (Float(x + i) + 0.5) + ay * (Float(y) + 0.5) + c, table.baseAddress!)
            if Self.bits(out[i]) != Self.bits(alone) {
              Issue.record("span at \(x) of \(count) from \(first): pixel \(i) is \(out[i]), its own lookup \(alone)")
            }
          }
        }
      }
    }
  }

  /// A fill far larger than the gradient's end circle, over a background that is not one color:
  /// the same bits with the support as without it, and nothing outside the support touched.
  @Test(arguments: [BlendMode.sourceOver, .screen])
  func aClearEndedRadialGradientPaintsOnlyInsideItsSupport(mode: BlendMode) {
    let shading = Shading.radialGradient(Self.glow, center: Point(4, 1), startRadius: 0, endRadius: 14)
    let ellipse = Path(ellipseIn: Rect(x: -40, y: -30, width: 75, height: 62))
    var drawn: [[UInt32]] = []
    var support = IntRect.empty
    for bounded in [false, true] {
      let context = Self.tilted()
      var under = context
      under.transform = .identity
      under.fill(
        Path(rect: Rect(x: 0, y: 0, width: 97, height: 75)),
        with: .linearGradient(
          Gradient(colors: [
            Color(red: 0.1, green: 0.3, blue: 0.6), Color(red: 0.8, green: 0.4, blue: 0.1).opacity(0.6),
          ]),
          start: Point(0, 0), end: Point(97, 75)))
      let before = context.target.dirty
      var program = ShadingProgram(shading, transform: context.transform)
      #expect(program.support != nil)
      if !bounded { program.support = nil } else { support = program.support! }
      var lines = Polylines()
      ellipse.flatten(transform: context.transform, into: &lines)
      lines.sanitize()
      context.target.dirty = .empty
      context.rasterize(
        lines, program, .nonZero, into: context.target, origin: (0, 0), opacity: 0.8, mode: mode, clip: nil)
      let touched = context.target.dirty
      context.target.dirty = before.union(touched)
      if bounded {
        #expect(!touched.isEmpty && touched.intersection(support) == touched, "touched \(touched), support \(support)")
      } else {
        // The fill reaches well past the support, so the support left pixels out.
        #expect(touched.intersection(support) != touched)
      }
      context.surface.finish()
      drawn.append(
        (0..<(97 * 75)).flatMap { i in
          let p = context.surface.image.pixels[i]
          return [p.x.bitPattern, p.y.bitPattern, p.z.bitPattern, p.w.bitPattern]
        })
    }
    let differing = drawn[0].indices.filter { drawn[0][$0] != drawn[1][$0] }
    #expect(
      differing.isEmpty,
      "the support changed \(differing.count) channels, the first of pixel \((differing.first ?? 0) / 4)")
  }

  /// Only a gradient that ends clear, growing outwards, has a support.
  @Test func onlyAClearEndGrowingOutwardsBoundsTheGradient() {
    let t = Transform.identity
    let faint = Gradient(colors: [.white, .white.opacity(0.001)])
    #expect(
      ShadingProgram(.radialGradient(Self.glow, center: Point(0, 0), startRadius: 2, endRadius: 9), transform: t)
        .support != nil)
    #expect(
      ShadingProgram(.radialGradient(faint, center: Point(0, 0), startRadius: 2, endRadius: 9), transform: t).support
        == nil)
    #expect(
      ShadingProgram(.radialGradient(Self.glow, center: Point(0, 0), startRadius: 9, endRadius: 2), transform: t)
        .support == nil)
    #expect(
      ShadingProgram(.radialGradient(Self.glow, center: Point(0, 0), startRadius: 2, endRadius: 2), transform: t)
        .support == nil)
    #expect(
      ShadingProgram(.linearGradient(Self.glow, start: Point(0, 0), end: Point(5, 0)), transform: t).support == nil)
    // A center that is not a number paints the first stop everywhere.
    #expect(
      ShadingProgram(.radialGradient(Self.glow, center: Point(.nan, 0), startRadius: 2, endRadius: 9), transform: t)
        .support == nil)
    let box = ShadingProgram(
      .radialGradient(Self.glow, center: Point(10, 20), startRadius: 0, endRadius: 5), transform: t
    ).support
    #expect(box == IntRect(x: 3, y: 13, width: 14, height: 14))
  }
}
