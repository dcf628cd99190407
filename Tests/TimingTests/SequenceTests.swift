import Foundation
import Testing

@testable import Timing

@Suite struct StepTimelineTests {
  enum Weather: String, Sendable { case clearDay, rain, snow }
  let e = UnitCurve.easeInOut

  let timeline = StepTimeline(steps: [
    .init(Weather.clearDay, duration: 3), .init(.rain, duration: 0.5), .init(.snow, duration: 3),
  ])

  @Test func holdsAValueUntilItChanges() {
    let m = timeline.moment(at: 1)
    #expect(m.current == .clearDay && m.leaving == nil && m.arrival == 1 && m.currentTime == 1)
    #expect(timeline.moment(at: -5).current == .clearDay)
    #expect(timeline.moment(at: 100).current == .snow)
    #expect(timeline.moment(at: .nan).current == .clearDay)
  }

  @Test func fadesForOneSecond() {
    let m = timeline.moment(at: 3.25)
    #expect(m.current == .rain && m.leaving == .clearDay)
    #expect(m.arrival == e.value(at: 0.25))
    #expect(m.leavingTime == 3.25 && m.currentTime == 3.25)  // one clock for all
    let start = timeline.moment(at: 3)
    #expect(start.arrival == 0 && start.leaving == .clearDay)  // the new one starts unseen
  }

  @Test func aChangeMidFadeDropsTheOlderValue() {
    let m = timeline.moment(at: 3.6)
    #expect(m.current == .snow && m.leaving == .rain)  // clear day vanished
    #expect(abs(m.arrival - e.value(at: 0.1)) < 1e-15)
    let done = timeline.moment(at: 4.5)
    #expect(done.leaving == nil && done.arrival == 1)
  }

  @Test func repeatedValuesDoNotFade() {
    let same = StepTimeline(steps: [
      .init(Weather.rain, duration: 2), .init(.rain, duration: 2), .init(.snow, duration: 2),
    ])
    #expect(same.moment(at: 2.5).leaving == nil)
    #expect(same.moment(at: 4.5).leaving == .rain)
    #expect(same.moment(at: 4.5).leavingStep == 0)
    #expect(same.changes.map(\.time) == [4])
  }

  @Test func ownClocksStartWhereTheyAreTold() {
    let clip = StepTimeline(steps: [.init(Weather.rain, duration: 1), .init(.snow, duration: 1, clockOrigin: 2)])
    let m = clip.moment(at: 1.5)
    #expect(m.currentTime == -0.5 && m.leavingTime == 1.5)
    #expect(clip.moment(at: 2).currentTime == 0)  // the clip ends on snow's frame 0
  }

  @Test func skyColorsAddUpAcrossChanges() {
    let sky: [Weather: Double] = [.clearDay: 0, .rain: 1, .snow: 3]
    let track = timeline.track { sky[$0]! }
    for t in [3.25, 3.5, 3.75, 4, 4.25] {
      let expected = e.value(at: t - 3) + 2 * e.value(at: t - 3.5)
      #expect(abs(track.value(at: t) - expected) < 1e-12)
    }
    #expect(track.value(at: 4.5) == 3)
  }
}

@Suite struct StateTimelineTests {
  enum Orb: Sendable { case idle, listening, thinking, speaking }

  let timeline = StateTimeline(steps: [
    .init(Orb.idle, energy: 0.1, duration: 1),
    .init(.listening, energy: 0.7, duration: 1),
    .init(.speaking, energy: 0.7, duration: 1),
    .init(.speaking, energy: 0.4, duration: 1),
    .init(.speaking, energy: 0.4, duration: 1),
  ])

  @Test func energyChangesSpringAndStateChangesEase() {
    #expect(timeline.animation(into: 0) == nil)
    #expect(timeline.animation(into: 1) == .spring(duration: 0.35))
    #expect(timeline.animation(into: 2) == .easeInOut(duration: 0.5))
    #expect(timeline.animation(into: 3) == .spring(duration: 0.35))
    #expect(timeline.animation(into: 4) == nil)
  }

  @Test func hueEasesWhenOnlyTheStateChanges() {
    let hue = timeline.track { state, _ in state == .speaking ? 40.0 : 0 }
    #expect(hue.value(at: 1.9) == 0)
    #expect(abs(hue.value(at: 2.25) - 20) < 1e-12)  // easeInOut is 0.5 halfway
    #expect(hue.value(at: 2.5) == 40)
  }

  @Test func energyIsOneSpringRetargeted() {
    let spring = Spring(duration: 0.35)
    let energy = timeline.energy
    #expect(energy.value(at: 0.5) == 0.1)
    // From 1 s the spring runs toward 0.7 undisturbed by the state change at 2 s.
    #expect(abs(energy.value(at: 2.2) - (0.7 + spring.displacement(after: 1.2, from: -0.6))) < 1e-12)
    #expect(timeline.step(at: 2.2) == 2)
    #expect(timeline.step(at: -1) == 0 && timeline.step(at: 99) == 4)
  }
}
