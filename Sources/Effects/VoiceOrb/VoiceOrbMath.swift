import Foundation
import Raster
import Timing

/// The orb's numbers, as pure functions of state, level, energy and the clock.
public enum VoiceOrbMath {
  /// The side of the orb's canvas in points: the seed demo's 220 pt frame.
  public static let canvasSide = 220.0
  /// The blur of the orb's shadow in points (a Gaussian sigma, docs/SWIFTUI-SEMANTICS.md, View modifiers).
  public static let shadowRadius = 30.0
  /// The loop-plan layer of the swirling blobs.
  static let blobLayer = "blobs"

  /// How lively the orb is, from 0 to 1. At rest it barely moves, thinking keeps it halfway, and
  /// while it listens or speaks it follows the level of the voice. A level above 1 counts as 1;
  /// one that is not a number counts as silence.
  public static func energy(state: VoiceOrbState, level: Double) -> Double {
    let level = level.isFinite ? min(max(level, 0), 1) : 0
    switch state {
    case .idle: return 0.1
    case .thinking: return 0.5
    case .listening, .speaking: return 0.25 + 0.75 * level
    }
  }

  /// How big the orb is drawn for an energy: it swells with the voice, from 0.86 to 1.
  public static func scale(energy: Double) -> Double {
    0.86 + 0.14 * clamp01(energy)
  }

  /// The saturation of a state: idle is muted.
  public static func saturation(state: VoiceOrbState) -> Double { state == .idle ? 0.6 : 1 }

  /// The hue rotation of a state in degrees: speaking turns the colors 40°.
  public static func hueRotation(state: VoiceOrbState) -> Double { state == .speaking ? 40 : 0 }

  /// Where blob `index` of `count` is inside the orb, with the orb a circle of radius 1 around
  /// zero. The blobs circle its center, every other one the opposite way (0.3 and −0.2 turns a
  /// second), and reach further out the livelier the orb is.
  public static func blobCenter(index: Int, count: Int, clock: Clock, energy: Double) -> Point {
    let phase = Double(index) / Double(max(count, 1))
    let rate = index.isMultiple(of: 2) ? 0.3 : -0.2
    let turns = clock.phase(rate, period: 1, layer: blobLayer, name: "blob\(index)", soft: true) + phase
    let reach = 0.2 + 0.3 * clamp01(energy)
    return Point(cos(turns * 2 * .pi) * reach, sin(turns * 2 * .pi) * reach)
  }

  static func clamp01(_ x: Double) -> Double { x.isNaN ? 0 : min(max(x, 0), 1) }
}

// MARK: - Animation

/// The orb's animated values at any moment, computed from the whole history of state and level
/// changes up to it, so a frame needs no earlier frame (frames render in parallel, in any order).
///
/// As docs/SWIFTUI-SEMANTICS.md (Animation) reads the seed: the app sets the level every `levelInterval` seconds
/// and the energy follows each new target on a critically damped spring of 0.35 s, which keeps its
/// velocity when retargeted. Saturation and hue follow that spring too when a state change moves
/// the energy, and a 0.5 s easeInOut when it does not (listening ↔ speaking at one level). Springs
/// and timing curves here are linear in their targets, so a retargeted spring equals the sum of
/// one step response per change, and an easeInOut that interrupts adds its own step: every value
/// is its settled start plus one curve per change.
public struct VoiceOrbAnimation: Sendable {
  /// The state when no sequence is given.
  public var state: VoiceOrbState
  /// States over time, or nil to hold `state`.
  public var sequence: VoiceOrbSequence?
  /// The level when no track is given.
  public var level: Double
  /// Levels over time, or nil to hold `level`.
  public var levels: LevelTrack?
  /// How often the app hands the orb a new level, in seconds: once a frame at 30 fps.
  public var levelInterval: Double

  public init(
    state: VoiceOrbState = .idle, sequence: VoiceOrbSequence? = nil, level: Double = 0,
    levels: LevelTrack? = nil, levelInterval: Double = 1.0 / 30
  ) {
    (self.state, self.sequence, self.level, self.levels) = (state, sequence, level, levels)
    self.levelInterval = levelInterval.isFinite && levelInterval > 0 ? levelInterval : 1.0 / 30
  }

