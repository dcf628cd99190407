import Foundation

/// Makes every moving layer of an effect repeat at a loop length, changing no speed by more than a
/// limit (DESIGN.md, Loops).
///
/// Each motion's rate becomes the nearest one that completes a whole number of cycles in the loop,
/// at least one, keeping its phase at 0: r' = round(r T / P) P / T, a change of |r' − r| / |r|.
/// When that change is above the limit, a layer whose motions are all soft keeps its own rates
/// and crossfades its tail into its beginning instead; any other layer makes the plan fail.
/// Still motions (rate 0) are left alone. Schedules allow no change at all.
///
/// Frames show at t = i / fps for i = 0 ..< N with N = T · fps, never at T itself, which is frame 0
/// again; so T · fps must be a whole number.
public enum LoopPlanner {
  /// How far from a whole number a count may be and still be one: lengths like 0.1 · 3 are
  /// 3e-17 off, and no real mistake is that small.
  static let tolerance = 1e-9

  /// The plan for a loop of `length` seconds.
  ///
  /// - Parameters:
  ///   - motions: everything that moves, as a `MotionRecorder` collected it.
  ///   - fps: frames a second; when given, the loop must hold a whole number of frames.
  ///   - maxSpeedChange: the largest speed change allowed, as a fraction (0.10 is 10 %).
  ///   - lengthQuantum: a length the loop must be a whole multiple of (6 s for weather).
  ///   - crossfade: how long soft layers crossfade.
  ///   - maxLength: how far to look for lengths to suggest when this one fails.
  public static func plan(
    motions: [Motion], length: Double, fps: Int? = nil, maxSpeedChange: Double = 0.10,
    lengthQuantum: Double? = nil, crossfade: CrossfadeRule = .standard, maxLength: Double = 120
  ) throws -> LoopPlan {
    guard maxSpeedChange.isFinite, maxSpeedChange >= 0 else { throw LoopPlanError.invalidLimit(maxSpeedChange) }
    guard length.isFinite, length > 0 else { throw LoopPlanError.invalidLength(length) }
    func nearby() -> [Double] {
      nearestLengths(
        to: length, motions: motions, fps: fps, maxSpeedChange: maxSpeedChange, lengthQuantum: lengthQuantum,
        crossfade: crossfade, maxLength: max(maxLength, 2 * length))
    }
    if let quantum = lengthQuantum, quantum > 0, !isWhole(length / quantum) {
      let nearest = nearby()
      // The multiples on either side that do not work either, each with its own reason.
      let sides = [(length / quantum).rounded(.down), (length / quantum).rounded(.up)].map { $0 * quantum }
      let multiples = sides.filter { $0 > 0 && !nearest.contains($0) }.compactMap { m -> String? in
        if let fps, fps > 0, !isWhole(m * Double(fps)) {
          return LoopPlanError.notWholeFrames(length: m, fps: fps, nearest: []).reason
        }
        guard
          case .failure(let failure) = attempt(
            motions: motions, length: m, maxSpeedChange: maxSpeedChange, crossfade: crossfade)
        else { return nil }
        return error(failure, length: m, maxSpeedChange: maxSpeedChange, nearest: []).reason
      }
      throw LoopPlanError.notMultipleOfQuantum(
        length: length, quantum: quantum, nearest: nearest, multiples: multiples)
    }
    if let fps, fps > 0, !isWhole(length * Double(fps)) {
      throw LoopPlanError.notWholeFrames(length: length, fps: fps, nearest: nearby())
    }
    switch attempt(motions: motions, length: length, maxSpeedChange: maxSpeedChange, crossfade: crossfade) {
    case .success(let parts):
      return LoopPlan(
        length: length, fps: fps, maxSpeedChange: maxSpeedChange, lengthQuantum: lengthQuantum,
        rows: parts.rows, layers: parts.layers)
    case .failure(let failure):
      throw error(failure, length: length, maxSpeedChange: maxSpeedChange, nearest: nearby())
    }
  }

