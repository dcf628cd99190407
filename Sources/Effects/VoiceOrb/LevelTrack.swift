import Foundation

/// How loud a voice is over time, from 0 for silence to 1 at its loudest: levels at times, read
/// between them by straight lines (or held until the next one).
///
/// Before the first time the first level holds, after the last time the last one. Pairs whose time
/// or level is not a number are dropped; levels are kept as given, and the voice orb clamps them
/// (above 1 counts as 1, below 0 as 0). An empty track is silence.
public struct LevelTrack: Hashable, Sendable, Codable {
  /// How a level is read between two times.
  public enum Interpolation: String, Hashable, Sendable, Codable {
    /// A straight line between the two levels: an audio envelope.
    case linear
    /// The earlier level until the next time: levels an app sets now and then.
    case hold
  }

  /// Seconds, increasing.
  public private(set) var times: [Double]
  /// One level per time.
  public private(set) var levels: [Double]
  public var interpolation: Interpolation

  /// Levels at times, in any order; pairs with equal times keep the later one.
  public init(times: [Double], levels: [Double], interpolation: Interpolation = .linear) {
    var pairs: [(Double, Double)] = []
    for (t, l) in zip(times, levels) where t.isFinite && !l.isNaN { pairs.append((t, l)) }
    // A stable sort keeps equal times in order, so the later one of them wins below.
    pairs = pairs.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element)
    var t: [Double] = [], l: [Double] = []
    for (time, level) in pairs {
      if let last = t.last, last == time { l[l.count - 1] = level } else { t.append(time); l.append(level) }
    }
    (self.times, self.levels, self.interpolation) = (t, l, interpolation)
  }

  /// The same level at every time.
  public static func constant(_ level: Double) -> LevelTrack {
    LevelTrack(times: [0], levels: [level])
  }

  /// An envelope sampled `rate` times a second from `start` seconds, as an audio meter gives it
  /// (sample i at `start + i / rate`). A rate of 0 or less, or not a number, gives silence.
  public init(envelope: [Double], rate: Double, start: Double = 0) {
    guard rate.isFinite, rate > 0, start.isFinite else {
      self.init(times: [], levels: [])
      return
    }
    self.init(times: envelope.indices.map { start + Double($0) / rate }, levels: envelope)
  }

  /// The envelope of a sound that loops (sample i at `i / rate`, the loop `envelope.count / rate`
  /// long), with at least `history` seconds before 0 read from the loop's end: what plays before
  /// frame 0 when the file loops, so a spring that remembers earlier levels (the voice orb's)
  /// comes into frame 0 as it came into the loop's last frame, not settled on the first level.
  public init(loopingEnvelope envelope: [Double], rate: Double, history: Double) {
    guard rate.isFinite, rate > 0, !envelope.isEmpty, history.isFinite, history > 0 else {
      self.init(envelope: envelope, rate: rate)
      return
    }
    let repeats = Int((history * rate / Double(envelope.count)).rounded(.up))
    let n = envelope.count
    self.init(
      times: (-repeats * n..<n).map { Double($0) / rate },
      levels: (-repeats * n..<n).map { envelope[(($0 % n) + n) % n] })
  }

  /// A track from text lines `time,level` (seconds, then 0...1), as a CSV file holds them: blank
  /// lines, lines starting with `#` and a first line that is not two numbers (a header) are skipped.
  /// Any other line that is not two numbers throws, naming its line number.
  public init(csv text: String, interpolation: Interpolation = .linear) throws {
    var times: [Double] = [], levels: [Double] = []
    // Split on the scalar: Swift takes "\r\n" as one Character, so a CRLF file has no "\n" Character.
    for (index, scalars) in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let raw = String(String.UnicodeScalarView(scalars))
      let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
      if line.isEmpty || line.hasPrefix("#") { continue }
      let fields = line.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == "\t" })
        .map { $0.trimmingCharacters(in: .whitespaces) }
      if fields.count == 2, let t = DecimalText.double(fields[0]), let l = DecimalText.double(fields[1]) {
        times.append(t)
        levels.append(l)
      } else if index == 0 {
        continue  // a header
      } else {
        throw LevelTrackError(line: index + 1, raw: Substring(raw))
      }
    }
    self.init(times: times, levels: levels, interpolation: interpolation)
  }

  /// The level at `time`; a time that is not a number reads the first level, an empty track 0.
  public func level(at time: Double) -> Double {
    guard let first = levels.first else { return 0 }
    guard time.isFinite, time > times[0] else { return time == .infinity ? levels[levels.count - 1] : first }
    let n = times.count
    if time >= times[n - 1] { return levels[n - 1] }
    // The last index whose time is at or before `time`.
    var lo = 0, hi = n - 1
    while hi - lo > 1 {
      let mid = (lo + hi) / 2
      if times[mid] <= time { lo = mid } else { hi = mid }
    }
    switch interpolation {
    case .hold: return levels[lo]
    case .linear:
      let f = (time - times[lo]) / (times[hi] - times[lo])
      return levels[lo] + (levels[hi] - levels[lo]) * f
    }
  }

  enum CodingKeys: String, CodingKey { case times, levels, interpolation }

  /// `{"times": [...], "levels": [...], "interpolation": "linear"}`; the interpolation may be left out.
  public init(from decoder: any Decoder) throws {
    let keys = try decoder.container(keyedBy: CodingKeys.self)
    let times = try keys.decode([Double].self, forKey: .times)
    let levels = try keys.decode([Double].self, forKey: .levels)
    guard times.count == levels.count else {
      throw DecodingError.dataCorruptedError(
        forKey: .levels, in: keys, debugDescription: "\(levels.count) levels for \(times.count) times")
    }
    let interpolation = try keys.decodeIfPresent(Interpolation.self, forKey: .interpolation) ?? .linear
    self.init(times: times, levels: levels, interpolation: interpolation)
  }
}

/// A line of a level file that is not `time,level`.
///
/// It names the line and column, never the text: a level file may be any file a preset names
/// (`/etc/shadow`), and this message goes to stderr, the batch manifest and its gallery.
public struct LevelTrackError: Error, CustomStringConvertible, Sendable {
  public let line: Int
  /// 1-based, in characters: where the first field that is not a decimal number starts.
  public let column: Int
  /// How many fields the line holds.
  public let fields: Int

  public init(line: Int, column: Int, fields: Int) { (self.line, self.column, self.fields) = (line, column, fields) }

  init(line: Int, raw: Substring) {
    var fields: [(start: Int, text: String)] = []
    var start = 1, current = ""
    for (offset, c) in raw.enumerated() {
      if c == "," || c == ";" || c == "\t" {
        fields.append((start, current))
        (start, current) = (offset + 2, "")
      } else {
        current.append(c)
      }
    }
    fields.append((start, current))
    var column = fields.count > 2 ? fields[2].start : 1
    for f in fields.prefix(2) where DecimalText.double(f.text.trimmingCharacters(in: .whitespacesAndNewlines)) == nil {
      let blanks: Int = f.text.prefix(while: { $0 == " " || $0 == "\t" }).count
      column = f.start + blanks
      break
    }
    self.init(line: line, column: column, fields: fields.count)
  }

  public var description: String {
    "line \(line), column \(column): expected time,level (two decimal numbers)\(fields == 2 ? "" : ", found \(fields) field\(fields == 1 ? "" : "s")")"
  }
}
