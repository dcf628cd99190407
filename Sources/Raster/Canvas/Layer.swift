import Foundation

/// A rectangle of premultiplied pixels placed at `(x0, y0)` of the image it will be drawn into.
///
/// Layers come from a surface's pool and are reused frame after frame; their storage only grows.
///
/// A layer may hold only a band of its rows (`rows`, band rendering): its geometry (`width`,
/// `height`, `bounds`) is still the whole layer's, so everything drawn computes the same numbers
/// as over the whole layer, but only the band's rows are stored, read and written.
public final class Layer: @unchecked Sendable {
  public private(set) var x0 = 0, y0 = 0, width = 0, height = 0
  /// The first stored row's pixels: row `rows.lowerBound`. Rows of a pending gradient
  /// (`fillRows`) are written first.
  public var pixels: UnsafeMutablePointer<Pixel> {
    if rowsPending { settleNow() }
    return storage
  }
  private var storage: UnsafeMutablePointer<Pixel>
  /// The rows whose pixels are stored: all of them, or a band (in layer coordinates).
  public private(set) var rows = 0..<0
  private var capacity: Int
  private var dirtyRect = IntRect.empty
  /// The part that may hold non-transparent pixels, in layer coordinates (empty when clear),
  /// within the stored rows.
  var dirty: IntRect {
    get { dirtyRect }
    set { dirtyRect = isBand ? newValue.intersection(stored) : newValue }
  }
  /// Whether only a band of the rows is stored.
  var isBand: Bool { rows.count < height }
  /// The part of a layer placed at (0, 0) whose pixels are ever seen, nil for all of them: a
  /// layer composited through a clip, with no filter that reads around a pixel
  /// (`GraphicsContext.seenOfLayers`, for `drawInLayer` and `drawBlended`), shows nothing outside
  /// the clip's rect, so what is blended onto it lands only here (`blendRegion`). Set by `reset`.
  private(set) var visible: IntRect?
  /// The stored part, in layer coordinates.
  var stored: IntRect { IntRect(x: 0, y: rows.lowerBound, width: width, height: rows.count) }
  /// The one color every pixel counts as holding while the pixels themselves still hold an old
  /// frame, or nil when they are as drawn: clear (`.zero`) after `Surface.clear`, an opaque color
  /// after a first fill of it over the whole layer (a base color), so that the first drawing
  /// writes it instead of a pass of its own. Asking for a row (`row`) settles it; a fill over
  /// every pixel with opaque color replaces it, `fill(discs:)` writes it row by row under the
  /// discs, and the mesh fill (`MeshRaster.paint`) a few rows at a time under its triangles, or
  /// not at all under an opaque mesh that tiles the layer.
  ///
  /// Reading it settles pending samples and rows first (`pendingSamples`, `fillRows`: the
  /// pixels are then as drawn and no color is pending), as does setting it to nil; setting a
  /// color drops them (the color covers every pixel).
  var pendingFill: Pixel? {
    get {
      settleSamples()
      settleRows()
      return pendingColor
    }
    set {
      if newValue == nil {
        settleSamples()
        settleRows()
      } else {
        pendingSamples = nil
        rowsPending = false
      }
      pendingColor = newValue
    }
  }
  private var pendingColor: Pixel?
  /// On a layer over a wrapped image (a surface's canvas): the samples every stored row is to be
  /// interpolated from, when a mesh that tiles the layer was drawn from samples (`MeshSamples`)
  /// and nothing since, so that a converter may take them instead of the pixels
  /// (`Surface.sampledRows`). Settled like a pending color: asking for a row writes them.
  private(set) var pendingSamples: SampledRows?
  /// For a layer over a wrapped image (a surface's canvas): the stored pixels that may be other
  /// than clear, as offsets into the image (column, image row), nil when not known. A pending
  /// clear writes only these, since every write widens `dirty` and `retireDirty()` adds it here
  /// before a new band starts: a transparent effect's band (the voice orb's, the loader's) is
  /// not cleared whole, 2.2 MB at 1080 wide, to clear a small drawing.
  private var uncleared: IntRect?
  /// On a layer over a wrapped image: whether each stored row is one color (`rowColors`, one a
  /// row) that is written only where the row is first asked for (`row`), from a vertical
  /// gradient over every pixel (the weather's sky, `fillRows`). `rowWritten[i]` is the columns
  /// of stored row i written, whole chunks of eight (`PendingRow.chunks`). Rows nothing else
  /// draws on are never written, and a row a star crosses only around the star: a converter
  /// makes the samples of the rest from the color (`Surface.pendingRow`).
  private var rowsPending = false
  private let rowColors = Scratch<Pixel>()
  private let rowWritten = Scratch<Range<Int>>()

