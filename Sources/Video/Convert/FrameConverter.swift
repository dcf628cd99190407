import CHints
import Raster

/// Turns premultiplied float images into the encoder's samples: BT.709 limited-range YUV or
/// straight-alpha RGB, dithered, the same bytes for the same image on any thread.
///
/// Loopsmith converts colour itself instead of through swscale, whose default matrix is BT.601
/// whatever the stream is tagged (docs/ENCODING.md, Colour: red would become Y 81 / Cb 90 instead of 63 / 102).
/// 4:2:0 chroma sits in the centre of each 2x2 block, filtered so that a detail's colour stays on
/// its pixels, and the stream says so (docs/ENCODING.md, Chroma siting).
/// Each sample gets ±1 LSB triangular dither from a fixed table (docs/ENCODING.md, Banding): dark gradients keep
/// their slope instead of banding, and no random state is involved, so output stays deterministic.
///
/// The converter holds only constants; `convert` may run on many threads at once, each writing
/// its own `ConvertedFrame`.
public final class FrameConverter: Sendable {
  /// The converted frame's size (with stacked alpha, twice the image's height).
  public let width: Int
  public let height: Int
  let layout: PixelLayout
  /// Whether alpha is kept (un-premultiplied) rather than composited over the background.
  let keepsAlpha: Bool
  /// Whether an alpha plane holds limited-range codes, 16 + 219 a (stacked alpha's bottom half),
  /// rather than 0...255.
  let limitedAlpha: Bool
  /// The 8-bit alpha plane's codes: `alphaOffset + alphaRange * a`.
  private let alphaOffset: Float, alphaRange: Float
  /// With stacked alpha, the converter that writes the picture's colour and alpha into the two
  /// halves of this converter's frames (`StackedAlpha`).
  let stacked: FrameConverter?
  /// The background, premultiplied, drawn under every pixel when alpha is not kept.
  let background: Pixel
  /// For 4:2:0 layouts, 128 rows converted from clear pixels: rows of a frame known to be clear
  /// are copied from these (dither repeats every 64 rows) instead of read and converted.
  let clearRows: ConvertedFrame?
  /// Whether runs of one colour a row are converted from tiles (`opaqueBlocks8`); off, every
  /// pixel is converted (tests compare the two).
  let findsRuns: Bool
  /// Whether 8-bit 4:2:0 row pairs take eight pixels a row at a time (`opaqueBlocks8`,
  /// `alphaBlocks8`) before the block loop; off, the block loop takes every block (tests compare
  /// the two).
  let vectorized: Bool

  public convenience init(_ settings: OutputSettings) {
    self.init(
      width: settings.width, height: settings.height, layout: Self.layout(for: settings),
      keepAlpha: settings.carriesAlpha, background: settings.background, stacked: settings.stackedAlpha)
  }

  init(
    width: Int, height: Int, layout: PixelLayout, keepAlpha: Bool, background: Color, clearRows: Bool = true,
    limitedAlpha: Bool = false, stacked: Bool = false, findsRuns: Bool = true, vectorized: Bool = true
  ) {
    precondition(width > 0 && height > 0, "converter size \(width)x\(height) must be positive")
    precondition(!stacked || (layout == .yuv420p && height % 4 == 0), "stacked alpha is 8-bit 4:2:0 of an even picture")
    (self.width, self.height, self.layout) = (width, height, layout)
    keepsAlpha = keepAlpha && layout.hasAlpha
    self.limitedAlpha = limitedAlpha
    self.findsRuns = findsRuns
    self.vectorized = vectorized
    (alphaOffset, alphaRange) = limitedAlpha ? (StackedAlpha.alphaOffset, StackedAlpha.alphaRange) : (0, 255)
    self.background = background.premultiplied
    // The picture, with its alpha plane written as the bottom half's luma.
    self.stacked =
      stacked
      ? FrameConverter(
        width: width, height: height / 2, layout: .yuva420p, keepAlpha: true, background: .black,
        limitedAlpha: true, vectorized: vectorized) : nil
    if clearRows && !stacked && [.yuv420p, .yuva420p, .yuv420p10].contains(layout) {
      // Converted by this very code, so a copied row is the row it would have made.
      let maker = FrameConverter(
        width: width, height: 128, layout: layout, keepAlpha: keepAlpha, background: background, clearRows: false,
        limitedAlpha: limitedAlpha, vectorized: vectorized)
      self.clearRows = maker.convert(Image(width: width, height: 128))
    } else {
      self.clearRows = nil
    }
  }

  /// Whether this converter makes the frames `FrameConverter(settings)` would: a writer for
  /// `settings` may share it.
  func fits(_ settings: OutputSettings) -> Bool {
    let layout = Self.layout(for: settings)
    return width == settings.width && height == settings.height && self.layout == layout
      && keepsAlpha == (settings.carriesAlpha && layout.hasAlpha)
      && background == settings.background.premultiplied && (stacked != nil) == settings.stackedAlpha
      && !limitedAlpha
  }

  /// The height of the images it takes: its frames' height, or half of it with stacked alpha.
  public var imageHeight: Int { stacked?.height ?? height }

  /// The samples each codec takes: its row in the table of formats (`VideoCodec.spec`).
  static func layout(for settings: OutputSettings) -> PixelLayout { settings.layout }

  /// A frame of the right size and layout to convert into; make one per ring slot.
  public func makeFrame() -> ConvertedFrame {
    ConvertedFrame(width: width, height: height, layout: layout)
  }

  /// A new frame holding `image`'s samples.
  public func convert(_ image: Image) -> ConvertedFrame {
    let frame = makeFrame()
    convert(image, into: frame)
    return frame
  }

  /// Writes `image`'s samples into `frame`; both must have the converter's size.
  ///
  /// `drawn`, when given, holds every pixel that may be other than clear (`Surface.drawn`):
  /// rows outside it are not read. A transparent effect on a full-size frame (the loader, the
  /// voice orb) is mostly such rows.
  public func convert(_ image: Image, into frame: ConvertedFrame, drawn: IntRect? = nil) {
    precondition(
      image.width == width && image.height == imageHeight,
      "image \(image.width)x\(image.height) given to a \(width)x\(imageHeight) converter")
    precondition(
      frame.width == width && frame.height == height && frame.layout == layout, "frame from another converter")
    if let stacked {
      stacked.convert(image, into: frame.stackedHalves(), drawn: drawn)
      // The alpha half's chroma is neutral: its picture is grey, R = G = B = alpha.
      for p in 1...2 {
        let plane = frame.planes[p]
        let top = plane.rows / 2
        (plane.pointer + top * plane.bytesPerRow).initializeMemory(
          as: UInt8.self, repeating: 128, count: (plane.rows - top) * plane.bytesPerRow)
      }
      return
    }
    convertRows(image, rows: 0..<height, into: frame, drawn: drawn)
  }

  /// Whether `convert(band:rows:into:drawn:)` takes bands: every layout but stacked alpha.
  public var convertsBands: Bool { stacked == nil }

  /// Whether `convert(band:rows:into:drawn:pendingRow:)` takes the color of rows that are one
  /// color throughout, written only in some columns (`Surface.pendingRow`), for their other
  /// pixels: opaque 8-bit 4:2:0, whose row pairs it converts eight columns at a time, runs of one
  /// color from tiles (`opaqueBlocks8`), a width those chunks cover.
  public var convertsRowColors: Bool {
    layout == .yuv420p && stacked == nil && !keepsAlpha && vectorized && findsRuns && width % 8 == 0
  }

  /// Writes the samples of frame rows `rows` into `frame` from `image`, whose row 0 is frame row
  /// `rows.lowerBound` (a band drawn by `Surface`): the bytes converting the whole frame would
  /// write there, since dither and chroma use frame coordinates. For 4:2:0 a band starts on an
  /// even row and ends on one or at the bottom, so each chroma row's two rows are in one band.
  /// `drawn` is as for `convert(_:into:drawn:)`, in frame rows.
  ///
  /// `pendingRow`, when given (the converter `convertsRowColors`), tells of a frame row that is
  /// one color throughout, only some of whose columns are written (the same in both rows of a
  /// pair), or nil for a row to read whole (`Surface.pendingRow`). The columns not written are
  /// not read: their samples are those pixels of that color give, to the bit.
  public func convert(
    band image: Image, rows: Range<Int>, into frame: ConvertedFrame, drawn: IntRect? = nil,
    pendingRow: ((Int) -> PendingRow?)? = nil
  ) {
    precondition(convertsBands, "stacked alpha converts whole frames")
    precondition(image.width == width && image.height >= rows.count, "band image \(image.width)x\(image.height)")
    precondition(rows.lowerBound >= 0 && rows.upperBound <= height, "rows \(rows) of a \(height)-row frame")
    precondition(
      !layout.isSubsampled || (rows.lowerBound % 2 == 0 && (rows.upperBound % 2 == 0 || rows.upperBound == height)),
      "a 4:2:0 band \(rows) must hold whole row pairs")
    precondition(
      frame.width == width && frame.height == height && frame.layout == layout, "frame from another converter")
    precondition(pendingRow == nil || convertsRowColors, "rows' colors given to a converter that reads pixels")
    convertRows(image, rows: rows, into: frame, drawn: drawn, pendingRow: pendingRow)
  }

