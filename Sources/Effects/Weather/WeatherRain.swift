import Foundation
import Raster
import Timing

// MARK: - Rain

/// Streaks in two depths, the near ones longer and faster, and splashes where they land.
enum WeatherRain {
  /// How far drops look: their length and speed against the near ones.
  static let farDepth = 0.6
  /// The part of each splash's cycle in which it is seen spreading.
  static let splashTime = 0.3
  /// How fast a near drop falls, in points a second.
  static let fallSpeed = 700.0

  static func draw(
    in context: inout GraphicsContext, size: (width: Double, height: Double), clock: Clock,
    drops: Int
  ) {
    var near = Path()
    var far = Path()
    let travel = size.height + 60
    // Every drop of one depth falls at the same rate: one motion per depth.
    let nearFall = clock.phase(fallSpeed, period: travel, layer: "rain.near", name: "y", kind: .wrap)
    let farFall = clock.phase(fallSpeed * farDepth, period: travel, layer: "rain.far", name: "y", kind: .wrap)
    for index in 0..<drops {
      let isNear = index % 3 == 0
      let depth = isNear ? 1 : farDepth
      let y = WeatherMath.wrap(WeatherMath.noise(index, .y) * travel + (isNear ? nearFall : farFall), over: travel) - 30
      let x = WeatherMath.noise(index, .x) * (size.width + 40) - 20
      let length = 18 * depth
      if isNear {
        near.move(to: Point(x, y))
        near.addLine(to: Point(x - length * 0.15, y + length))
      } else {
        far.move(to: Point(x, y))
        far.addLine(to: Point(x - length * 0.15, y + length))
      }
    }
    context.stroke(far, with: .color(.white.opacity(0.22)), lineWidth: 1)
    context.stroke(near, with: .color(.white.opacity(0.5)), lineWidth: 1.4)

    let splashing = clock.phase(1.6, period: 1, layer: "rain.splashes", name: "phase", kind: .wrap)
    for index in 0..<(drops / 4) {
      let phase = WeatherMath.wrap(splashing + WeatherMath.noise(index, .phase), over: 1)
      guard phase < splashTime else { continue }
      let grown = phase / splashTime
      let x = WeatherMath.noise(index, .offset) * size.width
      let y = size.height - 8 - WeatherMath.noise(index, .extra) * 70
      let width = 4 + grown * 14
      let splash = Path(ellipseIn: Rect(x: x - width / 2, y: y - width * 0.12, width: width, height: width * 0.24))
      context.stroke(splash, with: .color(.white.opacity(0.4 * (1 - grown))), lineWidth: 1)
    }
  }
}
