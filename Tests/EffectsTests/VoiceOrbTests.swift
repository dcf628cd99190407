import Foundation
import Raster
import Testing
import Timing

@testable import Effects

@Test(arguments: [
  (VoiceOrbState.idle, 0.7, 0.1), (.thinking, 0.7, 0.5), (.listening, 1, 1), (.speaking, 1, 1),
  (.listening, 0, 0.25), (.listening, 2, 1), (.speaking, -1, 0.25), (.listening, .nan, 0.25),
  (.speaking, .infinity, 0.25), (.listening, 0.5, 0.625),
])
func voiceEnergyIsTheSeeds(state: VoiceOrbState, level: Double, energy: Double) {
  #expect(VoiceOrbMath.energy(state: state, level: level) == energy)
}

@Test(arguments: [(0.0, 0.86), (1, 1), (0.5, 0.93), (2, 1), (-1, 0.86), (.nan, 0.86)])
func voiceScaleSwellsFrom86Percent(energy: Double, scale: Double) {
  #expect(abs(VoiceOrbMath.scale(energy: energy) - scale) < 1e-12)
}

@Test func hueRotationAt40DegreesIsTheSVGMatrix() {
  let m = ColorMatrix.hueRotation(radians: 40 * .pi / 180)
  let want: [SIMD3<Float>] = [
    [0.67896, -0.29231, 0.61335], [0.14175, 1.02331, -0.16506], [-0.45604, 0.62687, 0.82917],
  ]
  for (row, w) in zip([m.r, m.g, m.b], want) {
    for i in 0..<3 { #expect(abs(row[i] - w[i]) < 1e-4) }
    #expect(row.w == 0)
  }
}

// MARK: - Animation

@Test func aSteadyOrbShowsItsTargetEnergy() {
  let a = VoiceOrbAnimation(state: .listening, level: 0.6)
  for t in [0.0, 1, 17.3, -2] { #expect(abs(a.energy(at: t) - 0.7) < 1e-12) }
  #expect(a.saturation(at: 5) == 1 && a.hueRotation(at: 5) == 0)
  #expect(VoiceOrbAnimation(state: .idle).saturation(at: 2) == 0.6)
}

@Test func energySpringsToANewStateWithoutOvershoot() {
  // idle (0.1) for 1 s, then thinking (0.5): critically damped, omega = 2π / 0.35.
  let a = VoiceOrbAnimation(sequence: VoiceOrbSequence([.init(.idle, seconds: 1), .init(.thinking, seconds: 5)]))
  #expect(a.energy(at: 1) == 0.1)
  let omega = 2 * Double.pi / 0.35
  let tau = 0.1
  let want = 0.5 - 0.4 * (1 + omega * tau) * exp(-omega * tau)
  #expect(abs(a.energy(at: 1 + tau) - want) < 1e-12)
  var last = 0.1
  for k in 1...60 {
    let e = a.energy(at: 1 + Double(k) * 0.02)
    #expect(e >= last && e <= 0.5)
    last = e
  }
  #expect(abs(a.energy(at: 4.5) - 0.5) < 1e-12)
  // The energy moved, so saturation rides the same spring: 0.6 + 0.4 of its step.
  #expect(abs(a.saturation(at: 1 + tau) - (0.6 + 0.4 * (1 - (1 + omega * tau) * exp(-omega * tau)))) < 1e-12)
}

@Test func hueEasesWhenTheEnergyStaysPut() {
  // listening -> speaking at one level: the 0.5 s easeInOut, halfway at 0.25 s by symmetry.
  let a = VoiceOrbAnimation(
    sequence: VoiceOrbSequence([.init(.listening, seconds: 2), .init(.speaking, seconds: 2)]), level: 0.4)
  #expect(a.hueRotation(at: 2) == 0)
  #expect(abs(a.hueRotation(at: 2.25) - 20) < 1e-9)
  #expect(a.hueRotation(at: 2.1) < 8)  // slow start: a linear ramp would be at 8
  #expect(a.hueRotation(at: 2.5) == 40)
  #expect(a.energy(at: 2.2) == a.energy(at: 1.9))
}

@Test func energyFollowsALevelTrackOnASpring() {
  let track = LevelTrack(times: [0, 1, 1.0001], levels: [0, 0, 1], interpolation: .hold)
  let a = VoiceOrbAnimation(state: .listening, levels: track)
  #expect(a.energy(at: 0.9) == 0.25)
  let e = a.energy(at: 1.2)
  #expect(e > 0.25 && e < 1)
  #expect(abs(a.energy(at: 4.5) - 1) < 1e-9)
  // Pure in time: the same moment twice, in any order, is the same value.
  #expect(a.energy(at: 1.2) == e)
}

/// A sound's envelope that loops brings the orb into frame 0 as it came into the loop's last
/// frame: the same energy as three repeats of the sound played one after another, where the plain
/// envelope starts frame 0 settled on its first level.
@Test func aLoopingEnvelopeSpringsIntoFrameZeroFromTheLoopsEnd() {
  // 2 s at 30 levels a second, loud at the end and quiet at the start: a voice rising into the seam.
  let envelope = (0..<60).map { Double($0) / 59 }
  let looping = LevelTrack(loopingEnvelope: envelope, rate: 30, history: VoiceOrbAnimation.memory + 1.0 / 30)
  #expect(looping.times.first.map { $0 <= -VoiceOrbAnimation.memory } == true, "\(looping.times.first ?? 0)")
  #expect(looping.level(at: -1.0 / 30) == 1 && looping.level(at: 0) == 0 && looping.level(at: -2) == 0)
  let played = LevelTrack(envelope: envelope + envelope + envelope, rate: 30)
  let loop = VoiceOrbAnimation(state: .listening, levels: looping)
  let playedOn = VoiceOrbAnimation(state: .listening, levels: played)
  let plain = VoiceOrbAnimation(state: .listening, levels: LevelTrack(envelope: envelope, rate: 30))
  for frame in [0, 1, 5, 30] {
    let t = Double(frame) / 30
    #expect(abs(loop.energy(at: t) - playedOn.energy(at: t + 4)) < 1e-9, "frame \(frame)")
  }
  // The spring still carries the loud end into frame 0, which the plain track forgets.
  #expect(loop.energy(at: 0) > 0.9 && plain.energy(at: 0) == 0.25, "\(loop.energy(at: 0)) \(plain.energy(at: 0))")
}

@Test func levelTracksInterpolateAndHoldTheirEnds() throws {
  let track = LevelTrack(times: [2, 0, 1, .nan], levels: [1, 0, 0.5, 0.3])
  #expect(track.times == [0, 1, 2])
  #expect(track.level(at: -5) == 0 && track.level(at: 0.5) == 0.25 && track.level(at: 9) == 1)
  #expect(LevelTrack.constant(0.7).level(at: 123) == 0.7)
  #expect(LevelTrack(times: [], levels: []).level(at: 1) == 0)
  let envelope = LevelTrack(envelope: [0, 1, 0], rate: 10)
  #expect(abs(envelope.level(at: 0.15) - 0.5) < 1e-12)
  let csv = try LevelTrack(csv: "time,level\n0,0\n# pause\n2, 0.8\n")
  #expect(abs(csv.level(at: 1) - 0.4) < 1e-12)
  #expect(throws: LevelTrackError.self) { try LevelTrack(csv: "0,0\nloud\n") }
  let json = try JSONDecoder().decode(LevelTrack.self, from: Data(#"{"times":[0,1],"levels":[0,1]}"#.utf8))
  #expect(json.level(at: 0.5) == 0.5)
}

@Test func sequencesChangeStateAtTheirStepBoundaries() {
  let s = VoiceOrbSequence([
    .init(.idle, seconds: 1), .init(.idle, seconds: 1), .init(.speaking, seconds: 0.5),
    .init(.thinking, seconds: 0), .init(.listening, seconds: 1),
  ])
  #expect(s.changes.map(\.time) == [2, 2.5])
  #expect(s.duration == 3.5)
  #expect(s.state(at: -1) == .idle && s.state(at: 2) == .speaking && s.state(at: 2.6) == .listening)
  #expect(s.state(at: 100) == .listening)
}

// MARK: - Pictures

/// The orb drawn into a 64x64 image of its 400 pt video.
private func render(_ given: [String: ParameterValue], reduceMotion: Bool = false, time: Double = 1) -> Image {
  let image = Image(width: 64, height: 64)
  var context = Surface(image: image, scale: 64.0 / 400).context()
  let values = ParameterValues(specs: VoiceOrb.info.parameters, given: given)
  VoiceOrb(values: values, environment: RenderEnvironment(reduceMotion: reduceMotion)).draw(
    in: &context, clock: Clock(time: time))
  return image
}

private func solidCount(_ image: Image, above alpha: Float = 0.5) -> Int {
  (0..<image.count).filter { image.pixels[$0].w > alpha }.count
}

/// The mean of max − min of the straight color over the solid pixels.
private func meanSaturation(_ image: Image) -> Float {
  var sum: Float = 0, n: Float = 0
  for i in 0..<image.count where image.pixels[i].w > 0.95 {
    let p = image.pixels[i] / image.pixels[i].w
    sum += max(p.x, p.y, p.z) - min(p.x, p.y, p.z)
    n += 1
  }
  return sum / max(n, 1)
}

@Test func voiceOrbIsOpaqueInTheMiddleAndClearInTheCorners() {
  let image = render([:])
  #expect(image[32, 32].w > 0.999)
  #expect(image[0, 0].w * 255 < 0.5)
  for i in 0..<image.count {
    let p = image.pixels[i]
    #expect(p.x.isFinite && p.y.isFinite && p.z.isFinite && p.w.isFinite)
  }
}

@Test func aLouderVoiceMakesALargerOrb() {
  let quiet = solidCount(render(["state": .choice("listening"), "level": .number(0)]))
  let loud = solidCount(render(["state": .choice("listening"), "level": .number(1)]))
  // Radius 0.86 · 110 pt → 110 pt at 0.16 px/pt: about 745 → 973 px of disk.
  #expect(loud > quiet + 150)
}

@Test func idleIsLessSaturatedThanListening() {
  let idle = meanSaturation(render(["state": .choice("idle")]))
  let listening = meanSaturation(render(["state": .choice("listening")]))
  #expect(idle < listening * 0.8)
}

@Test func reduceMotionBrightensInsteadOfSwelling() {
  let still = ["state": ParameterValue.choice("listening"), "level": .number(1)]
  let moving = render(still)
  let reduced = render(still, reduceMotion: true)
  let quiet = render(["state": .choice("listening"), "level": .number(0)], reduceMotion: true)
  // Scale 1 whatever the level: only edge pixels differ, where the stronger shadow adds to the
  // orb's partial coverage (a swell from 0.86 would add about 200 pixels).
  #expect(abs(solidCount(reduced, above: 0.9) - solidCount(quiet, above: 0.9)) < 20)
  #expect(abs(solidCount(reduced, above: 0.9) - solidCount(moving, above: 0.9)) < 10)
  #expect(
    reduced[32, 40].x + reduced[32, 40].y + reduced[32, 40].z > quiet[32, 40].x + quiet[32, 40].y + quiet[32, 40].z
      + 0.3)
  // Still colors: the same picture at any time.
  #expect(render(still, reduceMotion: true, time: 5)[32, 40] == reduced[32, 40])
}