  private func convertRows(
    _ image: Image, rows: Range<Int>, into frame: ConvertedFrame, drawn: IntRect?,
    pendingRow: ((Int) -> PendingRow?)? = nil
  ) {
    let drawnRows = drawn.map { $0.isEmpty ? 0..<0 : max($0.y, 0)..<min($0.maxY, height) } ?? 0..<height
    switch layout {
    case .yuv420p, .yuva420p:
      convert420(image, frame, bits: 8, sample: UInt8.self, rows: rows, drawnRows: drawnRows, pendingRow: pendingRow)
    case .yuv420p10: convert420(image, frame, bits: 10, rows: rows, drawnRows: drawnRows)
    case .yuva444p10: convert444(image, frame, rows: rows)
    case .rgb24, .rgba, .bgra: convertRGB(image, frame, rows: rows)
    }
  }

  // MARK: - Colour

  /// Straight colour for `pixel`: composited over the background, or un-premultiplied.
  /// A fully transparent pixel whose alpha is kept takes `fallback` (its block's colour), so
  /// chroma under alpha 0 does not bleed black into edges (docs/ENCODING.md, Alpha).
  @inline(__always) func straight(_ pixel: Pixel, fallback: SIMD3<Float>) -> SIMD3<Float> {
    let p = clamp(pixel, .zero, Pixel(repeating: 1))
    if !keepsAlpha {
      let c = p + background * (1 - p.w)
      return SIMD3(c.x, c.y, c.z)
    }
    if p.w <= 1.0 / 4096 { return fallback }
    let c = Pixel(p.x, p.y, p.z, 0) / Pixel(repeating: p.w)
    let k = clamp(c, .zero, Pixel(repeating: 1))
    return SIMD3(k.x, k.y, k.z)
  }

  /// The alpha-weighted mean straight colour of a few premultiplied pixels, black when all are clear.
  @inline(__always) func meanColour(_ p0: Pixel, _ p1: Pixel, _ p2: Pixel, _ p3: Pixel) -> SIMD3<Float> {
    let sum = p0 + p1 + p2 + p3
    guard sum.w > 1.0 / 4096 else { return .zero }
    let c = Pixel(sum.x, sum.y, sum.z, 0) / Pixel(repeating: sum.w)
    let k = clamp(c, .zero, Pixel(repeating: 1))
    return SIMD3(k.x, k.y, k.z)
  }

  // MARK: - YUV 4:2:0

  private func convert420(_ image: Image, _ frame: ConvertedFrame, bits: Int, rows: Range<Int>, drawnRows: Range<Int>) {
    // Two copies of one loop, so neither tests the sample size per block.
    if bits == 8 {
      convert420(image, frame, bits: 8, sample: UInt8.self, rows: rows, drawnRows: drawnRows)
    } else {
      convert420(image, frame, bits: bits, sample: UInt16.self, rows: rows, drawnRows: drawnRows)
    }
  }

  /// Copies row pair `cy` (rows 2cy and 2cy + 1, chroma row cy) of a clear frame into `frame`.
  private func copyClear(_ clear: ConvertedFrame, pair cy: Int, into frame: ConvertedFrame) {
    func copy(plane p: Int, row y: Int) {
      let (plane, source) = (frame.planes[p], clear.planes[p])
      (plane.pointer + y * plane.bytesPerRow).copyMemory(
        from: source.pointer + (y & 63) * source.bytesPerRow, byteCount: plane.bytesPerRow)
    }
    // Luma and alpha hold two rows a pair, chroma one; dither repeats every 64 of each.
    for p in 0..<frame.planes.count {
      if p == 1 || p == 2 {
        copy(plane: p, row: cy)
      } else {
        copy(plane: p, row: 2 * cy)
        copy(plane: p, row: 2 * cy + 1)
      }
    }
  }

  @inline(__always)
  private func convert420<Sample: FixedWidthInteger & UnsignedInteger>(
    _ image: Image, _ frame: ConvertedFrame, bits: Int, sample: Sample.Type, rows: Range<Int>, drawnRows: Range<Int>,
    pendingRow: ((Int) -> PendingRow?)? = nil
  ) {
    let scale = Float(1 << (bits - 8))  // 10-bit codes are 8-bit codes times 4
    let maximum = Float((1 << bits) - 1)
    let yPlane = frame.planes[0]
    let cbPlane = frame.planes[1]
    let crPlane = frame.planes[2]
    let aPlane: Plane? = frame.planes.count > 3 ? frame.planes[3] : nil
    let (kr, kg, kb) = (BT709.kr * 219 * scale, BT709.kg * 219 * scale, BT709.kb * 219 * scale)
    let yOffset = 16 * scale
    let hi = SIMD4<Float>(repeating: maximum)
    let keepsAlpha = self.keepsAlpha

    // Each row pair's column sums (two rows' colour, one channel after another), with one pixel of
    // edge on the left and enough on the right for the chroma pass's last group of four.
    let sums = ColumnSums(width: width)
    defer { sums.deallocate() }
    // Runs of one colour a row (a sky) for the opaque 8-bit path: codes from 64-column tiles.
    let tiles = UniformTiles(width: width)
    defer { tiles.deallocate() }
    // The alpha plane's dither for a row pair's two rows, each 72 entries from column 0 on, so
    // eight columns from any multiple of eight read on without wrapping (`alphaBlocks8`).
    let alphaLines = UnsafeMutablePointer<Float>.allocate(capacity: 144)
    defer { alphaLines.deallocate() }
    ditherTable.withUnsafeBufferPointer { tableBuffer in
      chromaDitherLines.withUnsafeBufferPointer { linesBuffer in
        let table = tableBuffer.baseAddress!, rotated = linesBuffer.baseAddress!
        // Image row 0 is frame row `top`.
        let top = rows.lowerBound
        for cy in rows.lowerBound / 2..<(rows.upperBound + 1) / 2 {
          let y0 = cy * 2
          let y1 = min(y0 + 1, height - 1)
          if let clearRows, y1 == y0 + 1, !drawnRows.contains(y0), !drawnRows.contains(y1) {
            copyClear(clearRows, pair: cy, into: frame)
            continue
          }
          let row0 = image.row(y0 - top)
          let row1 = image.row(y1 - top)
          let dither0 = table + ((y0 & 63) << 6)
          let dither1 = table + ((y1 & 63) << 6)
          let yRow0 = (yPlane.pointer + y0 * yPlane.bytesPerRow).assumingMemoryBound(to: Sample.self)
          let yRow1 = (yPlane.pointer + y1 * yPlane.bytesPerRow).assumingMemoryBound(to: Sample.self)
          let cbRow = (cbPlane.pointer + cy * cbPlane.bytesPerRow).assumingMemoryBound(to: Sample.self)
          let crRow = (crPlane.pointer + cy * crPlane.bytesPerRow).assumingMemoryBound(to: Sample.self)
          let cbDither = table + (((cy + 29) & 63) << 6)
          let crDither = table + (((cy + 7) & 63) << 6)
          // 8-bit frames, opaque (the common case) or with alpha kept, and opaque 10-bit ones
          // take eight pixels of each row at a time first.
          let opaque8 = bits == 8 && !keepsAlpha && aPlane == nil
          let alpha8 = bits == 8 && keepsAlpha && aPlane != nil
          let opaque10 = bits == 10 && !keepsAlpha && aPlane == nil
          let vectorBlocks = vectorized && (opaque8 || alpha8 || opaque10) ? (width / 8) * 4 : 0
          // Rows of one color, written in some columns (`pendingRow`): the rest are runs of it.
          var pending: (Pixel, Pixel, written: Range<Int>)? = nil
          if opaque8, let pendingRow, let p0 = pendingRow(y0), let p1 = pendingRow(y1) {
            precondition(p0.written == p1.written, "a row pair written in different columns")
            pending = (p0.color, p1.color, p0.written)
          }
          if let (c0, c1, written) = pending, written.isEmpty {
            let lines = (rotated + ((cy + 29) & 63) * 144, rotated + ((cy + 7) & 63) * 144 + 72)
            uniformPair(
              c0, c1,
              luma: (
                UnsafeMutableRawPointer(yRow0).assumingMemoryBound(to: UInt8.self),
                UnsafeMutableRawPointer(yRow1).assumingMemoryBound(to: UInt8.self)
              ),
              chroma: (
                UnsafeMutableRawPointer(cbRow).assumingMemoryBound(to: UInt8.self),
                UnsafeMutableRawPointer(crRow).assumingMemoryBound(to: UInt8.self)
              ),
              dither: (dither0, dither1), chromaDither: (cbDither, crDither), lines: lines, tiles: tiles)
            continue
          }
          var uniform: UniformTiles? = nil
          if vectorBlocks > 0, alpha8, let aPlane {
            for i in 0..<72 {
              alphaLines[i] = table[((y0 + 53) & 63) << 6 | ((i + 5) & 63)]
              alphaLines[72 + i] = table[((y1 + 53) & 63) << 6 | ((i + 5) & 63)]
            }
            alphaBlocks8(
              row0, row1, blocks: vectorBlocks,
              luma: (
                UnsafeMutableRawPointer(yRow0).assumingMemoryBound(to: UInt8.self),
                UnsafeMutableRawPointer(yRow1).assumingMemoryBound(to: UInt8.self)
              ),
              alpha: (
                aPlane.pointer.assumingMemoryBound(to: UInt8.self) + y0 * aPlane.bytesPerRow,
                aPlane.pointer.assumingMemoryBound(to: UInt8.self) + y1 * aPlane.bytesPerRow
              ),
              sums: sums, dither: (dither0, dither1),
              alphaDither: (UnsafePointer(alphaLines), UnsafePointer(alphaLines + 72)))
          } else if vectorBlocks > 0, opaque10 {
            opaqueBlocks10(
              row0, row1, blocks: vectorBlocks,
              luma: (
                UnsafeMutableRawPointer(yRow0).assumingMemoryBound(to: UInt16.self),
                UnsafeMutableRawPointer(yRow1).assumingMemoryBound(to: UInt16.self)
              ),
              sums: sums, dither: (dither0, dither1))
          } else if vectorBlocks > 0 {
            let runs = opaqueBlocks8(
              row0, row1, pending: pending, blocks: vectorBlocks, ahead: y1 + 2 < rows.upperBound ? 2 * width : 0,
              luma: (
                UnsafeMutableRawPointer(yRow0).assumingMemoryBound(to: UInt8.self),
                UnsafeMutableRawPointer(yRow1).assumingMemoryBound(to: UInt8.self)
              ),
              sums: sums, dither: (dither0, dither1), tiles: findsRuns ? tiles : nil)
            if runs { uniform = tiles }
          }
          for cx in vectorBlocks..<(width + 1) / 2 {
            let x0 = cx * 2
            let x1 = min(x0 + 1, width - 1)
            let p0 = row0[x0], p1 = row0[x1], p2 = row1[x0], p3 = row1[x1]
            let fallback = keepsAlpha ? meanColour(p0, p1, p2, p3) : .zero
            let c0 = straight(p0, fallback: fallback)
            let c1 = straight(p1, fallback: fallback)
            let c2 = straight(p2, fallback: fallback)
            let c3 = straight(p3, fallback: fallback)
            let r = SIMD4<Float>(c0.x, c1.x, c2.x, c3.x)
            let g = SIMD4<Float>(c0.y, c1.y, c2.y, c3.y)
            let b = SIMD4<Float>(c0.z, c1.z, c2.z, c3.z)
            var luma = r * kr
            luma += g * kg
            luma += b * kb
            luma += yOffset
            let noise = SIMD4<Float>(dither0[x0 & 63], dither0[x1 & 63], dither1[x0 & 63], dither1[x1 & 63])
            let codes = sampleCodes(luma + noise, maximum: hi)

            // The columns' sums for the chroma pass: for kept alpha premultiplied, so a clear pixel's
            // colour counts for nothing there.
            if keepsAlpha {
              sums.store(p0 + p2, at: x0)
              sums.store(p1 + p3, at: x1)
            } else {
              sums.store(c0 + c2, at: x0)
              sums.store(c1 + c3, at: x1)
            }

            yRow0[x0] = Sample(truncatingIfNeeded: Int32(codes[0])).littleEndian
            yRow0[x1] = Sample(truncatingIfNeeded: Int32(codes[1])).littleEndian
            yRow1[x0] = Sample(truncatingIfNeeded: Int32(codes[2])).littleEndian
            yRow1[x1] = Sample(truncatingIfNeeded: Int32(codes[3])).littleEndian
            if let aPlane {
              let alpha = SIMD4<Float>(p0.w, p1.w, p2.w, p3.w)
              let aNoise = SIMD4<Float>(
                table[((y0 + 53) & 63) << 6 | ((x0 + 5) & 63)], table[((y0 + 53) & 63) << 6 | ((x1 + 5) & 63)],
                table[((y1 + 53) & 63) << 6 | ((x0 + 5) & 63)], table[((y1 + 53) & 63) << 6 | ((x1 + 5) & 63)])
              let a = alphaCodes(alpha, noise: aNoise, offset: alphaOffset, range: alphaRange)
              aPlane.pointer.storeBytes(of: UInt8(a[0]), toByteOffset: y0 * aPlane.bytesPerRow + x0, as: UInt8.self)
              aPlane.pointer.storeBytes(of: UInt8(a[1]), toByteOffset: y0 * aPlane.bytesPerRow + x1, as: UInt8.self)
              aPlane.pointer.storeBytes(of: UInt8(a[2]), toByteOffset: y1 * aPlane.bytesPerRow + x0, as: UInt8.self)
              aPlane.pointer.storeBytes(of: UInt8(a[3]), toByteOffset: y1 * aPlane.bytesPerRow + x1, as: UInt8.self)
            }
          }
          sums.padEdges()
          chromaRow(
            sums, cb: cbRow, cr: crRow, scale: scale, maximum: hi, dither: (cbDither, crDither),
            lines: (rotated + ((cy + 29) & 63) * 144, rotated + ((cy + 7) & 63) * 144 + 72),
            premultiplied: keepsAlpha, uniform: uniform)
        }
      }
    }
  }