  /// Writes the pending color, samples or rows into the pixels if there are any.
  @inline(__always) func settle() {
    if pendingColor != nil || pendingSamples != nil || rowsPending { settleNow() }
  }

  /// Paints every pixel of each stored row `y` (layer rows) `color(y)`: on a layer over a wrapped
  /// image each row only when it is first asked for (`row`, or all of them by `settle`, `base`
  /// or `pixels`), on any other at once. Whatever the pixels held, and any pending color or
  /// samples, are replaced.
  func fillRows(_ color: (Int) -> Pixel) {
    pendingColor = nil
    pendingSamples = nil
    let n = rows.count
    let colors = rowColors.reserve(n), written = rowWritten.reserve(n)
    for i in 0..<n {
      colors[i] = color(rows.lowerBound + i)
      written[i] = 0..<0
    }
    rowsPending = n > 0
    if capacity >= 0 { settleRows() }
  }

  /// Stored row `y`'s color and written columns when it is pending from `fillRows` and not
  /// written whole, else nil.
  func pendingRow(_ y: Int) -> PendingRow? {
    guard rowsPending else { return nil }
    let i = y - rows.lowerBound
    let written = rowWritten.pointer[i]
    return written.count == width ? nil : PendingRow(color: rowColors.pointer[i], written: written)
  }

  /// Whether rows from `fillRows` are pending (some may be written).
  var hasPendingRows: Bool { rowsPending }

  /// Widens the written columns of both rows of every pair `2k, 2k + 1` (layer rows) to what
  /// either has, so that a 4:2:0 converter, which reads rows by pairs, finds the same columns
  /// written in both.
  func writeRowPartners() {
    guard rowsPending else { return }
    let written = rowWritten.pointer
    // Stored row i is layer row `rows.lowerBound + i`: a band starting on an odd row has its
    // first row without a partner here.
    var i = rows.lowerBound % 2
    while i + 1 < rows.count {
      let (a, b) = (written[i], written[i + 1])
      if a != b {
        let hull = a.isEmpty ? b : b.isEmpty ? a : min(a.lowerBound, b.lowerBound)..<max(a.upperBound, b.upperBound)
        write(row: i, columns: hull)
        write(row: i + 1, columns: hull)
      }
      i += 2
    }
  }

  /// Makes stored row `i`'s written columns take in `columns` (widened to whole chunks), writing
  /// its color into those not written yet. The written columns stay one range: the columns
  /// between the old ones and the new are written too.
  @inline(never) private func write(row i: Int, columns: Range<Int>) {
    let wanted = PendingRow.chunks(columns, width: width)
    guard !wanted.isEmpty else { return }
    let old = rowWritten.pointer[i]
    let new = old.isEmpty ? wanted : min(old.lowerBound, wanted.lowerBound)..<max(old.upperBound, wanted.upperBound)
    guard new != old else { return }
    rowWritten.pointer[i] = new
    let row = storage + i * width, color = rowColors.pointer[i]
    if old.isEmpty {
      ShadingProgram.fill(row + new.lowerBound, with: color, count: new.count)
    } else {
      ShadingProgram.fill(row + new.lowerBound, with: color, count: old.lowerBound - new.lowerBound)
      ShadingProgram.fill(row + old.upperBound, with: color, count: new.upperBound - old.upperBound)
    }
  }

  private func settleRows() {
    guard rowsPending else { return }
    rowsPending = false
    for i in 0..<rows.count { write(row: i, columns: 0..<width) }
  }

  /// Paints every stored row from `sampled`: on a layer over a wrapped image only when asked
  /// for (`pendingSamples`), on any other at once.
  func paint(_ sampled: SampledRows) {
    precondition(sampled.rows == rows && sampled.width == width, "samples of other rows")
    pendingColor = nil
    rowsPending = false
    if capacity < 0 {
      pendingSamples = sampled
    } else {
      pendingSamples = nil
      sampled.interpolate(into: storage)
    }
  }

  @inline(__always) private func settleSamples() {
    guard let sampled = pendingSamples else { return }
    pendingSamples = nil
    sampled.interpolate(into: storage)
  }

  @inline(never) private func settleNow() {
    if rowsPending {
      settleRows()
      return
    }
    if pendingSamples != nil {
      settleSamples()
      return
    }
    let color = pendingColor ?? .zero
    pendingColor = nil
    let (all, below) = (storedPixels, pixelsBelowBand)
    let clear = unsafeBitCast(color, to: SIMD4<UInt32>.self) == .zero  // +0, as `Surface.clear` notes it
    if capacity < 0, clear, let known = uncleared {
      let r = known.intersection(all)
      for y in r.y..<r.maxY { (storage + y * width + r.x).update(repeating: .zero, count: r.width) }
      uncleared = known.intersection(below)
      return
    }
    storage.update(repeating: color, count: width * rows.count)
    if capacity < 0 { uncleared = (clear ? .empty : all).union(below) }
  }

