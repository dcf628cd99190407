import Foundation

/// An opaque mesh that tiles its layer, painted from a grid of samples: its triangles are filled
/// at points `spacing` pixels apart, centered on the layer (the pixel centers of a layer an
/// eighth the size, whose triangles are the mesh's own divided by 8, exactly, and moved by the
/// same sixteenths), and every pixel is interpolated bilinearly from the four samples around it.
/// At 1080x1920 that fills 32,400 samples instead of 2 million pixels, and the pixels are
/// written by a loop with no triangle edges in it.
///
/// The triangles' colors are linear inside and bend only where two triangles meet, by the jump
/// in their color slopes (`bend`). Interpolation reproduces a linear color exactly; a bend of `b`
/// a sample, a fraction `c` of the way across a cell, costs `b c (1 - c)`, at most `b / 4` (the gap
/// between a bent line and its chord), a little more for the few pixels beyond the outer samples,
/// and more where narrow triangles put several bends in a cell. A mesh whose bend, counted over
/// again for narrow triangles, exceeds `largestBend` is filled at every pixel instead. Measured on
/// the aurora over its loop at 1080x1920 and 540x960: within 0.44 of an 8-bit code of its triangles
/// filled at every pixel, and within 0.47 of a mesh of 128 quads a side, where the triangles
/// filled at every pixel are within 0.28 (docs/PERFORMANCE.md, Mesh samples).
final class MeshSamples {
  /// Pixels between samples, each way: a power of two, so a mesh position divided by it is exact.
  static let spacing = 8
  /// The smallest layer side sampled: below it, filling every pixel costs little.
  static let smallestSide = 256
  /// The largest jump of a color slope between neighbouring triangles, per sample, that is
  /// sampled: 2 8-bit codes, counted over again where triangles are narrower than
  /// `wideTriangle` (`init`).
  static let largestBend: Float = 2.0 / 255
  /// Triangles at least this wide, in samples (their least height), put few bends in a cell;
  /// narrower ones put more, in proportion, and their bend counts that many times over.
  static let wideTriangle: Float = 0.5

  /// The layer's width in pixels.
  let width: Int
  /// The samples per row and per column.
  let columns: Int, rows: Int
  /// Where sample (0, 0) lies, in pixel coordinates: the samples are centered on the layer, so
  /// at most 3.5 pixels lie beyond the outer samples at either side (`placed`).
  let origin: Point
  /// The mesh's triangles over the grid of samples (a layer `columns` x `rows`).
  let triangles: MeshTriangles
  private let samples: UnsafeMutablePointer<Pixel>
  /// Where `samples` lives, and where it and the triangles' arrays go back to.
  private let store: Scratch<Pixel>
  private let storage: MeshStorage?
  /// Rows of samples filled together: a band of 128 rows needs 17 rows of samples.
  static let chunkRows = 8
  /// Which chunks of rows of samples are filled: a band fills those it needs.
  private var filled: [Bool]
  /// The triangles of each chunk (`MeshTriangles.chunks`), found at the first fill.
  private var chunks: (offsets: [Int], indices: [Int32])?
  /// One row of samples interpolated down (`interpolate`).
  private let line: UnsafeMutablePointer<Pixel>
  /// A crossfade's mixed samples (`mix`).
  let mixed = Scratch<Pixel>()

