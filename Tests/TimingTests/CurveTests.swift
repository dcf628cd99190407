import Foundation
import Testing

@testable import Timing

@Suite struct UnitCurveTests {
  @Test(arguments: [UnitCurve.easeInOut, .easeIn, .easeOut, .linear])
  func endsAreExact(curve: UnitCurve) {
    #expect(curve.value(at: 0) == 0)
    #expect(curve.value(at: 1) == 1)
  }

  @Test(arguments: [-1, -0.0, .nan, -.infinity, 1.5, .infinity])
  func progressOutsideTheCurveIsClamped(time: Double) {
    let value = UnitCurve.easeInOut.value(at: time)
    #expect(value == (time > 1 ? 1 : 0))
  }

  @Test(arguments: [UnitCurve.easeInOut, .easeIn, .easeOut, .linear])
  func progressNeverGoesBack(curve: UnitCurve) {
    var previous = 0.0
    for i in 1...4000 {
      let value = curve.value(at: Double(i) / 4000)
      #expect(value >= previous, "at \(Double(i) / 4000)")
      previous = value
    }
  }

  /// The curve's x and y at parameter s, straight from the Bernstein form.
  func bezier(_ s: Double, _ p1: SIMD2<Double>, _ p2: SIMD2<Double>) -> SIMD2<Double> {
    let u = 1 - s
    let w1: Double = 3 * u * u * s
    let w2: Double = 3 * u * s * s
    let w3: Double = s * s * s
    return p1 * w1 + p2 * w2 + SIMD2(repeating: w3)
  }

  @Test func easeInOutFollowsItsBezier() {
    let c = UnitCurve.easeInOut
    for i in 0...100 {
      let point = bezier(Double(i) / 100, SIMD2(0.42, 0), SIMD2(0.58, 1))
      #expect(abs(c.value(at: point.x) - point.y) < 1e-12)
    }
    #expect(abs(c.value(at: 0.5) - 0.5) < 1e-15)  // symmetric about its middle
    #expect(abs(c.value(at: 0.25) + c.value(at: 0.75) - 1) < 1e-13)
  }

  @Test func velocityMatchesDifferences() {
    let c = UnitCurve.easeInOut
    for x in [0.1, 0.3, 0.5, 0.8] {
      let h = 1e-6
      let slope = (c.value(at: x + h) - c.value(at: x - h)) / (2 * h)
      #expect(abs(c.velocity(at: x) - slope) < 1e-6)
    }
    #expect(c.velocity(at: 0) == 0)
    #expect(c.velocity(at: 1) == 0)
    #expect(UnitCurve.linear.velocity(at: 0.3) == 1)
  }
}

@Suite struct SpringTests {
  @Test func matchesApplesExample() {
    let spring = Spring(duration: 0.5, bounce: 0.3)
    #expect(abs(spring.stiffness - 157.9) < 0.05)
    #expect(abs(spring.damping - 17.6) < 0.05)
  }

  @Test func voiceOrbSpring() {
    let spring = Spring(duration: 0.35)
    #expect(abs(spring.stiffness - 322.27) < 0.01)
    #expect(abs(spring.damping - 35.904) < 0.001)
  }

  @Test func criticallyDampedClosedForm() {
    let spring = Spring(duration: 0.35)
    let omega = 2 * Double.pi / 0.35
    for t in [0.0, 0.01, 0.1, 0.35, 1] {
      let expected = (2 + (-3 + omega * 2) * t) * exp(-omega * t)
      #expect(abs(spring.displacement(after: t, from: 2, velocity: -3) - expected) < 1e-12)
    }
  }

  /// u'' + c u' + k u = 0, integrated in tiny steps, for every regime.
  @Test(arguments: [-0.5, -0.2, 0, 0.3, 0.7])
  func solvesTheSpringEquation(bounce: Double) {
    let spring = Spring(duration: 0.4, bounce: bounce)
    var (u, v) = (1.0, -2.0)
    let dt = 1e-5
    for _ in 0..<30_000 {  // 0.3 s, semi-implicit Euler
      v += (-spring.stiffness * u - spring.damping * v) * dt
      u += v * dt
    }
    #expect(abs(spring.displacement(after: 0.3, from: 1, velocity: -2) - u) < 1e-3)
    #expect(abs(spring.velocity(after: 0.3, from: 1, velocity: -2) - v) < 1e-2)
  }

  @Test(arguments: [0, -1, .nan])
  func badDurationsCountAsTheDefault(duration: Double) {
    #expect(Spring(duration: duration).duration == 0.5)
  }
}

@Suite struct AnimationTrackTests {
  @Test func springTrackStartsFromWhatShowsAndKeepsItsVelocity() {
    let spring = Spring(duration: 0.35)
    let track = SpringTrack(spring: spring, initial: 0, changes: [(1, 1), (1.1, 0.2)])
    #expect(track.value(at: 0.5) == 0)
    #expect(track.value(at: 1) == 0)  // the spring starts at rest where it was
    // Just before and after the retarget, value and velocity are continuous.
    let (before, after) = (track.value(at: 1.1 - 1e-9), track.value(at: 1.1))
    #expect(abs(before - after) < 1e-6)
    #expect(abs(track.velocity(at: 1.1 - 1e-9) - track.velocity(at: 1.1)) < 1e-4)
    #expect(track.velocity(at: 1.1) > 0)
    // The retarget is the spring from the state at 1.1 toward 0.2.
    let u0 = after - 0.2
    let v0 = track.velocity(at: 1.1)
    #expect(abs(track.value(at: 1.3) - (0.2 + spring.displacement(after: 0.2, from: u0, velocity: v0))) < 1e-12)
    #expect(abs(track.value(at: 30) - 0.2) < 1e-12)
  }