  /// One chroma row from its row pair's column sums: each sample centred between its block's two
  /// columns (docs/ENCODING.md, Chroma siting), from those columns and their outer neighbours
  /// weighted 1 3 3 1. That keeps a detail's colour on its place: a one-pixel line on column x puts
  /// its colour at centroid x, where a 2x2 mean put it at the block's centre, half a pixel off.
  ///
  /// Four samples at a time: the eight sums from the block's left neighbour on and the eight
  /// from its right column on hold, as even and odd halves, the four taps of four samples.
  ///
  /// With `uniform` (8-bit only), a group of four samples whose columns and their outer
  /// neighbours all lie in chunks `opaqueBlocks8` found to be one colour a row takes its codes
  /// from the 64-sample tile of that colour: the same arithmetic on the same sums, so the same
  /// bytes, computed once a row instead of once a group.
  @inline(__always)
  private func chromaRow<Sample: FixedWidthInteger & UnsignedInteger>(
    _ sums: ColumnSums, cb: UnsafeMutablePointer<Sample>, cr: UnsafeMutablePointer<Sample>, scale: Float,
    maximum: SIMD4<Float>, dither: (UnsafePointer<Float>, UnsafePointer<Float>),
    lines: (UnsafePointer<Float>, UnsafePointer<Float>), premultiplied: Bool, uniform: UniformTiles? = nil,
    blocks: Int? = nil
  ) {
    let blocks = blocks ?? (width + 1) / 2
    let three = SIMD4<Float>(repeating: 3)
    // Two rows of 1 3 3 1: sixteen columns' worth.
    let sixteenth = SIMD4<Float>(repeating: 1.0 / 16)
    let cbScale = SIMD4<Float>(repeating: 224 * scale / BT709.cbDivisor)
    let crScale = SIMD4<Float>(repeating: 224 * scale / BT709.crDivisor)
    let offset = SIMD4<Float>(repeating: 128 * scale)
    func taps(_ channel: UnsafeMutablePointer<Float>, _ cx: Int) -> SIMD4<Float> {
      let left = UnsafeRawPointer(channel + 2 * cx).loadUnaligned(as: Lanes.self)
      let right = UnsafeRawPointer(channel + 2 * cx + 2).loadUnaligned(as: Lanes.self)
      return (left.evenHalf + right.oddHalf) + three * (left.oddHalf + right.evenHalf)
    }
    /// The Cb and Cr values (before rounding) of samples cx..<cx + 4 from `sums`.
    @inline(__always) func values(_ sums: ColumnSums, _ cx: Int) -> (SIMD4<Float>, SIMD4<Float>) {
      var r = taps(sums.red, cx) * sixteenth
      var g = taps(sums.green, cx) * sixteenth
      var b = taps(sums.blue, cx) * sixteenth
      if premultiplied {
        // The alpha-weighted mean straight colour; black where all sixteen weights are clear.
        let a = taps(sums.alpha, cx) * sixteenth
        let clear = a .<= 1.0 / 16384
        let one = SIMD4<Float>(repeating: 1)
        r = clamp(r / a, .zero, one)
        g = clamp(g / a, .zero, one)
        b = clamp(b / a, .zero, one)
        r.replace(with: 0, where: clear)
        g.replace(with: 0, where: clear)
        b.replace(with: 0, where: clear)
      }
      let luma = SIMD4(repeating: BT709.kr) * r + SIMD4(repeating: BT709.kg) * g + SIMD4(repeating: BT709.kb) * b
      let cbNoise = SIMD4<Float>(
        dither.0[(cx + 17) & 63], dither.0[(cx + 18) & 63], dither.0[(cx + 19) & 63], dither.0[(cx + 20) & 63])
      let crNoise = SIMD4<Float>(
        dither.1[(cx + 41) & 63], dither.1[(cx + 42) & 63], dither.1[(cx + 43) & 63], dither.1[(cx + 44) & 63])
      let cbValues = offset + cbScale * (b - luma) + cbNoise
      let crValues = offset + crScale * (r - luma) + crNoise
      return (cbValues, crValues)
    }
    /// `values` for the eight samples cx..<cx + 8 of an opaque frame, lane for lane the same
    /// arithmetic; the dither from `lines`, each row of the table rotated to its offset and
    /// extended past 64, so eight lanes are one load.
    @inline(__always) func values8(
      _ sums: ColumnSums, _ cx: Int, lines: (UnsafePointer<Float>, UnsafePointer<Float>)
    )
      -> (Lanes, Lanes)
    {
      @inline(__always) func taps8(_ channel: UnsafeMutablePointer<Float>) -> Lanes {
        let left = UnsafeRawPointer(channel + 2 * cx).loadUnaligned(as: SIMD16<Float>.self)
        let right = UnsafeRawPointer(channel + 2 * cx + 2).loadUnaligned(as: SIMD16<Float>.self)
        return (left.evenHalf + right.oddHalf) + Lanes(repeating: 3) * (left.oddHalf + right.evenHalf)
      }
      let sixteenth = Lanes(repeating: 1.0 / 16)
      let r = taps8(sums.red) * sixteenth
      let g = taps8(sums.green) * sixteenth
      let b = taps8(sums.blue) * sixteenth
      let luma = Lanes(repeating: BT709.kr) * r + Lanes(repeating: BT709.kg) * g + Lanes(repeating: BT709.kb) * b
      let cbNoise = UnsafeRawPointer(lines.0 + (cx & 63)).loadUnaligned(as: Lanes.self)
      let crNoise = UnsafeRawPointer(lines.1 + (cx & 63)).loadUnaligned(as: Lanes.self)
      let cbValues = Lanes(repeating: offset.x) + Lanes(repeating: cbScale.x) * (b - luma) + cbNoise
      let crValues = Lanes(repeating: offset.x) + Lanes(repeating: crScale.x) * (r - luma) + crNoise
      return (cbValues, crValues)
    }
    // A run's chroma tile: this code over 64 samples of sums that are all the run's.
    var runs: UniformTiles? = nil
    if Sample.self == UInt8.self, let uniform, let chunk = (0..<blocks / 4).first(where: { uniform.flags[$0] != 0 }) {
      let t = uniform.sums
      t.red.update(repeating: sums.red[8 * chunk + 1], count: UniformTiles.sumsCount)
      t.green.update(repeating: sums.green[8 * chunk + 1], count: UniformTiles.sumsCount)
      t.blue.update(repeating: sums.blue[8 * chunk + 1], count: UniformTiles.sumsCount)
      chromaRow(
        t, cb: uniform.cb, cr: uniform.cr, scale: scale, maximum: maximum, dither: dither, lines: lines,
        premultiplied: premultiplied, blocks: 64)
      runs = uniform
    }
    // `lines` are `dither`'s rows as `values8` reads them (`chromaDitherLines`).
    let eight = Sample.self == UInt8.self && !premultiplied && blocks >= 8
    let eightMaximum = Lanes(repeating: maximum.x)
    var cx = 0
    while cx < blocks {
      // Eight samples at a time where neither group of four is a run's.
      if eight && cx + 8 <= blocks
        && !(runs.map { $0.groupIsUniform(cx / 4) || $0.groupIsUniform(cx / 4 + 1) } ?? false)
      {
        let (cbValues, crValues) = values8(sums, cx, lines: lines)
        UnsafeMutableRawPointer(cb + cx).storeBytes(of: byteCodes8(cbValues, maximum: eightMaximum), as: LaneBytes.self)
        UnsafeMutableRawPointer(cr + cx).storeBytes(of: byteCodes8(crValues, maximum: eightMaximum), as: LaneBytes.self)
        cx += 8
        continue
      }
      if let runs, runs.groupIsUniform(cx / 4) {
        let i = cx & 63
        UnsafeMutableRawPointer(cb + cx).storeBytes(
          of: UnsafeRawPointer(runs.cb + i).loadUnaligned(as: UInt32.self), as: UInt32.self)
        UnsafeMutableRawPointer(cr + cx).storeBytes(
          of: UnsafeRawPointer(runs.cr + i).loadUnaligned(as: UInt32.self), as: UInt32.self)
        cx += 4
        continue
      }
      let (cbValues, crValues) = values(sums, cx)
      if Sample.self == UInt8.self && cx + 4 <= blocks {
        UnsafeMutableRawPointer(cb + cx).storeBytes(of: byteCodes4(cbValues, maximum: maximum), as: SIMD4<UInt8>.self)
        UnsafeMutableRawPointer(cr + cx).storeBytes(of: byteCodes4(crValues, maximum: maximum), as: SIMD4<UInt8>.self)
      } else {
        let cbCodes = sampleCodes(cbValues, maximum: maximum)
        let crCodes = sampleCodes(crValues, maximum: maximum)
        for lane in 0..<min(4, blocks - cx) {
          cb[cx + lane] = Sample(truncatingIfNeeded: Int32(cbCodes[lane])).littleEndian
          cr[cx + lane] = Sample(truncatingIfNeeded: Int32(crCodes[lane])).littleEndian
        }
      }
      cx += 4
    }
  }

