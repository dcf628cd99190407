import Raster
import Testing

@testable import Video

/// A frame of one colour.
func flatImage(_ pixel: Pixel, width: Int = 64, height: Int = 64) -> Image {
  let image = Image(width: width, height: height)
  image.fill(pixel)
  return image
}

func settings(
  _ path: String, width: Int = 64, height: Int = 64, fps: Int = 25, frames: Int = 8,
  codec: VideoCodec? = nil, bitDepth: Int = 8, keepAlpha: Bool = false
) throws -> OutputSettings {
  try OutputSettings(
    path: path, codec: codec, width: width, height: height, fps: fps, frameCount: frames,
    bitDepth: bitDepth, keepAlpha: keepAlpha)
}

/// Every sample of plane `plane`.
func samples(_ frame: ConvertedFrame, plane: Int) -> [Int] {
  let p = frame.planes[plane]
  let perSample = (frame.layout == .yuv420p10 || frame.layout == .yuva444p10) ? 2 : 1
  var result: [Int] = []
  for y in 0..<p.rows {
    for x in 0..<(p.bytesPerRow / perSample) { result.append(frame.sample(plane: plane, x: x, y: y)) }
  }
  return result
}

@Suite struct ConverterTests {
  @Test func pureRedBecomesBT709LimitedRange() throws {
    let converter = FrameConverter(try settings("a.mp4"))
    let frame = converter.convert(flatImage(Pixel(1, 0, 0, 1)))
    // BT.709 gives 63 / 102 / 240; BT.601 would give 81 / 90 / 240 (docs/ENCODING.md, Colour).
    for (plane, expected) in [(0, 63), (1, 102), (2, 240)] {
      let values = samples(frame, plane: plane)
      #expect(values.allSatisfy { abs($0 - expected) <= 1 }, "plane \(plane): \(Set(values))")
      let mean = Double(values.reduce(0, +)) / Double(values.count)
      #expect(abs(mean - Double(expected)) < 0.6, "plane \(plane) mean \(mean)")
    }
  }

  @Test func pureRedInTenBits() throws {
    let converter = FrameConverter(try settings("a.mp4", codec: .hevc, bitDepth: 10))
    let frame = converter.convert(flatImage(Pixel(1, 0, 0, 1)))
    // 10-bit codes are the 8-bit ones times 4: 62.56·4, 102.34·4, 240·4.
    for (plane, expected) in [(0, 250), (1, 409), (2, 960)] {
      let values = samples(frame, plane: plane)
      #expect(values.allSatisfy { abs($0 - expected) <= 1 }, "plane \(plane): \(Set(values))")
    }
  }

  @Test func blackAndWhiteHitTheLimitedRangeEnds() throws {
    let converter = FrameConverter(try settings("a.mp4"))
    let white = converter.convert(flatImage(Pixel(1, 1, 1, 1)))
    #expect(samples(white, plane: 0).allSatisfy { abs($0 - 235) <= 1 })
    #expect(samples(white, plane: 1).allSatisfy { abs($0 - 128) <= 1 })
    let black = converter.convert(flatImage(Pixel(0, 0, 0, 1)))
    #expect(samples(black, plane: 0).allSatisfy { abs($0 - 16) <= 1 })
  }

  @Test func transparentPixelsShowTheBackground() throws {
    var s = try settings("a.mp4")
    s.background = .white
    let frame = FrameConverter(s).convert(flatImage(.zero))
    #expect(samples(frame, plane: 0).allSatisfy { abs($0 - 235) <= 1 })
  }

