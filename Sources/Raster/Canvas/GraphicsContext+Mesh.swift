import Foundation

extension GraphicsContext {
  /// Draws `mesh` over `rect` (user space; the whole drawing area when nil), as a `MeshGradient`
  /// view of that frame: its background first, then its patches, with this context's transform,
  /// filters, opacity, blend mode and clip applied to the whole mesh as one operation.
  ///
  /// Each patch is cut into at least 32x32 quads at device scale (more for large patches, about
  /// one quad per 48 pixels) whose colors are exact at their corners and linear inside (Gouraud),
  /// and the triangles are filled at pixel centers with a top-left rule: where they tile, every
  /// pixel is painted exactly once, so the mesh needs no antialiasing inside.
  public func drawMesh(_ mesh: MeshGradient, in rect: Rect? = nil) {
    let frame = rect ?? Rect(x: 0, y: 0, width: size.width, height: size.height)
    let direct = filters.isEmpty && clipMask == nil && blendMode == .sourceOver && opacity == 1
    if direct {
      if mesh.background.alpha > 0 { fill(Path(rect: frame), with: .color(mesh.background)) }
      let painted = MeshRaster.draw(mesh, in: frame, transform: transform, onto: target, cache: surface.meshes)
      target.dirty = target.dirty.union(painted)
      return
    }
    let layer = surface.checkout()
    defer { surface.checkin(layer) }
    layer.reset(x0: 0, y0: 0, width: target.width, height: target.height, band: band)
    if mesh.background.alpha > 0 {
      let inner = GraphicsContext(surface: surface, target: layer, transform: transform)
      inner.fill(Path(rect: frame), with: .color(mesh.background))
    }
    let painted = MeshRaster.draw(mesh, in: frame, transform: transform, onto: layer, cache: surface.meshes)
    layer.dirty = layer.dirty.union(painted)
    composite(layer, applyingFilters: true)
  }
}

/// Tessellates a mesh gradient into Gouraud triangles and fills them.
enum MeshRaster {
  /// Quads per patch side: at least 32 (docs/SWIFTUI-SEMANTICS.md, Mesh gradient), about one per 48
  /// device pixels of the patch's longer side, at most 128. Against 128 quads a side, the aurora at
  /// 1080x1920 (32 a side) differs by at most one 8-bit luma code, on 0.6% of pixels; one per 24
  /// pixels cost three times the triangles for 0.2%.
  static func subdivisions(forPatchLength length: Float) -> Int {
    guard length.isFinite else { return 32 }
    return min(max(Int((length / 48).rounded(.up)), 32), 128)
  }

  /// Draws the patches of `mesh` source-over onto `layer` and returns the pixels it touched.
  static func draw(
    _ mesh: MeshGradient, in frame: Rect, transform: Transform, onto layer: Layer, cache: MeshTessellations? = nil
  ) -> IntRect {
    guard mesh.isDrawable, transform.isFinite else { return .empty }
    let (w, h) = (mesh.width, mesh.height)
    // A band draws the same mesh as the bands before it: its triangles are tessellated once.
    let key = layer.isBand ? MeshTessellations.key(mesh, frame, transform) : nil
    if let key, let cache, let hit = cache.find(key, mesh.colors) {
      return fill(hit.positions, hit.colors, columns: hit.columns, rows: hit.rows, mesh: mesh, onto: layer)
    }
    func device(_ p: Point) -> Point {
      transform.apply(Point(frame.x + p.x * frame.width, frame.y + p.y * frame.height))
    }
    func length(_ v: Point) -> Float { (v * v).sum().squareRoot() }
    // One subdivision count for the whole mesh keeps the vertex grid shared along patch borders.
    var longest: Float = 0
    for j in 0..<h {
      for i in 0..<w {
        let p = device(mesh.point(i, j))
        if i + 1 < w { longest = max(longest, length(device(mesh.point(i + 1, j)) - p)) }
        if j + 1 < h { longest = max(longest, length(device(mesh.point(i, j + 1)) - p)) }
      }
    }
    let n = subdivisions(forPatchLength: longest)
    let columns = (w - 1) * n + 1, rows = (h - 1) * n + 1
    var positions = [Point](repeating: .zero, count: columns * rows)
    var colors = [Pixel](repeating: .zero, count: columns * rows)
    let step = 1 / Float(n)
    for gy in 0..<rows {
      let j = min(gy / n, h - 2)
      let v = gy - j * n == n ? 1 : Float(gy - j * n) * step
      for gx in 0..<columns {
        let i = min(gx / n, w - 2)
        let u = gx - i * n == n ? 1 : Float(gx - i * n) * step
        positions[gy * columns + gx] = device(mesh.position(patch: i, j, u: u, v: v))
        colors[gy * columns + gx] = TriangleFill.bounded(mesh.color(patch: i, j, u: u, v: v))
      }
    }
    // As a path: a vertex that is not finite (NaN or infinite points or frame) draws nothing, and
    // one beyond the rasterizer's reach is held to it. Per vertex, never per pixel.
    let reach = Polylines.reach
    if positions.contains(where: { !(abs($0.x) <= reach && abs($0.y) <= reach) }) {
      if positions.contains(where: { !$0.x.isFinite || !$0.y.isFinite }) { return .empty }
      let lo = Point(repeating: -reach), hi = Point(repeating: reach)
      for k in positions.indices { positions[k] = pointwiseMin(pointwiseMax(positions[k], lo), hi) }
    }
    if let key, let cache { cache.store(key, mesh.colors, positions, colors, columns: columns, rows: rows) }
    return fill(positions, colors, columns: columns, rows: rows, mesh: mesh, onto: layer)
  }