  /// The first `blocks` 2x2 blocks (a multiple of 4) of a row pair, opaque and 8-bit: the block
  /// loop's arithmetic, lane for lane, with one pixel a lane, so the same bytes at a fraction of
  /// the instructions. Chroma is left to `chromaRow`, from the column sums this stores.
  ///
  /// A chunk of eight columns whose pixels are, bit for bit, the row's first pixel in each of
  /// the two rows (a sky, a base colour: most of a clear night or a snow frame) is not
  /// transposed or computed: its codes are copied from a 64-column tile of that colour (dither
  /// repeats every 64 columns), computed by the same code the first time a row pair needs it,
  /// and its sums are that colour's. Returns whether any chunk was such a run (`tiles.flags`).
  /// With `pending` (rows of one colour each, written only in `written` columns:
  /// `Surface.pendingRow`), the run colours are those, and a chunk outside those columns is a run
  /// without being read.
  @inline(__always)
  private func opaqueBlocks8(
    _ row0: UnsafeMutablePointer<Pixel>, _ row1: UnsafeMutablePointer<Pixel>,
    pending: (Pixel, Pixel, written: Range<Int>)? = nil, blocks: Int, ahead: Int,
    luma: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>), sums: ColumnSums,
    dither: (UnsafePointer<Float>, UnsafePointer<Float>), tiles: UniformTiles?
  ) -> Bool {
    let bg = background
    let (bgR, bgG, bgB) = (Lanes(repeating: bg.x), Lanes(repeating: bg.y), Lanes(repeating: bg.z))
    let kr = Lanes(repeating: BT709.kr * 219), kg = Lanes(repeating: BT709.kg * 219),
      kb = Lanes(repeating: BT709.kb * 219)
    let hi8 = Lanes(repeating: 255)
    // Two pixels' bit patterns, for comparing a chunk 32 bytes at a time.
    @inline(__always) func pattern(_ p: Pixel) -> LaneBits {
      let bits = unsafeBitCast(p, to: SIMD4<UInt32>.self)
      return LaneBits(lowHalf: bits, highHalf: bits)
    }
    let (first0, first1) = pending.map { ($0.0, $0.1) } ?? (row0[0], row1[0])
    let pattern0 = pattern(first0), pattern1 = pattern(first1)
    // The columns to read: all but those of pending rows not written, which only tiles convert.
    precondition(pending == nil || tiles != nil, "pending rows converted without tiles")
    let read = pending?.written ?? 0..<Int.max
    // The run colour's column sums, once its tiles are made (at the pair's first run).
    var made = false
    var runR = Lanes(), runG = Lanes(), runB = Lanes()
    let (flags, tile0, tile1) = (tiles?.flags, tiles?.luma0, tiles?.luma1)

    // `ahead` pixels on (two rows, none at the bottom): the frame was just drawn and is mostly
    // out of cache.
    var cx = 0
    while cx < blocks {
      let x0 = cx * 2
      let reads = read.contains(x0)
      if reads {
        chints_prefetch(row0 + x0 + ahead)
        chints_prefetch(row0 + x0 + ahead + 4)
        chints_prefetch(row1 + x0 + ahead)
        chints_prefetch(row1 + x0 + ahead + 4)
      }
      if let tiles, let flags, let tile0, let tile1,
        !reads || (UniformTiles.chunk(row0 + x0, is: pattern0) && UniformTiles.chunk(row1 + x0, is: pattern1))
      {
        if !made {
          (runR, runG, runB) = lumaTiles(first0, first1, dither: dither, tiles: tiles)
          made = true
        }
        let t = x0 & 63
        UnsafeMutableRawPointer(luma.0 + x0).storeBytes(
          of: UnsafeRawPointer(tile0 + t).loadUnaligned(as: UInt64.self), as: UInt64.self)
        UnsafeMutableRawPointer(luma.1 + x0).storeBytes(
          of: UnsafeRawPointer(tile1 + t).loadUnaligned(as: UInt64.self), as: UInt64.self)
        sums.store8(runR, runG, runB, at: x0)
        flags[cx / 4] = 1
        cx += 4
        continue
      }
      flags?[cx / 4] = 0
      let (r0, g0, b0) = straight8(row0 + x0, background: (bgR, bgG, bgB))
      let (r1, g1, b1) = straight8(row1 + x0, background: (bgR, bgG, bgB))
      let n0 = UnsafeRawPointer(dither.0 + (x0 & 63)).loadUnaligned(as: Lanes.self)
      let n1 = UnsafeRawPointer(dither.1 + (x0 & 63)).loadUnaligned(as: Lanes.self)
      let y0 = lumaCodes8(r0, g0, b0, noise: n0, weights: (kr, kg, kb), maximum: hi8)
      let y1 = lumaCodes8(r1, g1, b1, noise: n1, weights: (kr, kg, kb), maximum: hi8)
      UnsafeMutableRawPointer(luma.0 + x0).storeBytes(of: y0, as: LaneBytes.self)
      UnsafeMutableRawPointer(luma.1 + x0).storeBytes(of: y1, as: LaneBytes.self)
      // The block loop's c0 + c2 and c1 + c3: each column's two rows, for the chroma pass.
      sums.store8(r0 + r1, g0 + g1, b0 + b1, at: x0)
      cx += 4
    }
    // The group of the last chunk reads one column past it: the right edge's padding (the
    // last column, in that chunk) when the chunks end the row, else the scalar loop's columns.
    flags?[blocks / 4] = 2 * blocks == width ? 1 : 0
    flags?[blocks / 4 + 1] = 0
    return made
  }

  /// The first `blocks` 2x2 blocks (a multiple of 4) of an opaque 10-bit row pair: the block
  /// loop's arithmetic lane for lane, eight pixels of each row at a time, so the same samples,
  /// stored from the codes' bit patterns (`chints_store_low_halves8`). Chroma is left to
  /// `chromaRow`, from the column sums this stores.
  @inline(__always)
  private func opaqueBlocks10(
    _ row0: UnsafeMutablePointer<Pixel>, _ row1: UnsafeMutablePointer<Pixel>, blocks: Int,
    luma: (UnsafeMutablePointer<UInt16>, UnsafeMutablePointer<UInt16>), sums: ColumnSums,
    dither: (UnsafePointer<Float>, UnsafePointer<Float>)
  ) {
    let bg = background
    let (bgR, bgG, bgB) = (Lanes(repeating: bg.x), Lanes(repeating: bg.y), Lanes(repeating: bg.z))
    let scale: Float = 4
    let kr = Lanes(repeating: BT709.kr * 219 * scale), kg = Lanes(repeating: BT709.kg * 219 * scale),
      kb = Lanes(repeating: BT709.kb * 219 * scale)
    let yOffset = Lanes(repeating: 16 * scale)
    let zero = Lanes(repeating: 0), maximum = Lanes(repeating: 1023), magic = Lanes(repeating: 8_388_608)
    @inline(__always) func codes(_ r: Lanes, _ g: Lanes, _ b: Lanes, noise: Lanes) -> Lanes {
      var l = r * kr
      l += g * kg
      l += b * kb
      l += yOffset
      return clamp8(l + noise, zero, maximum) + magic
    }
    var cx = 0
    while cx < blocks {
      let x0 = cx * 2
      let (r0, g0, b0) = straight8(row0 + x0, background: (bgR, bgG, bgB))
      let (r1, g1, b1) = straight8(row1 + x0, background: (bgR, bgG, bgB))
      let n0 = UnsafeRawPointer(dither.0 + (x0 & 63)).loadUnaligned(as: Lanes.self)
      let n1 = UnsafeRawPointer(dither.1 + (x0 & 63)).loadUnaligned(as: Lanes.self)
      chints_store_low_halves8(luma.0 + x0, codes(r0, g0, b0, noise: n0))
      chints_store_low_halves8(luma.1 + x0, codes(r1, g1, b1, noise: n1))
      sums.store8(r0 + r1, g0 + g1, b0 + b1, at: x0)
      cx += 4
    }
  }

  /// An opaque 8-bit row pair whose rows are `first` and `second` throughout, from their colors
  /// alone (`Surface.pendingRow`, written nowhere): the bytes `opaqueBlocks8` and `chromaRow`
  /// make from such rows, whose every chunk is a run and every chroma group takes the run's
  /// tile. The luma tiles and the chroma tiles are made by the same code from the same sums and
  /// repeated along the rows. The width is a multiple of eight (`convertsRowColors`).
  private func uniformPair(
    _ first: Pixel, _ second: Pixel, luma: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>),
    chroma: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>),
    dither: (UnsafePointer<Float>, UnsafePointer<Float>), chromaDither: (UnsafePointer<Float>, UnsafePointer<Float>),
    lines: (UnsafePointer<Float>, UnsafePointer<Float>), tiles: UniformTiles
  ) {
    let (r, g, b) = lumaTiles(first, second, dither: dither, tiles: tiles)
    let t = tiles.sums
    t.red.update(repeating: r[0], count: UniformTiles.sumsCount)
    t.green.update(repeating: g[0], count: UniformTiles.sumsCount)
    t.blue.update(repeating: b[0], count: UniformTiles.sumsCount)
    chromaRow(
      t, cb: tiles.cb, cr: tiles.cr, scale: 1, maximum: SIMD4(repeating: 255), dither: chromaDither, lines: lines,
      premultiplied: false, blocks: 64)
    /// `tile`'s 64 bytes over `count` bytes from `out`, `out[i]` = `tile[i % 64]`.
    func repeatTile(_ tile: UnsafeMutablePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>, count: Int) {
      var x = 0
      while x < count {
        (out + x).update(from: tile, count: min(64, count - x))
        x += 64
      }
    }
    repeatTile(tiles.luma0, into: luma.0, count: width)
    repeatTile(tiles.luma1, into: luma.1, count: width)
    repeatTile(tiles.cb, into: chroma.0, count: width / 2)
    repeatTile(tiles.cr, into: chroma.1, count: width / 2)
  }

  /// The luma tiles of a row pair whose rows are `first0` and `first1` throughout: 64 codes
  /// each, by `opaqueBlocks8`'s own arithmetic. Returns the colour's column sums.
  @inline(never)
  private func lumaTiles(
    _ first0: Pixel, _ first1: Pixel, dither: (UnsafePointer<Float>, UnsafePointer<Float>), tiles: UniformTiles
  ) -> (Lanes, Lanes, Lanes) {
    let bg = background
    let (bgR, bgG, bgB) = (Lanes(repeating: bg.x), Lanes(repeating: bg.y), Lanes(repeating: bg.z))
    let kr = Lanes(repeating: BT709.kr * 219), kg = Lanes(repeating: BT709.kg * 219),
      kb = Lanes(repeating: BT709.kb * 219)
    let hi8 = Lanes(repeating: 255)
    tiles.pixels.update(repeating: first0, count: 8)
    let (r0, g0, b0) = straight8(tiles.pixels, background: (bgR, bgG, bgB))
    tiles.pixels.update(repeating: first1, count: 8)
    let (r1, g1, b1) = straight8(tiles.pixels, background: (bgR, bgG, bgB))
    var tx = 0
    while tx < 64 {
      let n0 = UnsafeRawPointer(dither.0 + tx).loadUnaligned(as: Lanes.self)
      let n1 = UnsafeRawPointer(dither.1 + tx).loadUnaligned(as: Lanes.self)
      let y0 = lumaCodes8(r0, g0, b0, noise: n0, weights: (kr, kg, kb), maximum: hi8)
      let y1 = lumaCodes8(r1, g1, b1, noise: n1, weights: (kr, kg, kb), maximum: hi8)
      UnsafeMutableRawPointer(tiles.luma0 + tx).storeBytes(of: y0, as: LaneBytes.self)
      UnsafeMutableRawPointer(tiles.luma1 + tx).storeBytes(of: y1, as: LaneBytes.self)
      tx += 8
    }
    return (r0 + r1, g0 + g1, b0 + b1)
  }

  /// The first `blocks` 2x2 blocks (a multiple of 4) of a row pair with alpha kept, 8-bit: the
  /// block loop's arithmetic, lane for lane, with one pixel a lane, so the same bytes (a -0 that
  /// the block loop keeps may be +0 here, which no code can tell). Each block's mean colour (the
  /// fallback of its clear pixels) is made in both of its columns' lanes from the same four
  /// pixels in the same order; each pixel's straight colour, luma and alpha codes as the block
  /// loop makes them; the columns' premultiplied sums, alpha included, for `chromaRow`.
  /// `alphaDither` holds each row's alpha dither from column 0 on (`convert420`).
  @inline(__always)
  private func alphaBlocks8(
    _ row0: UnsafeMutablePointer<Pixel>, _ row1: UnsafeMutablePointer<Pixel>, blocks: Int,
    luma: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>),
    alpha: (UnsafeMutablePointer<UInt8>, UnsafeMutablePointer<UInt8>), sums: ColumnSums,
    dither: (UnsafePointer<Float>, UnsafePointer<Float>), alphaDither: (UnsafePointer<Float>, UnsafePointer<Float>)
  ) {
    let zero = Lanes(repeating: 0), one = Lanes(repeating: 1)
    let faint = Lanes(repeating: 1.0 / 4096)
    let kr = Lanes(repeating: BT709.kr * 219), kg = Lanes(repeating: BT709.kg * 219),
      kb = Lanes(repeating: BT709.kb * 219)
    let hi8 = Lanes(repeating: 255)
    @inline(__always) func mean(_ a: Lanes, _ b: Lanes) -> Lanes {
      ((chints_dup_even8(a) + chints_dup_odd8(a)) + chints_dup_even8(b)) + chints_dup_odd8(b)
    }
    var cx = 0
    while cx < blocks {
      let x0 = cx * 2
      let (r0, g0, b0, a0) = pixels8(row0 + x0)
      let (r1, g1, b1, a1) = pixels8(row1 + x0)
      // `meanColour`: the sum's colour over its alpha where that is above 1/4096, else black.
      let (sr, sg, sb, sa) = (mean(r0, r1), mean(g0, g1), mean(b0, b1), mean(a0, a1))
      let mr = chints_where_at_most8(sa, faint, zero, clamp8(sr / sa, zero, one))
      let mg = chints_where_at_most8(sa, faint, zero, clamp8(sg / sa, zero, one))
      let mb = chints_where_at_most8(sa, faint, zero, clamp8(sb / sa, zero, one))
      // `straight`: the pixel clamped, its colour over its alpha, clamped; the block's mean where
      // its alpha is at most 1/4096.
      @inline(__always) func lumaCodes(_ r: Lanes, _ g: Lanes, _ b: Lanes, _ a: Lanes, noise: Lanes) -> LaneBytes {
        let pa = clamp8(a, zero, one)
        let cr = chints_where_at_most8(pa, faint, mr, clamp8(clamp8(r, zero, one) / pa, zero, one))
        let cg = chints_where_at_most8(pa, faint, mg, clamp8(clamp8(g, zero, one) / pa, zero, one))
        let cb = chints_where_at_most8(pa, faint, mb, clamp8(clamp8(b, zero, one) / pa, zero, one))
        return lumaCodes8(cr, cg, cb, noise: noise, weights: (kr, kg, kb), maximum: hi8)
      }
      @inline(__always) func alphaCodes(_ a: Lanes, noise: Lanes, into out: UnsafeMutablePointer<UInt8>) {
        chints_store_low_bytes8(
          out, alphaCodes8(clampedAlpha: clamp8(a, zero, one), noise: noise, offset: alphaOffset, range: alphaRange))
      }
      let n0 = UnsafeRawPointer(dither.0 + (x0 & 63)).loadUnaligned(as: Lanes.self)
      let n1 = UnsafeRawPointer(dither.1 + (x0 & 63)).loadUnaligned(as: Lanes.self)
      UnsafeMutableRawPointer(luma.0 + x0).storeBytes(of: lumaCodes(r0, g0, b0, a0, noise: n0), as: LaneBytes.self)
      UnsafeMutableRawPointer(luma.1 + x0).storeBytes(of: lumaCodes(r1, g1, b1, a1, noise: n1), as: LaneBytes.self)
      sums.store8(r0 + r1, g0 + g1, b0 + b1, a0 + a1, at: x0)
      let an0 = UnsafeRawPointer(alphaDither.0 + (x0 & 63)).loadUnaligned(as: Lanes.self)
      let an1 = UnsafeRawPointer(alphaDither.1 + (x0 & 63)).loadUnaligned(as: Lanes.self)
      alphaCodes(a0, noise: an0, into: alpha.0 + x0)
      alphaCodes(a1, noise: an1, into: alpha.1 + x0)
      cx += 4
    }
  }

  /// Alpha codes `offset + range * alpha` with dither, except that fully clear and fully opaque
  /// stay exact (`offset` and `offset + range`): full range is offset 0 and range 255 (or 1023),
  /// stacked alpha's limited range 16 and 219.
  @inline(__always) func alphaCodes(
    _ alpha: SIMD4<Float>, noise: SIMD4<Float>, offset: Float = 0, range: Float
  ) -> SIMD4<Float> {
    let a = clamp(alpha, .zero, SIMD4(repeating: 1)) * range
    let top = offset + range
    // Clamped to offset + 1...top - 1 before rounding, which gives the same codes as after: both ends are whole.
    var codes = sampleCodes(
      clamp(a + offset + noise, SIMD4(repeating: offset + 1), SIMD4(repeating: top - 1)),
      maximum: SIMD4(repeating: top))
    codes.replace(with: offset, where: a .<= 0.5)
    codes.replace(with: top, where: a .>= range - 0.5)
    return codes
  }

  // MARK: - YUV 4:4:4 with alpha (ProRes 4444)

  private func convert444(_ image: Image, _ frame: ConvertedFrame, rows: Range<Int>) {
    let table = ditherTable
    let scale: Float = 4
    // Each row's Cb, Cr and alpha dither from column 0 on, 72 entries each, so eight columns
    // from any multiple of eight read on without wrapping, then its 64 luma entries
    // (`convert444Chunks`).
    let lines = UnsafeMutablePointer<Float>.allocate(capacity: 3 * 72 + 64)
    defer { lines.deallocate() }
    let chunks = vectorized ? width / 8 * 8 : 0
    for y in rows {
      let row = image.row(y - rows.lowerBound)
      let rows = frame.planes.map {
        $0.pointer.advanced(by: y * $0.bytesPerRow).assumingMemoryBound(to: UInt16.self)
      }
      if chunks > 0 {
        for i in 0..<72 {
          lines[i] = table[((y + 29) & 63) << 6 | ((i + 17) & 63)]
          lines[72 + i] = table[((y + 7) & 63) << 6 | ((i + 41) & 63)]
          lines[144 + i] = table[((y + 53) & 63) << 6 | ((i + 5) & 63)]
          if i < 64 { lines[216 + i] = table[(y & 63) << 6 | i] }
        }
        convert444Chunks(
          row, count: chunks, planes: (rows[0], rows[1], rows[2], rows[3]),
          dither: (
            UnsafePointer(lines + 216), UnsafePointer(lines), UnsafePointer(lines + 72), UnsafePointer(lines + 144)
          )
        )
      }
      for x in chunks..<width {
        let p = row[x]
        let c = straight(p, fallback: .zero)
        let luma = BT709.kr * c.x + BT709.kg * c.y + BT709.kb * c.z
        let values = SIMD4<Float>(
          (16 + 219 * luma) * scale,
          (128 + 224 * (c.z - luma) / BT709.cbDivisor) * scale,
          (128 + 224 * (c.x - luma) / BT709.crDivisor) * scale, 0)
        let noise = SIMD4<Float>(
          table[(y & 63) << 6 | (x & 63)], table[((y + 29) & 63) << 6 | ((x + 17) & 63)],
          table[((y + 7) & 63) << 6 | ((x + 41) & 63)], 0)
        let codes = sampleCodes(values + noise, maximum: SIMD4(repeating: 1023))
        let alpha =
          keepsAlpha
          ? alphaCodes(
            SIMD4(repeating: p.w), noise: SIMD4(repeating: table[((y + 53) & 63) << 6 | ((x + 5) & 63)]), range: 1023)[
              0]
          : 1023
        // yuva444p10le's planes are Y, U, V, A.
        rows[0][x] = UInt16(codes[0]).littleEndian
        rows[1][x] = UInt16(codes[1]).littleEndian
        rows[2][x] = UInt16(codes[2]).littleEndian
        rows[3][x] = UInt16(alpha).littleEndian
      }
    }
  }

  /// The first `count` pixels (a multiple of 8) of a 4:4:4 10-bit row, eight at a time as a
  /// vector a channel: `convert444`'s arithmetic lane for lane, so the same samples (a -0 that it
  /// keeps may be +0 here, which no code can tell). `dither` holds the row's luma dither (64
  /// entries from column 0) and its Cb, Cr and alpha dither from column 0 on (72 each).
  @inline(__always)
  private func convert444Chunks(
    _ row: UnsafeMutablePointer<Pixel>, count: Int,
    planes: (
      UnsafeMutablePointer<UInt16>, UnsafeMutablePointer<UInt16>, UnsafeMutablePointer<UInt16>,
      UnsafeMutablePointer<UInt16>
    ),
    dither: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>)
  ) {
    let zero = Lanes(repeating: 0), one = Lanes(repeating: 1)
    let (kr, kg, kb) = (Lanes(repeating: BT709.kr), Lanes(repeating: BT709.kg), Lanes(repeating: BT709.kb))
    let (cbDivisor, crDivisor) = (Lanes(repeating: BT709.cbDivisor), Lanes(repeating: BT709.crDivisor))
    let scale = Lanes(repeating: 4), maximum = Lanes(repeating: 1023), magic = Lanes(repeating: 8_388_608)
    @inline(__always) func codes(_ v: Lanes) -> Lanes { clamp8(v, zero, maximum) + magic }
    var x = 0
    while x < count {
      let (r, g, b, a) = pixels8(row + x)
      let pa = clamp8(a, zero, one)
      let (cr, cg, cb) = straightOrBlack8(r, g, b, clampedAlpha: pa, keepsAlpha: keepsAlpha, background: background)
      let luma = kr * cr + kg * cg + kb * cb
      let yCode = codes((16 + 219 * luma) * scale + ditherRow(dither.0, x))
      let cbCode = codes((128 + 224 * (cb - luma) / cbDivisor) * scale + ditherRow(dither.1, x))
      let crCode = codes((128 + 224 * (cr - luma) / crDivisor) * scale + ditherRow(dither.2, x))
      let alphaCode =
        keepsAlpha
        ? alphaCodes8(clampedAlpha: pa, noise: ditherRow(dither.3, x), offset: 0, range: 1023) : maximum + magic
      // yuva444p10le's planes are Y, U, V, A.
      chints_store_low_halves8(planes.0 + x, yCode)
      chints_store_low_halves8(planes.1 + x, cbCode)
      chints_store_low_halves8(planes.2 + x, crCode)
      chints_store_low_halves8(planes.3 + x, alphaCode)
      x += 8
    }
  }

  // MARK: - RGB

  private func convertRGB(_ image: Image, _ frame: ConvertedFrame, rows: Range<Int>) {
    let table = ditherTable
    let plane = frame.planes[0]
    let channels = layout == .rgb24 ? 3 : 4
    let bgra = layout == .bgra
    // Each row's dither: red's 64 entries from column 0, then green's, blue's and alpha's from
    // column 0 on, 72 each, so eight columns from any multiple of eight read on without wrapping
    // (`convertRGBChunks`).
    let lines = UnsafeMutablePointer<Float>.allocate(capacity: 64 + 3 * 72)
    defer { lines.deallocate() }
    let chunks = vectorized ? width / 8 * 8 : 0
    for y in rows {
      let row = image.row(y - rows.lowerBound)
      let out = plane.pointer.advanced(by: y * plane.bytesPerRow).assumingMemoryBound(to: UInt8.self)
      if chunks > 0 {
        for i in 0..<72 {
          if i < 64 { lines[i] = table[(y & 63) << 6 | i] }
          lines[64 + i] = table[((y + 29) & 63) << 6 | ((i + 17) & 63)]
          lines[136 + i] = table[((y + 7) & 63) << 6 | ((i + 41) & 63)]
          lines[208 + i] = table[((y + 53) & 63) << 6 | ((i + 5) & 63)]
        }
        convertRGBChunks(
          row, count: chunks, into: out, channels: channels, bgra: bgra,
          dither: (
            UnsafePointer(lines), UnsafePointer(lines + 64), UnsafePointer(lines + 136), UnsafePointer(lines + 208)
          ))
      }
      for x in chunks..<width {
        let p = row[x]
        let c = straight(p, fallback: .zero)
        let noise = SIMD4<Float>(
          table[(y & 63) << 6 | (x & 63)], table[((y + 29) & 63) << 6 | ((x + 17) & 63)],
          table[((y + 7) & 63) << 6 | ((x + 41) & 63)], table[((y + 53) & 63) << 6 | ((x + 5) & 63)])
        let rgb = sampleCodes(SIMD4(c.x, c.y, c.z, 0) * 255 + noise, maximum: SIMD4(repeating: 255))
        let o = x * channels
        out[o] = UInt8(bgra ? rgb[2] : rgb[0])
        out[o + 1] = UInt8(rgb[1])
        out[o + 2] = UInt8(bgra ? rgb[0] : rgb[2])
        if channels == 4 {
          out[o + 3] = keepsAlpha ? UInt8(alphaCodes(SIMD4(repeating: p.w), noise: noise, range: 255)[3]) : 255
        }
      }
    }
  }
}

