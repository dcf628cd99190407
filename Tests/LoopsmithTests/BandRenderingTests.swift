import Effects
import Foundation
import Testing
import _TestSupport

@testable import Loopsmith
@testable import Raster
@testable import Video

/// Band rendering (docs/PERFORMANCE.md, Band rendering) draws and converts a frame a band of rows
/// at a time: the float pixels of every band, and the samples converted from them, are the bytes
/// the whole frame gives, blurs and shadows included (drawn with margins, or blurred small once a
/// frame). Frames whose drawing cannot be banded (a large blur before another filter) are drawn
/// whole instead, and the pipeline's frames are the same bytes either way.
@Suite struct BandRenderingTests {
  /// Even and odd sizes; bands of 10 rows split them into 7 bands, the last one short (and, at
  /// 63 rows, odd, ending on the frame's last row). At the tests' scale of 0.1 every blur is
  /// small enough to be blurred directly (margins of a few rows); at scale 1 they are shrunk
  /// (clouds 28 px of sigma, margins of 92 rows, more than the frame).
  static let sizes = [(36, 64), (37, 63)]
  /// A taller frame at scale 1, and at 2, whose blurs are shrunk, blurred small once a frame and
  /// enlarged a band at a time; the voice orb's shadow (30 points) too.
  static let scaledSizes: [(size: (Int, Int), scale: Double)] = [((45, 131), 1), ((31, 97), 2)]
  static let bandRows = 10
  /// One converter of each kind of layout: 4:2:0 in 8 and 10 bits, with alpha, and packed RGBA.
  static let layouts: [PixelLayout] = [.yuv420p, .yuv420p10, .yuva420p, .yuva444p10, .rgba]

  /// Every plane's bytes, one after another.
  static func bytes(_ frame: ConvertedFrame) -> [UInt8] {
    frame.planes.flatMap { plane in
      Array(UnsafeRawBufferPointer(start: plane.pointer, count: plane.bytesPerRow * plane.rows))
    }
  }

