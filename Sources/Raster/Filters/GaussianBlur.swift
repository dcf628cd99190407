import Foundation

/// A Gaussian blur whose standard deviation is the SwiftUI blur radius (docs/SWIFTUI-SEMANTICS.md,
/// The graphics context), transparent outside the pixels it is given.
///
/// Up to `directLimit` pixels of sigma it is exact: a separable kernel to 3 sigma, renormalised.
/// Above, it blurs a copy shrunk by 2^k with nested 2x2 box averages until sigma is between 4 and
/// 8 shrunk pixels, with the shrinking's and the bilinear re-enlarging's own variance taken out of
/// the small blur's sigma (variances add), so the whole keeps the requested sigma. Against an exact
/// Gaussian the error on shapes (edges, bars) stays below 1% of full scale; a one-pixel line, the
/// worst case, stays within 6% of its blurred peak (BlurTests pins both).
public final class GaussianBlur: @unchecked Sendable {
  static let directLimit: Float = 4

  private let small = Scratch<Pixel>()
  private let scratch = Scratch<Pixel>()
  private let weights = Scratch<Float>()
  private let columnRuns = Scratch<ColumnRun>()
  private let columnWeight = Scratch<Pixel>()
  private let line = Scratch<Pixel>()
  private let alphaRows = Scratch<Float>()
  private let alphaLine = Scratch<Float>()
  private let alphaColumn = Scratch<Float>()

  public init() {}

  /// Blurs `width x height` pixels at `pixels`, rows one after another, in place.
  ///
  /// With `rows` (band rendering), only those rows are blurred, each to the bits the whole blur
  /// gives it: the rows within `rowReach(sigma:)` of them (inside the image) must hold their
  /// pixels, and row `y` is at `pixels + y * width` even when the rows before are not stored.
  /// Only a blur that does not `stream` takes rows.
  public func apply(
    sigma: Float, to pixels: UnsafeMutablePointer<Pixel>, width: Int, height: Int, rows: Range<Int>? = nil
  ) {
    // Below a millionth of a pixel 2σ² underflows to 0 and the kernel would be NaN: no blur.
    guard sigma >= 1e-6, sigma.isFinite, width > 0, height > 0 else { return }
    let sigma = min(sigma, 4096)  // beyond it a blur of any image is its mean colour; 1e30 would overflow sizes
    if sigma <= GaussianBlur.directLimit {
      blurDirect(pixels, width: width, height: height, sigma: sigma, rows: rows ?? 0..<height)
      return
    }
    precondition(rows == nil, "a blur of sigma \(sigma) blurs whole images")
    shrunkBlur(
      sigma: sigma, pixels, width: width, height: height, content: nil, rows: 0..<height, columns: 0..<width, blend: nil
    )
  }

  /// Whether `stream` can take a blur of `sigma`: only the shrunk blur makes its rows one at a time.
  static func streams(sigma: Float) -> Bool { sigma > directLimit && sigma.isFinite }

  /// How many rows above and below a blurred row the blur of `sigma` (a total pixel sigma, as
  /// `GraphicsContext.pixelSigma` makes it) reads, at most (band rendering: the margin a band's
  /// layer is drawn with). The direct kernel's radius; for a shrunk blur, the small blur's radius
  /// plus the two small rows the bilinear enlarging mixes, in whole shrunk blocks, wherever the
  /// blocks start: a band drawn with this margin gives its rows the whole blur's bits.
  static func rowReach(sigma: Float) -> Int {
    guard sigma >= 1e-6, sigma.isFinite else { return 0 }
    if sigma <= directLimit { return max(1, Int((3 * sigma).rounded(.up))) }
    let factor = shrinkFactor(sigma: sigma)
    return (max(1, Int((3 * smallSigma(sigma: sigma)).rounded(.up))) + 2) * factor
  }

  /// The sigma of a shrunk blur's small blur, in shrunk pixels: the shrinking's and the
  /// enlarging's own variance taken out.
  static func smallSigma(sigma: Float) -> Float {
    let f = Float(shrinkFactor(sigma: sigma))
    // Variance of a box of `factor` pixels, and of the bilinear tent that re-enlarges.
    let boxVariance = (f * f - 1) / 12
    let tentVariance = f * f / 6
    return max(sigma * sigma - boxVariance - tentVariance, 0.25).squareRoot() / f
  }

