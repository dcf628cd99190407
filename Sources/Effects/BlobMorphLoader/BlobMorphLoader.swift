import Foundation
import Raster
import Timing

/// A soft gradient blob that keeps changing shape while content loads.
///
/// With Reduce Motion on, it shows one still blob.
public struct BlobMorphLoader: Effect {
  public static let info = EffectInfo(
    name: "blob-morph-loader",
    summary: "A soft gradient blob that keeps changing shape while content loads.",
    parameters: [
      ParameterSpec(
        "colors", .colors(min: 1, max: 16),
        default: .colors([.system(.pink), .system(.purple), .system(.indigo)]),
        help: "The colors of the gradient across the blob."),
      ParameterSpec(
        "size", .number(8...4000), default: .number(96),
        help: "The side of the loader's square canvas in points, centered in the video."),
      ParameterSpec("speed", .number(0...10), default: .number(1), help: "How fast the blob changes shape."),
    ],
    isTransparent: true,
    defaultSize: (96, 96))

  /// The colors of the gradient across the blob, first to last.
  public var colors: [Color]
  /// The side of the loader's square canvas in points.
  public var size: Double
  /// How fast the blob changes shape; 0 holds it still.
  public var speed: Double

  public init(values: ParameterValues, environment: RenderEnvironment) {
    colors = values.colors("colors", environment)
    size = values.number("size")
    speed = values.number("speed")
  }

  public func draw(in context: inout GraphicsContext, clock: Clock) {
    let side = size.isFinite && size > 0 ? size : 96
    // The canvas is `size` points square, centered in the video, and clips what it draws:
    // the glow stops at its edges (docs/SWIFTUI-SEMANTICS.md, The graphics context).
    var canvas = context
    canvas.translateBy(x: (context.size.width - side) / 2, y: (context.size.height - side) / 2)
    canvas.clip(to: Path(rect: Rect(x: 0, y: 0, width: side, height: side)))
    let blob = BlobMorphLoaderMath.path(side: side, clock: clock, speed: speed)
    let shading = BlobMorphLoaderMath.shading(colors: colors, side: side, clock: clock, speed: speed)

    var glow = canvas
    glow.addFilter(.blur(radius: Float(side * 0.08)))
    glow.opacity = 0.55
    glow.fill(blob, with: shading)

    canvas.fill(blob, with: shading)
  }
}

// MARK: - Math

/// The blob's outline and gradient, as pure functions of the canvas side and the clock.
public enum BlobMorphLoaderMath {
  /// How many radii the outline passes near.
  public static let pointCount = 16
  static let layer = "blob"

  /// The outline's radius at each of its points, in points, for a canvas `side` points square:
  /// a base of 0.31 side swelling by a sum of three moving sine waves, so within ±32 % of it.
  public static func radii(side: Double, clock: Clock, speed: Double) -> [Double] {
    let base = side * 0.31
    let two = clock.phase(speed * 1.4, period: 2 * .pi, layer: layer, name: "swell.2")
    let three = clock.phase(speed * 1.1, period: 2 * .pi, layer: layer, name: "swell.3")
    let five = clock.phase(speed * 0.7, period: 2 * .pi, layer: layer, name: "swell.5")
    return (0..<pointCount).map { index in
      let angle = angle(index)
      let swell = 0.16 * sin(2 * angle + two) + 0.10 * sin(3 * angle - three) + 0.06 * sin(5 * angle + five)
      return base * (1 + swell)
    }
  }

  /// The direction of point `index` around the center, in radians clockwise from the right.
  static func angle(_ index: Int) -> Double { Double(index) / Double(pointCount) * 2 * .pi }

  /// The points the outline passes near, in canvas points.
  public static func points(side: Double, clock: Clock, speed: Double) -> [Point] {
    let center = side / 2
    return radii(side: side, clock: clock, speed: speed).enumerated().map { index, radius in
      Point(center + cos(angle(index)) * radius, center + sin(angle(index)) * radius)
    }
  }

  /// A closed curve through the midpoints between neighbouring points, each point its control:
  /// a smooth closed quadratic B-spline.
  public static func path(side: Double, clock: Clock, speed: Double) -> Path {
    let points = points(side: side, clock: clock, speed: speed)
    let n = points.count
    var path = Path()
    path.move(to: (points[n - 1] + points[0]) / 2)
    for index in 0..<n {
      let next = points[(index + 1) % n]
      path.addQuadCurve(to: (points[index] + next) / 2, control: points[index])
    }
    path.closeSubpath()
    return path
  }

  /// A gradient whose direction turns slowly, so the color drifts across the blob: from
  /// center − offset to center + offset, offset 0.4 side long at angle 0.6 t.
  public static func shading(colors: [Color], side: Double, clock: Clock, speed: Double) -> Shading {
    let angle = clock.phase(speed * 0.6, period: 2 * .pi, layer: layer, name: "gradient")
    let reach = side * 0.4
    let center = Point(side / 2, side / 2)
    let offset = Point(cos(angle) * reach, sin(angle) * reach)
    return .linearGradient(Gradient(colors: colors), start: center - offset, end: center + offset)
  }
}