  /// The samples of an opaque mesh that tiles a `width` x `height` layer, from its vertex grid
  /// in layer pixels; nil when it does not tile the layer, bends more than `largestBend` allows,
  /// or the layer is smaller than `smallestSide`.
  ///
  /// Its large buffers (the triangles, the samples, the color planes: about 1.7 MB at
  /// 1080x1920) come from `storage` and go back to it when it is done, so a mesh a frame does not
  /// allocate them a frame: freed and allocated again, they were returned to the system and
  /// faulted back in every frame (21 page faults a frame), which cost a second render thread
  /// more than half again of its CPU a frame (docs/PERFORMANCE.md, Mesh samples).
  init?(
    positions: [Point], colors: [Pixel], columns gridColumns: Int, rows gridRows: Int, width: Int, height: Int,
    storage: MeshStorage? = nil
  ) {
    guard width >= Self.smallestSide, height >= Self.smallestSide, gridColumns > 1, gridRows > 1,
      MeshTriangles.tile(positions, columns: gridColumns, rows: gridRows, width: Float(width), height: Float(height))
    else { return nil }
    self.width = width
    let (across, left) = Self.placed(width), (down, top) = Self.placed(height)
    (columns, rows, origin) = (across, down, Point(left, top))
    // Sample (i, j) at pixel coordinates origin + spacing (i, j) is the center of pixel (i, j) of
    // the layer of samples: positions divided by the spacing (exactly), then moved by a
    // multiple of 1/16 the same way for every vertex, so shared vertices stay shared.
    let scale = 1 / Float(Self.spacing)
    let shift = Point(repeating: 0.5) - origin * scale
    let moved = positions.map { $0 * scale + shift }
    // The planes are needed only while the triangles are made: given back whatever happens.
    var planes = storage.take(\.planes)
    defer { storage?.planes.append(planes) }
    guard
      let (bend, narrowest) = Self.bend(moved, colors, columns: gridColumns, rows: gridRows, planes: &planes),
      bend * max(1, Self.wideTriangle / narrowest) <= Self.largestBend
    else { return nil }
    let triangles = MeshTriangles(
      moved, colors, columns: gridColumns, rows: gridRows, width: columns, height: rows, opaque: true, tiled: true,
      planes: planes, storage: storage)
    (self.triangles, self.storage) = (triangles, storage)
    store = storage?.samples.popLast() ?? Scratch<Pixel>()
    samples = store.reserve(columns * rows)
    samples.initialize(repeating: .zero, count: columns * rows)
    line = .allocate(capacity: columns)
    line.initialize(repeating: .zero, count: columns)
    filled = Array(repeating: false, count: (rows + Self.chunkRows - 1) / Self.chunkRows)
  }

  deinit {
    line.deallocate()
    // Given back for the next frame's mesh (`triangles` gives back its own arrays).
    storage?.samples.append(store)
  }

  /// The color planes of the grid's triangles into `planes` (empty), as `MeshTriangles` makes them
  /// ((a, b, c) and (a, c, d) of each quad), with positions in samples; returns the largest jump
  /// of a color slope (any color channel, across or down) between two that share an edge, and the
  /// least width of any of them; nil when a triangle is degenerate.
  static func bend(
    _ positions: [Point], _ colors: [Pixel], columns: Int, rows: Int, planes: inout [(gx: Pixel, gy: Pixel)]
  ) -> (bend: Float, narrowest: Float)? {
    let across = columns - 1
    planes.append(contentsOf: repeatElement((gx: Pixel.zero, gy: Pixel.zero), count: 2 * across * (rows - 1)))
    var largest: Float = 0  // squared, until the end
    var narrowest = Float.infinity
    @inline(__always) func jump(_ s: (gx: Pixel, gy: Pixel), _ t: (gx: Pixel, gy: Pixel)) {
      let dx = s.gx - t.gx, dy = s.gy - t.gy
      let d = dx * dx, e = dy * dy
      largest = max(largest, max(max(max(d.x, d.y), max(d.z, e.x)), max(e.y, e.z)))
    }
    for gy in 0..<rows - 1 {
      for gx in 0..<across {
        let a = gy * columns + gx, b = a + 1, c = a + columns + 1, d = a + columns
        let quad = 2 * (gy * across + gx)
        for (k, (p, q)) in [(b, c), (c, d)].enumerated() {
          guard
            let plane = MeshTriangles.plane(positions[a], colors[a], positions[p], colors[p], positions[q], colors[q])
          else { return nil }
          planes[quad + k] = plane
          narrowest = min(narrowest, width(positions[a], positions[p], positions[q]))
        }
        jump(planes[quad], planes[quad + 1])  // the diagonal a-c
        if gx > 0 { jump(planes[quad - 2], planes[quad + 1]) }  // the left edge a-d, the left quad's (a, b, c)
        if gy > 0 { jump(planes[quad - 2 * across + 1], planes[quad]) }  // the top edge a-b, the upper quad's (a, c, d)
      }
    }
    guard narrowest > 0 else { return nil }
    return (largest.squareRoot(), narrowest)
  }

