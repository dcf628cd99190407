import Foundation

/// Flattened subpaths: runs of points joined by straight lines, each open or closed.
///
/// The storage is reused from one drawing operation to the next (`removeAll` keeps capacity),
/// so flattening allocates nothing once a canvas has warmed up.
public struct Polylines: Sendable {
  public struct Run: Sendable, Equatable {
    public var start: Int
    public var count: Int
    public var closed: Bool
  }

  public var points: [Point] = []
  public var runs: [Run] = []

  public init() {}

  public mutating func removeAll() {
    points.removeAll(keepingCapacity: true)
    runs.removeAll(keepingCapacity: true)
  }

  mutating func begin(_ p: Point) {
    runs.append(Run(start: points.count, count: 1, closed: false))
    points.append(p)
  }

  mutating func append(_ p: Point) {
    if runs.isEmpty { begin(p); return }
    // A zero-length step adds nothing and would give a stroke an undefined direction.
    if points[points.count - 1] == p { return }
    points.append(p)
    runs[runs.count - 1].count += 1
  }

  mutating func close() {
    guard !runs.isEmpty else { return }
    runs[runs.count - 1].closed = true
  }

  /// Appends one closed polygon.
  public mutating func addPolygon(_ corners: [Point]) {
    guard let first = corners.first else { return }
    begin(first)
    for p in corners.dropFirst() { append(p) }
    close()
  }

  /// The rectangle, when these lines are one closed run around an axis-aligned rectangle (a
  /// `Path(rect:)` under a transform without rotation): `(min, max)` corners; nil otherwise.
  public var rectangle: (min: Point, max: Point)? {
    guard runs.count == 1, runs[0].closed, runs[0].start == 0 else { return nil }
    var count = runs[0].count
    if count == 5 && points[4] == points[0] { count = 4 }
    guard count == 4 else { return nil }
    let (a, b, c, d) = (points[0], points[1], points[2], points[3])
    // Each side is level or upright, turning at every corner.
    let alongX = a.y == b.y && b.x == c.x && c.y == d.y && d.x == a.x
    let alongY = a.x == b.x && b.y == c.y && c.x == d.x && d.y == a.y
    guard alongX || alongY else { return nil }
    let lo = pointwiseMin(pointwiseMin(a, b), pointwiseMin(c, d))
    let hi = pointwiseMax(pointwiseMax(a, b), pointwiseMax(c, d))
    guard lo.x.isFinite, lo.y.isFinite, hi.x.isFinite, hi.y.isFinite else { return nil }
    return (lo, hi)
  }

  /// Whether these lines, filled, are one convex polygon going once around: one run (closed by
  /// the fill) whose corners all turn the same way, the turns adding up to one whole turn. Its fill
  /// covers every point at most once, under either fill rule, so its coverage over any block of
  /// pixels is exactly the block's share of its area (`GraphicsContext.drawShrunk`). An ellipse, a
  /// rectangle or a triangle is one; a path of several subpaths, a star or a polygon that turns
  /// back is not. Corners that turn back by less than a millionth of their edges (the float
  /// rounding of a flattened curve) count as straight.
  public var isOneConvexPolygon: Bool {
    guard runs.count == 1, runs[0].count >= 3 else { return false }
    let start = runs[0].start, n = runs[0].count
    var first: Point? = nil, previous = Point(0, 0)
    var sign: Float = 0, turning: Float = 0
    func corner(_ a: Point, _ b: Point) -> Bool {
      let cross = a.x * b.y - a.y * b.x, dot = a.x * b.x + a.y * b.y
      let straight = abs(cross) <= 1e-6 * (a.x * a.x + a.y * a.y).squareRoot() * (b.x * b.x + b.y * b.y).squareRoot()
      if !straight {
        if sign == 0 { sign = cross > 0 ? 1 : -1 } else if cross * sign < 0 { return false }
      } else if dot < 0 {
        return false  // a spike: straight back
      }
      turning += atan2(cross, dot)
      return true
    }
    for i in 0..<n {
      let edge = points[start + (i + 1) % n] - points[start + i]
      guard edge != Point(0, 0) else { continue }
      if first == nil {
        first = edge
      } else if !corner(previous, edge) {
        return false
      }
      previous = edge
    }
    guard let first, corner(previous, first) else { return false }
    return abs(abs(turning) - 2 * .pi) < 0.01
  }