extension FrameConverter {
  /// The first `count` pixels (a multiple of 8) of an RGB row, eight at a time as a vector a
  /// channel: `convertRGB`'s arithmetic lane for lane, so the same bytes (a -0 that it keeps may
  /// be +0 here, which no code can tell). `dither` holds the row's red dither (64 entries from
  /// column 0) and its green, blue and alpha dither from column 0 on (72 each).
  @inline(__always)
  fileprivate func convertRGBChunks(
    _ row: UnsafeMutablePointer<Pixel>, count: Int, into out: UnsafeMutablePointer<UInt8>, channels: Int,
    bgra: Bool, dither: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>, UnsafePointer<Float>)
  ) {
    let zero = Lanes(repeating: 0), one = Lanes(repeating: 1)
    let range = Lanes(repeating: 255), magic = Lanes(repeating: 8_388_608)
    @inline(__always) func codes(_ v: Lanes) -> Lanes { clamp8(v, zero, range) + magic }
    var x = 0
    while x < count {
      let (r, g, b, a) = pixels8(row + x)
      let pa = clamp8(a, zero, one)
      let (cr, cg, cb) = straightOrBlack8(r, g, b, clampedAlpha: pa, keepsAlpha: keepsAlpha, background: background)
      let redCode = codes(cr * 255 + ditherRow(dither.0, x))
      let greenCode = codes(cg * 255 + ditherRow(dither.1, x))
      let blueCode = codes(cb * 255 + ditherRow(dither.2, x))
      let alphaCode =
        keepsAlpha
        ? alphaCodes8(clampedAlpha: pa, noise: ditherRow(dither.3, x), offset: 0, range: 255) : range + magic
      let (first, third) = bgra ? (blueCode, redCode) : (redCode, blueCode)
      if channels == 4 {
        chints_store_interleaved4(out + 4 * x, first, greenCode, third, alphaCode)
      } else {
        // Three bytes a pixel: the four-byte pixels made in a row of their own, then packed.
        var packed: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &packed) { bytes in
          let four = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
          chints_store_interleaved4(four, first, greenCode, third, alphaCode)
          for i in 0..<8 {
            (out + 3 * (x + i)).update(from: four + 4 * i, count: 3)
          }
        }
      }
      x += 8
    }
  }
}