  /// The blur of `pixels` as `apply` makes it, blended a row at a time as `blend` says instead of
  /// written back: rows `rows`, columns `columns`. Only `content` of the pixels may be other than
  /// clear; they are left as they were. Sigma must be one that `streams`.
  ///
  /// A caller that blends the blur onto something else saves writing the whole blurred layer and
  /// reading it back (clouds: about a fifth of a weather frame in `make bench`), and rows or
  /// columns it does not need (margins off the canvas) are never made.
  func stream(
    sigma: Float, _ pixels: UnsafeMutablePointer<Pixel>, width: Int, height: Int, content: IntRect,
    rows: Range<Int>, columns: Range<Int>, onto blend: RowBlend
  ) {
    precondition(GaussianBlur.streams(sigma: sigma), "a blur of sigma \(sigma) is not streamed")
    guard width > 0, height > 0, !rows.isEmpty, !columns.isEmpty else { return }
    shrunkBlur(
      sigma: sigma, pixels, width: width, height: height, content: content, rows: rows, columns: columns, blend: blend)
  }

  /// The factor a blur of `sigma` (one that `streams`) shrinks its pixels by: a power of two, at
  /// least 2, that leaves between 4 and 8 shrunk pixels of sigma from a sigma of 8 up.
  static func shrinkFactor(sigma: Float) -> Int { 1 << max(1, Int(log2(sigma / 4))) }

  /// `stream` for pixels drawn already shrunk by `drawnFactor`, a power of two that divides
  /// `shrinkFactor(sigma:)`: `pixels` holds `dw x dh` of them, each the mean of a square block of
  /// the `width`-wide full-size pixels, as `shrink` would make them (exact-area coverage at
  /// 1/drawnFactor the scale is that mean), and only `content` of them may be other than clear.
  /// A caller that draws at the smaller scale never draws the full-size pixels. `pixels` may be
  /// changed (blurred in place when `drawnFactor` is the whole shrink).
  /// With `tint`, every pixel is that color times its alpha (a solid fill's coverage drawn in
  /// white): only the alpha is blurred (`blurTinted`).
  func streamShrunk(
    sigma: Float, _ pixels: UnsafeMutablePointer<Pixel>, _ dw: Int, _ dh: Int, drawnFactor: Int, content: IntRect,
    tint: Pixel? = nil, width: Int, rows: Range<Int>, columns: Range<Int>, onto blend: RowBlend
  ) {
    precondition(GaussianBlur.streams(sigma: sigma), "a blur of sigma \(sigma) is not streamed")
    let factor = GaussianBlur.shrinkFactor(sigma: sigma)
    precondition(drawnFactor >= 1 && factor % drawnFactor == 0, "drawn at 1/\(drawnFactor), not a divisor of \(factor)")
    guard dw > 0, dh > 0, width > 0, !rows.isEmpty, !columns.isEmpty else { return }
    let rest = factor / drawnFactor
    // Nested ceilings of powers of two: the same small size as shrinking the full-size pixels.
    let sw = (dw + rest - 1) / rest, sh = (dh + rest - 1) / rest
    var shrunk = pixels
    if rest > 1 {
      shrunk = small.reserve(sw * sh)
      let area = content.intersection(IntRect(x: 0, y: 0, width: dw, height: dh))
      shrink(pixels, width: dw, area: area, factor: rest, into: shrunk, sw, sh)
    }
    blurShrunk(
      sigma: sigma, shrunk, sw, sh, tint: tint, into: shrunk, width: width, rows: rows, columns: columns, blend: blend)
  }

  /// The blurred shadow of `pixels`: `tint` times their alpha, blurred by `sigma` (one that
  /// streams), as `stream` would make it of a `region`-sized image holding that tinted alpha,
  /// without the tinted pixels ever being made at full size: `pixels` are shrunk as they are and
  /// the small pixels' alpha tinted (tinting is linear in alpha).
  ///
  /// `pixels` are `stride` wide and only `content` of them (inside `region`) may be other than
  /// clear. `region`, in the same coordinates, is the image blurred, with room around the content
  /// for the blur to spread (it may reach past `pixels`); its rows `rows` and columns `columns`,
  /// counted from the region's corner, are blended as `blend` says.
  func streamShadow(
    sigma: Float, _ pixels: UnsafeMutablePointer<Pixel>, stride: Int, content: IntRect, region: IntRect, tint: Pixel,
    rows: Range<Int>, columns: Range<Int>, onto blend: RowBlend
  ) {
    precondition(GaussianBlur.streams(sigma: sigma), "a blur of sigma \(sigma) is not streamed")
    precondition(content.isEmpty || content.intersection(region) == content, "content outside the region")
    guard !region.isEmpty, !rows.isEmpty, !columns.isEmpty else { return }
    let factor = GaussianBlur.shrinkFactor(sigma: sigma)
    let sw = (region.width + factor - 1) / factor, sh = (region.height + factor - 1) / factor
    let shrunk = small.reserve(sw * sh)
    shrink(pixels, width: stride, area: content, factor: factor, into: shrunk, sw, sh, origin: (region.x, region.y))
    blurShrunk(
      sigma: sigma, shrunk, sw, sh, tint: tint, into: shrunk, width: region.width, rows: rows, columns: columns,
      blend: blend)
  }

