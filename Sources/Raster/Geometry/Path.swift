/// An outline made of straight and curved segments, as SwiftUI's `Path`.
public struct Path: Sendable {
  public enum Element: Sendable, Equatable {
    case move(Point)
    case line(Point)
    case quad(control: Point, to: Point)
    case cubic(control1: Point, control2: Point, to: Point)
    case close
  }

  public private(set) var elements: [Element] = []

  public init() {}

  public init(_ build: (inout Path) -> Void) {
    build(&self)
  }

  /// A closed rectangle, as `Path(CGRect)`.
  public init(rect: Rect) {
    addRect(rect)
  }

  /// An ellipse inscribed in `rect`, as `Path(ellipseIn:)`.
  public init(ellipseIn rect: Rect) {
    addEllipse(in: rect)
  }

  public var isEmpty: Bool { elements.isEmpty }

  public mutating func move(to p: Point) { elements.append(.move(p)) }
  public mutating func addLine(to p: Point) { elements.append(.line(p)) }
  public mutating func addQuadCurve(to p: Point, control: Point) {
    elements.append(.quad(control: control, to: p))
  }
  public mutating func addCurve(to p: Point, control1: Point, control2: Point) {
    elements.append(.cubic(control1: control1, control2: control2, to: p))
  }
  public mutating func closeSubpath() { elements.append(.close) }

  public mutating func addRect(_ r: Rect) {
    move(to: Point(r.minX, r.minY))
    addLine(to: Point(r.maxX, r.minY))
    addLine(to: Point(r.maxX, r.maxY))
    addLine(to: Point(r.minX, r.maxY))
    closeSubpath()
  }

  /// Four cubic Béziers, clockwise on screen from the right-most point, as Core Graphics draws them.
  public mutating func addEllipse(in r: Rect) {
    let kappa: Float = 0.552_284_75
    let (cx, cy) = (r.midX, r.midY)
    let (rx, ry) = (r.width / 2, r.height / 2)
    let (kx, ky) = (rx * kappa, ry * kappa)
    move(to: Point(cx + rx, cy))
    addCurve(to: Point(cx, cy + ry), control1: Point(cx + rx, cy + ky), control2: Point(cx + kx, cy + ry))
    addCurve(to: Point(cx - rx, cy), control1: Point(cx - kx, cy + ry), control2: Point(cx - rx, cy + ky))
    addCurve(to: Point(cx, cy - ry), control1: Point(cx - rx, cy - ky), control2: Point(cx - kx, cy - ry))
    addCurve(to: Point(cx + rx, cy), control1: Point(cx + kx, cy - ry), control2: Point(cx + rx, cy - ky))
    closeSubpath()
  }
}

/// An axis-aligned rectangle, as CGRect.
public struct Rect: Hashable, Sendable {
  public var x: Float, y: Float, width: Float, height: Float

  public init(x: Float, y: Float, width: Float, height: Float) {
    (self.x, self.y, self.width, self.height) = (x, y, width, height)
  }

  @_disfavoredOverload public init(x: Double, y: Double, width: Double, height: Double) {
    self.init(x: Float(x), y: Float(y), width: Float(width), height: Float(height))
  }

  /// A square of side `2 * radius` around `center`, the box of a circle.
  public init(center: Point, radius: Float) {
    self.init(x: center.x - radius, y: center.y - radius, width: 2 * radius, height: 2 * radius)
  }

  public var minX: Float { x }
  public var minY: Float { y }
  public var maxX: Float { x + width }
  public var maxY: Float { y + height }
  public var midX: Float { x + width / 2 }
  public var midY: Float { y + height / 2 }
}
