/// How a stroke is drawn, as SwiftUI's `StrokeStyle` with the defaults the seeds use:
/// butt caps and miter joins with a limit of 10.
public struct StrokeStyle: Sendable, Hashable {
  public var lineWidth: Float
  public var miterLimit: Float

  public init(lineWidth: Float, miterLimit: Float = 10) {
    (self.lineWidth, self.miterLimit) = (lineWidth, miterLimit)
  }
}

extension Polylines {
  /// The outline of these runs stroked with `style`, as polygons that all wind the same way, so a
  /// non-zero fill of them paints the union once (docs/SWIFTUI-SEMANTICS.md, Paths, fills and
  /// strokes: a multi-subpath stroke paints the union once). `halfWidth` is in the same space as
  /// the points.
  public func stroked(halfWidth hw: Float, miterLimit: Float, into out: inout Polylines) {
    guard hw > 0, hw.isFinite else { return }
    for run in runs where run.count >= 2 {
      let closed = run.closed && run.count >= 3
      let end = run.start + run.count
      let segmentCount = closed ? run.count : run.count - 1
      // A closed run whose last point repeats the first has one zero-length segment: skip it.
      for s in 0..<segmentCount {
        let a = points[run.start + s]
        let b = points[s + 1 < run.count ? run.start + s + 1 : run.start]
        guard let n = Polylines.normal(a, b) else { continue }
        out.addOriented([a + n * hw, b + n * hw, b - n * hw, a - n * hw])
      }
      // Joins: at every interior point, and at the first point of a closed run.
      let joinRange = closed ? 0..<run.count : 1..<(run.count - 1)
      for j in joinRange {
        let p = points[run.start + j]
        let prev = points[j == 0 ? end - 1 : run.start + j - 1]
        let next = points[j + 1 < run.count ? run.start + j + 1 : run.start]
        guard let n0 = Polylines.normal(prev, p), let n1 = Polylines.normal(p, next) else { continue }
        let d0 = p - prev, d1 = next - p
        let cross = d0.x * d1.y - d0.y * d1.x
        if cross == 0 { continue }  // straight on: the quads already meet
        let side: Float = cross > 0 ? -1 : 1
        let a = p + n0 * (hw * side), b = p + n1 * (hw * side)
        let cosine = (n0 * n1).sum()
        // Miter length over line width is 1 / sin(φ / 2) = sqrt(2 / (1 + n0·n1)).
        let ratio2 = 2 / max(1 + cosine, 1e-12)
        if ratio2 <= miterLimit * miterLimit {
          let tip = p + (n0 + n1) * (hw * side / (1 + cosine))
          out.addOriented([p, a, tip, b])
        } else {
          out.addOriented([p, a, b])
        }
      }
    }
  }

  /// The unit left normal of a step, or nil for a step of no length.
  static func normal(_ a: Point, _ b: Point) -> Point? {
    let d = b - a
    let len = length(d)
    guard len > 0, len.isFinite else { return nil }
    return Point(-d.y, d.x) / len
  }

  /// Appends a polygon turned so that its signed area is positive.
  mutating func addOriented(_ corners: [Point]) {
    var area: Float = 0
    for i in corners.indices {
      let p = corners[i], q = corners[(i + 1) % corners.count]
      area += p.x * q.y - q.x * p.y
    }
    if area == 0 { return }
    addPolygon(area > 0 ? corners : corners.reversed())
  }
}
