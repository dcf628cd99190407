import Foundation
import Raster
import Timing

/// A glowing orb for a voice assistant: colors swirl inside it, and it swells with the voice
/// while it listens or speaks.
///
/// Give it the level of the voice from 0 to 1: one number, or a `LevelTrack` over time. A level
/// above 1 counts as 1; one that is not a number counts as silence. With Reduce Motion on, the
/// colors stay still and the orb brightens instead of swelling.
public struct VoiceOrb: Effect {
  public static let info = EffectInfo(
    name: "voice-orb",
    summary: "A glowing orb for a voice assistant that swells with the voice while it listens or speaks.",
    parameters: [
      ParameterSpec(
        "state", .choice(VoiceOrbState.allCases.map(\.rawValue)), default: .choice("idle"),
        help: "What the assistant is doing."),
      ParameterSpec(
        "level", .number(0...1), default: .number(0),
        help: "How loud the voice is, from 0 to 1, when no level track is given."),
      ParameterSpec(
        "colors", .colors(min: 1, max: 16),
        default: .colors([.system(.blue), .system(.purple), .system(.pink), .system(.cyan)]),
        help: "The orb's base color first, then one swirling blob per color."),
      ParameterSpec(
        "sequence", .steps(VoiceOrbState.allCases.map(\.rawValue)), default: .steps([]),
        help: "States one after another, as state:seconds, for a clip that changes state."),
    ],
    isTransparent: true,
    // The 220 pt orb with room for its 30 pt shadow to fade out: 3 sigma on each side.
    defaultSize: (400, 400),
    transition: TransitionSpec(parameter: "state", settle: VoiceOrbAnimation.memory, ownClocks: false))

  /// What the assistant is doing, and how loud the voice is, over time.
  public var animation: VoiceOrbAnimation
  /// The orb's base color first, then one swirling blob per color.
  public var colors: [Color]
  /// Reduce Motion: still colors, brightening instead of swelling.
  public var reduceMotion: Bool

  public init(values: ParameterValues, environment: RenderEnvironment) {
    let steps = values.steps("sequence").compactMap { step in
      VoiceOrbState(rawValue: step.value).map { VoiceOrbSequence.Step($0, seconds: step.seconds) }
    }
    animation = VoiceOrbAnimation(
      state: VoiceOrbState(rawValue: values.choice("state")) ?? .idle,
      sequence: steps.isEmpty ? nil : VoiceOrbSequence(steps),
      level: values.number("level"))
    colors = values.colors("colors", environment)
    reduceMotion = environment.reduceMotion
  }

  /// An orb in code: a state (or a sequence of them) and a level (or a track of them).
  public init(animation: VoiceOrbAnimation, colors: [Color], reduceMotion: Bool = false) {
    (self.animation, self.colors, self.reduceMotion) = (animation, colors, reduceMotion)
  }

  /// Levels over time, replacing the `level` parameter: a constant, a track read from a file or
  /// an audio envelope.
  public var levels: LevelTrack? {
    get { animation.levels }
    set { animation.levels = newValue }
  }

  public static var followsLevels: Bool { true }

  public func following(_ levels: LevelTrack) -> VoiceOrb {
    var orb = self
    orb.levels = levels
    return orb
  }

  /// States over time, replacing the `state` parameter.
  public var sequence: VoiceOrbSequence? {
    get { animation.sequence }
    set { animation.sequence = newValue }
  }

  public func draw(in context: inout GraphicsContext, clock: Clock) {
    let time = clock.time
    let energy = animation.energy(at: time)
    let base = colors.first ?? SystemColor.blue.resolved(.dark, .ios26)
    // Modifiers apply inside-out: surface and shadow, scale, then brightness, saturation and hue
    // on orb and shadow together (docs/SWIFTUI-SEMANTICS.md, View modifiers).
    let matrix = ColorMatrix.hueRotation(radians: animation.hueRotation(at: time) * .pi / 180)
      .concatenating(.saturation(animation.saturation(at: time)))
      .concatenating(.brightness(reduceMotion ? energy * 0.2 : 0))
    let scale = reduceMotion ? 1 : VoiceOrbMath.scale(energy: energy)
    let radius = VoiceOrbMath.canvasSide / 2

    var orb = context
    orb.translateBy(x: context.size.width / 2, y: context.size.height / 2)
    orb.scaleBy(x: scale, y: scale)
    orb.translateBy(x: -radius, y: -radius)
    let shadow = base.opacity(0.25 + 0.45 * VoiceOrbMath.clamp01(energy))
    let motion = reduceMotion ? clock.at(0) : clock
    let drawOrb = { (target: GraphicsContext) in
      target.drawLayer(shadow: shadow, radius: VoiceOrbMath.shadowRadius) { canvas in
        drawSurface(in: &canvas, radius: radius, energy: energy, base: base, clock: motion)
      }
    }
    if matrix.isNearlyIdentity {
      drawOrb(orb)
    } else {
      var filtered = orb
      filtered.addFilter(.colorMatrix(matrix))
      drawOrb(filtered)
    }
  }

  // MARK: - Surface

  /// The inside of the orb on its 2r x 2r canvas: base color, swirling blobs blurred one by one,
  /// a soft light from the top, all clipped to the disk.
  private func drawSurface(in context: inout GraphicsContext, radius: Double, energy: Double, base: Color, clock: Clock)
  {
    let disk = Path(ellipseIn: Rect(x: 0, y: 0, width: 2 * radius, height: 2 * radius))
    context.clip(to: disk)
    context.fill(disk, with: .color(base))

    let blur = Filter.blur(radius: Float(radius * 0.28))
    // Heavily blurred: a tail crossfade hides where a loop cannot keep the blobs' turns whole.
    context.drawSoftLayer(VoiceOrbMath.blobLayer, clock: clock) { blurred, moment in
      blurred.addFilter(blur)
      drawBlobs(in: blurred, radius: radius, energy: energy, clock: moment)
    }

    // A soft light from the top, so the orb reads as a sphere.
    let light = Gradient(colors: [.white.opacity(0.45), .clear])
    context.fill(
      disk,
      with: .radialGradient(
        light, center: Point(radius - radius * 0.25, radius - radius * 0.4),
        startRadius: 0, endRadius: Float(radius * 1.1)))
  }

  private func drawBlobs(in context: GraphicsContext, radius: Double, energy: Double, clock: Clock) {
    for (index, color) in colors.enumerated() {
      let unit = VoiceOrbMath.blobCenter(index: index, count: colors.count, clock: clock, energy: energy)
      let center = Point(Float(radius), Float(radius)) + unit * Float(radius)
      context.fill(Path(ellipseIn: Rect(center: center, radius: Float(radius * 0.6))), with: .color(color))
    }
  }
}

extension ColorMatrix {
  /// Whether the matrix leaves every color within 1e-6 of itself: no need to draw through it.
  var isNearlyIdentity: Bool {
    let d = [r - ColorMatrix.identity.r, g - ColorMatrix.identity.g, b - ColorMatrix.identity.b]
    return d.allSatisfy { v in (0..<4).allSatisfy { Swift.abs(v[$0]) < 1e-6 } }
  }
}
