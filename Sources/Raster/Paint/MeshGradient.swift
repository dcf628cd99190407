/// A grid of colored points whose colors blend smoothly across the curved patches between them,
/// as SwiftUI's `MeshGradient(width:height:points:colors:)` (docs/SWIFTUI-SEMANTICS.md, Mesh gradient).
///
/// Points are unit coordinates of the rectangle the mesh is drawn in, row after row from the top
/// left. Apple documents neither the patch tangents nor the color curves; this mesh uses the
/// recommended reading: edges are cubic Béziers with Catmull-Rom tangents, a patch's inside is
/// the Coons patch of its four edges, and colors are bicubic Hermite in the patch coordinates with
/// Catmull-Rom derivatives and zero twist (bilinear when `smoothsColors` is off), mixed in
/// gamma-encoded sRGB (`.device`). A mesh with too few points or colors for its size draws only
/// its background.
public struct MeshGradient: Sendable {
  /// Points per row.
  public var width: Int
  /// Rows of points.
  public var height: Int
  /// `width * height` points in unit coordinates, row-major.
  public var points: [Point]
  /// `width * height` colors, row-major.
  public var colors: [Color]
  /// What shows where no patch covers (folded or shrunken meshes); `.clear` as in SwiftUI.
  public var background: Color
  /// Colors follow cubic curves between points (SwiftUI's default) rather than straight lines.
  public var smoothsColors: Bool

  public init(
    width: Int, height: Int, points: [Point], colors: [Color], background: Color = .clear,
    smoothsColors: Bool = true
  ) {
    (self.width, self.height, self.points, self.colors) = (width, height, points, colors)
    self.background = background
    self.smoothsColors = smoothsColors
  }

  /// Whether the mesh has at least 2x2 points and a color for each.
  public var isDrawable: Bool {
    width >= 2 && height >= 2 && points.count >= width * height && colors.count >= width * height
  }

  // MARK: - Edges

  /// The cubic Bézier controls of the edge from point `(i, j)` to its right neighbour.
  func rowControls(_ i: Int, _ j: Int) -> (Point, Point, Point, Point) {
    let p0 = point(i, j), p1 = point(i + 1, j)
    let t0 = rowTangent(i, j), t1 = rowTangent(i + 1, j)
    return (p0, p0 + t0 / 3, p1 - t1 / 3, p1)
  }

  /// The cubic Bézier controls of the edge from point `(i, j)` to the one below it.
  func columnControls(_ i: Int, _ j: Int) -> (Point, Point, Point, Point) {
    let p0 = point(i, j), p1 = point(i, j + 1)
    let t0 = columnTangent(i, j), t1 = columnTangent(i, j + 1)
    return (p0, p0 + t0 / 3, p1 - t1 / 3, p1)
  }

  @inline(__always) func point(_ i: Int, _ j: Int) -> Point { points[j * width + i] }

  private func rowTangent(_ i: Int, _ j: Int) -> Point {
    MeshMath.catmullRom(at: i, count: width) { point($0, j) }
  }

  private func columnTangent(_ i: Int, _ j: Int) -> Point {
    MeshMath.catmullRom(at: j, count: height) { point(i, $0) }
  }

  // MARK: - Evaluation

  /// The place of patch `(i, j)` at patch coordinates `(u, v)` in 0...1, in unit coordinates.
  /// On the patch's border it is exactly its edge curve, so neighbouring patches meet without gaps.
  public func position(patch i: Int, _ j: Int, u: Float, v: Float) -> Point {
    Patch(self, i, j).position(u: u, v: v)
  }

  /// The premultiplied color of patch `(i, j)` at patch coordinates `(u, v)` in 0...1.
  public func color(patch i: Int, _ j: Int, u: Float, v: Float) -> Pixel {
    Patch(self, i, j).color(u: u, v: v)
  }

  /// What evaluating patch `(i, j)` reads, gathered once: its four edges' controls, corners,
  /// corner colors and their derivatives. A tessellation evaluates a patch at a thousand places
  /// or more; gathered at every place, they cost four Bézier edges and twenty colors converted to
  /// premultiplied pixels each time.
  struct Patch {
    let top: (Point, Point, Point, Point), bottom: (Point, Point, Point, Point)
    let left: (Point, Point, Point, Point), right: (Point, Point, Point, Point)
    let p00: Point, p10: Point, p01: Point, p11: Point
    let c00: Pixel, c10: Pixel, c01: Pixel, c11: Pixel
    /// The u-derivatives at the corners, then the v-derivatives (corner `xy` is point `(i + x, j + y)`).
    let du00: Pixel, du10: Pixel, du01: Pixel, du11: Pixel
    let dv00: Pixel, dv10: Pixel, dv01: Pixel, dv11: Pixel
    let smooth: Bool

