import Testing
import _TestSupport

@testable import Raster

/// The weather's sky over a band (docs/PERFORMANCE.md, The sky left unwritten): a vertical
/// gradient over every pixel of a cleared band is noted as a color a row, and a row is written
/// only in the chunks of eight columns something draws on, the two rows of a pair alike; what is
/// read is what writing the whole sky gave, to the bit.
@Suite struct PendingRowsTests {
  static let (width, height, bandRows) = (44, 30, 10)

  /// The sky: a vertical gradient of opaque stops over the whole frame.
  static func sky(_ c: inout GraphicsContext) {
    let gradient = Gradient(colors: [Color(red: 0.05, green: 0.1, blue: 0.3), Color(red: 0.5, green: 0.3, blue: 0.7)])
    c.fill(
      Path(rect: Rect(x: 0, y: 0, width: Float(width), height: Float(height))),
      with: .linearGradient(gradient, start: Point(22, 0), end: Point(22, Float(height))))
  }

  /// A star: a small white disk around (18, 14), so on rows 12-16 and columns 16-20 (chunk 16..<24).
  static func star(_ c: inout GraphicsContext) {
    c.fill(Path(ellipseIn: Rect(center: Point(18, 14.5), radius: 2)), with: .color(.white.opacity(0.8)))
  }

  @Test func aStarWritesOnlyItsChunksOfItsRowPairs() throws {
    let surface = Surface(width: Self.width, height: Self.height, bandRows: Self.bandRows, scale: 1)
    surface.drawBand(10..<20)
    var c = surface.context()
    Self.sky(&c)
    surface.finishKeepingSamples()
    #expect(surface.keepsRowColors)
    for y in 10..<20 {
      let row = try #require(surface.pendingRow(y), "row \(y) of the sky alone is pending")
      #expect(row.written.isEmpty, "row \(y): nothing is written yet")
    }
    Self.star(&c)
    surface.finishKeepingSamples()
    // Rows 12-16 hold the star; 17 is written as 16's partner; the others are untouched.
    for y in 10..<20 {
      let row = try #require(surface.pendingRow(y))
      #expect(row.written == ((12...17).contains(y) ? 16..<24 : 0..<0), "row \(y): written \(row.written)")
    }
    // The pending colors are the rows' colors, and what is written is the whole sky's bits.
    let whole = Surface(image: Image(width: Self.width, height: Self.height), scale: 1)
    whole.clear()
    var w = whole.context()
    Self.sky(&w)
    Self.star(&w)
    whole.finish()
    for y in 10..<20 {
      let row = try #require(surface.pendingRow(y))
      #expect(row.color == whole.image.row(y)[0], "row \(y)'s color")
      let band = surface.image.row(y - 10)
      let same = row.written.allSatisfy { band[$0] == whole.image.row(y)[$0] }
      #expect(same, "row \(y): its written columns")
    }
    surface.finish()
    #expect(surface.pendingRow(12) == nil && !surface.keepsRowColors, "finish writes every row")
    let settled = (10..<20).allSatisfy { y in
      (0..<Self.width).allSatisfy { surface.image.row(y - 10)[$0] == whole.image.row(y)[$0] }
    }
    #expect(settled, "finish writes the sky's bits")
  }

  /// A row asked for whole (a filter, a blur reading the band) is written whole; a new band
  /// drops what was pending.
  @Test func aRowAskedForWholeIsWrittenWhole() throws {
    let surface = Surface(width: Self.width, height: Self.height, bandRows: Self.bandRows, scale: 1)
    surface.drawBand(0..<10)
    var c = surface.context()
    Self.sky(&c)
    _ = surface.canvasLayer.row(3)
    surface.finishKeepingSamples()
    #expect(surface.pendingRow(3) == nil, "row 3 is written whole")
    #expect(surface.pendingRow(2) == nil, "and its partner")
    #expect(try #require(surface.pendingRow(4)).written.isEmpty)
    surface.drawBand(10..<20)
    #expect(!surface.keepsRowColors && surface.pendingRow(12) == nil, "a new band starts cleared")
  }

  /// Every band of sky and stars drawn this way is, once finished, the whole frame's bits, and
  /// a gradient with a translucent stop (not one color a row) is written at once.
  @Test func finishedBandsAreTheWholeFramesBits() {
    let (whole, assembled, banded) = drawWholeAndInBands(width: 45, height: 31, bandRows: 10) { c in
      Self.sky(&c)
      Self.star(&c)
      c.fill(Path(ellipseIn: Rect(center: Point(40, 3), radius: 3)), with: .color(.white))
    }
    #expect(banded)
    #expect(channelBits(assembled) == channelBits(whole))
    let surface = Surface(width: Self.width, height: Self.height, bandRows: Self.bandRows, scale: 1)
    surface.drawBand(0..<10)
    let c = surface.context()
    c.fill(
      Path(rect: Rect(x: 0, y: 0, width: Float(Self.width), height: Float(Self.height))),
      with: .linearGradient(Gradient(colors: [.white, .white.opacity(0.5)]), start: Point(0, 0), end: Point(0, 30)))
    surface.finishKeepingSamples()
    #expect(!surface.keepsRowColors && surface.pendingRow(5) == nil)
  }
}
