import Foundation
import Raster
import Timing

// MARK: - Sun

/// A glow in the top trailing corner with slow rays turning around it.
enum WeatherSun {
  /// The side of the sun's square canvas, in points.
  static let diameter = 520.0
  /// Rays around the glow.
  static let rays = 14
  /// The rays' blur, in points.
  static let rayBlur: Float = 12

  /// The center of the sun's canvas, in points.
  ///
  /// The seed stacks `Color.clear` (the screen's size) and the 520-point canvas in a
  /// `ZStack(alignment: .topTrailing)`, then offsets the canvas by (0.32, -0.32) of its side. A
  /// ZStack is as large as its largest child, and its parent centers a child larger than the
  /// space it offered, so on a screen narrower (or lower) than 520 points the stack overflows both
  /// sides equally and the corner the canvas is pinned to lies outside the screen:
  /// x = W - 93.6 from 520 points wide up, W / 2 + 166.4 below (360 points: 346.4), and
  /// y = 93.6 from 520 points high up, H / 2 - 166.4 below. Right to left, trailing is the left
  /// edge and the offset mirrors with it: x = 93.6, or W / 2 - 166.4 (docs/SWIFTUI-SEMANTICS.md,
  /// Layout).
  static func center(width: Double, height: Double, rightToLeft: Bool) -> (x: Double, y: Double) {
    let stack = FixedFrameLayout(child: (diameter, diameter), container: (width, height))
    let offset = diameter * 0.32
    let trailing = stack.maxX - diameter / 2 + offset  // from the left edge, left to right
    let y = stack.minY + diameter / 2 - offset
    return (rightToLeft ? width - trailing : trailing, y)
  }

  static func draw(
    in context: GraphicsContext, opacity: Double, size: (width: Double, height: Double),
    clock: Clock, rightToLeft: Bool
  ) {
    let c = center(width: size.width, height: size.height, rightToLeft: rightToLeft)
    let radius = diameter / 2
    Weather.canvas(context, opacity) { canvas in
      // The canvas has a backing store of its own size: nothing spreads past it
      // (docs/SWIFTUI-SEMANTICS.md, The graphics context).
      canvas.clip(to: Path(rect: Rect(x: c.x - radius, y: c.y - radius, width: diameter, height: diameter)))
      let turn = clock.phase(0.05, period: 2 * .pi, layer: "sun", name: "rotation")
      let shimmer = clock.phase(0.8, period: 2 * .pi, layer: "sun", name: "shimmer")
      canvas.drawLayer { rayContext in
        rayContext.addFilter(.blur(radius: rayBlur))
        rayContext.translateBy(x: c.x, y: c.y)
        rayContext.rotate(by: turn)
        for ray in 0..<rays {
          let angle = Double(ray) / Double(rays) * 2 * .pi
          let spread = 0.07 + WeatherMath.noise(ray, .size) * 0.05
          let length = radius * (0.7 + WeatherMath.noise(ray, .extra) * 0.3)
          var wedge = Path()
          wedge.move(to: Point(0.0, 0.0))
          wedge.addLine(to: Point(cos(angle - spread) * length, sin(angle - spread) * length))
          wedge.addLine(to: Point(cos(angle + spread) * length, sin(angle + spread) * length))
          wedge.closeSubpath()
          let alpha = 0.10 + 0.06 * sin(shimmer + Double(ray))
          rayContext.fill(wedge, with: .color(.white.opacity(alpha)))
        }
      }
      let glow = Gradient(colors: [
        .white.opacity(0.9), Color(red: 1, green: 0.93, blue: 0.7).opacity(0.45), .clear,
      ])
      let center = Point(c.x, c.y)
      canvas.fill(
        Path(ellipseIn: Rect(center: center, radius: Float(radius))),
        with: .radialGradient(glow, center: center, startRadius: 0, endRadius: Float(radius * 0.56)))
    }
  }
}
