import Foundation
import Testing

@testable import Timing

/// The seeds' hash noise in 0..<1.
func noise(_ index: Int, _ salt: Double) -> Double {
  let v = sin(Double(index) * 127.1 + salt * 311.7) * 43_758.5453
  return v - v.rounded(.down)
}

/// The color orbs' ten turning phases at speed 0.4: x and y for five orbs, all on one soft layer.
let orbs: [Motion] = (0..<5).flatMap { i in
  [
    Motion(layer: "orbs", name: "x.\(i)", rate: 0.4 * (0.5 + noise(i, 1) * 0.5), period: 2 * .pi, soft: true),
    Motion(layer: "orbs", name: "y.\(i)", rate: 0.4 * (0.4 + noise(i, 3) * 0.5), period: 2 * .pi, soft: true),
  ]
}

/// Rain over a travel of 700 points, its splashes, and the lightning schedule.
let rain: [Motion] = [
  Motion(layer: "rain.near", name: "fall", rate: 700, period: 700, kind: .wrap),
  Motion(layer: "rain.far", name: "fall", rate: 420, period: 700, kind: .wrap),
  Motion(layer: "rain.splash", name: "phase", rate: 1.6, period: 1),
  Motion(layer: "storm.lightning", name: "flash", rate: 1, period: 6, kind: .schedule),
]

/// The blob loader's four waves: sharp edges, so nothing may crossfade.
let blob: [Motion] = [
  Motion(layer: "blob", name: "swell2", rate: 1.4, period: 2 * .pi),
  Motion(layer: "blob", name: "swell3", rate: -1.1, period: 2 * .pi),
  Motion(layer: "blob", name: "swell5", rate: 0.7, period: 2 * .pi),
  Motion(layer: "blob", name: "gradient", rate: 0.6, period: 2 * .pi),
]

@Suite struct LoopPlannerTests {
  @Test(arguments: [12.0, 24, 30, 60])
  func everyMotionCompletesWholeCycles(length: Double) throws {
    let plan = try LoopPlanner.plan(
      motions: rain
        + blob.map {
          var m = $0; m.soft = true; return m
        }, length: length)
    let recorder = MotionRecorder()
    let start = Clock(time: 0, plan: plan, recorder: recorder)
    let end = start.at(length)
    for m in rain + blob {
      _ = start.phase(m.rate, period: m.period, layer: m.layer, name: m.name, soft: m.soft, kind: m.kind)
    }
    for m in recorder.motions where plan.crossfadeWindow(for: m.layer) == nil {
      let turned =
        end.phase(m.rate, period: m.period, layer: m.layer, name: m.name, kind: m.kind)
        - start.phase(m.rate, period: m.period, layer: m.layer, name: m.name, kind: m.kind)
      let cycles = turned / m.period
      #expect(abs(cycles - cycles.rounded()) < 1e-9, "\(m.layer) \(m.name): \(cycles) cycles")
      #expect(abs(cycles) >= 1)
    }
  }

  @Test func quantizationIsTheNearestWholeCycleCount() {
    let m = Motion(layer: "a", name: "b", rate: 0.37, period: 2 * .pi)
    let (rate, cycles) = LoopPlanner.quantize(m, length: 20)
    #expect(cycles == (0.37 * 20 / (2 * .pi)).rounded())
    #expect(rate == cycles * 2 * .pi / 20)
    // An exact count keeps the rate bit for bit; a slow motion keeps at least one cycle, its way.
    #expect(LoopPlanner.quantize(Motion(layer: "a", name: "b", rate: 0.3, period: 1), length: 10) == (0.3, 3))
    #expect(LoopPlanner.quantize(Motion(layer: "a", name: "b", rate: -0.01, period: 1), length: 10) == (-0.1, -1))
    #expect(LoopPlanner.quantize(Motion(layer: "a", name: "b", rate: 0, period: 1), length: 10) == (0, 0))
  }

  @Test func lightningKeepsItsSpeedExactly() throws {
    let plan = try LoopPlanner.plan(motions: rain, length: 12, fps: 60, lengthQuantum: 6)
    let flash = try #require(plan.rows.first { $0.motion == "flash" })
    #expect(flash.strategy == .schedule)
    #expect(flash.plannedRate == 1)
    #expect(flash.cyclesPerLoop == 2)
    #expect(Clock(time: 7.25, plan: plan).scheduleTime(cycle: 6, layer: "storm.lightning", name: "flash") == 7.25)
  }

