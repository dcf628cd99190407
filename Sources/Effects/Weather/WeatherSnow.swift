import Foundation
import Raster
import Timing

// MARK: - Snow

/// Flakes in two depths that fall slowly and sway from side to side.
enum WeatherSnow {
  static let count = 130

  static func draw(in context: inout GraphicsContext, size: (width: Double, height: Double), clock: Clock) {
    var near = Path()
    var far = Path()
    let travel = size.height + 20
    let nearFall = clock.phase(50, period: travel, layer: "snow.near", name: "y", kind: .wrap)
    let farFall = clock.phase(25, period: travel, layer: "snow.far", name: "y", kind: .wrap)
    for index in 0..<count {
      let isNear = index % 3 == 0
      let depth = isNear ? 1.0 : 0.5
      let y = WeatherMath.wrap(WeatherMath.noise(index, .y) * travel + (isNear ? nearFall : farFall), over: travel) - 10
      let swayRate = 0.5 + WeatherMath.noise(index, .speed)
      let swayPhase = clock.phase(
        swayRate, period: 2 * .pi, layer: isNear ? "snow.near" : "snow.far",
        name: "flake\(index).sway")
      let sway = sin(swayPhase + WeatherMath.noise(index, .phase) * 2 * .pi) * 14 * depth
      let x = WeatherMath.noise(index, .x) * size.width + sway
      let radius = (1.3 + WeatherMath.noise(index, .size) * 2) * depth
      let box = Rect(center: Point(x, y), radius: Float(radius))
      // Same-direction ellipses in one path fill their union: overlapping flakes do not darken.
      if isNear { near.addEllipse(in: box) } else { far.addEllipse(in: box) }
    }
    context.fill(far, with: .color(.white.opacity(0.55)))
    context.fill(near, with: .color(.white.opacity(0.9)))
  }
}
