import Foundation

/// A point or vector in a drawing's coordinates: x to the right, y down.
public typealias Point = SIMD2<Float>

extension SIMD2 where Scalar == Float {
  /// A point from Double coordinates, the effects' math type.
  @_disfavoredOverload @inlinable public init(_ x: Double, _ y: Double) { self.init(Float(x), Float(y)) }
}

/// An affine map: `x' = a x + c y + tx`, `y' = b x + d y + ty`, as Core Graphics' CGAffineTransform.
public struct Transform: Hashable, Sendable {
  public var a: Float, b: Float, c: Float, d: Float, tx: Float, ty: Float

  public init(a: Float, b: Float, c: Float, d: Float, tx: Float, ty: Float) {
    (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
  }

  public static let identity = Transform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

  public static func translation(_ x: Float, _ y: Float) -> Transform {
    Transform(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
  }

  public static func scale(_ sx: Float, _ sy: Float) -> Transform {
    Transform(a: sx, b: 0, c: 0, d: sy, tx: 0, ty: 0)
  }

  /// A turn by `radians`; positive angles turn clockwise on screen, since y points down.
  public static func rotation(_ radians: Double) -> Transform {
    let (s, c) = (Float(sin(radians)), Float(cos(radians)))
    return Transform(a: c, b: s, c: -s, d: c, tx: 0, ty: 0)
  }

  /// `other` applied first, then `self`: the order of `translateBy` then `rotate` in a context,
  /// which post-multiply (docs/SWIFTUI-SEMANTICS.md, The graphics context).
  public func concatenating(_ inner: Transform) -> Transform {
    Transform(
      a: a * inner.a + c * inner.b, b: b * inner.a + d * inner.b,
      c: a * inner.c + c * inner.d, d: b * inner.c + d * inner.d,
      tx: a * inner.tx + c * inner.ty + tx, ty: b * inner.tx + d * inner.ty + ty)
  }

  @inline(__always) public func apply(_ p: Point) -> Point {
    Point(a * p.x + c * p.y + tx, b * p.x + d * p.y + ty)
  }

  /// How much the map scales lengths, on average: the square root of its area scale.
  /// Blur radii and line widths drawn through the transform are multiplied by it.
  public var lengthScale: Float { (abs(a * d - b * c)).squareRoot() }

  public var isFinite: Bool {
    a.isFinite && b.isFinite && c.isFinite && d.isFinite && tx.isFinite && ty.isFinite
  }

  public var inverted: Transform? {
    let det = a * d - b * c
    guard det != 0, det.isFinite else { return nil }
    let inv = 1 / det
    let ia = d * inv, ib = -b * inv, ic = -c * inv, id = a * inv
    return Transform(a: ia, b: ib, c: ic, d: id, tx: -(ia * tx + ic * ty), ty: -(ib * tx + id * ty))
  }
}
