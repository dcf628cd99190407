import Foundation
import Raster
import Timing

/// A slowly moving aurora built with a mesh gradient.
///
/// With Reduce Motion on, it shows a still gradient.
public struct AuroraMesh: Effect {
  public static let info = EffectInfo(
    name: "aurora-mesh",
    summary: "A slowly moving aurora built with a mesh gradient.",
    parameters: [
      ParameterSpec(
        "first", .color, default: .color(.system(.indigo)),
        help: "The color of the corners and most of the edges."),
      ParameterSpec("second", .color, default: .color(.system(.purple)), help: "The color at the center and between."),
      ParameterSpec("third", .color, default: .color(.system(.teal)), help: "The color of two far corners."),
      ParameterSpec("speed", .number(0...10), default: .number(0.6), help: "How fast the aurora moves."),
    ],
    isTransparent: false)

  /// The color of the corners and most of the edges.
  public var first: Color
  /// The color at the center, and between the first color's points.
  public var second: Color
  /// The color of the left edge's middle and the bottom right corner.
  public var third: Color
  /// How fast the aurora moves; 0 holds it still.
  public var speed: Double

  public init(values: ParameterValues, environment: RenderEnvironment) {
    first = values.color("first", environment)
    second = values.color("second", environment)
    third = values.color("third", environment)
    speed = values.number("speed")
  }

  public func draw(in context: inout GraphicsContext, clock: Clock) {
    let colors = [first, second, first, third, second, first, second, first, third]
    // The mesh has no edge anywhere: two moments of it mixed are one smooth gradient again, with
    // no ghost, so a loop may crossfade it where its slow, unrelated rates cannot be kept whole.
    context.drawSoftMesh(AuroraMeshMath.layer, clock: clock) { mesh(colors: colors, clock: $0) }
  }

  private func mesh(colors: [Color], clock: Clock) -> MeshGradient {
    MeshGradient(
      width: AuroraMeshMath.size, height: AuroraMeshMath.size,
      points: AuroraMeshMath.points(clock: clock, speed: speed), colors: colors)
  }
}

// MARK: - Math

/// Where the mesh's points are, as pure functions of the clock.
public enum AuroraMeshMath {
  /// Points per side of the mesh.
  public static let size = 3
  /// The loop-plan layer every wave of the mesh belongs to.
  static let layer = "mesh"

  /// The mesh's nine points in unit coordinates, row after row. Corners stay fixed and edge points
  /// slide along their edge, so the mesh always fills the view; the seed multiplies time by
  /// `speed` before each wave's own rate, and the clock sees the product.
  public static func points(clock: Clock, speed: Double) -> [Point] {
    func wave(_ rate: Double, phase: Double, _ name: String) -> Double {
      let angle = clock.phase(speed * rate, period: 2 * .pi, layer: layer, name: name, soft: true)
      return 0.5 + sin(angle + phase) * 0.2
    }
    let positions: [(Double, Double)] = [
      (0, 0), (wave(0.8, phase: 2.1, "top.x"), 0), (1, 0),
      (0, wave(0.9, phase: 0, "left.y")),
      (wave(1, phase: 0.7, "center.x"), wave(0.6, phase: 4.2, "center.y")),
      (1, wave(0.7, phase: 1.3, "right.y")),
      (0, 1), (wave(1.1, phase: 3.4, "bottom.x"), 1), (1, 1),
    ]
    return positions.map { Point($0.0, $0.1) }
  }
}
