import Foundation
import Raster
import Timing

// MARK: - Lightning

/// A flash over the whole sky and, at its brightest, a jagged bolt from the top.
enum WeatherLightning {
  /// The width of the blue glow around a bolt, and how far it blurs, in points.
  static let glowWidth = 6.0
  /// The flash above which the bolt shows.
  static let boltThreshold = 0.3

  static func draw(in context: inout GraphicsContext, size: (width: Double, height: Double), clock: Clock) {
    let (moment, cycle) = WeatherMath.lightning(clock)
    let flash = WeatherMath.flash(at: moment)
    guard flash > 0 else { return }
    context.fill(
      Path(rect: Rect(x: 0, y: 0, width: size.width, height: size.height)),
      with: .color(.white.opacity(flash * 0.45)))

    guard flash > boltThreshold else { return }
    let bolt = self.bolt(cycle: cycle, size: size)
    context.drawLayer { glow in
      glow.addFilter(.blur(radius: Float(glowWidth)))
      glow.stroke(bolt, with: .color(Color(red: 0.75, green: 0.8, blue: 1).opacity(flash)), lineWidth: glowWidth)
    }
    context.stroke(bolt, with: .color(.white.opacity(flash)), lineWidth: 2)
  }

  /// The bolt of one cycle of the schedule: nine jagged steps down from a point near the top.
  static func bolt(cycle: Int, size: (width: Double, height: Double)) -> Path {
    var x = size.width * (0.2 + WeatherMath.noise(cycle, .x) * 0.6)
    var y = 0.0
    var bolt = Path()
    bolt.move(to: Point(x, y))
    for step in 0..<9 {
      x += (WeatherMath.noise(cycle * 10 + step, .offset) - 0.5) * 60
      y += size.height * 0.065
      bolt.addLine(to: Point(x, y))
    }
    return bolt
  }
}