  /// `streamShadow`'s first half: the tinted alpha shrunk and blurred whole, into `out`, for
  /// `enlargeBlurred` (with the region's width) to make any rows of. Returns the small size.
  func shadowShrinkAndBlur(
    sigma: Float, _ pixels: UnsafeMutablePointer<Pixel>, stride: Int, content: IntRect, region: IntRect, tint: Pixel,
    into out: Scratch<Pixel>
  ) -> (sw: Int, sh: Int) {
    precondition(GaussianBlur.streams(sigma: sigma), "a blur of sigma \(sigma) is not streamed")
    precondition(content.isEmpty || content.intersection(region) == content, "content outside the region")
    let factor = GaussianBlur.shrinkFactor(sigma: sigma)
    let sw = (region.width + factor - 1) / factor, sh = (region.height + factor - 1) / factor
    let shrunk = out.reserve(max(sw * sh, 1))
    shrink(pixels, width: stride, area: content, factor: factor, into: shrunk, sw, sh, origin: (region.x, region.y))
    blurTinted(shrunk, width: sw, height: sh, sigma: GaussianBlur.smallSigma(sigma: sigma), rows: 0..<sh, tint: tint)
    return (sw, sh)
  }

  private func shrunkBlur(
    sigma: Float, _ pixels: UnsafeMutablePointer<Pixel>, width: Int, height: Int, content: IntRect?,
    rows: Range<Int>, columns: Range<Int>, blend: RowBlend?
  ) {
    let factor = GaussianBlur.shrinkFactor(sigma: sigma)
    let sw = (width + factor - 1) / factor, sh = (height + factor - 1) / factor
    let shrunk = small.reserve(sw * sh)
    let area =
      content?.intersection(IntRect(x: 0, y: 0, width: width, height: height))
      ?? IntRect(x: 0, y: 0, width: width, height: height)
    shrink(pixels, width: width, area: area, factor: factor, into: shrunk, sw, sh)
    blurShrunk(sigma: sigma, shrunk, sw, sh, into: pixels, width: width, rows: rows, columns: columns, blend: blend)
  }

  /// The small blur and the re-enlarging, written to `pixels` or blended as `blend` says; with
  /// `tint`, of the small pixels' alpha, tinted (`blurTinted`).
  private func blurShrunk(
    sigma: Float, _ shrunk: UnsafeMutablePointer<Pixel>, _ sw: Int, _ sh: Int, tint: Pixel? = nil,
    into pixels: UnsafeMutablePointer<Pixel>, width: Int, rows: Range<Int>, columns: Range<Int>, blend: RowBlend?
  ) {
    let factor = GaussianBlur.shrinkFactor(sigma: sigma)
    // Only the small rows the enlarging of `rows` mixes are blurred (a band's): each to the
    // whole small blur's bits.
    blurSmall(
      shrunk, width: sw, height: sh, sigma: GaussianBlur.smallSigma(sigma: sigma),
      rows: GaussianBlur.smallRows(rows, factor: factor, sh: sh), tint: tint)
    enlarge(shrunk, sw, sh, factor: factor, into: pixels, width: width, rows: rows, columns: columns, blend: blend)
  }

  /// The small blur of shrunk pixels: of their alpha alone, tinted, when they are all `tint`
  /// times their alpha (`blurTinted`), else of every channel (`blurDirect`).
  private func blurSmall(
    _ shrunk: UnsafeMutablePointer<Pixel>, width: Int, height: Int, sigma: Float, rows: Range<Int>, tint: Pixel?
  ) {
    if let tint {
      blurTinted(shrunk, width: width, height: height, sigma: sigma, rows: rows, tint: tint)
    } else {
      blurDirect(shrunk, width: width, height: height, sigma: sigma, rows: rows)
    }
  }

  /// The small rows the enlarging of `rows` mixes (`enlarge`), of `sh`.
  static func smallRows(_ rows: Range<Int>, factor: Int, sh: Int) -> Range<Int> {
    guard !rows.isEmpty else { return 0..<0 }
    let inv = 1 / Float(factor)
    func below(_ y: Int) -> Int { Int(((Float(y) + 0.5) * inv - 0.5).rounded(.down)) }
    let lo = min(max(below(rows.lowerBound), 0), sh), hi = max(min(below(rows.upperBound - 1) + 2, sh), lo)
    return lo..<hi
  }