  /// Fills the tessellated mesh's triangles.
  private static func fill(
    _ positions: [Point], _ colors: [Pixel], columns: Int, rows: Int, mesh: MeshGradient, onto layer: Layer
  ) -> IntRect {
    let (w, h) = (mesh.width, mesh.height)
    var opaque = true
    for c in mesh.colors.prefix(w * h) where c.alpha < 1 { opaque = false }
    var fill = TriangleFill(layer: layer, opaque: opaque)
    for gy in 0..<rows - 1 {
      for gx in 0..<columns - 1 {
        let a = gy * columns + gx, b = a + 1, c = a + columns + 1, d = a + columns
        fill.triangle(positions[a], colors[a], positions[b], colors[b], positions[c], colors[c])
        fill.triangle(positions[a], colors[a], positions[c], colors[c], positions[d], colors[d])
      }
    }
    return fill.touched
  }
}

/// The last mesh a band surface tessellated (`MeshRaster.draw`), reused by the next bands of the
/// frame while the mesh, its frame and transform are the same bits.
final class MeshTessellations {
  private var key: [UInt32] = []
  private var meshColors: [Color] = []
  private(set) var positions: [Point] = []
  private(set) var colors: [Pixel] = []
  private(set) var columns = 0, rows = 0

  static func key(_ mesh: MeshGradient, _ frame: Rect, _ t: Transform) -> [UInt32] {
    var k: [UInt32] = [UInt32(mesh.width), UInt32(mesh.height), mesh.smoothsColors ? 1 : 0]
    for v in [frame.x, frame.y, frame.width, frame.height, t.a, t.b, t.c, t.d, t.tx, t.ty] { k.append(v.bitPattern) }
    for p in mesh.points { k += [p.x.bitPattern, p.y.bitPattern] }
    return k
  }

  func find(_ key: [UInt32], _ meshColors: [Color]) -> MeshTessellations? {
    key == self.key && meshColors == self.meshColors && !positions.isEmpty ? self : nil
  }

  func store(_ key: [UInt32], _ meshColors: [Color], _ positions: [Point], _ colors: [Pixel], columns: Int, rows: Int) {
    (self.key, self.meshColors, self.positions, self.colors) = (key, meshColors, positions, colors)
    (self.columns, self.rows) = (columns, rows)
  }
}

/// Fills triangles with linearly varying color at pixel centers, top-left rule: a pixel belongs to
/// a triangle when its center lies inside, or on a left or top edge. The x where an edge crosses a
/// row is computed from the edge's endpoints in one fixed order, so two triangles sharing an edge
/// agree on it to the bit and split its pixels without gap or overlap.
struct TriangleFill {
  let pixels: UnsafeMutablePointer<Pixel>
  let width: Int, height: Int
  /// The rows the layer stores (a band of them, band rendering); `pixels` is the first's.
  let rows: Range<Int>
  let opaque: Bool
  private(set) var touched = IntRect.empty

  init(layer: Layer, opaque: Bool) {
    layer.settle()  // its pixels are written directly, not through `row`
    pixels = layer.pixels
    (width, height) = (layer.width, layer.height)
    rows = layer.rows
    self.opaque = opaque
  }

  /// An edge between `p` and `q`, from its upper end (the left one when level): where it crosses
  /// the horizontal line at `y` is `x0 + (y - y0) * slope`. Both triangles that share an edge make
  /// it from the same ends in the same order, so they agree on every crossing to the bit.
  struct Edge {
    let x0: Float, y0: Float, slope: Float

    @inline(__always) init(_ p: Point, _ q: Point) {
      let (a, b) = (p.y < q.y || (p.y == q.y && p.x < q.x)) ? (p, q) : (q, p)
      (x0, y0, slope) = (a.x, a.y, (b.x - a.x) / (b.y - a.y))
    }

    @inline(__always) func x(at y: Float) -> Float { x0 + (y - y0) * slope }
  }