  /// The error for the motion that breaks a plan of `length`.
  static func error(_ failure: Failure, length: Double, maxSpeedChange: Double, nearest: [Double]) -> LoopPlanError {
    if failure.motion.kind == .schedule {
      return .schedule(
        layer: failure.motion.layer, motion: failure.motion.name,
        cycle: failure.motion.period / abs(failure.motion.rate), length: length, nearest: nearest)
    }
    return .speedChange(
      layer: failure.motion.layer, motion: failure.motion.name, rate: failure.motion.rate,
      needed: failure.change, limit: maxSpeedChange, length: length, nearest: nearest)
  }

  /// The shortest loop length, in whole multiples of `lengthQuantum` (1 s when there is none), whose
  /// plan keeps every change within the limit; one where no layer crossfades when there is any up
  /// to `maxLengthWithoutCrossfade` (`maxLength` when nil), otherwise the shortest up to
  /// `maxLength` that crossfades but is long enough for the whole crossfade window.
  ///
  /// Slow soft layers need long loops to quantize (the color orbs first manage it at 104 s), so a
  /// caller that would rather crossfade than write a long file lowers `maxLengthWithoutCrossfade`.
  public static func defaultLength(
    motions: [Motion], fps: Int? = nil, maxSpeedChange: Double = 0.10, lengthQuantum: Double? = nil,
    crossfade: CrossfadeRule = .standard, maxLength: Double = 120, maxLengthWithoutCrossfade: Double? = nil
  ) throws -> Double {
    guard maxSpeedChange.isFinite, maxSpeedChange >= 0 else { throw LoopPlanError.invalidLimit(maxSpeedChange) }
    let lengths = candidates(fps: fps, lengthQuantum: lengthQuantum, upTo: maxLength)
    var fallback: Double?
    for length in lengths {
      guard
        case .success(let parts) = attempt(
          motions: motions, length: length, maxSpeedChange: maxSpeedChange, crossfade: crossfade)
      else { continue }
      if !parts.crossfades, length <= (maxLengthWithoutCrossfade ?? maxLength) + tolerance { return length }
      if fallback == nil, length >= crossfade.shortestFullLength - tolerance { fallback = length }
    }
    if let fallback { return fallback }
    throw LoopPlanError.noLength(limit: maxSpeedChange, maxLength: maxLength)
  }

  /// The loop lengths nearest to `length` whose plans work, up to one below it and one above it,
  /// searched in whole multiples of `lengthQuantum` (whole seconds when there is none) up to
  /// `maxLength`, each giving whole frames at `fps`. `length` itself is left out.
  public static func nearestLengths(
    to length: Double, motions: [Motion], fps: Int? = nil, maxSpeedChange: Double = 0.10,
    lengthQuantum: Double? = nil, crossfade: CrossfadeRule = .standard, maxLength: Double = 120
  ) -> [Double] {
    let works = { (t: Double) -> Bool in
      guard abs(t - length) > tolerance * max(1, length) else { return false }
      if case .success = attempt(motions: motions, length: t, maxSpeedChange: maxSpeedChange, crossfade: crossfade) {
        return true
      }
      return false
    }
    let all = candidates(fps: fps, lengthQuantum: lengthQuantum, upTo: maxLength)
    let below = all.last { $0 < length && works($0) }
    let above = all.first { $0 > length && works($0) }
    return [below, above].compactMap { $0 }
  }

  /// The rate that makes `motion` complete whole cycles in `length` seconds, at least one and
  /// turning the same way, and how many; a still motion keeps its rate of 0.
  public static func quantize(_ motion: Motion, length: Double) -> (rate: Double, cycles: Double) {
    guard motion.rate != 0, motion.rate.isFinite, motion.period > 0, motion.period.isFinite,
      length > 0, length.isFinite
    else { return (motion.rate, 0) }
    let exact = motion.rate * length / motion.period
    let whole = max(abs(exact).rounded(), 1) * (exact < 0 ? -1 : 1)
    // Exact cycle counts keep the seed's rate bit for bit: the lightning must run at 1 s a second.
    if abs(whole - exact) <= tolerance * abs(exact) { return (motion.rate, whole) }
    return (whole * motion.period / length, whole)
  }

  // MARK: - Attempts

