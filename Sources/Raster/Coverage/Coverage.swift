/// How overlapping parts of a path count: SwiftUI's default non-zero winding, or even-odd.
public enum FillRule: Sendable {
  case nonZero
  case evenOdd
}

/// Exact area coverage of straight edges over a rectangle of pixels.
///
/// Each edge adds, to the cells it crosses, the signed area it leaves to its right within the
/// cell, and the rest of its height to the next cell; a running sum along a row then gives each
/// pixel's winding, fractional at edges (the accumulation rasterizer of font-rs and stb_truetype).
/// The coverage of a pixel that one edge crosses is its exact area; where edges of two overlapping
/// subpaths share a pixel the sum is folded by the fill rule, as analytic rasterizers do.
public final class Coverage: @unchecked Sendable {
  /// The pixels covered: columns `x0 ..< x0 + width`, rows `y0 ..< y0 + height` of the target.
  public private(set) var x0 = 0, y0 = 0, width = 0, height = 0
  private var stride = 0
  /// The rows whose cells are kept (relative to the region): all of them, or a band (band
  /// rendering). Edges are still stepped from their start, so a kept row gets the same cells.
  private var kept = 0..<0
  private let storage = Scratch<Float>()
  private var cells: UnsafeMutablePointer<Float>
  /// The first and last cell each row touched; rows outside every edge stay (Int.max, -1).
  /// Pointers into scratch, not arrays: an array stored in a class is checked for exclusive
  /// access at each write, a runtime call for every row of every edge (the rain's strokes).
  private let rowMinStorage = Scratch<Int>(), rowMaxStorage = Scratch<Int>()
  private var rowMin: UnsafeMutablePointer<Int>, rowMax: UnsafeMutablePointer<Int>

  public init() {
    cells = storage.pointer
    cells.initialize(to: 0)
    (rowMin, rowMax) = (rowMinStorage.pointer, rowMaxStorage.pointer)
    rowMin.initialize(to: .max)
    rowMax.initialize(to: -1)
  }

  /// Starts a new shape over the given pixels; the cells are zero (resolve clears what it reads).
  /// Only `rows` (relative to the region, all when nil) are kept: `span` and `resolve` take only
  /// those, and give what they would give over the whole region.
  public func reset(x0: Int, y0: Int, width: Int, height: Int, rows: Range<Int>? = nil) {
    precondition(width >= 0 && height >= 0, "coverage region \(width)x\(height)")
    (self.x0, self.y0, self.width, self.height) = (x0, y0, width, height)
    kept = rows.map { $0.clamped(to: 0..<height) } ?? 0..<height
    stride = width + 2
    let needed = stride * kept.count
    if needed > storage.capacity {
      // Cells are zero between shapes (resolve clears what it reads): zero new storage once.
      cells = storage.reserve(max(needed, storage.capacity * 2))
      cells.initialize(repeating: 0, count: storage.capacity)
    }
    if kept.count > rowMinStorage.capacity {
      // Rows outside every edge are (Int.max, -1) between shapes (resolve resets what it reads).
      rowMin = rowMinStorage.reserve(kept.count)
      rowMax = rowMaxStorage.reserve(kept.count)
      rowMin.initialize(repeating: .max, count: kept.count)
      rowMax.initialize(repeating: -1, count: kept.count)
    }
  }

  /// Adds every run as a closed polygon (fills close open subpaths).
  public func add(_ lines: Polylines) {
    lines.points.withUnsafeBufferPointer { pts in
      for run in lines.runs where run.count >= 2 {
        var previous = pts[run.start + run.count - 1]
        for i in run.start..<(run.start + run.count) {
          let p = pts[i]
          addEdge(previous, p)
          previous = p
        }
      }
    }
  }

  /// Adds one edge given in target pixel coordinates; its direction sets the sign of its winding.
  public func addEdge(_ a: Point, _ b: Point) {
    guard a.y != b.y, width > 0, !kept.isEmpty else { return }
    guard a.x.isFinite, a.y.isFinite, b.x.isFinite, b.y.isFinite else { return }
    let ox = Float(x0), oy = Float(y0)
    let p = Point(a.x - ox, a.y - oy), q = Point(b.x - ox, b.y - oy)
    // Split where the edge crosses the left and right sides, so each piece can be clamped into the
    // cells: left of the region a piece still winds everything to its right; right of it, nothing.
    let w = Float(width)
    var ts: (Float, Float) = (2, 2)
    if (p.x < 0) != (q.x < 0) { ts.0 = (0 - p.x) / (q.x - p.x) }
    if (p.x > w) != (q.x > w) { ts.1 = (w - p.x) / (q.x - p.x) }
    let t1 = min(ts.0, ts.1), t2 = max(ts.0, ts.1)
    var start = p
    // t1 then t2, without an array an edge.
    if t1 > 0 && t1 < 1 {
      let mid = p + (q - p) * t1
      clampedLine(start, mid)
      start = mid
    }
    if t2 > 0 && t2 < 1 {
      let mid = p + (q - p) * t2
      clampedLine(start, mid)
      start = mid
    }
    clampedLine(start, q)
  }

  private func clampedLine(_ a: Point, _ b: Point) {
    let w = Float(width)
    let p = Point(min(max(a.x, 0), w), a.y)
    let q = Point(min(max(b.x, 0), w), b.y)
    line(p, q)
  }