  /// A drawn-small image shrunk the rest of the way and blurred whole (`streamShrunk`'s first
  /// half), into `out`, for `enlargeBlurred` to make any rows of: band rendering keeps it for a
  /// frame's bands. Returns the small size.
  func shrinkAndBlur(
    sigma: Float, _ pixels: UnsafeMutablePointer<Pixel>, _ dw: Int, _ dh: Int, drawnFactor: Int, content: IntRect,
    tint: Pixel? = nil, into out: Scratch<Pixel>
  ) -> (sw: Int, sh: Int) {
    precondition(GaussianBlur.streams(sigma: sigma), "a blur of sigma \(sigma) is not streamed")
    let factor = GaussianBlur.shrinkFactor(sigma: sigma)
    precondition(drawnFactor >= 1 && factor % drawnFactor == 0, "drawn at 1/\(drawnFactor), not a divisor of \(factor)")
    let rest = factor / drawnFactor
    let sw = (dw + rest - 1) / rest, sh = (dh + rest - 1) / rest
    let shrunk = out.reserve(max(sw * sh, 1))
    let area = content.intersection(IntRect(x: 0, y: 0, width: dw, height: dh))
    // A factor of one copies (each sum is one pixel, scaled by 1).
    shrink(pixels, width: dw, area: area, factor: rest, into: shrunk, sw, sh)
    blurSmall(shrunk, width: sw, height: sh, sigma: GaussianBlur.smallSigma(sigma: sigma), rows: 0..<sh, tint: tint)
    return (sw, sh)
  }

  /// `streamShrunk`'s second half: rows `rows` of the blur whose small pixels `shrinkAndBlur`
  /// made, each row blended as `blend` says as it is made, never written out (`RowBlend`), then
  /// `rowDone(y)` called with the row's index, in order: a caller that blends onto a row of its
  /// own carries it on from there (a shadowed layer's rows, `GraphicsContext.drawBand(shadow:)`).
  func enlargeBlurred(
    sigma: Float, _ shrunk: UnsafeMutablePointer<Pixel>, _ sw: Int, _ sh: Int, width: Int, rows: Range<Int>,
    columns: Range<Int>, onto blend: RowBlend, rowDone: ((Int) -> Void)? = nil
  ) {
    guard sw > 0, sh > 0, width > 0, !rows.isEmpty, !columns.isEmpty else { return }
    enlarge(
      shrunk, sw, sh, factor: GaussianBlur.shrinkFactor(sigma: sigma), into: shrunk, width: width, rows: rows,
      columns: columns, blend: blend, rowDone: rowDone)
  }

  /// Each small pixel is the mean of its `factor x factor` block; missing pixels count as clear.
  /// Pixels outside `area` are clear and are not read.
  /// Blocks are counted from `origin` (in `src`'s coordinates, at or before `area`'s corner), the
  /// corner of the image being shrunk, which may reach past `src`.
  private func shrink(
    _ src: UnsafeMutablePointer<Pixel>, width: Int, area: IntRect, factor: Int,
    into dst: UnsafeMutablePointer<Pixel>, _ sw: Int, _ sh: Int, origin: (x: Int, y: Int) = (0, 0)
  ) {
    dst.update(repeating: .zero, count: sw * sh)
    if factor == 1 {
      // Each block is one pixel: its sum, as the loop below makes it (`0 + pixel`, which only
      // turns -0 into 0), without a division a pixel or a scaling pass (a fill drawn at the
      // blur's whole shrink, `GraphicsContext.drawShrunk`).
      guard !area.isEmpty else { return }
      for y in area.y..<area.maxY {
        let row = src + y * width, out = dst + (y - origin.y) * sw - origin.x
        for x in area.x..<area.maxX { out[x] = Pixel.zero + row[x] }
      }
      return
    }
    for y in area.y..<area.maxY {
      let row = src + y * width
      let out = dst + ((y - origin.y) / factor) * sw
      // Starting at area.x instead of a block's start leaves out only clear pixels: the sums are the same.
      var x = area.x
      while x < area.maxX {
        let block = (x - origin.x) / factor
        let end = min(origin.x + (block + 1) * factor, area.maxX)
        var sum = Pixel.zero
        for i in x..<end { sum += row[i] }
        out[block] += sum
        x = end
      }
    }
    let scale = Pixel(repeating: 1 / Float(factor * factor))
    for i in 0..<(sw * sh) { dst[i] *= scale }
  }