  @Test func rainPlanStaysWithinTheLimit() throws {
    let plan = try LoopPlanner.plan(motions: rain, length: 12, lengthQuantum: 6)
    #expect(plan.rows.allSatisfy { $0.speedChange <= 0.10 })
    #expect(!plan.crossfades)
    let far = try #require(plan.rows.first { $0.layer == "rain.far" })
    #expect(far.cyclesPerLoop == 7)  // 420 · 12 / 700 = 7.2
    #expect(abs(far.plannedRate - 7 * 700 / 12.0) < 1e-12)
    #expect(abs(far.speedChange - 0.2 / 7.2) < 1e-12)
  }

  @Test func stillMotionsAreLeftAlone() throws {
    let plan = try LoopPlanner.plan(
      motions: [Motion(layer: "stars", name: "twinkle", rate: 0, period: 2 * .pi)], length: 7)
    #expect(plan.rows[0].strategy == .still)
    #expect(plan.rows[0].plannedRate == 0)
    #expect(plan.layers[0].strategy == .still)
  }

  @Test func aSharpLayerFailsAndSaysWhy() {
    #expect {
      try LoopPlanner.plan(motions: blob, length: 10)
    } throws: { error in
      guard case .speedChange(let layer, let motion, _, let needed, _, _, let nearest) = error as? LoopPlanError else {
        return false
      }
      return layer == "blob" && motion == "swell3"
        && abs(needed - (2 - 1.1 * 10 / (2 * .pi)) / (1.1 * 10 / (2 * .pi))) < 1e-12
        && nearest == [29]
    }
    let error = LoopPlanError.speedChange(
      layer: "blob", motion: "swell3", rate: -1.1, needed: 0.14239, limit: 0.1, length: 10, nearest: [29])
    #expect(
      error.description
        == "A 10 s loop would change the speed of blob swell3 (-1.1/s) by 14.2%, above the 10% limit "
        + "(--max-speed-change). The nearest length that works is 29 s.")
  }

  @Test func aLargerLimitLetsItThrough() throws {
    let plan = try LoopPlanner.plan(motions: blob, length: 10, maxSpeedChange: 0.15)
    #expect(plan.largestSpeedChange <= 0.15)
    #expect(plan.largestSpeedChange > 0.14)
  }

  @Test func weatherLengthsAreMultiplesOfTheLightningCycle() {
    // 6 s, the multiple below 10 s, fails too, and the error says why.
    let six =
      "A 6 s loop would change the speed of rain.far fall (420/s) by 11.1%, above the 10% limit (--max-speed-change)."
    #expect(throws: LoopPlanError.notMultipleOfQuantum(length: 10, quantum: 6, nearest: [12], multiples: [six])) {
      try LoopPlanner.plan(motions: rain, length: 10, lengthQuantum: 6)
    }
    #expect(
      LoopPlanError.notMultipleOfQuantum(length: 10, quantum: 6, nearest: [12], multiples: [six]).description
        == "A 10 s loop is not a whole multiple of 6 s. \(six) The nearest length that works is 12 s.")
    // 6 s would change the far rain by 11.1 %: the next length that works is 12 s.
    #expect(LoopPlanner.nearestLengths(to: 30, motions: rain, lengthQuantum: 6) == [24, 36])
    #expect(
      LoopPlanError.notMultipleOfQuantum(length: 10, quantum: 6, nearest: [12]).description
        == "A 10 s loop is not a whole multiple of 6 s. The nearest length that works is 12 s.")
  }

  @Test func aScheduleWithoutAQuantumStillNeedsWholeCycles() {
    #expect(
      throws: LoopPlanError.schedule(layer: "storm.lightning", motion: "flash", cycle: 6, length: 8, nearest: [6, 12])
    ) {
      try LoopPlanner.plan(motions: [rain[3]], length: 8)
    }
  }

  @Test func loopsHoldWholeFrames() {
    #expect(throws: LoopPlanError.notWholeFrames(length: 7.51, fps: 30, nearest: [7, 8])) {
      try LoopPlanner.plan(motions: [Motion(layer: "a", name: "b", rate: 1, period: 1)], length: 7.51, fps: 30)
    }
    #expect(
      LoopPlanError.notWholeFrames(length: 7.51, fps: 30, nearest: [7, 8]).description
        == "A 7.51 s loop at 30 fps is 225.3 frames, not a whole number. The nearest lengths that work are 7 s and 8 s."
    )
    #expect((try? LoopPlanner.plan(motions: [], length: 7.5, fps: 30))?.frameCount == 225)
  }

  @Test(arguments: [0, -1, .nan, .infinity])
  func badLengthsAreRejected(length: Double) {
    #expect(throws: LoopPlanError.self) { try LoopPlanner.plan(motions: rain, length: length) }
  }

  @Test func badLimitsAreRejected() {
    #expect(throws: LoopPlanError.invalidLimit(-0.1)) {
      try LoopPlanner.plan(motions: rain, length: 12, maxSpeedChange: -0.1)
    }
  }

  @Test func softLayersTooSlowToQuantizeCrossfade() throws {
    let plan = try LoopPlanner.plan(motions: orbs + rain, length: 12, lengthQuantum: 6)
    #expect(plan.crossfadeWindow(for: "orbs") == 2)
    #expect(plan.crossfadeWindow(for: "rain.near") == nil)
    for row in plan.rows where row.layer == "orbs" {
      #expect(row.strategy == .crossfade)
      #expect(row.plannedRate == row.originalRate)
    }
    let short = try LoopPlanner.plan(motions: orbs, length: 3)
    #expect(short.crossfadeWindow(for: "orbs") == 1)  // a third of the loop
  }

  @Test func defaultLengths() throws {
    #expect(try LoopPlanner.defaultLength(motions: rain, fps: 60, lengthQuantum: 6) == 12)
    #expect(try LoopPlanner.defaultLength(motions: blob, fps: 30) == 29)
    // The orbs quantize within 10 % first at 104 s; below 60 s they crossfade from the shortest
    // loop that holds a whole 2 s window.
    #expect(try LoopPlanner.defaultLength(motions: orbs, fps: 30) == 104)
    let orbPlan = try LoopPlanner.plan(motions: orbs, length: 104, fps: 30)
    #expect(!orbPlan.crossfades && orbPlan.largestSpeedChange <= 0.10)
    #expect(try LoopPlanner.defaultLength(motions: orbs, fps: 30, maxLength: 60) == 6)
    #expect(try LoopPlanner.defaultLength(motions: orbs, fps: 30, maxLengthWithoutCrossfade: 60) == 6)
    #expect(try LoopPlanner.defaultLength(motions: blob, fps: 30, maxLengthWithoutCrossfade: 10) == 29)
    #expect(throws: LoopPlanError.noLength(limit: 0.01, maxLength: 20)) {
      try LoopPlanner.defaultLength(motions: blob, maxSpeedChange: 0.01, maxLength: 20)
    }
  }

  @Test func plansSurviveJSON() throws {
    let plan = try LoopPlanner.plan(motions: orbs + rain, length: 12, fps: 60, lengthQuantum: 6)
    let data = try JSONEncoder().encode(plan)
    let back = try JSONDecoder().decode(LoopPlan.self, from: data)
    #expect(back == plan)
    for m in orbs + rain { #expect(back.plannedRate(for: m) == plan.plannedRate(for: m)) }
    #expect(back.crossfadeWindow(for: "orbs") == 2)
  }
}

