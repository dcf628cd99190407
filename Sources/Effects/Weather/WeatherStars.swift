import Foundation
import Raster
import Timing

// MARK: - Stars

/// Small stars over the upper part of the night sky, each twinkling at its own pace.
enum WeatherStars {
  static let count = 120
  /// The stars' motion names, made once rather than once a star a band.
  static let twinkles = (0..<count).map { "star\($0).twinkle" }

  static func draw(in context: inout GraphicsContext, size: (width: Double, height: Double), clock: Clock) {
    for index in 0..<count {
      let x = WeatherMath.noise(index, .x) * size.width
      let y = WeatherMath.noise(index, .y) * size.height * 0.7
      let radius = 0.5 + WeatherMath.noise(index, .size) * 1.3
      let box = Rect(center: Point(x, y), radius: Float(radius))
      // A star a band of rows does not reach costs it nothing: not even its twinkle.
      if context.missesBand(box) { continue }
      let rate = 0.8 + WeatherMath.noise(index, .speed) * 1.6
      let phase = clock.phase(rate, period: 2 * .pi, layer: "stars", name: twinkles[index])
      let twinkle = 0.55 + 0.45 * sin(phase + Double(index))
      let star = Path(ellipseIn: box)
      context.fill(star, with: .color(.white.opacity(twinkle)))
    }
  }
}
