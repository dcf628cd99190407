import Effects
import Foundation
import Raster
import Testing

@testable import Loopsmith
@testable import Video

/// Band rendering (docs/PERFORMANCE.md, Band rendering) draws and converts a frame a band of rows
/// at a time: the float pixels of every band, and the samples converted from them, are the bytes
/// the whole frame gives. Frames whose drawing reaches across rows (a blur, a shadow) are drawn
/// whole instead, and the pipeline's frames are the same bytes either way.
@Suite struct BandRenderingTests {
  /// Even and odd sizes; bands of 10 rows split them into 7 bands, the last one short (and, at
  /// 63 rows, odd, ending on the frame's last row).
  static let sizes = [(36, 64), (37, 63)]
  static let bandRows = 10
  /// One converter of each kind of layout: 4:2:0 in 8 and 10 bits, with alpha, and packed RGBA.
  static let layouts: [PixelLayout] = [.yuv420p, .yuv420p10, .yuva420p, .yuva444p10, .rgba]

  /// Every plane's bytes, one after another.
  static func bytes(_ frame: ConvertedFrame) -> [UInt8] {
    frame.planes.flatMap { plane in
      Array(UnsafeRawBufferPointer(start: plane.pointer, count: plane.bytesPerRow * plane.rows))
    }
  }

  /// The pixels' bits, row after row.
  static func bits(_ image: Image) -> [UInt32] {
    (0..<image.count).flatMap { i -> [UInt32] in
      let p = image.pixels[i]
      return [p.x.bitPattern, p.y.bitPattern, p.z.bitPattern, p.w.bitPattern]
    }
  }