@Suite struct CrossfadeSampleTests {
  let plan = try! LoopPlanner.plan(motions: orbs, length: 12, fps: 30)

  @Test func weightsAddUpToOne() {
    for i in 0..<360 {
      let samples = Clock(time: Double(i) / 30, plan: plan).samples(for: "orbs")
      #expect(abs(samples.map(\.weight).reduce(0, +) - 1) < 1e-12)
      #expect(samples.allSatisfy { $0.weight >= 0 && $0.weight <= 1 })
    }
  }

  @Test func theEarlierClockTakesOverByTheEnd() throws {
    let atStart = Clock(time: 10, plan: plan).samples(for: "orbs")
    #expect(atStart.count == 1 && atStart[0].weight == 1)
    let lastTime: Double = 12 - 1.0 / 30
    let last = Clock(time: lastTime, plan: plan).samples(for: "orbs")
    #expect(last.count == 2)
    let earlier: Double = lastTime - 12
    #expect(last[1].clock.time == earlier)
    #expect(last[1].weight > 0.999)
    let justInside = Clock(time: 10 + 1e-6, plan: plan).samples(for: "orbs")
    #expect(justInside[1].weight < 1e-10)
    let middle = Clock(time: 11, plan: plan).samples(for: "orbs")
    #expect(abs(middle[1].weight - 0.5) < 1e-12)
  }