  /// Bilinear sampling of the small image at each pixel's center; the small image is clear
  /// outside its pixels.
  ///
  /// Bilinear is separable: each output row first mixes its two small rows into `line` (a small
  /// row with a clear pixel at either end), then each pixel mixes two neighbours of `line`. That
  /// is the same weighted sum as four samples a pixel, without the bounds checks in the loop.
  ///
  /// The columns that mix the same two neighbours are a run (`ColumnRun`, `factor` pixels long
  /// but at the ends): a run's left value and step are taken once a row, and its pixels made two
  /// at a time as eight lanes, each pixel's weight read from a table of weights repeated four
  /// times. Each pixel is `left + (right - left) * weight`, the same operations as one pixel at a
  /// time, so the same bits.
  ///
  /// With `blend`, each run's pixels are blended onto the row `blend` gives as they are made,
  /// two a vector (`blendRuns`); without, written to `dst` (`apply`, in place).
  private func enlarge(
    _ src: UnsafeMutablePointer<Pixel>, _ sw: Int, _ sh: Int, factor: Int,
    into dst: UnsafeMutablePointer<Pixel>, width: Int, rows: Range<Int>, columns: Range<Int>, blend: RowBlend?,
    rowDone: ((Int) -> Void)? = nil
  ) {
    let inv = 1 / Float(factor)
    let columnWeight = self.columnWeight.reserve(width)
    let runs = self.columnRuns.reserve(columns.count)
    let line = self.line.reserve(sw + 2)
    // Column weights repeat for every row: compute them once. u >= -0.5 + 0.5 / factor, so the
    // left index is at least -1; u <= sw - 0.5, so the right one is at most sw.
    var runCount = 0
    for x in columns {
      let u = (Float(x) + 0.5) * inv - 0.5
      let fl = u.rounded(.down)
      let index = Int(fl) + 1  // into `line`, whose entry 0 stands for small column -1
      columnWeight[x] = Pixel(repeating: u - fl)
      if runCount > 0 && runs[runCount - 1].index == index {
        runs[runCount - 1].end = x + 1
      } else {
        runs[runCount] = ColumnRun(index: index, start: x, end: x + 1)
        runCount += 1
      }
    }
    line[0] = .zero
    line[sw + 1] = .zero
    for y in rows {
      let v = (Float(y) + 0.5) * inv - 0.5
      let fl = v.rounded(.down)
      let j = Int(fl)
      let fy = Pixel(repeating: v - fl)
      let r0 = j >= 0 && j < sh ? src + j * sw : nil
      let r1 = j + 1 >= 0 && j + 1 < sh ? src + (j + 1) * sw : nil
      switch (r0, r1) {
      case let (a?, b?):
        for i in 0..<sw { line[i + 1] = a[i] + (b[i] - a[i]) * fy }
      case let (a?, nil):
        let keep = 1 - fy
        for i in 0..<sw { line[i + 1] = a[i] * keep }
      case let (nil, b?):
        for i in 0..<sw { line[i + 1] = b[i] * fy }
      case (nil, nil):
        (line + 1).update(repeating: .zero, count: sw)
      }
      if let blend {
        // Column x of the blur lands at `row[x]`.
        let row = blend.row(y) - columns.lowerBound
        // Rows taken as clear (`RowBlend.ontoClear`) are only written: nothing to fetch.
        if !blend.ontoClear, let stride = blend.prefetchStride, y + 2 < rows.upperBound {
          prefetchForBlend(row + columns.lowerBound + 2 * stride, count: columns.count)
        }
        let mask = blend.mask.map { $0(y) - columns.lowerBound }
        @inline(__always) func blendRuns<K: BlendKernel>(_: K.Type) {
          self.blendRuns(K.self, runs, runCount, line, columnWeight, onto: row, mask: mask, opacity: blend.opacity)
        }
        switch (blend.mode, blend.ontoClear) {
        case (.sourceOver, false): blendRuns(SourceOverKernel.self)
        case (.screen, false): blendRuns(ScreenKernel.self)
        case (.sourceOver, true): blendRuns(OntoClearKernel<SourceOverKernel>.self)
        case (.screen, true): blendRuns(OntoClearKernel<ScreenKernel>.self)
        }
        rowDone?(y)
        continue
      }
      blendRuns(WriteKernel.self, runs, runCount, line, columnWeight, onto: dst + y * width, mask: nil, opacity: 1)
    }
  }