  /// For a caller about to write every pixel of `rect` (in layer coordinates, within the stored
  /// rows) as the first drawing on a canvas since its clear (`Surface.clear`, `drawBand`):
  /// whether every pixel the pending clear must write (`uncleared`) lies in `rect`, so that the
  /// caller's writes leave the layer as clearing it and blending onto it would. The clear is then
  /// done, without writing those pixels; false, with nothing changed, otherwise.
  func claimClear(within rect: IntRect) -> Bool {
    guard capacity < 0, !rowsPending, pendingSamples == nil, let color = pendingColor,
      unsafeBitCast(color, to: SIMD4<UInt32>.self) == .zero, let known = uncleared
    else { return false }
    let written = rect.offsetBy(0, -rows.lowerBound).intersection(storedPixels)
    let pending = known.intersection(storedPixels)
    guard pending.isEmpty || written.intersection(pending) == pending else { return false }
    pendingColor = nil
    uncleared = known.intersection(pixelsBelowBand)
    return true
  }

  /// The stored pixels, as offsets into the storage (column, stored row): what a clear writes.
  private var storedPixels: IntRect { IntRect(x: 0, y: 0, width: width, height: rows.count) }

  /// On a layer over a wrapped image, the image's rows below a shorter band (the frame's last),
  /// as offsets into it: written by the bands before it, not by this band's clear, so they stay
  /// to be cleared by the next band that stores them.
  private var pixelsBelowBand: IntRect {
    IntRect(x: 0, y: rows.count, width: width, height: max(-capacity - 1 - rows.count, 0))
  }

  /// Makes the next pending clear write every pixel (the image may have been written from
  /// outside: `Surface.clear`).
  func forgetUncleared() { uncleared = nil }

  /// Adds what was drawn since the last clear (`dirty`) to the pixels a pending clear writes
  /// (`uncleared`), before a new band starts over these pixels (`Surface.drawBand`).
  func retireDirty() {
    guard capacity < 0, !dirtyRect.isEmpty else { return }
    uncleared = uncleared?.union(dirtyRect.offsetBy(0, -rows.lowerBound))  // nil (not known) stays nil
  }

  init() {
    capacity = 1
    storage = Layer.allocateZeroed(1)
  }

  /// Zeroed pixels from `calloc`: large blocks come straight from the kernel as zero pages, which
  /// take no memory until drawn on, so a full-screen layer holding a band of clouds costs the
  /// band (peak memory in `make bench`).
  private static func allocateZeroed(_ count: Int) -> UnsafeMutablePointer<Pixel> {
    guard let raw = calloc(count, MemoryLayout<Pixel>.stride) else {
      fatalError("out of memory for a layer of \(count) pixels")
    }
    precondition(Int(bitPattern: raw) % MemoryLayout<Pixel>.alignment == 0, "calloc returned misaligned pixels")
    return raw.bindMemory(to: Pixel.self, capacity: count)
  }

  private static func free(_ pixels: UnsafeMutablePointer<Pixel>) {
    Foundation.free(pixels)
  }

  /// A layer over an existing image (the canvas itself); the image keeps the storage.
  init(wrapping image: Image) {
    capacity = -1  // not owned
    storage = image.pixels
    (width, height) = (image.width, image.height)
    rows = 0..<height
    dirty = IntRect(x: 0, y: 0, width: width, height: height)
  }

  /// A layer `height` rows tall over an image holding a band of them (band rendering): the
  /// image's rows are the layer's rows `0..<image.height` until `store(rows:)` moves them.
  init(wrapping image: Image, height: Int) {
    precondition(image.height <= height)
    capacity = -image.height - 1  // not owned; it holds -capacity - 1 rows
    storage = image.pixels
    (width, self.height) = (image.width, height)
    rows = 0..<image.height
    dirty = stored
  }

  /// Makes the wrapped image hold `rows` of the layer (at most as many as the image has): what
  /// it holds counts as an old frame, to be cleared (a pending clear, as `Surface.clear` makes).
  func store(rows band: Range<Int>) {
    precondition(capacity < 0 && band.count <= -capacity - 1 && band.lowerBound >= 0 && band.upperBound <= height)
    retireDirty()
    rows = band
    dirtyRect = .empty
    pendingFill = .zero
  }

  deinit { if capacity >= 0 { Layer.free(storage) } }