  @Test func otherLayersDrawOnce() {
    #expect(Clock(time: 11.9, plan: plan).samples(for: "rain.near").count == 1)
    #expect(Clock(time: 11.9).samples(for: "orbs").count == 1)
  }

  @Test func laterLoopsRepeatTheFirst() {
    for t in [0.5, 10.5, 11.9] {
      let first = Clock(time: t, plan: plan).samples(for: "orbs")
      let third = Clock(time: t + 24, plan: plan).samples(for: "orbs")
      let before = Clock(time: t - 12, plan: plan).samples(for: "orbs")
      #expect(zip(first, third).allSatisfy { abs($0.weight - $1.weight) < 1e-9 })
      #expect(zip(first, third).allSatisfy { abs($0.clock.time - $1.clock.time) < 1e-12 })
      #expect(zip(first, before).allSatisfy { abs($0.clock.time - $1.clock.time) < 1e-12 })
    }
  }
}

@Suite struct ParticleFieldTests {
  /// Snow on an 852-point-high screen: two falls over 872 points, and 130 flakes each swaying at
  /// its own rate from 0.5 to 1.5 rad/s. Flakes differ in place and size, so none can stand in for
  /// another: each sway is quantized on its own, which needs a long loop.
  let snow: [Motion] =
    [
      Motion(layer: "snow.near", name: "fall", rate: 50, period: 872, kind: .wrap),
      Motion(layer: "snow.far", name: "fall", rate: 25, period: 872, kind: .wrap),
    ] + (0..<130).map { Motion(layer: "snow.sway", name: "flake.\($0)", rate: 0.5 + noise($0, 4), period: 2 * .pi) }

  @Test func snowLoopsAtSixtySixSeconds() throws {
    #expect(try LoopPlanner.defaultLength(motions: snow, fps: 60, lengthQuantum: 6) == 66)
    let plan = try LoopPlanner.plan(motions: snow, length: 66, fps: 60, lengthQuantum: 6)
    #expect(plan.rows.count == 132)
    #expect(plan.layers.map(\.layer) == ["snow.near", "snow.far", "snow.sway"])
    #expect(plan.layers[2].motions == 130 && plan.layers[2].largestSpeedChange <= 0.10)
    #expect(throws: LoopPlanError.self) { try LoopPlanner.plan(motions: snow, length: 12, lengthQuantum: 6) }
  }
}

@Suite struct ClipPlanTests {
  let rain = [Motion(layer: "rain.far", name: "y", rate: 420, period: 600, kind: .wrap)]
  let clouds = [Motion(layer: "clouds", name: "x", rate: 8, period: 700, soft: true, kind: .wrap)]

  /// Each part of a clip keeps its own loop's plan, rates and crossfade windows; a plan without
  /// parts applies to every part.
  @Test func aClipHandsEachPartThePlanOfItsOwnLoop() throws {
    let a = try LoopPlanner.plan(motions: rain, length: 6)
    let b = try LoopPlanner.plan(motions: clouds, length: 12)
    let clip = LoopPlan.clip(length: 6, fps: 10, parts: [("rain", a), ("cloudy", b)])
    let clock = Clock(time: 1, plan: clip)
    #expect(clock.part("rain").rate(420, period: 600, layer: "rain.far", name: "y") == a.plannedRate(for: rain[0]))
    #expect(clock.part("cloudy").plan?.length == 12)
    #expect(clock.part("cloudy").plan?.crossfadeWindow(for: "clouds") == b.crossfadeWindow(for: "clouds"))
    #expect(clock.part("fog").plan?.length == 6)  // no such part: the clip's own plan
    #expect(Clock(time: 1, plan: a).part("rain").plan?.length == 6)
    #expect(clip.rows.map(\.layer) == ["rain/rain.far", "cloudy/clouds"])
    let decoded = try JSONDecoder().decode(LoopPlan.self, from: JSONEncoder().encode(clip))
    #expect(decoded == clip && decoded.parts["cloudy"] == b)
  }
}
