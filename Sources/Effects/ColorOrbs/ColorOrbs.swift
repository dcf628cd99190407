import Foundation
import Raster
import Timing

/// Large, soft colored orbs drifting slowly over a dark base.
///
/// With Reduce Motion on, the orbs hold still.
public struct ColorOrbs: Effect {
  public static let info = EffectInfo(
    name: "color-orbs",
    summary: "Large, soft colored orbs drifting slowly over a dark base.",
    parameters: [
      ParameterSpec(
        "colors", .colors(min: 1, max: 16),
        default: .colors([.system(.pink), .system(.purple), .system(.blue), .system(.teal), .system(.orange)]),
        help: "One orb per color."),
      ParameterSpec(
        "base", .color, default: .color(.rgb(Color(red: 0.05, green: 0.04, blue: 0.13))),
        help: "The dark color under the orbs."),
      ParameterSpec("speed", .number(0...10), default: .number(0.4), help: "How fast the orbs drift."),
    ],
    isTransparent: false)

  /// One orb per color.
  public var colors: [Color]
  /// The dark color under the orbs.
  public var base: Color
  /// How fast the orbs drift; 0 holds them still.
  public var speed: Double

  public init(values: ParameterValues, environment: RenderEnvironment) {
    colors = values.colors("colors", environment)
    base = values.color("base", environment)
    speed = values.number("speed")
  }

  public func draw(in context: inout GraphicsContext, clock: Clock) {
    // The orbs are soft radial falloffs: a tail crossfade hides where a loop cannot keep their
    // slow, unrelated rates whole. Each moment is the base with its orbs screened onto it, as
    // `drawSoftLayer` draws it; a crossfade's moments are shaded and mixed together a row at a
    // time (`GraphicsContext.fill(base:blendedDiscs:weights:mode:)`), the same bits.
    let samples = clock.samples(for: "orbs")
    let size = context.size
    if samples.count > 1 {
      context.fill(
        base: base, blendedDiscs: samples.map { discs(clock: $0.clock, size: size) }, weights: samples.map(\.weight),
        mode: .screen)
      return
    }
    context.fill(Path(rect: Rect(x: 0, y: 0, width: size.width, height: size.height)), with: .color(base))
    var orbs = context
    orbs.blendMode = .screen
    // Each orb is a radial falloff filling its circle, screened on in turn: drawn together, a row
    // at a time (`GraphicsContext.fill(discs:)`).
    orbs.fill(discs: discs(clock: samples[0].clock, size: size))
  }

  /// The orbs at `clock`'s moment on a screen of `size` points.
  private func discs(clock: Clock, size: (width: Double, height: Double)) -> [GradientDisc] {
    colors.enumerated().map { index, color in
      let orb = ColorOrbsMath.orb(index: index, clock: clock, speed: speed, width: size.width, height: size.height)
      let falloff = Gradient(stops: [
        .init(color: color.opacity(0.9), location: 0),
        .init(color: color.opacity(0.45), location: 0.5),
        .init(color: color.opacity(0), location: 1),
      ])
      return GradientDisc(falloff, center: Point(orb.x, orb.y), endRadius: Float(orb.radius))
    }
  }
}

// MARK: - Math

/// Where each orb is and how big, as pure functions of its index and the clock.
public enum ColorOrbsMath {
  /// The seed's salts: which property a noise value decides.
  enum Salt: Double { case speedX = 1, phaseX, speedY, phaseY, size }

  /// The center and radius of orb `index`, in points, for a screen of `width x height` points.
  /// The seed multiplies time by `speed` before each orb's own rate; the clock sees the product.
  public static func orb(
    index: Int, clock: Clock, speed: Double, width: Double, height: Double
  )
    -> (x: Double, y: Double, radius: Double)
  {
    let rateX = speed * (0.5 + seedNoise(index, Salt.speedX.rawValue) * 0.5)
    let rateY = speed * (0.4 + seedNoise(index, Salt.speedY.rawValue) * 0.5)
    let phaseX = clock.phase(rateX, period: 2 * .pi, layer: "orbs", name: "orb\(index).x", soft: true)
    let phaseY = clock.phase(rateY, period: 2 * .pi, layer: "orbs", name: "orb\(index).y", soft: true)
    let x = (0.5 + 0.42 * sin(phaseX + seedNoise(index, Salt.phaseX.rawValue) * 2 * .pi)) * width
    let y = (0.5 + 0.42 * cos(phaseY + seedNoise(index, Salt.phaseY.rawValue) * 2 * .pi)) * height
    let radius = max(width, height) * (0.34 + seedNoise(index, Salt.size.rawValue) * 0.14)
    return (x, y, radius)
  }
}
