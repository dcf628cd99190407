import Effects
import Foundation
import Raster
import Testing

@testable import Loopsmith
@testable import Video

/// A band drawn as one mesh from samples is converted from its samples (`Surface.sampledRows`,
/// `FrameConverter.convert(samples:)`), its pixels never written: the bytes are within a code of
/// converting the pixels, on a few samples in ten thousand, and only 8-bit 4:2:0 without alpha
/// takes them. docs/PERFORMANCE.md, Mesh samples.
@Suite struct SampledConversionTests {
  /// The aurora at `size`, its default loop (12 s, crossfaded over its last 4) at 10 frames a
  /// second, with `set` parameters.
  static func job(size: (Int, Int), set: [String: String] = [:]) throws -> RenderJob {
    var r = RenderRequest()
    r.effect = "aurora-mesh"
    r.size = size
    r.fps = 10
    r.threads = 1
    r.outputs = ["x.mp4"]
    let type = try #require(EffectRegistry.type(named: "aurora-mesh"))
    for (k, v) in set { r.parameters[k] = try #require(type.info.parameter(named: k)).parse(v) }
    return try r.job()
  }

  /// Frame `frame` converted band by band from samples where the band has them and the
  /// converter takes them, and from its pixels; with how many bands took samples.
  static func convertBothWays(_ j: RenderJob, frame: Int) throws -> (samples: [UInt8], pixels: [UInt8], sampled: Int) {
    let converter = FrameConverter(
      width: j.width, height: j.height, layout: .yuv420p, keepAlpha: false, background: .black)
    #expect(converter.convertsSamples)
    let surface = Surface(width: j.width, height: j.height, bandRows: RenderPipeline.bandRows, scale: Float(j.scale))
    let (fromSamples, fromPixels) = (converter.makeFrame(), converter.makeFrame())
    var sampled = 0
    let drawn = RenderPipeline.drawBands(j.makeEffect(), job: j, frame: frame, on: surface, keepsSamples: true) {
      rows in
      let taken = surface.sampledRows.flatMap { converter.takes($0) ? $0 : nil }
      if let taken {
        converter.convert(samples: taken, rows: rows, into: fromSamples)
        sampled += 1
      }
      surface.finish()
      #expect(surface.sampledRows == nil, "finish writes the pixels")
      converter.convert(band: surface.image, rows: rows, into: fromPixels, drawn: surface.drawn)
      if taken == nil { converter.convert(band: surface.image, rows: rows, into: fromSamples, drawn: surface.drawn) }
    }
    #expect(drawn)
    return (BandRenderingTests.bytes(fromSamples), BandRenderingTests.bytes(fromPixels), sampled)
  }

  /// Frame `frame` of `j` converted from samples is within a code of its pixels' bytes, on fewer
  /// than one sample in a thousand, and some band took its samples.
  static func expectWithinACode(_ j: RenderJob, frame: Int) throws {
    let (samples, pixels, sampled) = try convertBothWays(j, frame: frame)
    #expect(sampled > 0, "frame \(frame): no band took its samples")
    var worst = 0, differing = 0
    for k in samples.indices where samples[k] != pixels[k] {
      worst = max(worst, abs(Int(samples[k]) - Int(pixels[k])))
      differing += 1
    }
    #expect(worst <= 1, "frame \(frame): \(worst) codes apart")
    #expect(Double(differing) / Double(samples.count) < 1e-3, "frame \(frame): \(differing) samples differ")
  }

  /// Full size, and a size whose samples lie 3 pixels in from the left and 1 from the top (so a
  /// row of samples falls between the two rows of a chroma pair): moments across the loop, at
  /// full size one in its crossfade (two moments' samples mixed; at 542x962 the crossfade's mesh
  /// bends too much to be sampled).
  @Test(arguments: [(1080, 1920, [0, 37, 105]), (542, 962, [0, 37, 54])])
  func samplesGiveThePixelsBytesWithinACode(width: Int, height: Int, frames: [Int]) throws {
    let j = try Self.job(size: (width, height))
    for frame in frames {
      try Self.expectWithinACode(j, frame: frame)
    }
  }

  /// Black, white and red: channels at 0 and 1 that the mesh's smooth colors overshoot, so the
  /// samples cross 0 and 1 and those cells are clamped a pixel at a time, as the pixels are.
  @Test func colorsThatLeaveTheRangeAreClampedAsThePixelsAre() throws {
    let j = try Self.job(size: (540, 960), set: ["first": "#000000", "second": "#ffffff", "third": "#ff0000"])
    // Moments whose mesh bends little enough to be sampled in these colors.
    for frame in [36, 48] {
      try Self.expectWithinACode(j, frame: frame)
    }
  }

  /// Only 8-bit 4:2:0 without alpha is converted from samples; the others read the pixels.
  @Test func onlyOpaqueEightBitFourTwoZeroTakesSamples() {
    func converter(_ layout: PixelLayout, alpha: Bool = false) -> FrameConverter {
      FrameConverter(width: 512, height: 512, layout: layout, keepAlpha: alpha, background: .black)
    }
    #expect(converter(.yuv420p).convertsSamples)
    #expect(!converter(.yuv420p10).convertsSamples)
    #expect(!converter(.yuva420p, alpha: true).convertsSamples)
    #expect(!converter(.rgba, alpha: true).convertsSamples)
    #expect(
      !FrameConverter(width: 512, height: 512, layout: .yuv420p, keepAlpha: false, background: .black, stacked: true)
        .convertsSamples)
  }

  /// The pipeline's frames, two outputs of which one cannot take samples: every band is then
  /// converted from its pixels, and both outputs are what a render of each alone gives.
  @Test func anOutputThatCannotTakeSamplesHasThePixelsConverted() throws {
    var r = RenderRequest()
    r.effect = "aurora-mesh"
    r.size = (540, 960)
    r.fps = 5
    r.frames = "0:3"
    r.threads = 1
    r.outputs = ["a.y4m"]
    let alone = try r.job()
    let converter = FrameConverter(alone.outputs[0])
    let ten = FrameConverter(
      width: alone.width, height: alone.height, layout: .yuv420p10, keepAlpha: false, background: .black)
    final class Sink: FrameSink {
      var frames: [[UInt8]] = []
      func append(_ frame: ConvertedFrame) throws { frames.append(BandRenderingTests.bytes(frame)) }
    }
    let (a, b, c) = (Sink(), Sink(), Sink())
    try RenderPipeline.drawFrames(
      alone, converters: [converter, ten], into: [a, b], posters: [], palettes: [], progress: nil)
    try RenderPipeline.drawFrames(alone, converters: [converter], into: [c], posters: [], palettes: [], progress: nil)
    #expect(a.frames.count == alone.frameCount && c.frames.count == alone.frameCount)
    // Alone, the 8-bit output takes the samples: within a code of the pixels' bytes, not the same.
    var worst = 0
    for (x, y) in zip(a.frames, c.frames) {
      for k in x.indices where x[k] != y[k] { worst = max(worst, abs(Int(x[k]) - Int(y[k]))) }
    }
    #expect(worst <= 1)
    #expect(a.frames != c.frames, "the output alone was converted from samples")
    // With the 10-bit output beside it, it was converted from the pixels: the whole frames' bytes.
    let whole = Surface(image: Image(width: alone.width, height: alone.height), scale: Float(alone.scale))
    let effect = alone.makeEffect()
    for (i, bytes) in a.frames.enumerated() {
      RenderPipeline.draw(effect, job: alone, frame: i, on: whole)
      #expect(BandRenderingTests.bytes(converter.convert(whole.image)) == bytes, "frame \(i)")
    }
  }
}
