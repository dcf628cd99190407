import Foundation

extension GraphicsContext {
  /// Draws `mesh` over `rect` (user space; the whole drawing area when nil), as a `MeshGradient`
  /// view of that frame: its background first, then its patches, with this context's transform,
  /// filters, opacity, blend mode and clip applied to the whole mesh as one operation.
  ///
  /// Each patch is cut into at least 32x32 quads at device scale (more for large patches, about
  /// one quad per 48 pixels) whose colors are exact at their corners and linear inside (Gouraud),
  /// and the triangles are filled at pixel centers with a top-left rule: where they tile, every
  /// pixel is painted exactly once, so the mesh needs no antialiasing inside. A large opaque
  /// mesh that tiles the frame is painted from its triangles' colors at points 8 pixels apart,
  /// interpolated between them, within half an 8-bit code (`MeshSamples`).
  public func drawMesh(_ mesh: MeshGradient, in rect: Rect? = nil) {
    let profile = surface.entering(.meshes)
    defer { profile?.leave() }
    let frame = rect ?? Rect(x: 0, y: 0, width: size.width, height: size.height)
    let direct = filters.isEmpty && clipMask == nil && blendMode == .sourceOver && opacity == 1
    if direct {
      if mesh.background.alpha > 0 { fill(Path(rect: frame), with: .color(mesh.background)) }
      let painted = MeshRaster.draw(
        mesh, in: frame, transform: transform, onto: target, cache: surface.meshes, sampling: surface.samplesMeshes)
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
    let painted = MeshRaster.draw(
      mesh, in: frame, transform: transform, onto: layer, cache: surface.meshes, sampling: surface.samplesMeshes)
    layer.dirty = layer.dirty.union(painted)
    composite(layer, applyingFilters: true)
  }

  /// What `drawBlended(weights:)` draws when moment `i` draws `meshes[i]` over `rect`
  /// (`drawMesh`): a crossfade of a mesh between two moments.
  ///
  /// On a target nothing is drawn on yet, with nothing to apply (the case where `drawBlended`
  /// draws its first moment straight into the target and adds the others in from a layer), and
  /// meshes with a clear background, every moment is painted into a few rows of scratch and
  /// mixed by weight into the target while they are in cache (`MeshRaster.mix`): no layer is
  /// cleared, drawn or read, and every stored row is written once. The same sums in the same
  /// order as `drawBlended`'s, so the same bits. Otherwise it is that `drawBlended`.
  ///
  /// When every moment is drawn from samples (`MeshSamples`), the samples are mixed and the mix
  /// interpolated: the moments' pixels mixed, to the rounding of the sums. When only some are,
  /// it is that `drawBlended`.
  public func drawBlended(meshes: [MeshGradient], weights: [Double], in rect: Rect? = nil) {
    let profile = surface.entering(.meshes)
    defer { profile?.leave() }
    guard meshes.count == weights.count, weights.count > 1, composesAsDrawn,
      meshes.allSatisfy({ $0.background.alpha <= 0 })
    else {
      return drawBlended(weights: weights) { i, context in context.drawMesh(meshes[i], in: rect) }
    }
    let frame = rect ?? Rect(x: 0, y: 0, width: size.width, height: size.height)
    let held = Self.held(weights)
    let prepared = meshes.map {
      MeshRaster.prepared(
        $0, in: frame, transform: transform, for: target, cache: surface.meshes, sampling: surface.samplesMeshes)
    }
    let sampled = prepared.compactMap { $0?.samples }
    if sampled.count == meshes.count {
      target.paint(MeshSamples.mix(sampled, weights: held.map { Float($0) }, band: target.rows))
      target.dirty = target.dirty.union(target.stored)
      return
    }
    guard sampled.isEmpty else {
      return drawBlended(weights: weights) { i, context in context.drawMesh(meshes[i], in: rect) }
    }
    let moments = prepared.map { $0?.triangles }
    let painted = MeshRaster.mix(moments, weights: held.map { Float($0) }, onto: target, scratch: surface.meshes)
    target.dirty = target.dirty.union(painted)
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

  /// Draws the patches of `mesh` source-over onto `layer` and returns the pixels it touched;
  /// from samples (`MeshSamples`) where `sampling` allows and the mesh qualifies.
  static func draw(
    _ mesh: MeshGradient, in frame: Rect, transform: Transform, onto layer: Layer, cache: MeshTessellations? = nil,
    sampling: Bool = false
  ) -> IntRect {
    switch prepared(mesh, in: frame, transform: transform, for: layer, cache: cache, sampling: sampling) {
    case nil: return .empty
    case .triangles(let triangles): return paint(triangles, onto: layer)
    case .samples(let samples):
      // The mesh tiles the layer: nothing under it matters. On the canvas the pixels are written
      // only when asked for: a converter may take the samples instead (`Surface.sampledRows`).
      layer.paint(samples.sampled(layer.rows))
      return layer.stored
    }
  }

  /// The triangles of `mesh` set up for a layer of `layer`'s size (`prepared` without samples).
  static func triangles(
    _ mesh: MeshGradient, in frame: Rect, transform: Transform, for layer: Layer, cache: MeshTessellations?
  ) -> MeshTriangles? {
    prepared(mesh, in: frame, transform: transform, for: layer, cache: cache, sampling: false)?.triangles
  }

  /// `mesh` made ready to paint onto a layer of `layer`'s size: its samples when `sampling`
  /// allows and `MeshSamples` takes it, otherwise its triangles; from `cache` when a band before
  /// this one prepared the same mesh (a crossfade draws two meshes a band, so it keeps two).
  /// Nil when the mesh draws nothing.
  static func prepared(
    _ mesh: MeshGradient, in frame: Rect, transform: Transform, for layer: Layer, cache: MeshTessellations?,
    sampling: Bool
  ) -> PreparedMesh? {
    guard mesh.isDrawable, transform.isFinite else { return nil }
    // A band draws the same mesh as the bands before it: it is tessellated once.
    let key = layer.isBand ? MeshTessellations.key(mesh, frame, transform, layer, sampling: sampling) : nil
    if let key, let cache, let hit = cache.find(key, mesh.colors) { return hit }
    guard let (positions, colors, columns, rows) = tessellate(mesh, in: frame, transform: transform) else {
      return nil
    }
    let (w, h) = (mesh.width, mesh.height)
    var opaque = true
    for c in mesh.colors.prefix(w * h) where c.alpha < 1 { opaque = false }
    let made: PreparedMesh
    if sampling, opaque,
      let samples = MeshSamples(
        positions: positions, colors: colors, columns: columns, rows: rows, width: layer.width, height: layer.height,
        storage: cache?.storage)
    {
      made = .samples(samples)
    } else {
      made = .triangles(
        MeshTriangles(
          positions, colors, columns: columns, rows: rows, width: layer.width, height: layer.height, opaque: opaque,
          storage: cache?.storage))
    }
    if let key, let cache { cache.store(key, mesh.colors, made) }
    return made
  }

  /// The mesh's vertex grid in device pixels and its vertex colors, nil when a vertex is not finite.
  private static func tessellate(
    _ mesh: MeshGradient, in frame: Rect, transform: Transform
  ) -> (positions: [Point], colors: [Pixel], columns: Int, rows: Int)? {
    let (w, h) = (mesh.width, mesh.height)
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
    // Each patch's edges, corners and colors gathered once, not once a vertex.
    let patches = (0..<h - 1).flatMap { j in (0..<w - 1).map { i in MeshGradient.Patch(mesh, i, j) } }
    for gy in 0..<rows {
      let j = min(gy / n, h - 2)
      let v = gy - j * n == n ? 1 : Float(gy - j * n) * step
      for gx in 0..<columns {
        let i = min(gx / n, w - 2)
        let u = gx - i * n == n ? 1 : Float(gx - i * n) * step
        let patch = patches[j * (w - 1) + i]
        positions[gy * columns + gx] = device(patch.position(u: u, v: v))
        colors[gy * columns + gx] = TriangleFill.bounded(patch.color(u: u, v: v))
      }
    }
    // As a path: a vertex that is not finite (NaN or infinite points or frame) draws nothing, and
    // one beyond the rasterizer's reach is held to it. Per vertex, never per pixel.
    let reach = Polylines.reach
    if positions.contains(where: { !(abs($0.x) <= reach && abs($0.y) <= reach) }) {
      if positions.contains(where: { !$0.x.isFinite || !$0.y.isFinite }) { return nil }
      let lo = Point(repeating: -reach), hi = Point(repeating: reach)
      for k in positions.indices { positions[k] = pointwiseMin(pointwiseMax(positions[k], lo), hi) }
    }
    return (positions, colors, columns, rows)
  }

  /// Rows of a crossfade painted together (`mix`): every moment's triangles that reach them are
  /// painted into rows of scratch of this height and mixed from there, all in the L2 cache (at
  /// 1080 wide, 8 rows of three buffers are 415 KB; a band's 2.2 MB is not). 4 and 16 measured
  /// the same.
  static let chunkRows = 8
  /// Rows of one mesh painted together (`paint`), a pending color written just before them.
  static let paintRows = 32

  /// Paints `triangles` source-over onto `layer`, in order, and returns the pixels touched. A
  /// pending color of the layer (`Layer.pendingFill`) is written a chunk of rows at a time just
  /// before the triangles are painted over it, not in a pass of its own.
  static func paint(_ triangles: MeshTriangles, onto layer: Layer) -> IntRect {
    let pending = layer.pendingFill
    layer.pendingFill = nil
    let width = layer.width
    let chunkRows = paintRows
    let (offsets, indices) = triangles.chunks(layer.rows, chunkRows: chunkRows)
    var touched = IntRect.empty
    for k in 0..<offsets.count - 1 {
      let start = layer.rows.lowerBound + k * chunkRows
      let chunk = start..<min(start + chunkRows, layer.rows.upperBound)
      let rows = layer.pixels + (chunk.lowerBound - layer.rows.lowerBound) * width
      if let pending, !triangles.tiles { rows.update(repeating: pending, count: chunk.count * width) }
      touched = touched.union(triangles.paint(indices[offsets[k]..<offsets[k + 1]], rows: chunk, into: rows))
    }
    return touched
  }

  /// What `drawBlended(weights:)` gives when moment `i` draws `moments[i]` onto a clear layer:
  /// `Σ wᵢ Mᵢ`, each moment painted into rows of scratch (cleared first, as a fresh layer) a
  /// chunk of rows at a time and mixed into `layer`'s rows, every stored row written once. The
  /// same sums in the same order as `drawBlended` over a clear target (the first moment times its
  /// weight, each next one times its own added), so the same bits. `layer` must be clear.
  static func mix(
    _ moments: [MeshTriangles?], weights: [Float], onto layer: Layer, scratch: MeshTessellations
  ) -> IntRect {
    layer.pendingFill = nil
    let width = layer.width
    let lists = moments.map { $0?.chunks(layer.rows, chunkRows: chunkRows) }
    let buffers = scratch.rows(chunkRows * width, count: moments.count)
    var touched = IntRect.empty
    let chunks = (layer.rows.count + chunkRows - 1) / chunkRows
    for k in 0..<chunks {
      let start = layer.rows.lowerBound + k * chunkRows
      let chunk = start..<min(start + chunkRows, layer.rows.upperBound)
      let count = chunk.count * width
      for (m, triangles) in moments.enumerated() {
        // A fresh layer is clear: unless every pixel is painted over, the rows are cleared first.
        if !(triangles?.tiles ?? false) { buffers[m].update(repeating: .zero, count: count) }
        if let triangles, let (offsets, indices) = lists[m] {
          touched = touched.union(
            triangles.paint(indices[offsets[k]..<offsets[k + 1]], rows: chunk, into: buffers[m]))
        }
      }
      let out = layer.pixels + (chunk.lowerBound - layer.rows.lowerBound) * width
      MeshRaster.mix(buffers, weights: weights, count: count, into: out)
    }
    return touched
  }

  /// `out[k] = Σ buffers[m][k] * weights[m]`, summed in order. Out of line: the loop over
  /// moments stays outside the pixels' loops.
  @inline(never)
  private static func mix(
    _ buffers: [UnsafeMutablePointer<Pixel>], weights: [Float], count: Int, into out: UnsafeMutablePointer<Pixel>
  ) {
    let w0 = Pixel(repeating: weights[0])
    let first = buffers[0]
    if buffers.count == 2 {
      let second = buffers[1], w1 = Pixel(repeating: weights[1])
      for k in 0..<count { out[k] = first[k] * w0 + second[k] * w1 }
      return
    }
    for k in 0..<count { out[k] = first[k] * w0 }
    for m in 1..<buffers.count {
      let source = buffers[m], w = Pixel(repeating: weights[m])
      for k in 0..<count { out[k] += source[k] * w }
    }
  }
}

/// A mesh made ready to paint onto a layer: its triangles, or the samples it is painted from.
enum PreparedMesh {
  case triangles(MeshTriangles)
  case samples(MeshSamples)

  var triangles: MeshTriangles? {
    if case .triangles(let t) = self { return t }
    return nil
  }

  var samples: MeshSamples? {
    if case .samples(let s) = self { return s }
    return nil
  }
}

/// A tessellated mesh's triangles, each set up once for a layer's size (its color plane, edges
/// and rows), in the order they are painted.
final class MeshTriangles {
  struct Triangle {
    /// The color plane: c(x, y) = c0 + gx (x - p0.x) + gy (y - p0.y).
    let c0: Pixel, gx: Pixel, gy: Pixel
    let p0: Point
    let long: TriangleFill.Edge, upper: TriangleFill.Edge, lower: TriangleFill.Edge
    /// The first row whose center is at or below the top, at or below the middle vertex, and
    /// below the bottom (each held to -1...height).
    let yStart: Int32, ySplit: Int32, yEnd: Int32
  }

  let triangles: [Triangle]
  /// Each triangle's `yStart` and `yEnd`, apart: what finding a band's triangles reads.
  let spans: [SIMD2<Int32>]
  let width: Int, height: Int
  let opaque: Bool
  /// Whether the triangles paint every pixel of the layer exactly once, with opaque colors: what
  /// the pixels held before does not matter (`MeshRaster.paint` writes no pending color first).
  /// So when the mesh is opaque, its grid's border lies on the layer's border (corners on its
  /// corners, each side's vertices on that side), every vertex inside the layer, and every
  /// triangle turns the same way: the triangles then tile the layer without fold or gap, and the
  /// top-left rule paints each pixel center once.
  let tiles: Bool
  /// Where the arrays came from and go back to (`MeshStorage`), if anywhere.
  private let storage: MeshStorage?

  /// The triangles of a vertex grid in layer pixels, set up for a `width` x `height` layer.
  /// `tiled`, when given, is whether they tile (`tiles`), found by the caller (`MeshSamples`
  /// checks its mesh's grid before moving it onto its samples); `planes`, the triangles' color
  /// planes (`plane`), two a quad in the order the triangles are made; `storage`, where arrays
  /// for the triangles and their rows are taken from and given back to (`MeshStorage`).
  init(
    _ positions: [Point], _ colors: [Pixel], columns: Int, rows: Int, width: Int, height: Int, opaque: Bool,
    tiled: Bool? = nil, planes: [(gx: Pixel, gy: Pixel)]? = nil, storage: MeshStorage? = nil
  ) {
    (self.width, self.height, self.opaque, self.storage) = (width, height, opaque, storage)
    tiles =
      opaque
      && (tiled ?? Self.tile(positions, columns: columns, rows: rows, width: Float(width), height: Float(height)))
    // A buffer an earlier mesh gave back (`MeshStorage`) keeps its capacity.
    var triangles = storage.take(\.triangles)
    triangles.reserveCapacity(2 * (columns - 1) * (rows - 1))
    var made = 0
    func add(_ a: Int, _ b: Int, _ c: Int) {
      let plane = planes?[made]
      made += 1
      if let t = Self.setUp(
        positions[a], colors[a], positions[b], colors[b], positions[c], colors[c], height, plane: plane)
      {
        triangles.append(t)
      }
    }
    for gy in 0..<rows - 1 {
      for gx in 0..<columns - 1 {
        let a = gy * columns + gx, b = a + 1, c = a + columns + 1, d = a + columns
        add(a, b, c)
        add(a, c, d)
      }
    }
    self.triangles = triangles
    var spans = storage.take(\.spans)
    spans.append(contentsOf: triangles.lazy.map { SIMD2($0.yStart, $0.yEnd) })
    self.spans = spans
  }

  /// Gives the triangles' arrays back to `storage` for the next mesh: once this object is gone
  /// they are the storage's alone.
  deinit {
    storage?.triangles.append(triangles)
    storage?.spans.append(spans)
  }

  /// Whether the grid of `positions` tiles the `width` x `height` rectangle (`tiles`).
  static func tile(_ positions: [Point], columns: Int, rows: Int, width: Float, height: Float) -> Bool {
    guard columns > 1, rows > 1 else { return false }
    func at(_ x: Int, _ y: Int) -> Point { positions[y * columns + x] }
    for p in positions where !(p.x >= 0 && p.x <= width && p.y >= 0 && p.y <= height) { return false }
    for x in 0..<columns where at(x, 0).y != 0 || at(x, rows - 1).y != height { return false }
    for y in 0..<rows where at(0, y).x != 0 || at(columns - 1, y).x != width { return false }
    guard at(0, 0).x == 0, at(columns - 1, 0).x == width, at(0, rows - 1).x == 0, at(columns - 1, rows - 1).x == width
    else { return false }
    // Every triangle of the grid (as `init` makes them) turns the same way as the first.
    func turn(_ a: Point, _ b: Point, _ c: Point) -> Float {
      let e1 = b - a, e2 = c - a
      return e1.x * e2.y - e2.x * e1.y
    }
    let sign: Float = turn(at(0, 0), at(1, 0), at(1, 1)) > 0 ? 1 : -1
    for gy in 0..<rows - 1 {
      for gx in 0..<columns - 1 {
        let (a, b, c, d) = (at(gx, gy), at(gx + 1, gy), at(gx + 1, gy + 1), at(gx, gy + 1))
        guard turn(a, b, c) * sign > 0, turn(a, c, d) * sign > 0 else { return false }
      }
    }
    return true
  }

  /// The color plane of a triangle, c(x, y) = c0 + gx (x - p0.x) + gy (y - p0.y); nil when
  /// the triangle has no area.
  static func plane(
    _ p0: Point, _ c0: Pixel, _ p1: Point, _ c1: Pixel, _ p2: Point, _ c2: Pixel
  ) -> (gx: Pixel, gy: Pixel)? {
    let e1 = p1 - p0, e2 = p2 - p0
    let det = e1.x * e2.y - e2.x * e1.y
    guard det != 0, det.isFinite else { return nil }
    let d1 = c1 - c0, d2 = c2 - c0
    let inv = 1 / det
    let gx = (d1 * e2.y - d2 * e1.y) * inv
    let gy = (d2 * e1.x - d1 * e2.x) * inv
    // A sliver thinner than a millionth of a pixel has a color slope to match, which overflows
    // over a row: such a triangle is flat (per triangle, never per pixel).
    let steep = Pixel(repeating: 1000), flat = Pixel(repeating: -1000)
    if !all((gx .<= steep) .& (gx .>= flat)) || !all((gy .<= steep) .& (gy .>= flat)) {  // NaN too
      return (.zero, .zero)
    }
    return (gx, gy)
  }

  /// The triangle's color plane (`plane` when it was computed already), edges and rows, nil
  /// when it paints no row.
  private static func setUp(
    _ p0: Point, _ c0: Pixel, _ p1: Point, _ c1: Pixel, _ p2: Point, _ c2: Pixel, _ height: Int,
    plane known: (gx: Pixel, gy: Pixel)?
  ) -> Triangle? {
    guard let (gx, gy) = known ?? plane(p0, c0, p1, c1, p2, c2) else { return nil }
    // Sort by y: top, middle, bottom.
    var (t, m, b) = (p0, p1, p2)
    if m.y < t.y { swap(&t, &m) }
    if b.y < m.y { swap(&m, &b) }
    if m.y < t.y { swap(&t, &m) }
    let yStart = TriangleFill.ceiling(t.y - 0.5, limit: height)
    let yEnd = TriangleFill.ceiling(b.y - 0.5, limit: height)
    let ySplit = TriangleFill.ceiling(m.y - 0.5, limit: height)  // the first row whose center is at or below m
    guard max(yStart, 0) < yEnd else { return nil }
    return Triangle(
      c0: c0, gx: gx, gy: gy, p0: p0, long: .init(t, b), upper: .init(t, m), lower: .init(m, b),
      yStart: Int32(yStart), ySplit: Int32(ySplit), yEnd: Int32(yEnd))
  }

  /// The triangles that paint some of each chunk of `rows` (`chunkRows` rows from its start), in
  /// order: chunk `k`'s are `indices[offsets[k]..<offsets[k + 1]]`. A triangle of a band is
  /// looked at once a band here, and then only by the chunks it reaches.
  func chunks(_ rows: Range<Int>, chunkRows: Int) -> (offsets: [Int], indices: [Int32]) {
    let (lo, hi) = (Int32(clamping: rows.lowerBound), Int32(clamping: rows.upperBound))
    let size = Int32(chunkRows)
    let count = (rows.count + chunkRows - 1) / chunkRows
    var offsets = [Int](repeating: 0, count: count + 1)
    var indices: [Int32] = []
    spans.withUnsafeBufferPointer { spans in
      // Counted first, then placed: one array for all chunks.
      for s in spans where s.x < hi && s.y > lo {
        let (first, last) = ((max(s.x, lo) - lo) / size, (min(s.y, hi) - 1 - lo) / size)
        for k in first...last { offsets[Int(k) + 1] += 1 }
      }
      for k in 0..<count { offsets[k + 1] += offsets[k] }
      indices = [Int32](repeating: 0, count: offsets[count])
      var next = offsets
      for (i, s) in spans.enumerated() where s.x < hi && s.y > lo {
        let (first, last) = ((max(s.x, lo) - lo) / size, (min(s.y, hi) - 1 - lo) / size)
        for k in Int(first)...Int(last) {
          indices[next[k]] = Int32(i)
          next[k] += 1
        }
      }
    }
    return (offsets, indices)
  }

  /// Where a triangle's row `y` starts and ends (`x0..<x1`, empty when x1 <= x0) and its color
  /// at the first pixel's center.
  @inline(__always)
  private static func row(_ t: Triangle, _ y: Int, width: Int) -> (x0: Int, x1: Int, color: Pixel) {
    let yc = Float(y) + 0.5
    let xa = t.long.x(at: yc)
    let (xu, xl) = (t.upper.x(at: yc), t.lower.x(at: yc))
    let xb = y < Int(t.ySplit) ? xu : xl  // both computed: a select, not a branch
    let x0 = max(TriangleFill.ceilingSelect(min(xa, xb) - 0.5, limit: width), 0)
    let x1 = TriangleFill.ceilingSelect(max(xa, xb) - 0.5, limit: width)
    let color = t.c0 + t.gx * (Float(x0) + 0.5 - t.p0.x) + t.gy * (yc - t.p0.y)
    return (x0, x1, color)
  }

  /// `paint` of opaque triangles whose rows are a few pixels long (a mesh's samples,
  /// `MeshSamples`): a row at a time in one loop, nothing else kept. The same pixels as `paint`:
  /// each row's colors are the same chain of additions.
  func fill(_ indices: ArraySlice<Int32>, rows: Range<Int>, into pixels: UnsafeMutablePointer<Pixel>) {
    let (lo, hi) = (Int32(clamping: rows.lowerBound), Int32(clamping: rows.upperBound))
    let width = self.width
    triangles.withUnsafeBufferPointer { all in
      let base = all.baseAddress!
      for index in indices {
        let t = base + Int(index)
        var y = Int(max(t.pointee.yStart, lo))
        let last = Int(min(t.pointee.yEnd, hi))
        let step = t.pointee.gx
        while y < last {
          let (x0, x1, start) = Self.row(t.pointee, y, width: width)
          let row = pixels + (y - rows.lowerBound) * width
          var color = start
          var x = x0
          while x < x1 {
            row[x] = color
            color += step
            x += 1
          }
          y += 1
        }
      }
    }
  }

  /// Paints the triangles `indices` over `rows` into `pixels`, the first of those rows, in
  /// order; returns the pixels touched. Two rows of a triangle are painted in one loop: each
  /// row's colors are a chain of additions, and two chains keep the adder busy.
  func paint(_ indices: ArraySlice<Int32>, rows: Range<Int>, into pixels: UnsafeMutablePointer<Pixel>) -> IntRect {
    let (lo, hi) = (Int32(clamping: rows.lowerBound), Int32(clamping: rows.upperBound))
    let width = self.width, opaque = self.opaque
    var touched = IntRect.empty
    triangles.withUnsafeBufferPointer { all in
      for index in indices {
        let t = all[Int(index)]
        let (first, last) = (Int(max(t.yStart, lo)), Int(min(t.yEnd, hi)))
        guard first < last else { continue }
        var xMin = Int.max, xMax = Int.min
        var y = first
        while y < last {
          let a = Self.row(t, y, width: width)
          let rowA = pixels + (y - rows.lowerBound) * width
          if a.x0 < a.x1 {
            xMin = min(xMin, a.x0)
            xMax = max(xMax, a.x1)
          }
          if y + 1 < last {
            let b = Self.row(t, y + 1, width: width)
            if b.x0 < b.x1 {
              xMin = min(xMin, b.x0)
              xMax = max(xMax, b.x1)
            }
            TriangleFill.spans(
              rowA + a.x0, count: a.x1 - a.x0, from: a.color, rowA + width + b.x0, count: b.x1 - b.x0,
              from: b.color, step: t.gx, opaque: opaque)
          } else if a.x0 < a.x1 {
            TriangleFill.span(rowA + a.x0, count: a.x1 - a.x0, from: a.color, step: t.gx, opaque: opaque)
          }
          y += 2
        }
        if xMin < xMax {
          // From the first row drawn, not the triangle's first: that is -1 for a triangle
          // reaching above the layer, and a dirty row -1 sent the streamed blur one row before
          // the pixels (the raster fuzzer's heap corruption).
          touched = touched.union(IntRect(x: xMin, y: first, width: xMax - xMin, height: last - first))
        }
      }
    }
    return touched
  }
}

/// The last meshes a band surface tessellated (`MeshRaster.draw`), reused by the next bands of the
/// frame while the mesh, its frame and transform and the layer's size are the same bits: two, for
/// a crossfade's two moments. It also holds the scratch rows a crossfade is mixed from.
final class MeshTessellations {
  private var entries: [(key: [UInt32], colors: [Color], prepared: PreparedMesh)] = []
  /// The large buffers of meshes, handed from one frame's mesh to the next.
  let storage = MeshStorage()
  private var scratch: [UnsafeMutablePointer<Pixel>] = []
  private var scratchCount = 0
  static let kept = 2

  static func key(_ mesh: MeshGradient, _ frame: Rect, _ t: Transform, _ layer: Layer, sampling: Bool) -> [UInt32] {
    var k: [UInt32] = [UInt32(mesh.width), UInt32(mesh.height), mesh.smoothsColors ? 1 : 0, sampling ? 1 : 0]
    k += [UInt32(truncatingIfNeeded: layer.width), UInt32(truncatingIfNeeded: layer.height)]
    for v in [frame.x, frame.y, frame.width, frame.height, t.a, t.b, t.c, t.d, t.tx, t.ty] { k.append(v.bitPattern) }
    for p in mesh.points { k += [p.x.bitPattern, p.y.bitPattern] }
    return k
  }

  func find(_ key: [UInt32], _ meshColors: [Color]) -> PreparedMesh? {
    entries.first { $0.key == key && $0.colors == meshColors }?.prepared
  }

  func store(_ key: [UInt32], _ meshColors: [Color], _ prepared: PreparedMesh) {
    if entries.count >= Self.kept { entries.removeFirst() }
    entries.append((key, meshColors, prepared))
  }

  /// `count` buffers of at least `pixels` pixels each, reused from call to call.
  func rows(_ pixels: Int, count: Int) -> [UnsafeMutablePointer<Pixel>] {
    if pixels > scratchCount || scratch.count < count {
      for p in scratch { p.deallocate() }
      scratchCount = max(pixels, scratchCount)
      scratch = (0..<max(count, scratch.count)).map { _ in
        let p = UnsafeMutablePointer<Pixel>.allocate(capacity: scratchCount)
        p.initialize(repeating: .zero, count: scratchCount)
        return p
      }
    }
    return Array(scratch.prefix(count))
  }

  deinit { for p in scratch { p.deallocate() } }
}

/// How the mesh's triangles are filled (`MeshTriangles.paint`): with linearly varying color at
/// pixel centers, top-left rule: a pixel belongs to a triangle when its center lies inside, or on
/// a left or top edge. The x where an edge crosses a row is computed from the edge's endpoints in
/// one fixed order, so two triangles sharing an edge agree on it to the bit and split its pixels
/// without gap or overlap.
enum TriangleFill {
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

  /// `ceiling` with no branch to mispredict (the edges of a mesh's rows round up or not at
  /// random): the clamped value rounded up as a float (one instruction on x86-64-v3), then
  /// converted. The same whole number as `ceiling`.
  @inline(__always) static func ceilingSelect(_ v: Float, limit: Int) -> Int {
    let c: Float = v > -1 ? (v < Float(limit) ? v : Float(limit)) : -1  // the same two compares; NaN is -1
    return Int(c.rounded(.up))
  }

  /// Two spans painted in one loop, as `span` each: `count` pixels from `start` and `otherCount`
  /// from `other`, both stepping by `step`.
  @inline(never)
  static func spans(
    _ start: UnsafeMutablePointer<Pixel>, count: Int, from color: Pixel, _ other: UnsafeMutablePointer<Pixel>,
    count otherCount: Int, from otherColor: Pixel, step: Pixel, opaque: Bool
  ) {
    var (a, b) = (color, otherColor)
    let both = max(min(count, otherCount), 0)
    if opaque {
      for x in 0..<both {
        start[x] = a
        other[x] = b
        a += step
        b += step
      }
    } else {
      for x in 0..<both {
        start[x] = SourceOverKernel.blend(a, start[x])
        other[x] = SourceOverKernel.blend(b, other[x])
        a += step
        b += step
      }
    }
    if count > both { span(start + both, count: count - both, from: a, step: step, opaque: opaque) }
    if otherCount > both { span(other + both, count: otherCount - both, from: b, step: step, opaque: opaque) }
  }

  /// Paints `count` pixels from `start` with `color`, then `color + step`, and so on. Out of line
  /// on purpose: inlined into `MeshTriangles.paint`, the compiler kept the color's lanes in pieces and put
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
}