  /// A vertex color made total: a lane that is not a number becomes 0, colors are held to
  /// -4...4 and alpha to 0...1 (as `Color.premultiplied`), so no blend of them overflows.
  static func bounded(_ c: Pixel) -> Pixel {
    var p = c
    p.replace(with: Pixel(repeating: 0), where: .!(p .== p))
    p = pointwiseMin(pointwiseMax(p, Pixel(-4, -4, -4, 0)), Pixel(4, 4, 4, 1))
    return p
  }

  /// The smallest whole number not below `v`, with `v` first clamped to `-1...limit`: one
  /// truncating conversion and a compare instead of a libm call a row.
  @inline(__always) static func ceiling(_ v: Float, limit: Int) -> Int {
    let c: Float = v > -1 ? (v < Float(limit) ? v : Float(limit)) : -1  // the same two compares; NaN is -1
    let t = Int(c)
    return Float(t) < c ? t + 1 : t
  }

  /// Paints `count` pixels from `start` with `color`, then `color + step`, and so on. Out of line
  /// on purpose: inlined into `triangle`, the compiler kept the color's lanes in pieces and put
  /// three shuffles into the loop's chain from one pixel to the next.
  @inline(never)
  static func span(_ start: UnsafeMutablePointer<Pixel>, count: Int, from color: Pixel, step: Pixel, opaque: Bool) {
    var color = color
    if opaque {
      for x in 0..<count {
        start[x] = color
        color += step
      }
    } else {
      for x in 0..<count {
        start[x] = SourceOverKernel.blend(color, start[x])
        color += step
      }
    }
  }

  mutating func triangle(_ p0: Point, _ c0: Pixel, _ p1: Point, _ c1: Pixel, _ p2: Point, _ c2: Pixel) {
    // Wholly above or below the stored rows (a band's): nothing below would be painted.
    let low = min(p0.y, p1.y, p2.y), high = max(p0.y, p1.y, p2.y)
    if TriangleFill.ceiling(high - 0.5, limit: height) <= rows.lowerBound
      || TriangleFill.ceiling(low - 0.5, limit: height) >= rows.upperBound
    {
      return
    }
    // The color plane: c(x, y) = c0 + gx (x - p0.x) + gy (y - p0.y).
    let e1 = p1 - p0, e2 = p2 - p0
    let det = e1.x * e2.y - e2.x * e1.y
    guard det != 0, det.isFinite else { return }
    let d1 = c1 - c0, d2 = c2 - c0
    let inv = 1 / det
    var gx = (d1 * e2.y - d2 * e1.y) * inv
    var gy = (d2 * e1.x - d1 * e2.x) * inv
    // A sliver thinner than a millionth of a pixel has a color slope to match, which overflows
    // over a row: such a triangle is flat (per triangle, never per pixel).
    let steep = Pixel(repeating: 1000), flat = Pixel(repeating: -1000)
    if !all((gx .<= steep) .& (gx .>= flat)) || !all((gy .<= steep) .& (gy .>= flat)) {  // NaN too
      gx = Pixel(repeating: 0)
      gy = gx
    }
    // Sort by y: top, middle, bottom.
    var (t, m, b) = (p0, p1, p2)
    if m.y < t.y { swap(&t, &m) }
    if b.y < m.y { swap(&m, &b) }
    if m.y < t.y { swap(&t, &m) }
    let yStart = TriangleFill.ceiling(t.y - 0.5, limit: height)
    let yEnd = TriangleFill.ceiling(b.y - 0.5, limit: height)
    let ySplit = TriangleFill.ceiling(m.y - 0.5, limit: height)  // the first row whose center is at or below m
    let (first, last) = (max(yStart, rows.lowerBound), min(yEnd, rows.upperBound))
    guard first < last else { return }
    let long = Edge(t, b), upper = Edge(t, m), lower = Edge(m, b)
    var xMin = Int.max, xMax = Int.min
    for y in first..<last {
      let yc = Float(y) + 0.5
      let xa = long.x(at: yc)
      let xb = y < ySplit ? upper.x(at: yc) : lower.x(at: yc)
      let x0 = max(TriangleFill.ceiling(min(xa, xb) - 0.5, limit: width), 0)
      let x1 = TriangleFill.ceiling(max(xa, xb) - 0.5, limit: width)
      guard x0 < x1 else { continue }
      xMin = min(xMin, x0)
      xMax = max(xMax, x1)
      let color = c0 + gx * (Float(x0) + 0.5 - p0.x) + gy * (yc - p0.y)
      let row = pixels + (y - rows.lowerBound) * width
      TriangleFill.span(row + x0, count: x1 - x0, from: color, step: gx, opaque: opaque)
    }
    if xMin < xMax {
      // From the first row drawn, not yStart: that is -1 for a triangle reaching above the layer,
      // and a dirty row -1 sent the streamed blur one row before the pixels (the raster fuzzer's
      // heap corruption).
      touched = touched.union(IntRect(x: xMin, y: first, width: xMax - xMin, height: last - first))
    }
  }
}