  /// Draws frames of `effect` whole and in bands; returns how many of them were drawn in bands
  /// (the others asked for the whole frame) after checking every banded one's bytes.
  static func compare(_ effect: String, _ set: [String: String], size: (Int, Int)) throws -> (banded: Int, of: Int) {
    // A GIF takes any size; the converters below are made for each layout, whatever the output.
    let j = try job(effect, set, size: size, fps: 10, output: "x.gif")
    let drawer = j.makeEffect()
    let whole = Surface(image: Image(width: j.width, height: j.height), scale: Float(j.scale))
    let band = Surface(width: j.width, height: j.height, bandRows: bandRows, scale: Float(j.scale))
    let converters = layouts.map {
      FrameConverter(width: j.width, height: j.height, layout: $0, keepAlpha: true, background: .black)
    }
    let n = j.frameCount
    let frames = Set([0, n / 3, 2 * n / 3, n - 1]).sorted()
    var banded = 0
    for frame in frames {
      RenderPipeline.draw(drawer, job: j, frame: frame, on: whole)
      let expected = converters.map { $0.convert(whole.image) }
      let assembled = Image(width: j.width, height: j.height)
      let converted = converters.map { $0.makeFrame() }
      var bands: [Range<Int>] = []
      let drawn = RenderPipeline.drawBands(drawer, job: j, frame: frame, on: band) { rows in
        bands.append(rows)
        #expect(band.band == rows)
        assembled.row(rows.lowerBound).update(from: band.image.pixels, count: rows.count * j.width)
        for (converter, out) in zip(converters, converted) {
          converter.convert(band: band.image, rows: rows, into: out, drawn: band.drawn)
        }
      }
      guard drawn else {
        #expect(bands.isEmpty, "a frame drawn whole converts no band")
        continue
      }
      banded += 1
      #expect(bands.count == (j.height + bandRows - 1) / bandRows)
      #expect(bits(assembled) == bits(whole.image), "\(effect) \(set) \(size) frame \(frame): float pixels differ")
      for (i, layout) in layouts.enumerated() {
        #expect(
          bytes(converted[i]) == bytes(expected[i]), "\(effect) \(set) \(size) frame \(frame): \(layout) differs")
      }
    }
    return (banded, frames.count)
  }

  @Test(arguments: LoopTests.cases)
  func bandsAreTheWholeFramesBytes(effect: String, set: [String: String]) throws {
    for size in Self.sizes {
      let (banded, of) = try Self.compare(effect, set, size: size)
      // The effects that draw no blur, shadow or clip band every frame; the weather's clouds,
      // fog, sun rays and lightning glow are blurred, so it draws some or all frames whole.
      let bands =
        ["color-orbs", "aurora-mesh"].contains(effect) || set["weather"] == "clearNight"
        || set["weather"] == "snow"
      if bands { #expect(banded == of, "\(effect) \(set) \(size) drew \(of - banded) of \(of) frames whole") }
      if effect == "weather" && (set["weather"] == "cloudy" || set["weather"] == "fog") {
        #expect(banded == 0, "a blurred weather must not draw in bands")
      }
    }
  }

  /// Color Orbs fuses its orbs (one pass a row for all five) from 360x640 up: bands of 32 rows
  /// draw those rows alone and give the same bytes, also on a crossfaded frame (a 6 s loop fades
  /// its last seconds, both moments shaded and mixed in one pass).
  @Test func fusedOrbsAreTheWholeFramesBytes() throws {
    var request = RenderRequest()
    request.effect = "color-orbs"
    request.size = (360, 640)
    request.duration = 6
    request.scale = 1
    request.fps = 10
    request.threads = 1
    request.outputs = ["x.mp4"]
    let j = try request.job()
    let drawer = j.makeEffect()
    let whole = Surface(image: Image(width: j.width, height: j.height), scale: Float(j.scale))
    let band = Surface(width: j.width, height: j.height, bandRows: 32, scale: Float(j.scale))
    let converter = FrameConverter(j.outputs[0])
    for frame in [j.frameCount / 2, j.frameCount - 1] {
      RenderPipeline.draw(drawer, job: j, frame: frame, on: whole)
      let wholeFrame = converter.makeFrame()
      converter.convert(whole.image, into: wholeFrame, drawn: whole.drawn)
      let bandFrame = converter.makeFrame()
      var fused = false
      let drawn = RenderPipeline.drawBands(drawer, job: j, frame: frame, on: band) { rows in
        converter.convert(band: band.image, rows: rows, into: bandFrame, drawn: band.drawn)
        fused = true
      }
      #expect(drawn && fused)
      #expect(Self.bytes(bandFrame) == Self.bytes(wholeFrame), "frame \(frame)")
    }
  }

  /// The pipeline's frames, drawn in bands where they can be and whole where not, on one thread
  /// and on two, are the frames drawn whole.
  @Test(
    arguments: [
      ("color-orbs", [:]), ("weather", ["weather": "snow"]), ("weather", ["weather": "cloudy"]),
      ("weather", ["weather": "thunderstorm"]), ("voice-orb", ["state": "speaking", "level": "0.9"]),
    ] as [(String, [String: String])])
  func thePipelinesFramesAreTheWholeFrames(effect: String, set: [String: String]) throws {
    for threads in [1, 2] {
      let j = try job(effect, set, size: (37, 63), fps: 1, threads: threads, output: "x.gif")
      let converter = FrameConverter(
        width: j.width, height: j.height, layout: .yuv420p, keepAlpha: false, background: .black)
      let sink = CollectingSink()
      try RenderPipeline.drawFrames(
        j, converters: [converter], into: [sink], posters: [], palettes: [], progress: nil,
        bandRows: Self.bandRows)
      #expect(sink.frames.count == j.frameCount)
      let drawer = j.makeEffect()
      let whole = Surface(image: Image(width: j.width, height: j.height), scale: Float(j.scale))
      for (i, got) in sink.frames.enumerated() {
        RenderPipeline.draw(drawer, job: j, frame: i, on: whole)
        #expect(got == Self.bytes(converter.convert(whole.image)), "\(effect) \(set) frame \(i), \(threads) threads")
      }
    }
  }
}

/// Keeps the bytes of every frame the pipeline hands over.
private final class CollectingSink: FrameSink {
  var frames: [[UInt8]] = []
  func append(_ frame: ConvertedFrame) throws { frames.append(BandRenderingTests.bytes(frame)) }
}
