import Foundation
import Raster
import Timing

// MARK: - Fog

/// Wide, heavily blurred bands that drift slowly across the lower sky, in turn left and right.
enum WeatherFog {
  static let bands = 8
  /// Each band's blur, in points.
  static let blur: Float = 30

  /// The fog's canvas, faded by `opacity`. Fog is soft and slow: a loop plan may crossfade it over
  /// the end of the loop, so it is drawn once per clock sample and mixed.
  static func draw(
    in context: GraphicsContext, opacity: Double, size: (width: Double, height: Double),
    clock: Clock
  ) {
    var faded = context
    faded.opacity *= opacity
    faded.drawSoftLayer("fog", clock: clock, isolated: true) { drawBands(in: &$0, size: size, clock: $1) }
  }

  private static func drawBands(
    in layer: inout GraphicsContext, size: (width: Double, height: Double),
    clock: Clock
  ) {
    layer.addFilter(.blur(radius: blur))
    let bandWidth = size.width * 1.6
    let travel = size.width + bandWidth
    for index in 0..<bands {
      let direction: Double = index.isMultiple(of: 2) ? 1 : -1
      let moved = clock.phase(
        (5 + Double(index) * 2) * direction, period: travel, layer: "fog",
        name: "band\(index).x", soft: true, kind: .wrap)
      let x = WeatherMath.wrap(WeatherMath.noise(index, .x) * travel + moved, over: travel) - bandWidth
      let y = size.height * (0.18 + Double(index) * 0.1)
      let band = Path(ellipseIn: Rect(x: x, y: y, width: bandWidth, height: size.height * 0.14))
      layer.fill(band, with: .color(.white.opacity(0.5)))
    }
  }
}