  /// Draws frames of `effect` whole and in bands; returns how many of them were drawn in bands
  /// (the others asked for the whole frame) after checking every banded one's bytes.
  static func compare(
    _ effect: String, _ set: [String: String], size: (Int, Int), scale: Double = 0.1
  ) throws -> (banded: Int, of: Int) {
    // A GIF takes any size; the converters below are made for each layout, whatever the output.
    let j = try scaledJob(effect, set, size: size, scale: scale)
    let drawer = j.makeEffect()
    let whole = Surface(image: Image(width: j.width, height: j.height), scale: Float(j.scale))
    let band = Surface(width: j.width, height: j.height, bandRows: bandRows, scale: Float(j.scale))
    let converters = layouts.map {
      FrameConverter(width: j.width, height: j.height, layout: $0, keepAlpha: true, background: .black)
    }
    let n = j.frameCount
    // Frames 5 and 8 (0.5 s and 0.8 s at 10 frames a second) are in the thunderstorm's strikes,
    // with the bolt and its blurred glow.
    let frames = Set([0, 5, 8, n / 3, 2 * n / 3, n - 1].filter { $0 < n }).sorted()
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
        #expect(band.needsWholeFrame)
        continue
      }
      #expect(!band.needsWholeFrame)
      banded += 1
      #expect(bands.count == (j.height + bandRows - 1) / bandRows)
      // Compared as a whole and reported by name, not as thousands of values.
      let samePixels = channelBits(assembled) == channelBits(whole.image)
      #expect(samePixels, "\(effect) \(set) \(size) at \(j.scale) frame \(frame): float pixels differ")
      for (i, layout) in layouts.enumerated() {
        let same = bytes(converted[i]) == bytes(expected[i])
        #expect(same, "\(effect) \(set) \(size) at \(j.scale) frame \(frame): \(layout) differs")
      }
    }
    return (banded, frames.count)
  }

  /// A job for `effect` at `size` pixels and `scale` pixels a point, 10 frames a second, to a GIF.
  static func scaledJob(
    _ effect: String, _ set: [String: String], size: (Int, Int), scale: Double
  ) throws
    -> RenderJob
  {
    var r = RenderRequest()
    r.effect = effect
    r.size = size
    r.scale = scale
    r.fps = 10
    r.threads = 1
    r.outputs = ["x.gif"]
    let type = try #require(EffectRegistry.type(named: effect))
    for (k, v) in set { r.parameters[k] = try #require(type.info.parameter(named: k)).parse(v) }
    return try r.job()
  }

  /// Every effect and weather, blurred and shadowed ones included (clouds, fog, rain, the
  /// thunderstorm's lightning, clear day's rays, the loader's glow, the voice orb's blobs and
  /// shadow), draws every frame in bands, to the whole frame's bytes: no frame falls back to
  /// drawing whole.
  @Test(arguments: LoopTests.cases)
  func bandsAreTheWholeFramesBytes(effect: String, set: [String: String]) throws {
    for size in Self.sizes {
      let (banded, of) = try Self.compare(effect, set, size: size)
      #expect(banded == of, "\(effect) \(set) \(size) drew \(of - banded) of \(of) frames whole")
    }
  }

  /// The same at scales where the blurs are shrunk (`GaussianBlur.streams`): the first band
  /// blurs them small for the frame, every band enlarges its rows.
  @Test(arguments: LoopTests.cases.filter { $0.0 != "color-orbs" && $0.0 != "aurora-mesh" })
  func shrunkBlursAreTheWholeFramesBytes(effect: String, set: [String: String]) throws {
    for (size, scale) in Self.scaledSizes {
      let (banded, of) = try Self.compare(effect, set, size: size, scale: scale)
      #expect(banded == of, "\(effect) \(set) \(size) at \(scale) drew \(of - banded) of \(of) frames whole")
    }
  }

  /// Draws `draw` whole and band by band at 41x77 (bands of 10 rows); returns whether every band
  /// drew, after checking the bands' pixels are the whole frame's bits.
  static func compareDrawing(_ name: String, _ draw: (inout GraphicsContext) -> Void) -> Bool {
    let (whole, assembled, banded) = drawWholeAndInBands(width: 41, height: 77, bandRows: bandRows, draw)
    guard banded else { return false }
    #expect(channelBits(assembled) == channelBits(whole), "\(name): float pixels differ")
    return true
  }

  /// Filters the effects do not use are banded too (a blurred and color-filtered group, blurs in
  /// a row, a large shadow with a blur on the view), and the one case that cannot be (a large
  /// blur before another filter blurs its whole layer) asks for the whole frame.
  @Test func filtersOnGroupsAreTheWholeFramesBytes() {
    let shapes = { (c: inout GraphicsContext) in
      let orange = Color(red: 1, green: 0.3, blue: 0.1)
      c.fill(Path(ellipseIn: Rect(x: 4, y: 9, width: 30, height: 21)), with: .color(orange))
      c.fill(Path(rect: Rect(x: 12, y: 40, width: 20, height: 14)), with: .color(.white.opacity(0.7)))
      let blue = Color(red: 0, green: 0, blue: 1)
      c.stroke(Path(rect: Rect(x: 2, y: 58, width: 35, height: 12)), with: .color(blue), lineWidth: 3)
    }
    let matrix = ColorMatrix.hueRotation(radians: 1).concatenating(.saturation(1.4))
    let banded: [(String, [Filter])] = [
      ("small blur on a group", [.blur(radius: 2.5)]),
      ("large blur on a group", [.blur(radius: 9)]),
      ("color matrix then large blur", [.colorMatrix(matrix), .blur(radius: 11)]),
      ("two small blurs and a matrix", [.blur(radius: 1.5), .colorMatrix(matrix), .blur(radius: 3)]),
    ]
    for (name, filters) in banded {
      let drew = Self.compareDrawing(name) { c in
        let sky = Color(red: 0.1, green: 0.2, blue: 0.3)
        c.fill(Path(rect: Rect(x: 0, y: 0, width: 41, height: 77)), with: .color(sky))
        var group = c
        for f in filters { group.addFilter(f) }
        group.opacity = 0.8
        group.drawLayer(shapes)
        var each = c
        for f in filters { each.addFilter(f) }
        shapes(&each)
      }
      #expect(drew, "\(name) drew whole")
    }
    let shadowed = Self.compareDrawing("large shadow, blurred view") { c in
      var view = c
      view.addFilter(.blur(radius: 2))
      view.drawLayer(shadow: .black.opacity(0.6), radius: 8) { shapes(&$0) }
      c.drawLayer(shadow: Color(red: 0, green: 0, blue: 1).opacity(0.5), radius: 3) { shapes(&$0) }
    }
    #expect(shadowed)
    let whole = Self.compareDrawing("large blur before a small one") { c in
      var group = c
      group.addFilter(.blur(radius: 9))
      group.addFilter(.blur(radius: 1))
      group.drawLayer(shapes)
    }
    #expect(!whole, "a large blur before another filter cannot be banded")
    // A filtered mesh's layer holds only the band's rows: it asks for the whole frame.
    let mesh = MeshGradient(
      width: 2, height: 2, points: [Point(0, 0), Point(41, 0), Point(0, 77), Point(41, 77)],
      colors: [.black, .white, Color(red: 1, green: 0, blue: 0), .white])
    let blurredMesh = Self.compareDrawing("blurred mesh") { c in
      var group = c
      group.addFilter(.blur(radius: 2))
      group.drawMesh(mesh)
    }
    #expect(!blurredMesh, "a blurred mesh is drawn without margins")
  }

  /// A fill under a large blur is flattened by the frame's first band only: the later bands find
  /// the small blurred pixels it made by the fill's path, transform, shading, rule and blur, and
  /// enlarge their rows (`GraphicsContext.enlargeKept`). The whole frame's bits; a fill that
  /// differs in any of those in a later band (here its color, or its place, by band) is drawn
  /// for itself, not taken for the first band's.
  @Test func aBlurredFillIsFlattenedOnceForTheBands() {
    let (width, height, rows) = (41, 77, Self.bandRows)
    let bands = (height + rows - 1) / rows
    let clouds = [Rect(x: 2, y: 6, width: 30, height: 14), Rect(x: 9, y: 30, width: 26, height: 20)]
    func draw(_ c: inout GraphicsContext, band: Int?) {
      c.fill(Path(rect: Rect(x: 0, y: 0, width: 41, height: 77)), with: .color(Color(red: 0.1, green: 0.2, blue: 0.4)))
      var soft = c
      soft.addFilter(.blur(radius: 9))
      for cloud in clouds { soft.fill(Path(ellipseIn: cloud), with: .color(.white.opacity(0.8))) }
      // One more, differing by band when `band` is given: green in band 3, moved down in band 5.
      let moved: Double = band == 5 ? 12 : 0
      let green: Float = band == 3 ? 1 : 0.4
      soft.fill(
        Path(ellipseIn: Rect(x: 4, y: 44 + moved, width: 32, height: 16)),
        with: .color(Color(red: 0.3, green: green, blue: 0.5)))
    }
    let surface = Surface(width: width, height: height, bandRows: rows, scale: 1)
    let assembled = Image(width: width, height: height)
    var kept: [Int] = []
    for b in 0..<bands {
      let band = b * rows..<min((b + 1) * rows, height)
      surface.drawBand(band)
      var c = surface.context()
      let before = surface.blurredOnce.keptFills
      draw(&c, band: b)
      kept.append(surface.blurredOnce.keptFills - before)
      #expect(!surface.needsWholeFrame)
      surface.finish()
      assembled.row(band.lowerBound).update(from: surface.image.pixels, count: band.count * width)
    }
    // Bands 3 to 6 make the third fill again: 3 and 5 for their own, 4 and 6 because the entry
    // then holds the one band 3 or 5 made.
    #expect(kept == [0, 3, 3, 2, 2, 2, 2, 3], "fills taken by their source a band: \(kept)")
    // Each band's rows are those of the whole frame drawn with that band's calls.
    for b in 0..<bands {
      let whole = Surface(image: Image(width: width, height: height), scale: 1)
      whole.clear()
      var c = whole.context()
      draw(&c, band: b)
      whole.finish()
      let band = b * rows..<min((b + 1) * rows, height)
      var same = true
      for y in band {
        for x in 0..<width {
          let (a, w) = (assembled.row(y)[x], whole.image.row(y)[x])
          if unsafeBitCast(a, to: SIMD4<UInt32>.self) != unsafeBitCast(w, to: SIMD4<UInt32>.self) { same = false }
        }
      }
      #expect(same, "band \(b) differs from the whole frame drawn with its calls")
    }
  }

  /// A shadowed layer's content (here with a large blur inside, and a color filter on the view,
  /// as the voice orb's) is drawn whole by the first band and kept for the others: drawn twice
  /// in all, once whole and once for the bands. With a clear shadow it is composited as it is,
  /// its filters applied in place, and each band draws its rows again. The whole frame's bits
  /// either way, and a blurred operation after the layer blurs on its own entry as before.
  @Test func aShadowedLayersContentIsDrawnOnceForTheBands() {
    let matrix = ColorMatrix.hueRotation(radians: 1)
    for (shadow, draws) in [(Color.black.opacity(0.6), 2), (Color.black.opacity(0), 9)] {
      var calls = 0
      let drew = Self.compareDrawing("shadow \(shadow)") { c in
        var view = c
        view.addFilter(.colorMatrix(matrix))
        view.drawLayer(shadow: shadow, radius: 12) { inner in
          calls += 1
          inner.fill(
            Path(rect: Rect(x: 6, y: 20, width: 24, height: 30)), with: .color(Color(red: 1, green: 0.5, blue: 0)))
          var soft = inner
          soft.addFilter(.blur(radius: 9))
          soft.fill(Path(ellipseIn: Rect(x: 10, y: 8, width: 20, height: 40)), with: .color(.white))
        }
        var after = c
        after.addFilter(.blur(radius: 10))
        after.fill(
          Path(ellipseIn: Rect(x: 2, y: 50, width: 30, height: 20)), with: .color(Color(red: 0, green: 0, blue: 1)))
      }
      #expect(drew)
      #expect(calls == draws, "shadow \(shadow): the content was drawn \(calls) times for the whole frame and 8 bands")
    }
  }

  /// A streamed shadow's band is composited a row at a time (the shadow enlarged onto a clear row,
  /// the kept content blended over it, the view's color matrix applied, the row blended onto the
  /// band with the view's opacity, blend mode and clip): the whole frame's bits, which go through
  /// a layer the frame's size, with and without a matrix, a clip, or the screen blend.
  @Test func aShadowedLayersBandIsCompositedARowAtATime() {
    let matrix = ColorMatrix.hueRotation(radians: 2).concatenating(.saturation(0.6))
    let views: [(name: String, filtered: Bool, clipped: Bool, mode: BlendMode)] = [
      ("plain", false, false, .sourceOver), ("matrix and clip", true, true, .sourceOver),
      ("matrix, screen", true, false, .screen), ("clip, screen", false, true, .screen),
    ]
    for view in views {
      let drew = Self.compareDrawing(view.name) { c in
        c.fill(
          Path(rect: Rect(x: 0, y: 0, width: 41, height: 77)), with: .color(Color(red: 0.2, green: 0.3, blue: 0.5)))
        var orb = c
        if view.filtered { orb.addFilter(.colorMatrix(matrix)) }
        if view.clipped { orb.clip(to: Path(ellipseIn: Rect(x: 3, y: 12, width: 33, height: 50))) }
        orb.opacity = 0.85
        orb.blendMode = view.mode
        orb.drawLayer(shadow: Color(red: 0.4, green: 0, blue: 0.8).opacity(0.7), radius: 9) { inner in
          inner.fill(
            Path(ellipseIn: Rect(x: 8, y: 18, width: 22, height: 34)),
            with: .color(Color(red: 1, green: 0.6, blue: 0.1)))
          inner.fill(Path(rect: Rect(x: 14, y: 30, width: 12, height: 9)), with: .color(.white.opacity(0.5)))
        }
      }
      #expect(drew, "\(view.name) drew whole")
    }
  }

  /// A group composited through a clip and no filter (a crossfade's moments, a group with an
  /// opacity) stores only the clip's rows on a band surface, since nothing outside them lands:
  /// inside a shadowed layer the first band draws whole, as the voice orb's blobs in its disk,
  /// the moments hold the disk's rows, not every row their blurred blobs spread to (the voice
  /// orb's 4 s loop peaked at 155 MB on two threads with whole-height moments); on the band's
  /// own canvas, the band's rows within the clip. The whole frame's bits, where layers store
  /// every row.
  @Test func aClippedGroupsLayersStoreOnlyTheClipsRows() {
    let disk = Path(ellipseIn: Rect(x: 8, y: 24, width: 26, height: 26))
    let clipRows = 24..<50
    var stored: [(rows: Range<Int>, height: Int, band: Bool)] = []
    let blobs = { (c: inout GraphicsContext, i: Int, soft: Bool) in
      stored.append((c.target.rows, c.target.height, c.surface.isBand))
      var blurred = c
      if soft { blurred.addFilter(.blur(radius: 9)) }
      let y = Float(6 + 30 * i)
      blurred.fill(
        Path(ellipseIn: Rect(x: 4, y: y, width: 30, height: 40)), with: .color(Color(red: 1, green: 0.4, blue: 0.1)))
      blurred.fill(Path(rect: Rect(x: 14, y: 2, width: 12, height: 70)), with: .color(.white.opacity(0.6)))
    }
    let drew = Self.compareDrawing("clipped groups") { c in
      c.drawLayer(shadow: .black.opacity(0.5), radius: 10) { inner in
        inner.clip(to: disk)
        inner.fill(disk, with: .color(Color(red: 0, green: 0.2, blue: 0.6)))
        inner.drawBlended(weights: [0.7, 0.3]) { i, moment in blobs(&moment, i, true) }
      }
      var group = c
      group.clip(to: disk)
      group.opacity = 0.5
      group.drawLayer { blobs(&$0, 2, false) }
    }
    #expect(drew)
    let whole = stored.filter { !$0.band }, banded = stored.filter(\.band)
    // The whole frame: 2 moments and the group, every row stored; the bands: the moments once
    // (the shadowed layer is kept for the frame) and the group in each of the 8 bands.
    #expect(whole.count == 3 && whole.allSatisfy { $0.rows == 0..<77 && $0.height == 77 })
    #expect(banded.count == 2 + 8)
    for (n, layer) in banded.enumerated() {
      #expect(layer.height == 77)
      #expect(
        layer.rows.isEmpty
          || (layer.rows.lowerBound >= clipRows.lowerBound && layer.rows.upperBound <= clipRows.upperBound),
        "layer \(n) stores rows \(layer.rows), outside the clip's \(clipRows)")
    }
    #expect(banded.prefix(2).allSatisfy { $0.rows == clipRows }, "the moments store the disk's rows")
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
      ("blob-morph-loader", [:]),
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
