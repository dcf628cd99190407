import Foundation
import Raster
import Testing
import _TestSupport

@testable import Video

/// A grey picture crossed by one-pixel red vertical lines at `lines` (docs/ENCODING.md, Chroma siting).
func chromaLineImage(width: Int = 64, height: Int = 32, lines: [Int] = ChromaLine.columns, alpha: Float = 1) -> Image {
  let image = Image(width: width, height: height)
  for y in 0..<height {
    for x in 0..<width {
      image[x, y] = (lines.contains(x) ? Pixel(1, 0, 0, 1) : Pixel(0.5, 0.5, 0.5, 1)) * alpha
    }
  }
  return image
}

/// Where a line's colour lands: the centroid of the red-minus-green profile across it.
///
/// R − G is zero on the grey and changes with chroma alone (luma moves R and G alike), so its
/// centroid is where the decoder put the line's chroma; luma is always on the line. Signed, so
/// dither and coding noise on the grey average out instead of pulling the centroid outwards.
enum ChromaLine {
  /// One line on an even column, one on an odd one: a half-pixel shift moves them opposite ways
  /// under some decoders and the same way under others.
  static let columns = [20, 45]

  /// The centroid's distance from `column`, in pixels, over rows `rows`, from `redMinusGreen(x, y)`.
  static func offset(column: Int, rows: Range<Int>, _ redMinusGreen: (Int, Int) -> Double) -> Double {
    var (weight, moment) = (0.0, 0.0)
    for y in rows {
      for x in (column - 5)...(column + 5) {
        let w = redMinusGreen(x, y)
        weight += w
        moment += w * Double(x)
      }
    }
    return weight > 0 ? moment / weight - Double(column) : .infinity
  }
}

@Suite struct ChromaSitingTests {
  /// The converter's chroma planes alone: chroma sample i sits at luma column 2i + 0.5 (centred),
  /// and the line's colour difference, weighted by those sites, has its centroid on the line.
  /// The vector path (width a multiple of 8), the block loop (an odd width), 10 bits and kept alpha.
  @Test(arguments: [
    (64, VideoCodec.h264, 8, false), (62, .h264, 8, false), (61, .h264, 8, false), (64, .hevc, 10, false),
    (64, .vp9, 8, true),
  ])
  func theConvertersChromaCentroidSitsOnTheLine(width: Int, codec: VideoCodec, bitDepth: Int, alpha: Bool) throws {
    let s = try settings(
      "a.\(codec == .vp9 ? "webm" : "mp4")", width: width, height: 32, codec: codec, bitDepth: bitDepth,
      keepAlpha: alpha)
    let frame = FrameConverter(s).convert(chromaLineImage(width: width))
    let scale = Double(1 << (bitDepth - 8))
    for column in ChromaLine.columns {
      var (weight, moment) = (0.0, 0.0)
      for cy in 4..<12 {
        for cx in (column / 2 - 4)...(column / 2 + 4) {
          // Cr above the grey's 128: the red line's share of this sample (dither averages out).
          let w = Double(frame.sample(plane: 2, x: cx, y: cy)) / scale - 128
          weight += w
          moment += w * (Double(2 * cx) + 0.5)
        }
      }
      let offset = moment / weight - Double(column)
      #expect(
        abs(offset) <= 0.1, "\(width) wide, \(codec) \(bitDepth)-bit, alpha \(alpha): line \(column) at \(offset)")
    }
  }

  /// Through real encoders and libav's decoders (VideoReader: each chroma sample for its 2x2
  /// block, as swscale's and Chromium's software paths do): H.264 MP4, VP9 WebM with and without
  /// alpha, Y4M. The line's colour lands on the line's column within 0.1 pixel, and the stream says
  /// where its chroma sits.
  @Test(arguments: [
    ("a.mp4", false, "center"), ("a.webm", false, "center"), ("a.webm", true, "center"), ("a.y4m", false, "center"),
  ])
  func aLinesColourDecodesOnTheLine(file: String, alpha: Bool, location: String) throws {
    let folder = TemporaryDirectory()
    let image = chromaLineImage()
    var s = try settings(folder.path(file), width: 64, height: 32, frames: 2, keepAlpha: alpha)
    s.crf = s.codec == .vp9 ? 10 : (s.codec == .h264 ? 8 : nil)
    try write(s) { _ in image }
    let (info, frames) = try decodeAll(folder.path(file))
    #expect(info.chromaLocation == location, "\(file): \(info.chromaLocation)")
    let frame = try #require(frames.first)
    for column in ChromaLine.columns {
      let offset = ChromaLine.offset(column: column, rows: 4..<28) { x, y in
        Double(frame[x, y].x - frame[x, y].y) * 255
      }
      #expect(abs(offset) <= 0.1, "\(file) alpha \(alpha): line \(column)'s colour at \(offset) px")
    }
  }
}
