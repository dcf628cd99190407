import Raster
import Testing
import _TestSupport

@testable import Video

/// Chunks of eight columns that are one colour a row (a sky under a few stars) are converted
/// from 64-column tiles of that colour instead of pixel by pixel: the frame must be the same
/// bytes as converting every pixel, whatever the width, the tail columns past the last chunk,
/// and where the odd pixels fall (the first pixel, chunk edges, the last column).
@Suite struct UniformRunTests {
  /// A vertical gradient, some rows half transparent over the background, with odd pixels.
  static func sky(width: Int, height: Int, seed: UInt64) -> Image {
    let image = Image(width: width, height: height)
    var random = SeededRandom(seed: seed)
    func next() -> Int { random.nextInt() }
    for y in 0..<height {
      let f = Float(y) / Float(height)
      let alpha: Float = y % 9 == 4 ? 0.5 : 1
      let colour = Pixel(0.05 + 0.3 * f, 0.1 + 0.2 * f, 0.4 - 0.3 * f, 1) * alpha
      for x in 0..<width { image[x, y] = colour }
      // Rows 10-11 stay one colour throughout; the others get odd pixels.
      if y == 10 || y == 11 { continue }
      let odd = [0, 7, 8, 63, 64, width - 1, width / 2] + (0..<3).map { _ in next() % width }
      for (i, x) in odd.enumerated() where x >= 0 && x < width && (i + y) % 3 == 0 {
        image[x, y] = Pixel(0.9, 0.9, 0.95, 1) * Float(0.3 + 0.1 * Float(next() % 7))
      }
      // A bit pattern that differs but compares equal as a float.
      if y == 20 { image[width / 3, y] = Pixel(-0.0, colour.y, colour.z, colour.w) }
    }
    return image
  }

  @Test(arguments: [8, 16, 40, 64, 72, 136, 202, 37, 1080])
  func runsGiveTheSameBytesAsEveryPixel(width: Int) throws {
    let height = 70  // past the dither's 64 rows
    let image = Self.sky(width: width, height: height, seed: UInt64(width))
    let background = Color(red: 0.2, green: 0.6, blue: 0.1)
    let tiled = FrameConverter(
      width: width, height: height, layout: .yuv420p, keepAlpha: false, background: background)
    let plain = FrameConverter(
      width: width, height: height, layout: .yuv420p, keepAlpha: false, background: background, findsRuns: false)
    let a = tiled.convert(image)
    let b = plain.convert(image)
    for plane in 0..<3 {
      #expect(samples(a, plane: plane) == samples(b, plane: plane), "plane \(plane) at width \(width)")
    }
    // Bands (two rows of 64, as the pipeline hands them) give the same bytes as well.
    let banded = tiled.makeFrame()
    for rows in [0..<64, 64..<height] {
      let band = Image(width: width, height: rows.count)
      for y in rows { for x in 0..<width { band[x, y - rows.lowerBound] = image[x, y] } }
      tiled.convert(band: band, rows: rows, into: banded)
    }
    for plane in 0..<3 {
      #expect(samples(banded, plane: plane) == samples(b, plane: plane), "banded plane \(plane) at width \(width)")
    }
  }

  /// A row pair of one colour is one tile repeated: luma every 64 columns and chroma every 64
  /// samples (the dither's period), with the edge samples the same as the rest.
  @Test func aUniformRowPairRepeatsEvery64Columns() throws {
    let (width, height) = (1080, 4)
    let image = flatImage(Pixel(0.3, 0.5, 0.7, 1), width: width, height: height)
    let frame = FrameConverter(
      width: width, height: height, layout: .yuv420p, keepAlpha: false, background: .black
    ).convert(image)
    let luma = samples(frame, plane: 0), cb = samples(frame, plane: 1)
    for x in 64..<width { #expect(luma[x] == luma[x - 64]) }
    for x in 64..<width / 2 { #expect(cb[x] == cb[x - 64]) }
    // Dither moves codes within a row: not a single repeated value.
    #expect(Set(luma[0..<64]).count > 1)
  }
}