  @Test func readingsDoNotDependOnOrder() {
    var changes: [(time: Double, target: Double)] = []
    for i in 0..<50 {
      let target: Double = Double((i * 7) % 10) / 10
      changes.append((time: Double(i) * 0.16, target: target))
    }
    let track = SpringTrack(spring: Spring(duration: 0.35), initial: 0.1, changes: changes)
    let times: [Double] = (0..<240).map { Double($0) / 30 }
    let forward: [Double] = times.map { track.value(at: $0) }
    let backward: [Double] = times.reversed().map { track.value(at: $0) }
    #expect(forward == Array(backward.reversed()))
  }

  @Test func timingCurvesAddUp() {
    // 0 -> 1 at t = 0 over 1 s, then -> 3 at t = 0.5: the second run adds 2 · e(p) on top.
    let track = AnimationTrack(initial: 0.0, targets: [(0, 1), (0.5, 3)], animation: .easeInOut(duration: 1))
    let e = UnitCurve.easeInOut
    for t in [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2] {
      let expected = e.value(at: t) + 2 * e.value(at: t - 0.5)
      #expect(abs(track.value(at: t) - expected) < 1e-12, "at \(t)")
    }
    #expect(track.value(at: 1.5) == 3)
  }

  @Test func aSpringMergesARunningCurve() {
    let track = AnimationTrack(
      initial: 0.0,
      changes: [
        .init(time: 0, target: 1, animation: .easeInOut(duration: 1)),
        .init(time: 0.5, target: 0, animation: .spring(duration: 0.35)),
      ])
    #expect(abs(track.value(at: 0.5) - 0.5) < 1e-12)
    #expect(abs(track.velocity(at: 0.5) - UnitCurve.easeInOut.velocity(at: 0.5)) < 1e-9)
    #expect(abs(track.value(at: 20)) < 1e-12)
  }

  @Test func anUnchangedTargetLeavesTheRunAlone() {
    let plain = AnimationTrack(initial: 0.0, targets: [(0, 1)], animation: .easeInOut(duration: 1))
    let repeated = AnimationTrack(
      initial: 0.0,
      changes: [
        .init(time: 0, target: 1, animation: .easeInOut(duration: 1)),
        .init(time: 0.3, target: 1, animation: .spring(duration: 0.35)),
      ])
    #expect(plain.value(at: 0.6) == repeated.value(at: 0.6))
  }

  @Test func noAnimationJumps() {
    let track = AnimationTrack(
      initial: 0.0,
      changes: [
        .init(time: 0, target: 1, animation: .easeInOut(duration: 1)), .init(time: 0.5, target: 2, animation: .none),
      ])
    #expect(track.value(at: 0.5) == 2)
    #expect(track.value(at: 0.49) < 1)
  }
}

/// The largest difference between two colors' components.
func distance(_ a: SIMD4<Double>, _ b: SIMD4<Double>) -> Double {
  let d = a - b
  return max(max(abs(d.x), abs(d.y)), max(abs(d.z), abs(d.w)))
}

@Suite struct ColorInterpolationTests {
  let pink = SIMD4(1, 45.0 / 255, 85.0 / 255, 1)
  let blue = SIMD4(0, 136.0 / 255, 1, 0.5)

  @Test func endsAreExact() {
    #expect(ColorInterpolation.mix(pink, blue, 0) == pink)
    #expect(ColorInterpolation.mix(pink, blue, 1) == blue)
    #expect(ColorInterpolation.mix(pink, blue, .nan) == pink)
  }

  @Test func carrierRoundTrips() {
    for color in [pink, blue, SIMD4(0, 0, 0, 0), SIMD4(1, 1, 1, 1), SIMD4(0.02, 0.03, 0.13, 1)] {
      let back = ColorInterpolation.color(fromCarrier: ColorInterpolation.carrier(color))
      #expect(distance(back, color) < 1e-8)  // M1 and its inverse are given to 10 digits
    }
  }

  @Test func whiteIsAllOnes() {
    // M1's rows sum to 1, so white's LMS is (1, 1, 1) and its carrier 128 each.
    let c = ColorInterpolation.carrier(SIMD4(1, 1, 1, 1))
    #expect(distance(c, SIMD4(repeating: 128)) < 1e-6)
  }

  @Test func blackToWhiteMidpointIsOklabGrey() {
    // Halfway in cube-root space is 1/8 linear light: sRGB 0.3886, far from sRGB's 0.5.
    let mid = ColorInterpolation.mix(SIMD4(0, 0, 0, 1), SIMD4(1, 1, 1, 1), 0.5)
    let expected = ColorInterpolation.encode(0.125)
    #expect(abs(mid.x - expected) < 1e-9 && abs(mid.y - expected) < 1e-9 && abs(mid.z - expected) < 1e-9)
    #expect(abs(expected - 0.3886) < 1e-4)
  }

  @Test func alphaLerpsStraight() {
    #expect(abs(ColorInterpolation.mix(pink, blue, 0.25).w - 0.875) < 1e-12)
  }
}
