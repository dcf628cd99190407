import Testing

@testable import Raster

/// The weather's sky: a vertical gradient of opaque stops is shaded one color a row from the two
/// table entries around it, without building the table; the colors must be the table's.
@Suite struct SkyShadingTests {
  @Test(arguments: [1, 3])
  func aVerticalGradientShadesTheTablesColors(scale: Float) {
    let gradient = Gradient(stops: [
      .init(color: Color(red: 0.05, green: 0.1, blue: 0.3), location: 0),
      .init(color: Color(red: 0.4, green: 0.2, blue: 0.6), location: 0.37),
      .init(color: Color(red: 0.9, green: 0.7, blue: 0.2), location: 1),
    ])
    let shading = Shading.linearGradient(gradient, start: Point(50, -7), end: Point(50, 300))
    let program = ShadingProgram(shading, transform: .scale(scale, scale))
    guard case .vertical(let ay, let c, _) = program.kind else {
      Issue.record("an opaque vertical gradient should shade a color a row")
      return
    }
    #expect(program.isOpaque)
    let table = GradientTable(gradient).entries
    let width = 13
    let out = UnsafeMutablePointer<Pixel>.allocate(capacity: width)
    defer { out.deallocate() }
    // Rows above the start, across the stops, and below the end (padded).
    for y in stride(from: -40, to: Int(330 * scale), by: 1) {
      program.shade(row: y, x: 3, count: width, into: out)
      let t = ay * (Float(y) + 0.5) + c
      let expected = table.withUnsafeBufferPointer { GradientTable.lookup(t, $0.baseAddress!) }
      for i in 0..<width where out[i] != expected {
        Issue.record("row \(y) pixel \(i): \(out[i]) where the table gives \(expected)")
        return
      }
    }
  }

  @Test func aGradientWithTranslucentStopsKeepsItsTable() {
    let shading = Shading.linearGradient(
      Gradient(colors: [.white, .clear]), start: Point(0, 0), end: Point(0, 10))
    let program = ShadingProgram(shading, transform: .identity)
    guard case .linear = program.kind else {
      Issue.record("a translucent gradient should use its table")
      return
    }
    #expect(!program.isOpaque)
  }

  /// `missesBand(_:)` on a rectangle: true only on a band, more than two pixels off it.
  @Test func aRectangleMissesABandOnlyWellOffIt() {
    let band = Surface(width: 40, height: 100, bandRows: 10, scale: 2)
    band.drawBand(40..<50)
    let context = band.context()  // two pixels a point: the band is points 20..<25
    #expect(context.missesBand(Rect(x: 0, y: 5, width: 10, height: 10)))  // pixels 10...30
    #expect(context.missesBand(Rect(x: 0, y: 26.1, width: 10, height: 3)))  // from pixel 52.2
    #expect(!context.missesBand(Rect(x: 0, y: 25.9, width: 10, height: 3)))  // from 51.8: within 2
    #expect(!context.missesBand(Rect(x: 0, y: 18.5, width: 5, height: 0.5)))  // to 38: within 2
    #expect(context.missesBand(Rect(x: 0, y: 18, width: 5, height: 0.5)))  // to 37
    #expect(!context.missesBand(Rect(x: 0, y: 21, width: 5, height: 1)))
    let whole = Surface(image: Image(width: 40, height: 100), scale: 2)
    #expect(!whole.context().missesBand(Rect(x: 0, y: 40, width: 10, height: 1)))
  }
}