  /// The runs of one enlarged row blended onto `row` as they are made: each pixel
  /// `left + step * weight` as `enlarge` writes it, times the clip's `mask` if any, then the
  /// opacity, blended by `blendSpan`'s own loop (`blendPairs`), two pixels a vector.
  @inline(__always)
  private func blendRuns<K: BlendKernel>(
    _: K.Type, _ runs: UnsafeMutablePointer<ColumnRun>, _ runCount: Int, _ line: UnsafeMutablePointer<Pixel>,
    _ columnWeight: UnsafeMutablePointer<Pixel>, onto row: UnsafeMutablePointer<Pixel>, mask: UnsafePointer<Float>?,
    opacity: Float
  ) {
    let weights = UnsafeRawPointer(columnWeight)
    for r in 0..<runCount {
      let run = runs[r]
      // A run between two clear small pixels (a thin blurred ray's box is mostly that) is clear
      // throughout, and blending it would change nothing.
      let right = line[run.index + 1]
      if K.clearKeepsUnder && all(line[run.index] .== 0) && all(right .== 0) { continue }
      let left = line[run.index], step = right - left
      let left2 = Lanes(lowHalf: left, highHalf: left), step2 = Lanes(lowHalf: step, highHalf: step)
      blendPairs(
        K.self, run.start..<run.end, onto: row, mask: mask, opacity: opacity,
        pair: { x in left2 + step2 * weights.loadUnaligned(fromByteOffset: x &* 16, as: Lanes.self) },
        one: { x in left + step * columnWeight[x] })
    }
  }

  /// Columns of an enlarged row that mix the same two entries of the mixed small row (`enlarge`):
  /// `line[index]` and `line[index + 1]`, for pixels `start..<end`.
  private struct ColumnRun {
    var index: Int
    var start: Int
    var end: Int
  }

  /// The exact separable blur: a horizontal pass into scratch, a vertical pass back, of rows
  /// `rows` (the rows within the radius of them are read, and passed horizontally).
  private func blurDirect(
    _ pixels: UnsafeMutablePointer<Pixel>, width: Int, height: Int, sigma: Float, rows: Range<Int>
  ) {
    guard !rows.isEmpty else { return }
    let (radius, w) = kernel(sigma: sigma)
    // The rows the vertical pass reads; scratch holds them from its row 0.
    let read = max(rows.lowerBound - radius, 0)..<min(rows.upperBound + radius, height)
    let scratch = self.scratch.reserve(width * read.count) - read.lowerBound * width
    do {
      // Horizontal: pixels -> scratch. Each pixel's taps in the same order (its own, then left
      // and right at each distance), two pixels at a time as eight lanes, eight pixels an
      // iteration in four independent sums: the same operations lane by lane. The row is read
      // from a copy with `radius` clear pixels each side, so the taps past its ends add zero
      // where they were skipped (a sum plus zero is that sum), and every pixel takes this path.
      let padded = UnsafeMutablePointer<Pixel>.allocate(capacity: width + 2 * radius)
      defer { padded.deallocate() }
      padded.initialize(repeating: .zero, count: width + 2 * radius)
      for y in read {
        (padded + radius).update(from: pixels + y * width, count: width)
        horizontal(padded + radius, scratch + y * width, width: width, radius: radius, weights: w)
      }
      // Vertical: scratch -> pixels, a row at a time so memory is read in order; each output
      // row's sums held in registers, 32 floats at a time, over every tap, in the same order
      // as row by row (its own row, then up and down at each distance, where they exist).
      let floats = 4 * width
      for y in rows {
        let dst = UnsafeMutableRawPointer(pixels + y * width)
        let center = UnsafeRawPointer(scratch + y * width)
        // Taps k = 1...radius: up from `center` by k rows while y - k >= 0, down while y + k < height.
        let (ups, downs) = (min(radius, y), min(radius, height - 1 - y))
        let rowBytes = width * MemoryLayout<Pixel>.stride
        // Four sums of eight floats in flight: one alone waits on each add before the next.
        var f = 0
        while f &+ 32 <= floats {
          let o = f &* MemoryLayout<Float>.stride
          @inline(__always) func at(_ offset: Int) -> (Lanes, Lanes, Lanes, Lanes) {
            (
              center.loadUnaligned(fromByteOffset: offset, as: Lanes.self),
              center.loadUnaligned(fromByteOffset: offset &+ 32, as: Lanes.self),
              center.loadUnaligned(fromByteOffset: offset &+ 64, as: Lanes.self),
              center.loadUnaligned(fromByteOffset: offset &+ 96, as: Lanes.self)
            )
          }
          let w0 = Lanes(repeating: w[0])
          var (s0, s1, s2, s3) = at(o)
          (s0, s1, s2, s3) = (s0 * w0, s1 * w0, s2 * w0, s3 * w0)
          for k in 1...radius {
            let wk = Lanes(repeating: w[k])
            if k <= ups {
              let (a, b, c, d) = at(o &- k &* rowBytes)
              (s0, s1, s2, s3) = (s0 + a * wk, s1 + b * wk, s2 + c * wk, s3 + d * wk)
            }
            if k <= downs {
              let (a, b, c, d) = at(o &+ k &* rowBytes)
              (s0, s1, s2, s3) = (s0 + a * wk, s1 + b * wk, s2 + c * wk, s3 + d * wk)
            }
          }
          dst.storeBytes(of: s0, toByteOffset: o, as: Lanes.self)
          dst.storeBytes(of: s1, toByteOffset: o &+ 32, as: Lanes.self)
          dst.storeBytes(of: s2, toByteOffset: o &+ 64, as: Lanes.self)
          dst.storeBytes(of: s3, toByteOffset: o &+ 96, as: Lanes.self)
          f &+= 32
        }
        while f &+ 8 <= floats {
          let o = f &* MemoryLayout<Float>.stride
          var sum = center.loadUnaligned(fromByteOffset: o, as: Lanes.self) * Lanes(repeating: w[0])
          for k in 1...radius {
            let wk = Lanes(repeating: w[k])
            if k <= ups { sum += center.loadUnaligned(fromByteOffset: o &- k &* rowBytes, as: Lanes.self) * wk }
            if k <= downs { sum += center.loadUnaligned(fromByteOffset: o &+ k &* rowBytes, as: Lanes.self) * wk }
          }
          dst.storeBytes(of: sum, toByteOffset: o, as: Lanes.self)
          f &+= 8
        }
        if f < floats {  // an odd width's last pixel
          let x = f / 4
          var sum = center.load(fromByteOffset: 16 * x, as: Pixel.self) * Pixel(repeating: w[0])
          for k in 1...radius {
            let wk = Pixel(repeating: w[k])
            if k <= ups { sum += center.load(fromByteOffset: 16 * x - k * rowBytes, as: Pixel.self) * wk }
            if k <= downs { sum += center.load(fromByteOffset: 16 * x + k * rowBytes, as: Pixel.self) * wk }
          }
          dst.storeBytes(of: sum, toByteOffset: 16 * x, as: Pixel.self)
        }
      }
    }
  }

