import Foundation
import Testing
import Timing

@testable import Effects
@testable import Raster

/// A loop of `length` seconds that crossfades the orbs over its last `window` seconds.
private struct OrbCrossfade: MotionPlan {
  let length: Double
  let window: Double
  func plannedRate(for motion: Motion) -> Double { motion.rate }
  func crossfadeWindow(for layer: String) -> Double? { layer == "orbs" ? window : nil }
}

/// Color Orbs drawn with its orbs fused (`GraphicsContext.fill(discs:)` a row at a time) or one
/// fill an orb, at `width x height` pixels and `scale`.
private func renderOrbs(
  fused: Bool, width: Int, height: Int, scale: Float, time: Double, plan: (any MotionPlan)?
)
  -> Image
{
  let effect = ColorOrbs(values: ParameterValues(specs: ColorOrbs.info.parameters), environment: RenderEnvironment())
  let surface = Surface(image: Image(width: width, height: height), scale: scale)
  surface.fusesDiscs = fused
  surface.clear()
  var context = surface.context()
  effect.draw(in: &context, clock: Clock(time: time, plan: plan))
  surface.finish()
  return surface.image
}

@Suite struct ColorOrbsFusedTests {
  /// Sizes and moments of the loop, the crossfade's among them (a 6 s loop fading over its last 2 s).
  @Test(arguments: [(360, 640, Float(1)), (270, 480, 1.5)])
  func fusedOrbsStayWithinOneCodeOfOneFillAnOrb(width: Int, height: Int, scale: Float) {
    let plan = OrbCrossfade(length: 6, window: 2)
    for time in [0.0, 2.3, 4.5, 5.6, 17.25] {
      let fused = renderOrbs(fused: true, width: width, height: height, scale: scale, time: time, plan: plan)
      let each = renderOrbs(fused: false, width: width, height: height, scale: scale, time: time, plan: plan)
      var worst = 0, changed = false
      for i in 0..<fused.count {
        for c in 0..<4 {
          let a = Int((min(max(fused.pixels[i][c], 0), 1) * 255).rounded())
          let b = Int((min(max(each.pixels[i][c], 0), 1) * 255).rounded())
          worst = max(worst, abs(a - b))
          if fused.pixels[i][c] != each.pixels[i][c] { changed = true }
        }
      }
      #expect(worst <= 1, "time \(time): \(worst) codes apart")
      // The fused path ran: its rims differ from the filled ellipses' in some low bits.
      #expect(changed, "time \(time)")
      // The orbs are there: the frame is not one color.
      #expect((0..<fused.count).contains { fused.pixels[$0] != fused.pixels[0] })
    }
  }

  /// Orbs a few dozen pixels wide are still bright on their rims: drawn one fill an orb, to the bit.
  @Test func smallFramesFillAnOrbAtATime() {
    let plan = OrbCrossfade(length: 6, window: 2)
    for time in [0.0, 5.6] {
      let fused = renderOrbs(fused: true, width: 45, height: 80, scale: 0.5, time: time, plan: plan)
      let each = renderOrbs(fused: false, width: 45, height: 80, scale: 0.5, time: time, plan: plan)
      #expect((0..<fused.count).allSatisfy { fused.pixels[$0] == each.pixels[$0] })
    }
  }
}