  /// A triangle's least width: its least height, twice its area over its longest side.
  private static func width(_ a: Point, _ b: Point, _ c: Point) -> Float {
    let e1 = b - a, e2 = c - a, e3 = c - b
    let area2 = abs(e1.x * e2.y - e2.x * e1.y)
    let longest = max((e1 * e1).sum(), max((e2 * e2).sum(), (e3 * e3).sum())).squareRoot()
    return area2 / longest
  }

  /// The samples along a side of `length` pixels, and where the first lies: as many as fit
  /// `spacing` apart between the first pixel's center and the last's, with what is left over
  /// split between both ends. Always a pixel's center or halfway between two.
  static func placed(_ length: Int) -> (count: Int, first: Float) {
    let count = (length - 1) / spacing + 1
    return (count, Float(length - spacing * (count - 1)) / 2)
  }

  /// The first of the two sample rows row `y` is interpolated from, and how far down it lies
  /// between them (below 0 or above 1 at the layer's edges, where the rows' slope carries on).
  @inline(__always) func sampleRow(_ y: Int) -> (row: Int, fraction: Float) {
    let v = (Float(y) + 0.5 - origin.y) / Float(Self.spacing)
    let j = min(max(Int(v.rounded(.down)), 0), rows - 2)
    return (j, v - Float(j))
  }

  /// The rows of samples that rows `band` of the layer are interpolated from.
  func sampleRows(for band: Range<Int>) -> Range<Int> {
    sampleRow(band.lowerBound).row..<(sampleRow(band.upperBound - 1).row + 2)
  }

  /// Fills the rows of samples `needed` not filled yet, a chunk of `chunkRows` at a time.
  private func fill(_ needed: Range<Int>) {
    if chunks == nil { chunks = triangles.chunks(0..<rows, chunkRows: Self.chunkRows) }
    let (offsets, indices) = chunks!
    for k in needed.lowerBound / Self.chunkRows...(needed.upperBound - 1) / Self.chunkRows where !filled[k] {
      let chunk = k * Self.chunkRows..<min((k + 1) * Self.chunkRows, rows)
      triangles.fill(indices[offsets[k]..<offsets[k + 1]], rows: chunk, into: samples + chunk.lowerBound * columns)
      filled[k] = true
    }
  }

  /// The filled samples of rows `needed`, the first of them first.
  func filledRows(_ needed: Range<Int>) -> UnsafePointer<Pixel> {
    fill(needed)
    return UnsafePointer(samples + needed.lowerBound * columns)
  }

  /// Rows `band` of the layer as the samples they are interpolated from, filled.
  func sampled(_ band: Range<Int>) -> SampledRows {
    let needed = sampleRows(for: band)
    return SampledRows(rows: band, samples: self, grid: filledRows(needed), firstRow: needed.lowerBound)
  }

  /// The interpolation's row `y`: its two rows of samples (`grid`'s, whose first row is sample
  /// row `firstRow`) and how far down it lies between them.
  @inline(__always)
  func rowSamples(
    _ y: Int, grid: UnsafePointer<Pixel>, firstRow: Int
  ) -> (
    upper: UnsafePointer<Pixel>, lower: UnsafePointer<Pixel>, fraction: Float
  ) {
    let (j, s) = sampleRow(y)
    let upper = grid + (j - firstRow) * columns
    return (upper, upper + columns, s)
  }

  /// Rows `band` of the layer interpolated from rows of samples (`grid`, whose first row is
  /// sample row `firstRow`, holding `sampleRows(for: band)`), into `pixels`.
  func interpolate(
    _ band: Range<Int>, from grid: UnsafePointer<Pixel>, firstRow: Int, into pixels: UnsafeMutablePointer<Pixel>
  ) {
    for y in band {
      let (upper, lower, s) = rowSamples(y, grid: grid, firstRow: firstRow)
      let fraction = Pixel(repeating: s)
      for i in 0..<columns { line[i] = upper[i] + (lower[i] - upper[i]) * fraction }
      Self.across(line, columns: columns, first: origin.x, width: width, into: pixels + (y - band.lowerBound) * width)
    }
  }

