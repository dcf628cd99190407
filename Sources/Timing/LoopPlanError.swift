import Foundation

/// Why a loop of the asked length cannot be made, with the lengths that can.
///
/// Every message names what is wrong and, when there are any, the nearest loop lengths that work.
public enum LoopPlanError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The length is 0 or less, or not a number.
  case invalidLength(Double)
  /// The speed change limit is below 0 or not a number.
  case invalidLimit(Double)
  /// The length is not a whole multiple of the quantum (6 s for weather). `multiples` says why
  /// each multiple next to it that is not among `nearest` fails: a 3 s weather loop's error named
  /// 12 s alone, and 6 s, a multiple, looked forgotten.
  case notMultipleOfQuantum(length: Double, quantum: Double, nearest: [Double], multiples: [String] = [])
  /// The length times the frame rate is not a whole number of frames.
  case notWholeFrames(length: Double, fps: Int, nearest: [Double])
  /// A motion on a layer that cannot crossfade would change speed by more than the limit.
  case speedChange(
    layer: String, motion: String, rate: Double, needed: Double, limit: Double, length: Double, nearest: [Double])
  /// A timetable does not fit a whole number of times into the loop.
  case schedule(layer: String, motion: String, cycle: Double, length: Double, nearest: [Double])
  /// No length up to `maxLength` keeps every change within the limit.
  case noLength(limit: Double, maxLength: Double)

  public var description: String {
    switch self {
    case .notMultipleOfQuantum(_, _, let nearest, let multiples):
      return reason + multiples.map { " " + $0 }.joined() + Self.suggest(nearest)
    case .notWholeFrames(_, _, let nearest), .speedChange(_, _, _, _, _, _, let nearest),
      .schedule(_, _, _, _, let nearest):
      return reason + Self.suggest(nearest)
    default: return reason
    }
  }

  /// What is wrong, without the lengths that work.
  public var reason: String {
    switch self {
    case .invalidLength(let length):
      return "The loop length must be a number of seconds above 0, not \(Self.seconds(length))."
    case .invalidLimit(let limit):
      return "The speed change limit must be 0 % or more, not \(Self.percent(limit))."
    case .notMultipleOfQuantum(let length, let quantum, _, _):
      return "A \(Self.seconds(length)) loop is not a whole multiple of \(Self.seconds(quantum))."
    case .notWholeFrames(let length, let fps, _):
      let frames = length * Double(fps)
      return "A \(Self.seconds(length)) loop at \(fps) fps is \(Self.number(frames)) frames, not a whole number."
    case .speedChange(let layer, let motion, let rate, let needed, let limit, let length, _):
      return "A \(Self.seconds(length)) loop would change the speed of \(layer) \(motion) (\(Self.number(rate))/s) by "
        + "\(Self.percent(needed)), above the \(Self.percent(limit)) limit (--max-speed-change)."
    case .schedule(let layer, let motion, let cycle, let length, _):
      return "\(layer) \(motion) repeats every \(Self.seconds(cycle)), and a \(Self.seconds(length)) loop "
        + "does not hold a whole number of its cycles."
    case .noLength(let limit, let maxLength):
      return "No loop length up to \(Self.seconds(maxLength)) keeps every speed change within "
        + "\(Self.percent(limit)); allow a larger --max-speed-change."
    }
  }

  /// The lengths that work nearest to the asked one, or what to do when there are none.
  public var nearest: [Double] {
    switch self {
    case .notMultipleOfQuantum(_, _, let n, _), .notWholeFrames(_, _, let n), .speedChange(_, _, _, _, _, _, let n),
      .schedule(_, _, _, _, let n):
      n
    default: []
    }
  }

  static func suggest(_ lengths: [Double]) -> String {
    switch lengths.count {
    case 0: " No nearby length works; allow a larger --max-speed-change."
    case 1: " The nearest length that works is \(seconds(lengths[0]))."
    default: " The nearest lengths that work are \(lengths.map(seconds).joined(separator: " and "))."
    }
  }

  /// 12 -> "12 s", 7.5 -> "7.5 s", up to 3 decimals.
  static func seconds(_ value: Double) -> String { number(value) + " s" }

  static func number(_ value: Double) -> String {
    guard value.isFinite else { return "\(value)" }
    let rounded = (value * 1000).rounded() / 1000
    if rounded == rounded.rounded() && abs(rounded) < 1e15 { return String(Int(rounded)) }
    var text = String(format: "%.3f", rounded)
    while text.hasSuffix("0") { text.removeLast() }
    return text
  }

  /// 0.2345 -> "23.5%": one decimal, none when it is whole (0.1 -> "10%").
  static func percent(_ fraction: Double) -> String {
    guard fraction.isFinite else { return "\(fraction)" }
    let tenths = (fraction * 1000).rounded() / 10
    return tenths == tenths.rounded() ? "\(Int(tenths))%" : String(format: "%.1f%%", tenths)
  }
}