/// A row pair's colour summed down each column, one channel after another, for the chroma pass:
/// index x + 1 holds column x, index 0 and those past the last column repeat the edge columns.
struct ColumnSums {
  let red: UnsafeMutablePointer<Float>
  let green: UnsafeMutablePointer<Float>
  let blue: UnsafeMutablePointer<Float>
  let alpha: UnsafeMutablePointer<Float>
  private let width: Int
  /// One channel's floats: the columns, the left edge, and right of the last column enough for
  /// `chromaRow`'s last group of four samples (it reads 2 (blocks + 3) + 10 floats at most).
  private let stride: Int

  init(width: Int) {
    self.width = width
    stride = width + 16
    let base = UnsafeMutablePointer<Float>.allocate(capacity: 4 * stride)
    base.initialize(repeating: 0, count: 4 * stride)
    (red, green, blue, alpha) = (base, base + stride, base + 2 * stride, base + 3 * stride)
  }

  func deallocate() { red.deallocate() }

  @inline(__always) func store(_ colour: SIMD3<Float>, at x: Int) {
    (red[x + 1], green[x + 1], blue[x + 1]) = (colour.x, colour.y, colour.z)
  }

  @inline(__always) func store(_ pixel: Pixel, at x: Int) {
    (red[x + 1], green[x + 1], blue[x + 1], alpha[x + 1]) = (pixel.x, pixel.y, pixel.z, pixel.w)
  }