  /// A row of `width` pixels interpolated across from `line`'s `columns` samples, sample i at
  /// pixel coordinate `first + 8 i` (`placed`): each pixel is `a + (b - a) t`, `t` how far its
  /// center lies from sample a towards sample b, one multiply and one add (never fused, so both
  /// builds give the same bits); the few pixels beyond the outer samples carry the outer cells'
  /// slope on. Inside, the eight pixels from the first whose center is at or past sample i
  /// take the same eight `t`, so a cell is four stores of two pixels.
  @inline(never)
  static func across(
    _ line: UnsafePointer<Pixel>, columns: Int, first: Float, width: Int, into out: UnsafeMutablePointer<Pixel>
  ) {
    precondition(spacing == 8, "the row loop is written for 8 pixels between samples")
    func edge(_ x: Int, cell i: Int) {
      let t = (Float(x) + 0.5 - first) / 8 - Float(i)
      out[x] = line[i] + (line[i + 1] - line[i]) * Pixel(repeating: t)
    }
    let start = Int((first - 0.5).rounded(.up))  // the first pixel whose center is at or past sample 0
    let phase = Float(start) + 0.5 - first  // 0 or 0.5
    for x in 0..<start { edge(x, cell: 0) }
    // Two pixels a vector: lanes 0-3 one pixel, 4-7 the next.
    func weights(_ k: Float) -> SIMD8<Float> {
      SIMD8(lowHalf: Pixel(repeating: (phase + k) / 8), highHalf: Pixel(repeating: (phase + k + 1) / 8))
    }
    let (w01, w23, w45, w67) = (weights(0), weights(2), weights(4), weights(6))
    let raw = UnsafeMutableRawPointer(out)
    var a = SIMD8<Float>(lowHalf: line[0], highHalf: line[0])
    for i in 0..<columns - 1 {
      let b = SIMD8<Float>(lowHalf: line[i + 1], highHalf: line[i + 1])
      let d = b - a
      let at = (start + 8 * i) * MemoryLayout<Pixel>.stride
      raw.storeBytes(of: a + d * w01, toByteOffset: at, as: SIMD8<Float>.self)
      raw.storeBytes(of: a + d * w23, toByteOffset: at + 32, as: SIMD8<Float>.self)
      raw.storeBytes(of: a + d * w45, toByteOffset: at + 64, as: SIMD8<Float>.self)
      raw.storeBytes(of: a + d * w67, toByteOffset: at + 96, as: SIMD8<Float>.self)
      a = b
    }
    for x in (start + 8 * (columns - 1))..<width { edge(x, cell: columns - 2) }
  }

  /// What `MeshRaster.mix` gives for moments that are all sampled, as samples: each sample row
  /// `Σ wᵢ Sᵢ` summed in order (the first moment times its weight, each next one times its own
  /// added), in scratch of the first moment's kept until it mixes again. Interpolation is linear,
  /// so this is the mix of the moments interpolated, to the rounding of the sums (a few units in
  /// the last place).
  static func mix(_ moments: [MeshSamples], weights: [Float], band: Range<Int>) -> SampledRows {
    let first = moments[0]
    let needed = first.sampleRows(for: band)
    let count = needed.count * first.columns
    let mixed = first.mixed.reserve(count)
    let grid = first.filledRows(needed)
    let w0 = Pixel(repeating: weights[0])
    for k in 0..<count { mixed[k] = grid[k] * w0 }
    for (moment, weight) in zip(moments.dropFirst(), weights.dropFirst()) {
      let other = moment.filledRows(needed), w = Pixel(repeating: weight)
      for k in 0..<count { mixed[k] += other[k] * w }
    }
    return SampledRows(rows: band, samples: first, grid: UnsafePointer(mixed), firstRow: needed.lowerBound)
  }
}

/// Rows of a layer given as the samples they are interpolated from (`MeshSamples`): what a
/// converter may read instead of the pixels (`Surface.sampledRows`), and what the pixels become
/// when asked for. Sample i of a row of samples lies at pixel coordinate `first + 8 i`, and row
/// `y` of the layer is `rowSamples(y)`'s two rows mixed by its fraction; each pixel of it is
/// `a + (b - a) t` of the two samples around it, `t = (x + 0.5 - first) / 8 - i` (below 0 or
/// above 1 beyond the outer samples). Valid until the surface draws again or starts a band.
public struct SampledRows {
  /// The layer rows they give.
  public let rows: Range<Int>
  let samples: MeshSamples
  /// Rows of samples from sample row `firstRow` on, `columns` samples each.
  let grid: UnsafePointer<Pixel>
  let firstRow: Int

