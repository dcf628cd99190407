/// Where a stack holding a full-screen child and a fixed-size child lands on the screen, as SwiftUI
/// lays it out.
///
/// A `ZStack` is as large as its largest child, and a parent centers a child that is larger than the
/// space it offered, so the child overflows both edges equally. A stack of the screen's size and a
/// larger fixed frame is therefore `max(screen, frame)` on each axis, centered on the screen: its
/// edges lie outside the screen on an axis where the frame is larger, and on the screen's edges
/// elsewhere (docs/SWIFTUI-SEMANTICS.md, Layout).
struct FixedFrameLayout: Equatable {
  /// The stack's left and right edges, in points from the screen's left edge.
  let minX, maxX: Double
  /// The stack's top and bottom edges, in points from the screen's top edge.
  let minY, maxY: Double

  /// The stack holding a child of the container's size and a child of a fixed size.
  /// A size that is not a number, or negative, counts as 0.
  init(child: (width: Double, height: Double), container: (width: Double, height: Double)) {
    func extent(_ child: Double, _ container: Double) -> (Double, Double) {
      let screen = container.isFinite ? max(container, 0) : 0
      let side = max(screen, child.isFinite ? child : 0)
      let start = (screen - side) / 2
      return (start, start + side)
    }
    (minX, maxX) = extent(child.width, container.width)
    (minY, maxY) = extent(child.height, container.height)
  }
}