  /// How far back a change still moves a value: the spring's remainder after 3 s is below 1e-21
  /// (e^(−17.95·3)·(1 + 17.95·3)), and the easeInOut is over after 0.5 s.
  public static let memory = 3.0

  /// The state at `time`.
  public func state(at time: Double) -> VoiceOrbState { sequence?.state(at: time) ?? state }

  /// The level the app last handed over at or before `time`.
  public func level(at time: Double) -> Double {
    guard let levels else { return level }
    return levels.level(at: updateTime(at: time))
  }

  /// The last level update at or before `time`; the 1e-9 keeps k·interval itself on step k.
  private func updateTime(at time: Double) -> Double {
    (time / levelInterval + 1e-9).rounded(.down) * levelInterval
  }

  /// The energy the orb is heading for at `time`.
  public func targetEnergy(at time: Double) -> Double {
    VoiceOrbMath.energy(state: state(at: time), level: level(at: time))
  }

  /// The energy shown at `time`, sprung toward its targets.
  public func energy(at time: Double) -> Double {
    guard time.isFinite else { return targetEnergy(at: 0) }
    let start = time - VoiceOrbAnimation.memory
    var value = targetEnergy(at: start)
    var previous = value
    for moment in moments(after: start, upTo: time) {
      let target = targetEnergy(at: moment)
      value += (target - previous) * VoiceOrbCurves.springStep(time - moment)
      previous = target
    }
    return value
  }

  /// The saturation shown at `time`.
  public func saturation(at time: Double) -> Double {
    styled(at: time, VoiceOrbMath.saturation(state:))
  }

  /// The hue rotation shown at `time`, in degrees.
  public func hueRotation(at time: Double) -> Double {
    styled(at: time, VoiceOrbMath.hueRotation(state:))
  }

  private func styled(at time: Double, _ value: (VoiceOrbState) -> Double) -> Double {
    guard time.isFinite else { return value(state(at: 0)) }
    let start = time - VoiceOrbAnimation.memory
    var shown = value(state(at: start))
    guard let sequence else { return shown }
    var previous = state(at: start)
    for change in sequence.changes where change.time > start && change.time <= time {
      let delta = value(change.state) - value(previous)
      // The energy moving at this change decides the animation (docs/SWIFTUI-SEMANTICS.md, Animation).
      let before = VoiceOrbMath.energy(state: previous, level: level(at: change.time))
      let after = VoiceOrbMath.energy(state: change.state, level: level(at: change.time))
      let elapsed = time - change.time
      let progress =
        before != after
        ? VoiceOrbCurves.springStep(elapsed) : VoiceOrbCurves.easeInOut(elapsed / 0.5)
      shown += delta * progress
      previous = change.state
    }
    return shown
  }

  /// The moments in `(start, end]` where the energy's target may change: level updates (when
  /// levels come from a track) and state changes, in order.
  private func moments(after start: Double, upTo end: Double) -> [Double] {
    var out: [Double] = []
    if levels != nil {
      var k = (start / levelInterval + 1e-9).rounded(.down) + 1
      while k * levelInterval <= end {
        out.append(k * levelInterval)
        k += 1
      }
    }
    if let sequence {
      for change in sequence.changes where change.time > start && change.time <= end { out.append(change.time) }
      out.sort()
    }
    return out
  }
}

/// The two animation curves of the seed, from Timing (docs/SWIFTUI-SEMANTICS.md, Animation).
enum VoiceOrbCurves {
  /// `.spring(duration: 0.35)`: critically damped.
  static let spring = Spring(duration: 0.35)

  /// How far the spring has gone from rest toward a new target after `time` seconds:
  /// 1 − (1 + ωt) e^(−ωt), ω = 2π / 0.35; 0 before the change.
  static func springStep(_ time: Double) -> Double {
    guard time > 0 else { return 0 }
    return 1 - spring.displacement(after: time, from: 1)
  }

  /// The easeInOut timing curve at progress `x` of its duration: 0 before, 1 after.
  static func easeInOut(_ x: Double) -> Double {
    guard x > 0 else { return 0 }
    guard x < 1 else { return 1 }
    return UnitCurve.easeInOut.value(at: x)
  }
}