  /// The layer's width in pixels.
  public var width: Int { samples.width }
  /// Samples a row.
  public var columns: Int { samples.columns }
  /// Pixels between samples.
  public static let spacing = MeshSamples.spacing
  /// Where sample 0 of each row lies, in pixel coordinates.
  public var first: Float { samples.origin.x }

  /// Layer row `y` (in `rows`) as two rows of samples and the fraction of the way from the
  /// first to the second.
  public func rowSamples(_ y: Int) -> (upper: UnsafePointer<Pixel>, lower: UnsafePointer<Pixel>, fraction: Float) {
    precondition(rows.contains(y), "row \(y) of samples for rows \(rows)")
    return samples.rowSamples(y, grid: grid, firstRow: firstRow)
  }

  /// The rows of samples the rows are interpolated from.
  public var sampleRows: Range<Int> { samples.sampleRows(for: rows) }

  /// Row of samples `j` (in `sampleRows`): `columns` samples.
  public func sampleRow(_ j: Int) -> UnsafePointer<Pixel> {
    precondition(sampleRows.contains(j), "row of samples \(j) for rows \(rows)")
    return grid + (j - firstRow) * columns
  }

  /// Layer row `y` (in `rows`): the row of samples above it (it lies between that one and the
  /// next) and how far it lies from it, below 0 or above 1 past the outer rows of samples.
  public func position(_ y: Int) -> (row: Int, fraction: Float) {
    precondition(rows.contains(y), "row \(y) of samples for rows \(rows)")
    return samples.sampleRow(y)
  }

  /// The least and greatest value of each channel over every pixel of the rows. Bilinear
  /// interpolation is monotonic along each axis inside a cell, so the rows' extremes lie on their
  /// rows of samples, their first and last rows, and the layer's first and last pixel centers:
  /// those are what is looked at (a row of samples past the rows' first or last only widens it).
  public func range() -> (low: Pixel, high: Pixel) {
    var low = Pixel(repeating: .infinity), high = Pixel(repeating: -.infinity)
    func take(_ p: Pixel) {
      low.replace(with: p, where: p .< low)
      high.replace(with: p, where: p .> high)
    }
    let n = columns
    let left = Pixel(repeating: (0.5 - first) / Float(Self.spacing))
    let right = Pixel(repeating: (Float(width) - 0.5 - first) / Float(Self.spacing) - Float(n - 2))
    func along(_ line: UnsafePointer<Pixel>) {
      for i in 0..<n { take(line[i]) }
      take(line[0] + (line[1] - line[0]) * left)
      take(line[n - 2] + (line[n - 1] - line[n - 2]) * right)
    }
    let line = UnsafeMutablePointer<Pixel>.allocate(capacity: n)
    defer { line.deallocate() }
    for y in [rows.lowerBound, rows.upperBound - 1] {
      let (upper, lower, s) = rowSamples(y)
      for i in 0..<n { line[i] = upper[i] + (lower[i] - upper[i]) * Pixel(repeating: s) }
      along(line)
    }
    for j in samples.sampleRows(for: rows) { along(grid + (j - firstRow) * n) }
    return (low, high)
  }

  /// Writes the rows into `pixels`, the first of them.
  func interpolate(into pixels: UnsafeMutablePointer<Pixel>) {
    samples.interpolate(rows, from: grid, firstRow: firstRow, into: pixels)
  }
}

/// The large buffers of meshes (`MeshTriangles`, `MeshSamples`), kept by a surface's
/// `MeshTessellations`: each mesh takes them when made and gives them back when done, so drawing
/// allocates nothing large a frame once warmed up, as the rest of a surface.
final class MeshStorage {
  var triangles: [[MeshTriangles.Triangle]] = []
  var spans: [[SIMD2<Int32>]] = []
  var planes: [[(gx: Pixel, gy: Pixel)]] = []
  var samples: [Scratch<Pixel>] = []
}

extension Optional where Wrapped == MeshStorage {
  /// An empty array for a mesh to fill: one given back to the storage at `kept`, its capacity
  /// kept, or a new one when there is no storage or none is there.
  func take<T>(_ kept: ReferenceWritableKeyPath<MeshStorage, [[T]]>) -> [T] {
    var array = self?[keyPath: kept].popLast() ?? []
    array.removeAll(keepingCapacity: true)
    return array
  }
}