  struct Parts {
    var rows: [LoopPlan.Row]
    var layers: [LoopPlan.Layer]
    var crossfades: Bool { layers.contains { $0.crossfadeWindow != nil } }
  }

  struct Failure: Error {
    var motion: Motion
    var change: Double
  }

  /// The plan's rows for one length, or the motion that breaks the limit worst among layers that
  /// cannot crossfade.
  static func attempt(
    motions: [Motion], length: Double, maxSpeedChange: Double, crossfade: CrossfadeRule
  )
    -> Result<Parts, Failure>
  {
    var order: [String] = []
    var byLayer: [String: [Motion]] = [:]
    var seen: Set<Motion> = []
    for motion in motions where seen.insert(motion).inserted {
      if byLayer[motion.layer] == nil { order.append(motion.layer) }
      byLayer[motion.layer, default: []].append(motion)
    }
    var rows: [LoopPlan.Row] = []
    var layers: [LoopPlan.Layer] = []
    var worst: Failure?
    for layer in order {
      let members = byLayer[layer]!
      var quantized: [LoopPlan.Row] = []
      var breaks: Failure?
      for motion in members {
        let (rate, cycles) = quantize(motion, length: length)
        let still = motion.rate == 0 || cycles == 0
        let change = still ? 0 : abs(rate - motion.rate) / abs(motion.rate)
        let limit = motion.kind == .schedule ? 0 : maxSpeedChange
        if !still, change > limit + tolerance, change > (breaks?.change ?? -1) {
          breaks = Failure(motion: motion, change: change)
        }
        let strategy: LoopPlan.Strategy = still ? .still : motion.kind == .schedule ? .schedule : .quantize
        quantized.append(
          LoopPlan.Row(
            layer: layer, motion: motion.name, kind: motion.kind, strategy: strategy, period: motion.period,
            originalRate: motion.rate, plannedRate: rate, speedChange: change, cyclesPerLoop: cycles))
      }
      if let breaks {
        guard members.allSatisfy(\.soft) else {
          if breaks.change > (worst?.change ?? -1) { worst = breaks }
          continue
        }
        // The whole layer keeps its own rates: one blend hides all of them at once.
        let window = crossfade.window(forLength: length)
        for motion in members {
          let still = motion.rate == 0 || !(motion.period > 0)
          rows.append(
            LoopPlan.Row(
              layer: layer, motion: motion.name, kind: motion.kind, strategy: still ? .still : .crossfade,
              period: motion.period, originalRate: motion.rate, plannedRate: motion.rate, speedChange: 0,
              cyclesPerLoop: still ? 0 : motion.rate * length / motion.period))
        }
        layers.append(
          LoopPlan.Layer(
            layer: layer, strategy: .crossfade, motions: members.count, largestSpeedChange: 0, crossfadeWindow: window))
      } else {
        rows += quantized
        let strategies = Set(quantized.map(\.strategy))
        let strategy: LoopPlan.Strategy =
          strategies.contains(.quantize) ? .quantize : strategies.contains(.schedule) ? .schedule : .still
        layers.append(
          LoopPlan.Layer(
            layer: layer, strategy: strategy, motions: members.count,
            largestSpeedChange: quantized.map(\.speedChange).max() ?? 0, crossfadeWindow: nil))
      }
    }
    if let worst { return .failure(worst) }
    return .success(Parts(rows: rows, layers: layers))
  }

  /// Whole multiples of the quantum (or of 1 s) up to `maxLength` that give whole frames.
  static func candidates(fps: Int?, lengthQuantum: Double?, upTo maxLength: Double) -> [Double] {
    let step = lengthQuantum.flatMap { $0 > 0 && $0.isFinite ? $0 : nil } ?? 1
    guard maxLength.isFinite, maxLength >= step else { return [] }
    let count = Int((maxLength / step + tolerance).rounded(.down))
    return (1...count).map { Double($0) * step }.filter { t in
      guard let fps, fps > 0 else { return true }
      return isWhole(t * Double(fps))
    }
  }

  static func isWhole(_ x: Double) -> Bool {
    x.isFinite && abs(x - x.rounded()) <= tolerance * max(1, abs(x))
  }
}
