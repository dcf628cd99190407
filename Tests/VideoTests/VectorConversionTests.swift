import Raster
import Testing
import _TestSupport

@testable import Video

/// 8-bit 4:2:0 with alpha kept (WebM's yuva420p, stacked alpha's picture), opaque 10-bit 4:2:0
/// (HEVC Main10, VP9 Profile 2), 10-bit 4:4:4 (ProRes 4444) and RGB (PNG, APNG, WebP, GIF)
/// convert eight pixels of each row at a time (`alphaBlocks8`, `opaqueBlocks10`,
/// `convert444Chunks`, `convertRGBChunks`):
/// the frame must be the scalar loop's samples, in every plane, whatever the pixels: clear, alpha
/// at and around the 1/4096 below which a pixel takes its block's colour (4:4:4: black), colour
/// above its alpha, out of range, -0, NaN and infinite, at any width (the tail columns past the
/// last chunk take the scalar loop).
@Suite struct VectorConversionTests {
  /// Premultiplied pixels of every kind, from a seeded generator.
  static func pixels(width: Int, height: Int, seed: UInt64) -> Image {
    let image = Image(width: width, height: height)
    var random = SeededRandom(seed: seed)
    func next() -> Float { random.next() }
    let odd: [Pixel] = [
      .zero, Pixel(-0.0, -0.0, -0.0, -0.0), Pixel(0.001, 0.0002, 0, 1.0 / 4096),
      Pixel(0.0001, 0.0001, 0.0001, 1.0 / 4096 + 1e-7), Pixel(0.2, 0.1, 0.05, 1.0 / 8192),
      Pixel(0.9, 0.4, 0.2, 0.3), Pixel(1.4, -0.2, 0.5, 1.2), Pixel(.nan, 0.3, 0.2, 0.5),
      Pixel(0.3, 0.2, 0.1, .nan), Pixel(.infinity, 0, 0, 1), Pixel(0.1, 0.1, 0.1, -0.4),
      Pixel(1, 1, 1, 1), Pixel(0.5, 0.25, 0.125, 0.998),
    ]
    for y in 0..<height {
      for x in 0..<width {
        let kind = Int(next() * 10)
        if kind < 3 {
          image[x, y] = odd[Int(next() * Float(odd.count)) % odd.count]
        } else if kind < 5 {
          image[x, y] = .zero  // clear runs, as around an orb
        } else {
          let a = next()
          image[x, y] = Pixel(next() * a, next() * a, next() * a, a)
        }
      }
    }
    return image
  }

  /// Converts `image` eight pixels at a time and with the scalar loop alone, and expects every
  /// plane to be the same samples.
  static func expectSameSamples(
    _ image: Image, layout: PixelLayout, keepAlpha: Bool, background: Color = .black, limitedAlpha: Bool = false,
    stacked: Bool = false, height: Int? = nil, _ what: String
  ) {
    let frames = [true, false].map { vectorized in
      FrameConverter(
        width: image.width, height: height ?? image.height, layout: layout, keepAlpha: keepAlpha,
        background: background, limitedAlpha: limitedAlpha, stacked: stacked, vectorized: vectorized
      ).convert(image)
    }
    for plane in 0..<frames[0].planes.count {
      #expect(samples(frames[0], plane: plane) == samples(frames[1], plane: plane), "plane \(plane): \(what)")
    }
  }

  @Test(arguments: [8, 16, 24, 37, 64, 72, 202, 1080])
  func alphaBlocksGiveTheBlockLoopsBytes(width: Int) throws {
    // Past the dither's 64 rows; and an odd height, whose last row pair is the last row twice.
    for (height, seed) in [(70, UInt64(width) * 7 + 1), (5, UInt64(width))] {
      let image = Self.pixels(width: width, height: height, seed: seed)
      for limited in [false, true] {
        Self.expectSameSamples(
          image, layout: .yuva420p, keepAlpha: true, limitedAlpha: limited,
          "\(width)x\(height), limited alpha \(limited)")
      }
    }
  }