  /// The accumulation for one edge already inside 0...width horizontally.
  private func line(_ a: Point, _ b: Point) {
    guard a.y != b.y else { return }
    let (dir, p0, p1): (Float, Point, Point) = a.y < b.y ? (1, a, b) : (-1, b, a)
    let h = Float(height)
    if p1.y <= 0 || p0.y >= h { return }
    if p1.y <= Float(kept.lowerBound) || p0.y >= Float(kept.upperBound) { return }  // no kept row
    let dxdy = (p1.x - p0.x) / (p1.y - p0.y)
    // Both ends lie in 0...width, but stepping along the edge in Float can stray past either
    // end by a rounding error: clamp every step, so no cell outside the row is ever touched.
    let w = Float(width)
    var x = p0.x
    let yStart = max(p0.y, 0)
    if p0.y < 0 { x = min(max(x - p0.y * dxdy, 0), w) }
    let yEnd = min(p1.y, h)
    let rowStart = Int(yStart)
    let rowEnd = min(Int(yEnd.rounded(.up)), height)
    let limit = width + 1
    let (first, last) = (kept.lowerBound, kept.upperBound)
    for y in rowStart..<min(rowEnd, last) {
      let fy = Float(y)
      let dy = min(fy + 1, yEnd) - max(fy, yStart)
      if dy <= 0 { continue }
      let xnext = min(max(x + dxdy * dy, 0), w)
      if y < first {  // stepped, not kept: the kept rows see the x the whole region's would
        x = xnext
        continue
      }
      let r = y - first
      let d = dy * dir
      let (xa, xb) = x < xnext ? (x, xnext) : (xnext, x)
      let base = cells + r * stride
      let xaFloor = xa.rounded(.down)
      let xai = min(Int(xaFloor), limit)
      let xbCeil = xb.rounded(.up)
      let xbi = min(Int(xbCeil), limit)
      var touchedHigh = xai + 1
      if xbi <= xai + 1 {
        // Inside one cell: the area right of the edge's midpoint.
        let xmf = 0.5 * (x + xnext) - xaFloor
        base[xai] += d - d * xmf
        if xai + 1 <= limit { base[xai + 1] += d * xmf }
      } else {
        let s = 1 / (xb - xa)
        let xaf = xa - xaFloor
        let a0 = 0.5 * s * (1 - xaf) * (1 - xaf)
        let xbf = xb - xbCeil + 1
        let am = 0.5 * s * xbf * xbf
        base[xai] += d * a0
        if xbi == xai + 2 {
          base[xai + 1] += d * (1 - a0 - am)
        } else {
          let a1 = s * (1.5 - xaf)
          base[xai + 1] += d * (a1 - a0)
          var xi = xai + 2
          while xi < xbi - 1 {
            base[xi] += d * s
            xi += 1
          }
          let a2 = a1 + Float(xbi - xai - 3) * s
          base[xbi - 1] += d * (1 - a2 - am)
        }
        base[xbi] += d * am
        touchedHigh = xbi
      }
      if xai < rowMin[r] { rowMin[r] = xai }
      if touchedHigh > rowMax[r] { rowMax[r] = touchedHigh }
      x = xnext
    }
  }

  /// The columns of row `y` (relative to the region) that may be covered, or nil when none is.
  public func span(row y: Int) -> Range<Int>? {
    let lo = rowMin[y - kept.lowerBound], hi = rowMax[y - kept.lowerBound]
    guard hi >= 0 else { return nil }
    return max(lo, 0)..<min(hi + 1, width)
  }

  /// Writes the coverage of `span` in row `y` (relative to the region), 0...1, to `out[0...]`
  /// and clears the row's cells for the next shape.
  public func resolve(row y: Int, span: Range<Int>, rule: FillRule, into out: UnsafeMutablePointer<Float>) {
    let base = cells + (y - kept.lowerBound) * stride
    var acc: Float = 0
    // Cells left of the span hold nothing (rowMin is the first touched).
    switch rule {
    case .nonZero:
      // Only cells an edge crosses hold anything: inside a shape the coverage is carried over
      // without an add, so the loop is not chained on the add's latency from pixel to pixel.
      // Skipping `acc += 0` changes no bit of the result.
      // Four cells at a time where none holds anything, the common case inside a shape.
      var v: Float = 0
      var x = span.lowerBound
      let o = out - span.lowerBound
      while x < span.upperBound {
        if x + 4 <= span.upperBound {
          let cells = UnsafeRawPointer(base + x).loadUnaligned(as: SIMD4<Float>.self)
          if cells == .zero {
            UnsafeMutableRawPointer(o + x).storeBytes(of: SIMD4(repeating: v), as: SIMD4<Float>.self)
            x += 4
            continue
          }
        }
        let cell = base[x]
        if cell != 0 {
          acc += cell
          v = min(abs(acc), 1)
        }
        o[x] = v
        x += 1
      }
    case .evenOdd:
      for x in span {
        acc += base[x]
        let v = abs(acc).truncatingRemainder(dividingBy: 2)
        out[x - span.lowerBound] = v > 1 ? 2 - v : v
      }
    }
    clear(row: y)
  }

  /// Clears a row without reading it.
  public func clear(row y: Int) {
    let y = y - kept.lowerBound
    let hi = rowMax[y]
    if hi >= 0 {
      let lo = max(rowMin[y], 0)
      let end = min(hi + 2, stride)
      (cells + y * stride + lo).update(repeating: 0, count: end - lo)
    }
    rowMin[y] = .max
    rowMax[y] = -1
  }
}
