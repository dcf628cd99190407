import Effects
import Foundation
import Raster
import Testing

@testable import Loopsmith
@testable import Video

/// The pipeline converts the sky's rows that nothing drew on from their colors, and of a row a
/// star or a drop crosses reads only the chunks around it (`RenderPipeline.bandSource`,
/// `Surface.pendingRow`): the bytes of converting the whole frame's pixels, to the bit, for
/// every weather and fades between two. docs/PERFORMANCE.md, The sky left unwritten.
@Suite struct PendingSkyConversionTests {
  /// Every weather, and a clear night and snow in turn (the sky's colors fade).
  static let cases: [[String: String]] =
    Weather.Kind.allCases.map { ["weather": $0.rawValue] } + [["sequence": "clearNight:1,snow:1", "repeat": "true"]]

  /// A weather job at `size` pixels and `scale`, 10 frames a second, to an MP4.
  static func job(_ set: [String: String], size: (Int, Int), scale: Double) throws -> RenderJob {
    var r = RenderRequest()
    r.effect = "weather"
    r.size = size
    r.scale = scale
    r.fps = 10
    r.threads = 1
    r.outputs = ["x.mp4"]
    for (k, v) in set { r.parameters[k] = try #require(Weather.info.parameter(named: k)).parse(v) }
    return try r.job()
  }

  /// Frames of `set` converted as the pipeline converts them, band by band, against the whole
  /// frame's pixels converted; returns the share of the frames' pixels never written.
  static func compare(_ set: [String: String], size: (Int, Int), scale: Double) throws -> Double {
    let j = try job(set, size: size, scale: scale)
    let converter = FrameConverter(j.outputs[0])
    let band = Surface(width: j.width, height: j.height, bandRows: RenderPipeline.bandRows, scale: Float(j.scale))
    let whole = Surface(image: Image(width: j.width, height: j.height), scale: Float(j.scale))
    let n = j.frameCount
    // 5 and 8 are in the thunderstorm's strikes; n / 2 in the fade.
    let frames = Set([0, 5, 8, n / 2, n - 1].filter { $0 < n }).sorted()
    var unwritten = 0
    for frame in frames {
      let piped = converter.makeFrame()
      let drawn = RenderPipeline.drawBands(j.makeEffect(), job: j, frame: frame, on: band, keepsSamples: true) { rows in
        let source = RenderPipeline.bandSource(band, converters: [converter])
        if case .rowColors = source {
          for y in rows { unwritten += band.pendingRow(y).map { j.width - $0.written.count } ?? 0 }
        }
        RenderPipeline.convert(source, of: band, rows: rows, with: converter, into: piped)
      }
      #expect(drawn)
      RenderPipeline.draw(j.makeEffect(), job: j, frame: frame, on: whole)
      let expected = converter.makeFrame()
      converter.convert(whole.image, into: expected, drawn: whole.drawn)
      let same = BandRenderingTests.bytes(piped) == BandRenderingTests.bytes(expected)
      #expect(same, "\(set) \(size) at \(scale) frame \(frame): the pipeline's bytes differ from the whole frame's")
    }
    return Double(unwritten) / Double(frames.count * j.width * j.height)
  }

  /// At the tests' usual size and at 1080 pixels wide (scale 3, a phone's frame cut short to
  /// 1080 x 400): the bytes are the whole frame's, and the sky nothing drew on is left unwritten.
  /// Measured: a clear night 89% and 57% of its pixels, snow 88% and 50%, a clear day 59% and 30%,
  /// the night fading into snow 37% and 21%; at 360x640 cloudy 40%, rain 23%, the thunderstorm
  /// 10% and fog 7%, whose clouds and fog cross every row of the short 1080-wide frame.
  @Test(arguments: cases)
  func theSkyLeftUnwrittenGivesTheWholeFramesBytes(set: [String: String]) throws {
    let least: (small: Double, wide: Double?) =
      switch set["weather"] ?? set["sequence"] {
      case "clearNight", "snow": (0.4, 0.4)
      case "clearDay", "clearNight:1,snow:1": (0.1, 0.1)
      default: (0, nil)
      }
    for (size, scale, least) in [((360, 640), 1.0, least.small), ((1080, 400), 3.0, least.wide)] {
      let share = try Self.compare(set, size: size, scale: scale)
      if let least { #expect(share > least, "\(set) \(size): only \(share) of the sky was left unwritten") }
    }
  }

  /// A width the eight-column chunks do not cover, and an output that reads pixels (10-bit):
  /// the pixels are written and read, to the same bytes.
  @Test func otherWidthsAndLayoutsReadThePixels() throws {
    let j = try Self.job(["weather": "clearNight"], size: (362, 640), scale: 1)
    #expect(!FrameConverter(j.outputs[0]).convertsRowColors)
    let tenBit = FrameConverter(width: 360, height: 640, layout: .yuv420p10, keepAlpha: false, background: .black)
    #expect(!tenBit.convertsRowColors)
    #expect(try Self.compare(["weather": "clearNight"], size: (362, 640), scale: 1) == 0)
  }
}