  /// Stacked alpha's picture half goes through the same path: the stacked frame is the same bytes.
  @Test func stackedAlphaGivesTheBlockLoopsBytes() throws {
    let image = Self.pixels(width: 72, height: 22, seed: 99)
    Self.expectSameSamples(image, layout: .yuv420p, keepAlpha: true, stacked: true, height: 44, "stacked")
  }

  /// Opaque 10-bit 4:2:0 over a background, eight pixels of each row at a time.
  @Test(arguments: [8, 24, 37, 72, 1080])
  func tenBitBlocksGiveTheBlockLoopsSamples(width: Int) throws {
    let image = Self.pixels(width: width, height: 70, seed: UInt64(width) * 11 + 2)
    Self.expectSameSamples(
      image, layout: .yuv420p10, keepAlpha: false, background: Color(red: 0.3, green: 0.8, blue: 0.2),
      "width \(width)")
  }

  /// ProRes 4444's 10-bit 4:4:4, with alpha kept and over a background, eight pixels at a time.
  @Test(arguments: [8, 24, 37, 72, 1080])
  func fourFourFourChunksGiveThePixelLoopsSamples(width: Int) throws {
    let image = Self.pixels(width: width, height: 66, seed: UInt64(width) * 3 + 5)
    for keepAlpha in [true, false] {
      Self.expectSameSamples(
        image, layout: .yuva444p10, keepAlpha: keepAlpha, background: Color(red: 0.2, green: 0.5, blue: 0.9),
        "width \(width), alpha kept \(keepAlpha)")
    }
  }

  /// RGBA, BGRA and RGB, with alpha kept and over a background, eight pixels at a time.
  @Test(arguments: [8, 24, 37, 72, 1080])
  func rgbChunksGiveThePixelLoopsBytes(width: Int) throws {
    let image = Self.pixels(width: width, height: 66, seed: UInt64(width) * 5 + 3)
    for (layout, keepAlpha) in [(PixelLayout.rgba, true), (.rgba, false), (.bgra, true), (.rgb24, false)] {
      Self.expectSameSamples(
        image, layout: layout, keepAlpha: keepAlpha, background: Color(red: 0.7, green: 0.1, blue: 0.4),
        "\(layout) at width \(width), alpha kept \(keepAlpha)")
    }
  }

  /// The codes themselves, for a few pixels whose bytes are known: a clear pixel is alpha 0 and
  /// luma 16 plus its dither, an opaque white one alpha 255 and luma 235 within a code, a pixel
  /// with alpha below 1/4096 takes its block's colour (here a red block: luma near red's).
  @Test func knownPixelsGiveKnownCodes() throws {
    let width = 16, height = 2
    let image = Image(width: width, height: height)
    for y in 0..<2 {
      for x in 0..<4 { image[x, y] = Pixel(1, 1, 1, 1) }
      for x in 8..<12 { image[x, y] = Pixel(0.8, 0, 0, 0.8) }
    }
    image[9, 1] = Pixel(0.00001, 0, 0, 1.0 / 8192)  // faint: takes the block's red
    let frame = FrameConverter(width: width, height: height, layout: .yuva420p, keepAlpha: true, background: .black)
      .convert(image)
    let luma = samples(frame, plane: 0), alpha = samples(frame, plane: 3)
    #expect(alpha[0] == 255 && alpha[4] == 0 && abs(alpha[8] - 204) <= 1)
    #expect(abs(luma[0] - 235) <= 1)
    #expect(abs(luma[4] - 16) <= 1)
    let red = 16 + 219 * BT709.kr
    #expect(abs(Float(luma[8]) - red) <= 1)
    #expect(abs(Float(luma[width + 9]) - red) <= 1, "a faint pixel takes its block's colour")
    #expect(alpha[width + 9] == 0)
  }
}