  /// Columns x...x + 7.
  @inline(__always) func store8(_ r: Lanes, _ g: Lanes, _ b: Lanes, at x: Int) {
    UnsafeMutableRawPointer(red + x + 1).storeBytes(of: r, as: Lanes.self)
    UnsafeMutableRawPointer(green + x + 1).storeBytes(of: g, as: Lanes.self)
    UnsafeMutableRawPointer(blue + x + 1).storeBytes(of: b, as: Lanes.self)
  }

  /// Columns x...x + 7, alpha too (premultiplied sums, alpha kept).
  @inline(__always) func store8(_ r: Lanes, _ g: Lanes, _ b: Lanes, _ a: Lanes, at x: Int) {
    store8(r, g, b, at: x)
    UnsafeMutableRawPointer(alpha + x + 1).storeBytes(of: a, as: Lanes.self)
  }

  /// The edge columns repeated outwards: a sample at the edge weights its block's outer column 4.
  @inline(__always) func padEdges() {
    func pad(_ channel: UnsafeMutablePointer<Float>) {
      channel[0] = channel[1]
      (channel + width + 1).update(repeating: channel[width], count: stride - width - 1)
    }
    pad(red)
    pad(green)
    pad(blue)
    pad(alpha)
  }
}

/// Scratch for `opaqueBlocks8` and `chromaRow`: which chunks of eight columns of a row pair are
/// one colour a row, and that colour's codes over 64 columns (the dither's period), 32 chroma
/// samples' worth of column sums to compute its chroma from.
struct UniformTiles {
  /// Column sums the chroma tile reads: 64 samples from column -1 to column 129.
  static let sumsCount = 144
  /// One a chunk of eight columns (and two more): 1 where the chunk is one colour a row.
  let flags: UnsafeMutablePointer<UInt8>
  let luma0: UnsafeMutablePointer<UInt8>
  let luma1: UnsafeMutablePointer<UInt8>
  let cb: UnsafeMutablePointer<UInt8>
  let cr: UnsafeMutablePointer<UInt8>
  /// Eight copies of a colour, for `straight8`.
  let pixels: UnsafeMutablePointer<Pixel>
  let sums: ColumnSums

  init(width: Int) {
    let count = width / 8 + 2
    flags = .allocate(capacity: count)
    flags.initialize(repeating: 0, count: count)
    let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: 4 * 64)
    bytes.initialize(repeating: 0, count: 4 * 64)
    (luma0, luma1, cb, cr) = (bytes, bytes + 64, bytes + 128, bytes + 192)
    pixels = .allocate(capacity: 8)
    pixels.initialize(repeating: .zero, count: 8)
    sums = ColumnSums(width: Self.sumsCount - 16)
  }

  func deallocate() {
    flags.deallocate()
    luma0.deallocate()
    pixels.deallocate()
    sums.deallocate()
  }

  /// Whether the four samples from `4 group` on take the tile: their columns' chunk and both
  /// neighbouring chunks (whose edge columns the 1 3 3 1 filter reads) are runs.
  @inline(__always) func groupIsUniform(_ group: Int) -> Bool {
    flags[group] != 0 && flags[group + 1] != 0 && (group == 0 || flags[group - 1] != 0)
  }

  /// Whether the eight pixels from `p` on are, bit for bit, the pixel `pattern` holds twice. The
  /// last two first: in a drawn area (a gradient) they differ from the row's first pixel, and
  /// one compare settles it.
  @_transparent static func chunk(_ p: UnsafeMutablePointer<Pixel>, is pattern: LaneBits) -> Bool {
    let raw = UnsafeRawPointer(p)
    guard all(raw.loadUnaligned(fromByteOffset: 96, as: LaneBits.self) .== pattern) else { return false }
    let a = raw.loadUnaligned(as: LaneBits.self) .== pattern
    let b = raw.loadUnaligned(fromByteOffset: 32, as: LaneBits.self) .== pattern
    let c = raw.loadUnaligned(fromByteOffset: 64, as: LaneBits.self) .== pattern
    return all(a .& b .& c)
  }
}

/// BT.709's luma weights and the divisors that scale colour differences to ±0.5 (ITU-R BT.709-6).
enum BT709 {
  static let kr: Float = 0.2126
  static let kb: Float = 0.0722
  static let kg: Float = 1 - kr - kb
  static let cbDivisor: Float = 2 * (1 - kb)  // 1.8556
  static let crDivisor: Float = 2 * (1 - kr)  // 1.5748
}