  /// The direct kernel of `sigma`: its radius (3 sigma, at least 1) and its weights from the
  /// center out, `radius + 1` of them, summing to 1 over both sides.
  private func kernel(sigma: Float) -> (radius: Int, weights: UnsafeMutablePointer<Float>) {
    let radius = max(1, Int((3 * sigma).rounded(.up)))
    let w = weights.reserve(radius + 1)
    var total: Float = 0
    for k in 0...radius {
      w[k] = exp(-Float(k * k) / (2 * sigma * sigma))
      total += k == 0 ? w[k] : 2 * w[k]
    }
    for k in 0...radius { w[k] /= total }  // the kernel to 3 sigma sums to 1
    return (radius, w)
  }

  /// `blurDirect` of pixels that are all `tint` times their alpha (a solid color's coverage, a
  /// shadow's tinted alpha): only the alpha is blurred, eight pixels a vector instead of two, and
  /// each blurred alpha tinted as it is written back to rows `rows` (the alpha is read from every
  /// pixel the blur of those rows reaches, as `blurDirect` reads them). The same sums as
  /// `blurDirect`'s alpha channel, in the same order; the color channels differ from blurring
  /// them by float rounding only (tinting is linear: `ShrunkDrawingTests`, `ShadowTests`).
  func blurTinted(
    _ pixels: UnsafeMutablePointer<Pixel>, width: Int, height: Int, sigma: Float, rows: Range<Int>, tint: Pixel
  ) {
    guard !rows.isEmpty, width > 0 else { return }
    let (radius, w) = kernel(sigma: sigma)
    let read = max(rows.lowerBound - radius, 0)..<min(rows.upperBound + radius, height)
    // Rows of the horizontal pass, `stride` floats each (whole vectors), from `read`'s first.
    let stride = (width + 7) & ~7
    let blurred = alphaRows.reserve(stride * read.count) - read.lowerBound * stride
    // One row's alpha with `radius` zeros before it and after its whole vectors: taps past its
    // ends add zero, as `blurDirect`'s padded row does.
    let padded = alphaLine.reserve(stride + 2 * radius)
    padded.update(repeating: 0, count: stride + 2 * radius)
    let line = UnsafeRawPointer(padded)
    for y in read {
      let row = pixels + y * width
      for x in 0..<width { padded[radius + x] = row[x].w }
      let out = UnsafeMutableRawPointer(blurred + y * stride)
      var x = 0
      while x < stride {
        @inline(__always) func at(_ i: Int) -> Lanes {
          line.loadUnaligned(fromByteOffset: 4 &* (radius &+ i), as: Lanes.self)
        }
        var sum = at(x) * Lanes(repeating: w[0])
        for k in 1...radius {
          let wk = Lanes(repeating: w[k])
          sum += at(x &- k) * wk
          sum += at(x &+ k) * wk
        }
        out.storeBytes(of: sum, toByteOffset: 4 &* x, as: Lanes.self)
        x &+= 8
      }
    }
    let column = alphaColumn.reserve(stride)
    for y in rows {
      let center = UnsafeRawPointer(blurred + y * stride)
      let (ups, downs) = (min(radius, y), min(radius, height - 1 - y))
      let rowBytes = 4 * stride
      var f = 0
      while f < stride {
        let o = 4 &* f
        var sum = center.loadUnaligned(fromByteOffset: o, as: Lanes.self) * Lanes(repeating: w[0])
        for k in 1...radius {
          let wk = Lanes(repeating: w[k])
          if k <= ups { sum += center.loadUnaligned(fromByteOffset: o &- k &* rowBytes, as: Lanes.self) * wk }
          if k <= downs { sum += center.loadUnaligned(fromByteOffset: o &+ k &* rowBytes, as: Lanes.self) * wk }
        }
        UnsafeMutableRawPointer(column).storeBytes(of: sum, toByteOffset: o, as: Lanes.self)
        f &+= 8
      }
      let row = pixels + y * width
      for x in 0..<width { row[x] = tint * column[x] }
    }
  }