    init(_ mesh: MeshGradient, _ i: Int, _ j: Int) {
      (top, bottom) = (mesh.rowControls(i, j), mesh.rowControls(i, j + 1))
      (left, right) = (mesh.columnControls(i, j), mesh.columnControls(i + 1, j))
      (p00, p10, p01, p11) = (mesh.point(i, j), mesh.point(i + 1, j), mesh.point(i, j + 1), mesh.point(i + 1, j + 1))
      (c00, c10, c01, c11) = (mesh.pixel(i, j), mesh.pixel(i + 1, j), mesh.pixel(i, j + 1), mesh.pixel(i + 1, j + 1))
      smooth = mesh.smoothsColors
      if smooth {
        (du00, du10, du01, du11) = (mesh.du(i, j), mesh.du(i + 1, j), mesh.du(i, j + 1), mesh.du(i + 1, j + 1))
        (dv00, dv10, dv01, dv11) = (mesh.dv(i, j), mesh.dv(i + 1, j), mesh.dv(i, j + 1), mesh.dv(i + 1, j + 1))
      } else {
        (du00, du10, du01, du11) = (.zero, .zero, .zero, .zero)
        (dv00, dv10, dv01, dv11) = (.zero, .zero, .zero, .zero)
      }
    }

    /// `MeshGradient.position(patch:_:u:v:)` of this patch.
    func position(u: Float, v: Float) -> Point {
      let top = MeshMath.bezier(self.top, u)
      if v == 0 { return top }
      let bottom = MeshMath.bezier(self.bottom, u)
      if v == 1 { return bottom }
      let left = MeshMath.bezier(self.left, v)
      if u == 0 { return left }
      let right = MeshMath.bezier(self.right, v)
      if u == 1 { return right }
      // Coons: the two ruled surfaces minus the bilinear one they both contain.
      let ruledV = top * (1 - v) + bottom * v
      let ruledU = left * (1 - u) + right * u
      let bilinear = (p00 * (1 - u) + p10 * u) * (1 - v) + (p01 * (1 - u) + p11 * u) * v
      return ruledV + ruledU - bilinear
    }

    /// `MeshGradient.color(patch:_:u:v:)` of this patch.
    func color(u: Float, v: Float) -> Pixel {
      guard smooth else {
        return (c00 * (1 - u) + c10 * u) * (1 - v) + (c01 * (1 - u) + c11 * u) * v
      }
      let hu = MeshMath.hermite(u), hv = MeshMath.hermite(v)
      // Values, then u-derivatives, then v-derivatives; the twist terms are zero.
      var c = (c00 * hu.h00 + c10 * hu.h01) * hv.h00 + (c01 * hu.h00 + c11 * hu.h01) * hv.h01
      c += (du00 * hu.h10 + du10 * hu.h11) * hv.h00
      c += (du01 * hu.h10 + du11 * hu.h11) * hv.h01
      c += (dv00 * hv.h10 + dv01 * hv.h11) * hu.h00
      c += (dv10 * hv.h10 + dv11 * hv.h11) * hu.h01
      // Hermite curves may overshoot; a coverage above 1 or below 0 means nothing.
      c.w = min(max(c.w, 0), 1)
      return c
    }
  }

  @inline(__always) private func pixel(_ i: Int, _ j: Int) -> Pixel { colors[j * width + i].premultiplied }

  /// Catmull-Rom derivative of the color along a row, per patch width.
  private func du(_ i: Int, _ j: Int) -> Pixel {
    MeshMath.catmullRom(at: i, count: width) { pixel($0, j) }
  }

  private func dv(_ i: Int, _ j: Int) -> Pixel {
    MeshMath.catmullRom(at: j, count: height) { pixel(i, $0) }
  }
}

/// The curve pieces the mesh is made of.
enum MeshMath {
  /// Catmull-Rom: half the step between the neighbours of `k` inside a run of `count` values,
  /// the one-sided step at either end.
  @inline(__always)
  static func catmullRom<V: SIMD>(at k: Int, count: Int, _ value: (Int) -> V) -> V where V.Scalar == Float {
    if k == 0 { return value(1) - value(0) }
    if k == count - 1 { return value(k) - value(k - 1) }
    return (value(k + 1) - value(k - 1)) / 2
  }

  /// The point at `t` of a cubic Bézier, by de Casteljau: lerps keep a coordinate that all four
  /// controls share exact, so an edge on the bounds stays on them to the bit.
  @inline(__always) static func bezier(_ c: (Point, Point, Point, Point), _ t: Float) -> Point {
    @inline(__always) func lerp(_ a: Point, _ b: Point) -> Point { a + (b - a) * t }
    let ab = lerp(c.0, c.1), bc = lerp(c.1, c.2), cd = lerp(c.2, c.3)
    return lerp(lerp(ab, bc), lerp(bc, cd))
  }

  /// The cubic Hermite basis at `t`: weights of the start and end values (h00, h01) and of the
  /// start and end derivatives (h10, h11).
  @inline(__always) static func hermite(_ t: Float) -> (h00: Float, h01: Float, h10: Float, h11: Float) {
    let t2 = t * t, t3 = t2 * t
    return (2 * t3 - 3 * t2 + 1, -2 * t3 + 3 * t2, t3 - 2 * t2 + t, t3 - t2)
  }
}
