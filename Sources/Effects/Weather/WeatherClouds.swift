import Foundation
import Raster
import Timing

// MARK: - Clouds

/// Soft clouds in three bands, the higher ones slower, drifting to the right in any layout.
enum WeatherClouds {
  static let count = 7
  /// The soft ellipses that make up one cloud, filled as one path.
  static let puffs = 4
  /// Each cloud's blur, in points.
  static let blur: Float = 28

  /// The clouds' canvas, faded by `opacity`, each cloud filled with `color` at `alpha`.
  ///
  /// Clouds are soft and slow: a loop plan may crossfade them over the end of the loop, so they
  /// are drawn once per clock sample and mixed.
  static func draw(
    in context: GraphicsContext, opacity: Double, size: (width: Double, height: Double),
    clock: Clock, color: Color, alpha: Double
  ) {
    var faded = context
    faded.opacity *= opacity
    faded.drawSoftLayer("clouds", clock: clock, isolated: true) {
      drawClouds(in: &$0, size: size, clock: $1, color: color.opacity(alpha))
    }
  }

  /// Where cloud `index` starts, its left edge in points, at the clock's time.
  static func x(of index: Int, width: Double, clock: Clock) -> Double {
    let cloudWidth = width * 0.9
    let band = Double(index % 3)
    let travel = width + cloudWidth
    let moved = clock.phase(
      8 + band * 7, period: travel, layer: "clouds", name: "cloud\(index).x", soft: true,
      kind: .wrap)
    return WeatherMath.wrap(WeatherMath.noise(index, .x) * travel + moved, over: travel) - cloudWidth
  }

  private static func drawClouds(
    in layer: inout GraphicsContext, size: (width: Double, height: Double),
    clock: Clock, color: Color
  ) {
    layer.addFilter(.blur(radius: blur))
    let cloudWidth = size.width * 0.9
    for index in 0..<count {
      let band = Double(index % 3)
      let x = x(of: index, width: size.width, clock: clock)
      let y = size.height * (0.05 + band * 0.12) + WeatherMath.noise(index, .y) * 40
      var cloud = Path()
      for puff in 0..<puffs {
        let seed = index * puffs + puff
        let puffWidth = cloudWidth * (0.35 + WeatherMath.noise(seed, .size) * 0.25)
        let puffX = x + cloudWidth * Double(puff) * 0.18
        let puffY = y + WeatherMath.noise(seed, .offset) * 36 - 18
        cloud.addEllipse(in: Rect(x: puffX, y: puffY, width: puffWidth, height: puffWidth * 0.42))
      }
      layer.fill(cloud, with: .color(color))
    }
  }
}