/// 64 x 64 triangular dither offsets in -1...1 LSB, a fixed function of the position.
///
/// The sum of two uniform values gives triangular noise, whose error does not depend on the
/// signal (no noise modulation). The values come from an integer hash, so they are the same on
/// every run and machine. A column of 64 averages within ~0.06 LSB of zero, so a dark ramp's
/// column means keep the ramp's slope (the banding test).
let ditherTable: [Float] = (0..<4096).map { index in
  func hash(_ value: UInt32) -> UInt32 {  // lowbias32 (Chris Wellons)
    var x = value
    x ^= x >> 16
    x &*= 0x7feb_352d
    x ^= x >> 15
    x &*= 0x846c_a68b
    x ^= x >> 16
    return x
  }
  let u1 = Float(hash(UInt32(index) &* 2 &+ 0x9e37) >> 8) / Float(1 << 24)
  let u2 = Float(hash(UInt32(index) &* 2 &+ 0x9e38) >> 8) / Float(1 << 24)
  return u1 + u2 - 1
}

/// Each row of `ditherTable` rotated as `chromaRow`'s eight-sample path reads it, made once: 144
/// floats a row, entry (i + 17) & 63 of the row at i (Cb's dither, i < 72), then entry
/// (i + 41) & 63 (Cr's), so lane j of sample cx is entry (cx & 63) + j of one load.
let chromaDitherLines: [Float] = (0..<64).flatMap { (row: Int) -> [Float] in
  let cb: [Float] = (0..<72).map { (i: Int) in ditherTable[row << 6 | (i + 17) & 63] }
  let cr: [Float] = (0..<72).map { (i: Int) in ditherTable[row << 6 | (i + 41) & 63] }
  return cb + cr
}

/// `v` clamped to `lo...hi` lane by lane, without the standard library's generic
/// `pointwiseMin` / `pointwiseMax`, which are not inlined and cost a call a pixel.
/// A lane that is not a number becomes `lo` (a NaN reaching Int32() would trap).
@inline(__always) func clamp(_ v: SIMD4<Float>, _ lo: SIMD4<Float>, _ hi: SIMD4<Float>) -> SIMD4<Float> {
  var c = v
  c.replace(with: lo, where: .!(c .>= lo))
  c.replace(with: hi, where: c .> hi)
  return c
}

/// Sample codes: `v.rounded(.toNearestOrEven).clamped(0...maximum)`, in vector instructions
/// instead of one libm call a lane.
///
/// Clamping first gives the same codes, since both ends are whole numbers. On 0...2^22, adding
/// and subtracting 2^23 rounds to nearest, ties to even, exactly. (Ties are as good as never hit:
/// every sample carries dither from a table of 24-bit fractions.)
@inline(__always) func sampleCodes(_ v: SIMD4<Float>, maximum: SIMD4<Float>) -> SIMD4<Float> {
  let magic = SIMD4<Float>(repeating: 8_388_608)
  return (clamp(v, .zero, maximum) + magic) - magic
}

/// `clamp` for eight lanes (NaN becomes `lo`): `maxps` and `minps` (`chints_clamp8`).
@_transparent func clamp8(_ v: Lanes, _ lo: Lanes, _ hi: Lanes) -> Lanes { chints_clamp8(v, lo, hi) }

/// `sampleCodes` for eight lanes, as bytes: after adding 2^23 the code is the low byte of the
/// float's bit pattern, so no conversion with its range check is needed.
@inline(__always) func byteCodes8(_ v: Lanes, maximum: Lanes) -> LaneBytes {
  let shifted = clamp8(v, .zero, maximum) + Lanes(repeating: 8_388_608)
  return LaneBytes(truncatingIfNeeded: unsafeBitCast(shifted, to: LaneBits.self))
}

/// `byteCodes8` stored at `out` (`chints_store_low_bytes8`: the narrowing in one place, where the
/// generic `LaneBytes(truncatingIfNeeded:)` was a call a vector in `convert(samples:)`).
@inline(__always) func storeByteCodes8(_ v: Lanes, maximum: Lanes, at out: UnsafeMutablePointer<UInt8>) {
  chints_store_low_bytes8(out, clamp8(v, .zero, maximum) + Lanes(repeating: 8_388_608))
}

/// `storeByteCodes8` with lanes 0-3 stored at `low` and lanes 4-7 at `high` (a Cb and a Cr row).
@inline(__always) func storeByteCodes4x2(
  _ v: Lanes, maximum: Lanes, at low: UnsafeMutablePointer<UInt8>, _ high: UnsafeMutablePointer<UInt8>
) {
  chints_store_low_bytes4x2(low, high, clamp8(v, .zero, maximum) + Lanes(repeating: 8_388_608))
}

/// `byteCodes8` for four lanes.
@inline(__always) func byteCodes4(_ v: SIMD4<Float>, maximum: SIMD4<Float>) -> SIMD4<UInt8> {
  let shifted = clamp(v, .zero, maximum) + SIMD4<Float>(repeating: 8_388_608)
  return SIMD4<UInt8>(truncatingIfNeeded: unsafeBitCast(shifted, to: SIMD4<UInt32>.self))
}

/// `straight` with a black fallback for eight pixels, given their alpha clamped to 0...1: over
/// `background` (premultiplied), or with alpha kept the colour over its alpha, clamped, and
/// black where the alpha is at most 1/4096 (`FrameConverter.straight`, lane for lane).
@_transparent func straightOrBlack8(
  _ r: Lanes, _ g: Lanes, _ b: Lanes, clampedAlpha pa: Lanes, keepsAlpha: Bool, background: Pixel
) -> (Lanes, Lanes, Lanes) {
  let zero = Lanes(repeating: 0), one = Lanes(repeating: 1)
  guard keepsAlpha else {
    let keep = one - pa
    let (bgR, bgG, bgB) = (
      Lanes(repeating: background.x), Lanes(repeating: background.y), Lanes(repeating: background.z)
    )
    return (
      clamp8(r, zero, one) + bgR * keep, clamp8(g, zero, one) + bgG * keep, clamp8(b, zero, one) + bgB * keep
    )
  }
  let faint = Lanes(repeating: 1.0 / 4096)
  return (
    chints_where_at_most8(pa, faint, zero, clamp8(clamp8(r, zero, one) / pa, zero, one)),
    chints_where_at_most8(pa, faint, zero, clamp8(clamp8(g, zero, one) / pa, zero, one)),
    chints_where_at_most8(pa, faint, zero, clamp8(clamp8(b, zero, one) / pa, zero, one))
  )
}

/// `FrameConverter.alphaCodes` for eight lanes of alpha clamped to 0...1, as codes offset by 2^23
/// (their low bits are the code: `chints_store_low_bytes8`, `chints_store_low_halves8`).
@_transparent func alphaCodes8(clampedAlpha pa: Lanes, noise: Lanes, offset: Float, range: Float) -> Lanes {
  let zero = Lanes(repeating: 0), magic = Lanes(repeating: 8_388_608)
  let top = offset + range
  let scaled = pa * Lanes(repeating: range)
  let codes =
    clamp8(
      clamp8(scaled + Lanes(repeating: offset) + noise, Lanes(repeating: offset + 1), Lanes(repeating: top - 1)),
      zero, Lanes(repeating: top)) + magic
  let clear = chints_where_at_most8(scaled, Lanes(repeating: 0.5), Lanes(repeating: offset) + magic, codes)
  return chints_where_at_most8(Lanes(repeating: range - 0.5), scaled, Lanes(repeating: top) + magic, clear)
}

/// Eight dither entries of a row from column `x` (a multiple of 8) on: `row` holds 64 entries from
/// column 0 (luma's), or 72 from column 0 on of an offset row, which do not wrap.
@_transparent func ditherRow(_ row: UnsafePointer<Float>, _ x: Int) -> Lanes {
  UnsafeRawPointer(row + (x & 63)).loadUnaligned(as: Lanes.self)
}

/// Eight pixels, one channel a vector (`chints_load_pixels8`'s shuffles).
@_transparent func pixels8(_ pixels: UnsafeMutablePointer<Pixel>) -> (Lanes, Lanes, Lanes, Lanes) {
  let zero = Lanes(repeating: 0)
  var v = (zero, zero, zero, zero)
  withUnsafeMutableBytes(of: &v) {
    chints_load_pixels8(
      UnsafeRawPointer(pixels).assumingMemoryBound(to: Float.self), $0.baseAddress!.assumingMemoryBound(to: Float.self))
  }
  return v
}

/// Eight pixels' straight colour over `background`, one channel a vector: `straight` for opaque output.
///
/// `@_transparent` rather than `@inline(__always)`: with the latter the optimizer still called
/// this and `lumaCodes8` out of line, passing their eight-lane tuples through memory, which made
/// the whole conversion take 8.5 ms a 1080x1920 frame instead of 4.7.
@_transparent func straight8(
  _ pixels: UnsafeMutablePointer<Pixel>, background: (Lanes, Lanes, Lanes)
) -> (Lanes, Lanes, Lanes) {
  let zero = Lanes(repeating: 0), one = Lanes(repeating: 1)
  let (r, g, b, a) = pixels8(pixels)
  let keep = one - clamp8(a, zero, one)
  let outR = clamp8(r, zero, one) + background.0 * keep
  let outG = clamp8(g, zero, one) + background.1 * keep
  let outB = clamp8(b, zero, one) + background.2 * keep
  return (outR, outG, outB)
}

/// Eight 8-bit luma codes of straight colours, dithered by `noise`.
@_transparent func lumaCodes8(
  _ r: Lanes, _ g: Lanes, _ b: Lanes, noise: Lanes, weights: (Lanes, Lanes, Lanes), maximum: Lanes
) -> LaneBytes {
  var l = r * weights.0
  l += g * weights.1
  l += b * weights.2
  l += Lanes(repeating: 16)
  return byteCodes8(l + noise, maximum: maximum)
}
