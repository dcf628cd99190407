/// A rectangle of whole pixels.
public struct IntRect: Hashable, Sendable {
  public var x: Int, y: Int, width: Int, height: Int
  public init(x: Int, y: Int, width: Int, height: Int) {
    (self.x, self.y, self.width, self.height) = (x, y, max(width, 0), max(height, 0))
  }
  public static let empty = IntRect(x: 0, y: 0, width: 0, height: 0)
  public var isEmpty: Bool { width <= 0 || height <= 0 }
  public var maxX: Int { x + width }
  public var maxY: Int { y + height }

  /// The smallest whole-pixel rectangle holding `lo...hi`, or empty when they are not finite.
  init(covering lo: Point, _ hi: Point) {
    guard lo.x.isFinite, lo.y.isFinite, hi.x.isFinite, hi.y.isFinite else {
      self = .empty
      return
    }
    // Clamp before converting: a point far off-canvas must not overflow Int.
    let big: Float = 16_777_216
    let x0 = Int(min(max(lo.x, -big), big).rounded(.down))
    let y0 = Int(min(max(lo.y, -big), big).rounded(.down))
    let x1 = Int(min(max(hi.x, -big), big).rounded(.up))
    let y1 = Int(min(max(hi.y, -big), big).rounded(.up))
    self.init(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
  }

  public func intersection(_ o: IntRect) -> IntRect {
    let nx = max(x, o.x), ny = max(y, o.y)
    let r = IntRect(x: nx, y: ny, width: min(maxX, o.maxX) - nx, height: min(maxY, o.maxY) - ny)
    return r.isEmpty ? .empty : r
  }

  public func union(_ o: IntRect) -> IntRect {
    if isEmpty { return o }
    if o.isEmpty { return self }
    let nx = min(x, o.x), ny = min(y, o.y)
    return IntRect(x: nx, y: ny, width: max(maxX, o.maxX) - nx, height: max(maxY, o.maxY) - ny)
  }

  public func insetBy(_ d: Int) -> IntRect {
    IntRect(x: x + d, y: y + d, width: width - 2 * d, height: height - 2 * d)
  }

  public func offsetBy(_ dx: Int, _ dy: Int) -> IntRect {
    IntRect(x: x + dx, y: y + dy, width: width, height: height)
  }
}