  /// Makes the layer a transparent rectangle of the given size and place, storing `band` of its
  /// rows (in layer coordinates; all of them when nil), of which `visible` is seen.
  func reset(x0: Int, y0: Int, width: Int, height: Int, band: Range<Int>? = nil, visible: IntRect? = nil) {
    precondition(capacity >= 0, "a wrapped image cannot be reset")
    precondition(width >= 0 && height >= 0)
    let kept = band.map { max($0.lowerBound, 0)..<max(min($0.upperBound, height), max($0.lowerBound, 0)) } ?? 0..<height
    let needed = max(width * kept.count, 1)
    if needed > capacity {
      Layer.free(storage)
      capacity = needed
      storage = Layer.allocateZeroed(needed)
    } else {
      // Pixels outside `dirty` are clear (every write widens it), so only what was drawn needs
      // clearing, in the old shape: a full-screen layer that held one small glow costs a small
      // clear, not 33 MB, and pages never drawn on are never touched.
      for y in dirty.y..<dirty.maxY {
        (storage + (y - rows.lowerBound) * self.width + dirty.x).update(repeating: .zero, count: dirty.width)
      }
    }
    (self.x0, self.y0, self.width, self.height) = (x0, y0, width, height)
    rows = kept
    dirtyRect = .empty
    self.visible = visible
  }

  /// The first pixel of row `y`, after any pending clear: whoever reads or writes rows sees the
  /// layer as drawn, with no call of their own to forget. Of pending rows (`fillRows`) only
  /// this one is written: a caller must not reach other rows from it.
  @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<Pixel> {
    row(y, columns: 0..<width)
  }

  /// `row(y)` for a caller that reads and writes only `columns` of it: of a pending row
  /// (`fillRows`) only those are written.
  @inline(__always) func row(_ y: Int, columns: Range<Int>) -> UnsafeMutablePointer<Pixel> {
    if pendingColor != nil || pendingSamples != nil { settleNow() }
    assert(rows.contains(y), "row \(y) outside the stored rows \(rows)")
    let i = y - rows.lowerBound
    if rowsPending {
      let written = rowWritten.pointer[i]
      if columns.lowerBound < written.lowerBound || columns.upperBound > written.upperBound {
        write(row: i, columns: columns)
      }
    }
    return storage + i * width
  }

  /// Where row 0 would start, so that row `y` of the stored rows is at `base + y * width`, for
  /// code that indexes rows from the layer's top (the blur); only stored rows may be read. After
  /// any pending clear.
  var base: UnsafeMutablePointer<Pixel> {
    settle()
    return storage - rows.lowerBound * width
  }

  /// `rows` clipped to the stored rows.
  @inline(__always) func storedRows(_ wanted: Range<Int>) -> Range<Int> {
    let lo = max(wanted.lowerBound, rows.lowerBound), hi = min(wanted.upperBound, rows.upperBound)
    return lo < hi ? lo..<hi : lo..<lo
  }

  var bounds: IntRect { IntRect(x: 0, y: 0, width: width, height: height) }
}

/// Coverage of a clip: 0...1 per pixel over `rect` of the target, 0 outside it. On a band of
/// the target only the band's rows of it are stored (`rows`).
///
/// A `solid` one is 1 over the whole of `rect` (a rectangle on whole pixels, the loader's
/// canvas): every row is one stored row of ones, and nothing is computed or cleared for it.
final class ClipMask: @unchecked Sendable {
  let rect: IntRect
  /// The rows of `rect` stored.
  let rows: Range<Int>
  let values: UnsafeMutablePointer<Float>
  let solid: Bool

  init(rect: IntRect, within band: Range<Int>? = nil, solid: Bool = false) {
    self.rect = rect
    self.solid = solid
    let all = rect.y..<rect.maxY
    rows = band.map { all.clamped(to: $0) } ?? all
    let count = max(rect.width * (solid ? 1 : rows.count), 1)
    values = .allocate(capacity: count)
    values.initialize(repeating: solid ? 1 : 0, count: count)
  }

  deinit { values.deallocate() }

  @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<Float> {
    assert(rows.contains(y), "clip row \(y) outside the stored rows \(rows)")
    return solid ? values : values + (y - rows.lowerBound) * rect.width
  }
}

/// A row of a layer that is one color throughout (`Layer.fillRows`), of which only `written`
/// columns hold it yet: the rest are to be taken as that color without being read.
public struct PendingRow: Equatable, Sendable {
  public let color: Pixel
  /// Whole chunks of eight columns (the row's end ends the last one), or none.
  public let written: Range<Int>

  /// `columns` widened to whole chunks of eight, within `0..<width`; empty when they are.
  static func chunks(_ columns: Range<Int>, width: Int) -> Range<Int> {
    let lo = max(columns.lowerBound, 0), hi = min(columns.upperBound, width)
    guard lo < hi else { return 0..<0 }
    return (lo / 8 * 8)..<min((hi + 7) / 8 * 8, width)
  }
}