  /// The farthest a point may lie from the origin, in pixels: coverage is exact in Float and
  /// every conversion to Int is in range up to here (2^22 pixels is 4 million, far off any canvas).
  static let reach: Float = 4_194_304

  /// Makes the lines safe to rasterize, as Skia treats paths at its API edge: lines with a point
  /// that is not finite (NaN or infinite coordinates, a degenerate transform) are removed, so
  /// nothing is drawn, and points beyond `reach` are moved onto it. One pass over the points when
  /// they are far out, otherwise one pass that only compares.
  public mutating func sanitize() {
    let reach = Self.reach
    // `!(|v| <= reach)` is also true for NaN, which min/max-based bounds would drop.
    guard points.contains(where: { !(abs($0.x) <= reach && abs($0.y) <= reach) }) else { return }
    if points.contains(where: { !$0.x.isFinite || !$0.y.isFinite }) {
      removeAll()
      return
    }
    let lo = Point(repeating: -Self.reach), hi = Point(repeating: Self.reach)
    for i in points.indices { points[i] = pointwiseMin(pointwiseMax(points[i], lo), hi) }
  }

  /// The bounds of every point, or nil when empty.
  public var bounds: (min: Point, max: Point)? {
    guard var lo = points.first else { return nil }
    var hi = lo
    for p in points {
      lo = pointwiseMin(lo, p)
      hi = pointwiseMax(hi, p)
    }
    return (lo, hi)
  }
}

extension Path {
  /// Flattens the path mapped by `transform` into straight runs, no point of a curve further than
  /// `tolerance` (in the transformed space) from the chords that replace it.
  public func flatten(transform: Transform, tolerance: Float = 0.1, into out: inout Polylines) {
    var current = Point.zero
    var subpathStart = Point.zero
    var open = false
    for element in elements {
      switch element {
      case .move(let p):
        current = transform.apply(p)
        subpathStart = current
        out.begin(current)
        open = true
      case .line(let p):
        let q = transform.apply(p)
        if !open { out.begin(current); open = true }
        out.append(q)
        current = q
      case .quad(let c, let p):
        if !open { out.begin(current); open = true }
        let (c1, p1) = (transform.apply(c), transform.apply(p))
        let dd = length(current - 2 * c1 + p1)
        let n = Polylines.segmentCount(dd, tolerance: tolerance, scale: 0.25)
        let step = 1 / Float(n)
        for i in 1...n {
          let t = Float(i) * step
          let u = 1 - t
          out.append(u * u * current + 2 * u * t * c1 + t * t * p1)
        }
        current = p1
      case .cubic(let c1, let c2, let p):
        if !open { out.begin(current); open = true }
        let (a, b, q) = (transform.apply(c1), transform.apply(c2), transform.apply(p))
        let dd = max(length(current - 2 * a + b), length(a - 2 * b + q))
        let n = Polylines.segmentCount(dd, tolerance: tolerance, scale: 0.75)
        let step = 1 / Float(n)
        let p0 = current
        for i in 1...n {
          let t = Float(i) * step
          let u = 1 - t
          let w0 = u * u * u, w1 = 3 * u * u * t, w2 = 3 * u * t * t, w3 = t * t * t
          out.append(w0 * p0 + w1 * a + w2 * b + w3 * q)
        }
        current = q
      case .close:
        if open {
          out.close()
          open = false
        }
        current = subpathStart
      }
    }
  }
}

extension Polylines {
  /// Chords for a curve whose second difference is `dd`: the flattening error of n chords is at
  /// most `scale * dd / n²`, so n = sqrt(scale * dd / tolerance), at least 1 and at most 256.
  static func segmentCount(_ dd: Float, tolerance: Float, scale: Float) -> Int {
    guard dd.isFinite, dd > 0 else { return 1 }
    let n = (scale * dd / tolerance).squareRoot().rounded(.up)
    return Int(min(max(n, 1), 256))
  }
}

@inline(__always) func length(_ v: Point) -> Float { (v * v).sum().squareRoot() }