  @Test func theSameImageGivesTheSameBytes() throws {
    let converter = FrameConverter(try settings("a.webm", keepAlpha: true))
    let image = testImage(alpha: 0.5)
    let a = converter.convert(image)
    let b = converter.convert(image)
    for plane in 0..<a.planeCount { #expect(samples(a, plane: plane) == samples(b, plane: plane)) }
  }

  /// A dark ramp over 24 codes keeps its slope in the column means (docs/ENCODING.md, Banding).
  @Test(arguments: [8, 10]) func aDarkRampDoesNotBand(bits: Int) throws {
    let (width, height) = (256, 64)
    let converter = FrameConverter(
      try settings("a.mp4", width: width, height: height, codec: bits == 10 ? .hevc : .h264, bitDepth: bits))
    let image = Image(width: width, height: height)
    let scale = Double(1 << (bits - 8))
    // Y from 20 to 44 (8-bit codes): grey levels v with 16 + 219 v = code.
    func exactCode(_ x: Int) -> Double { (20 + 24 * Double(x) / Double(width - 1)) * scale }
    for y in 0..<height {
      for x in 0..<width {
        let v = Float((exactCode(x) / scale - 16) / 219)
        image[x, y] = Pixel(v, v, v, 1)
      }
    }
    let frame = converter.convert(image)
    var squares = 0.0
    for x in 0..<width {
      var sum = 0.0
      for y in 0..<height { sum += Double(frame.sample(plane: 0, x: x, y: y)) }
      let error = (sum / Double(height) - exactCode(x)) / scale  // in 8-bit steps
      squares += error * error
    }
    let rms = (squares / Double(width)).squareRoot()
    #expect(rms < 0.1, "RMS of column means \(rms) 8-bit steps")
  }

  @Test func alphaIsUnpremultipliedAndExactAtTheEnds() throws {
    let converter = FrameConverter(try settings("a.png", frames: 1, keepAlpha: true))
    let image = Image(width: 64, height: 64)
    image[0, 0] = Pixel(0.5, 0, 0, 0.5)  // straight red at half alpha
    image[1, 0] = Pixel(0, 0, 1, 1)
    let frame = converter.convert(image)
    #expect(abs(frame.sample(plane: 0, x: 0, y: 0) - 255) <= 1)
    #expect(abs(frame.sample(plane: 0, x: 3, y: 0) - 128) <= 1)
    #expect(frame.sample(plane: 0, x: 7, y: 0) == 255)
    #expect(frame.sample(plane: 0, x: 4 * 10 + 3, y: 5) == 0)
  }
}

/// Rows outside what was drawn are copied from converted clear rows instead of read: the frame
/// must be the same samples as converting every row, in every 4:2:0 layout.
@Suite struct ClearRowTests {
  @Test(arguments: [("a.mp4", 8, false), ("a.webm", 8, true), ("a.mp4", 10, false)])
  func rowsOutsideTheDrawingAreTheSameSamples(path: String, bits: Int, alpha: Bool) throws {
    // Taller than the 64-row dither period, an odd height, content from row 70 to 133.
    let (w, h) = (50, 201)
    let image = Image(width: w, height: h)
    let drawn = IntRect(x: 5, y: 70, width: 30, height: 64)
    for y in drawn.y..<drawn.maxY {
      for x in drawn.x..<drawn.maxX { image[x, y] = Pixel(0.4, Float(y % 7) / 10, 0.1, 0.8) }
    }
    let s = try OutputSettings(
      path: path, codec: bits == 10 ? .hevc : nil, width: w, height: h, fps: 25, frameCount: 8, bitDepth: bits,
      keepAlpha: alpha, background: Color(red: 0.1, green: 0.5, blue: 0.9))
    let converter = FrameConverter(s)
    #expect(converter.clearRows != nil)
    let whole = converter.makeFrame(), copied = converter.makeFrame()
    converter.convert(image, into: whole)
    converter.convert(image, into: copied, drawn: drawn)
    for plane in 0..<whole.planeCount {
      #expect(samples(whole, plane: plane) == samples(copied, plane: plane), "plane \(plane)")
    }
    // Nothing drawn at all: every row copied.
    let blank = Image(width: w, height: h)
    converter.convert(blank, into: whole)
    converter.convert(blank, into: copied, drawn: .empty)
    for plane in 0..<whole.planeCount {
      #expect(samples(whole, plane: plane) == samples(copied, plane: plane), "plane \(plane)")
    }
  }
}