  /// The horizontal pass over a row of `width` pixels whose `radius` neighbours each side are
  /// readable: eight pixels an iteration in four sums of two pixels a vector, then two, then one.
  @inline(__always)
  private func horizontal(
    _ src: UnsafeMutablePointer<Pixel>, _ dst: UnsafeMutablePointer<Pixel>, width: Int, radius: Int,
    weights w: UnsafeMutablePointer<Float>
  ) {
    let s = UnsafeRawPointer(src), d = UnsafeMutableRawPointer(dst)
    @inline(__always) func pair(_ x: Int) -> Lanes { s.loadUnaligned(fromByteOffset: 16 * x, as: Lanes.self) }
    var x = 0
    while x &+ 8 <= width {
      let w0 = Lanes(repeating: w[0])
      var (a, b, c, e) = (pair(x) * w0, pair(x &+ 2) * w0, pair(x &+ 4) * w0, pair(x &+ 6) * w0)
      for k in 1...radius {
        let wk = Lanes(repeating: w[k])
        (a, b, c, e) = (
          a + pair(x &- k) * wk, b + pair(x &+ 2 &- k) * wk, c + pair(x &+ 4 &- k) * wk, e + pair(x &+ 6 &- k) * wk
        )
        (a, b, c, e) = (
          a + pair(x &+ k) * wk, b + pair(x &+ 2 &+ k) * wk, c + pair(x &+ 4 &+ k) * wk, e + pair(x &+ 6 &+ k) * wk
        )
      }
      d.storeBytes(of: a, toByteOffset: 16 &* x, as: Lanes.self)
      d.storeBytes(of: b, toByteOffset: 16 &* (x &+ 2), as: Lanes.self)
      d.storeBytes(of: c, toByteOffset: 16 &* (x &+ 4), as: Lanes.self)
      d.storeBytes(of: e, toByteOffset: 16 &* (x &+ 6), as: Lanes.self)
      x &+= 8
    }
    while x &+ 2 <= width {
      let w0 = Lanes(repeating: w[0])
      var a = pair(x) * w0
      for k in 1...radius {
        let wk = Lanes(repeating: w[k])
        a += pair(x &- k) * wk
        a += pair(x &+ k) * wk
      }
      d.storeBytes(of: a, toByteOffset: 16 &* x, as: Lanes.self)
      x &+= 2
    }
    while x < width {
      var sum = src[x] * w[0]
      for k in 1...radius {
        let wk = Pixel(repeating: w[k])
        sum += src[x - k] * wk
        sum += src[x + k] * wk
      }
      dst[x] = sum
      x += 1
    }
  }
}

/// The enlarged pixels written as they are (`GaussianBlur.enlarge` without a blend): the old
/// pixel is not read.
private enum WriteKernel: BlendKernel {
  @inline(__always) static func blend(_ s: Pixel, _ d: Pixel) -> Pixel { s }
  @inline(__always) static func blend(pairs s: Lanes, _ d: Lanes) -> Lanes { s }
  static var clearKeepsUnder: Bool { false }
}
