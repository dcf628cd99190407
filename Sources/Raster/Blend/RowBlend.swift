/// Where rows of pixels are blended, one row of a source at a time: row `y` of the source (a
/// layer's rows, a blur's region's rows) onto `row(y)`, which holds the source's first column
/// blended, with `mode` and `opacity`, each pixel first multiplied by `mask(y)` (a clip's
/// coverage, from the same column) when there is one. Over a whole frame (`prefetchStride`: its
/// row length) the row two below is fetched first; a band's rows are in cache, and asking for
/// them stalled the blurred fog's blends (a sixth of its drawing, measured).
///
/// A layer's rows are blended from its pixels (`blend(_:row:count:rowsEnd:)`, `blendLayer`); a
/// large blur's as `GaussianBlur.enlargeBlurred(…onto:)` and the streams make them, never
/// written out (`blendRuns`, the same bits as `blend` of the made row).
struct RowBlend {
  let row: (Int) -> UnsafeMutablePointer<Pixel>
  var mask: ((Int) -> UnsafePointer<Float>)? = nil
  let mode: BlendMode
  let opacity: Float
  let prefetchStride: Int?
  /// Whether the rows count as clear, whatever they hold: rows written whole that clearing would
  /// have made clear (a composite row of its own, a band's rows whose clear `Layer.claimClear`
  /// took). The pixels are blended onto clear ones (`OntoClearKernel`), the same bits as onto
  /// the cleared row, and the rows are never read or cleared.
  var ontoClear = false
}

extension RowBlend {
  /// Rows blended onto `dest` inside `clip` if any: row `y` of the source is frame row `y + top`,
  /// and its first column blended lands at column `at.x` of `dest`.
  init(onto dest: Layer, at: IntRect, top: Int, mode: BlendMode, opacity: Float, clip: ClipMask?) {
    self.init(
      row: { y in dest.row(y + top - dest.y0, columns: (at.x - dest.x0)..<(at.maxX - dest.x0)) + (at.x - dest.x0) },
      mask: clip.map { clip in { y in UnsafePointer(clip.row(y + top) + (at.x - clip.rect.x)) } },
      mode: mode, opacity: opacity, prefetchStride: dest.isBand ? nil : dest.width)
  }

  /// Blends `count` pixels of `source` onto row `y` (`blendSpan`, masked when there is a mask,
  /// as onto clear pixels with `ontoClear`), first fetching the row two below over a whole frame
  /// unless it is at or past `rowsEnd` or the rows are not read.
  @inline(__always)
  func blend(_ source: UnsafeMutablePointer<Pixel>, row y: Int, count: Int, rowsEnd: Int) {
    let out = row(y)
    if !ontoClear, let prefetchStride, y + 2 < rowsEnd { prefetchForBlend(out + 2 * prefetchStride, count: count) }
    blendSpan(mode, count: count, dest: out, source: source, mask: mask?(y), opacity: opacity, ontoClear: ontoClear)
  }
}
