import Foundation

/// How a sound whose length differs from the loop's becomes exactly the loop's length
/// (`render --audio-fit`; docs/ENCODING.md, Audio that loops).
///
/// Whatever the mode, the track lasts exactly N / fps, so it loops with the video.
public enum AudioFit: String, CaseIterable, Sendable {
  /// The default. A shorter sound repeats until the loop is full, each repeat crossfaded into
  /// the next, so the sound (and the level the voice orb follows) runs on across the seam; a
  /// longer one is cut as with `cut`.
  case loop
  /// A longer sound is cut at the loop's length, and what follows the cut (its next 50 ms)
  /// crossfades into the head, so the seam continues the sound instead of clicking. A shorter
  /// sound is padded with silence, faded in and out over 5 ms so neither end clicks.
  case cut
  /// The sound as it is, padded with silence; a sound longer than the loop is refused.
  case pad

  public static let defaultValue = AudioFit.loop

  /// The shortest sound `loop` repeats, in seconds: two crossfades, so each repeat holds some of
  /// the sound itself between them.
  public static let shortestRepeated = 2 * Double(crossfadeSamples) / 48000

  /// The crossfade across the seam and between repeats: 50 ms at 48 kHz.
  static let crossfadeSamples = 2400
  /// The fade at the ends of a padded sound (`cut`): 5 ms at 48 kHz.
  static let edgeFadeSamples = 240

  /// How many sample frames a loop of `frameCount` frames at `fps` holds at `rate`.
  public static func loopSamples(frameCount: Int, fps: Int, rate: Int) -> Int {
    (frameCount * rate + fps / 2) / fps
  }

  /// Exactly `length` sample frames of `channels` interleaved channels made from `source` (the
  /// sound's first samples, at least `length + crossfadeSamples` frames of it when it has that
  /// many), fitted by `self`. `pad` cuts a longer sound plainly; the job refuses one before.
  func fitted(_ source: [Float], channels: Int, length: Int) -> [Float] {
    let available = source.count / channels
    if available == length { return source }
    if available > length {
      // Cut; the continuation past the cut crossfades into the head (the seam plays on).
      var out = Array(source[0..<(length * channels)])
      if self == .pad { return out }
      let fade = min(Self.crossfadeSamples, available - length, length / 2)
      for k in 0..<fade {
        let w = Self.rise(k, of: fade)
        for c in 0..<channels {
          out[k * channels + c] = source[(length + k) * channels + c] * (1 - w) + source[k * channels + c] * w
        }
      }
      return out
    }
    switch self {
    case .loop:
      // Repeats overlapping by a crossfade, long enough to cut with a crossfade too.
      let overlap = min(Self.crossfadeSamples, available / 2)
      var extended = source
      let target = (length + Self.crossfadeSamples) * channels
      while extended.count < target && overlap > 0 {
        let start = extended.count / channels - overlap
        for k in 0..<overlap {
          let w = Self.rise(k, of: overlap)
          for c in 0..<channels {
            let i = (start + k) * channels + c
            extended[i] = extended[i] * (1 - w) + source[k * channels + c] * w
          }
        }
        extended.append(contentsOf: source[(overlap * channels)...])
      }
      if extended.count < target {  // a sound of one sample frame
        extended += [Float](repeating: source.last ?? 0, count: target - extended.count)
      }
      return AudioFit.cut.fitted(extended, channels: channels, length: length)
    case .cut:
      var out = source
      let edge = min(Self.edgeFadeSamples, available / 2)
      for k in 0..<edge {
        let w = Self.rise(k, of: edge)
        for c in 0..<channels {
          out[k * channels + c] *= w
          out[(available - 1 - k) * channels + c] *= w
        }
      }
      return out + [Float](repeating: 0, count: (length - available) * channels)
    case .pad:
      return source + [Float](repeating: 0, count: (length - available) * channels)
    }
  }

  /// A raised cosine from near 0 to near 1 over `count` steps; its mirror sums with it to 1.
  private static func rise(_ k: Int, of count: Int) -> Float {
    Float(0.5 - 0.5 * cos(Double.pi * (Double(k) + 0.5) / Double(count)))
  }

  /// The one-line notice for a sound of `soundSeconds` (any more than `loopSeconds` for a longer
  /// one) fitted to a loop of `loopSeconds`, or nil when they match; `name` is the file as given.
  public func notice(name: String, soundSeconds: Double, loopSeconds: Double) -> String? {
    let sound = Self.seconds(soundSeconds), loop = Self.seconds(loopSeconds)
    if abs(soundSeconds - loopSeconds) < 0.5 / 48000 { return nil }
    if soundSeconds > loopSeconds {
      return
        "--audio: \(name) is longer than the \(loop) s loop; cut to it, the 50 ms after the cut crossfaded into its start so the seam does not click (--audio-fit)"
    }
    switch self {
    case .loop:
      return
        "--audio: \(name) lasts \(sound) s; repeated to fill the \(loop) s loop, each repeat crossfaded over 50 ms (--audio-fit pad plays it once, then silence)"
    case .cut:
      return
        "--audio: \(name) lasts \(sound) s; padded with \(Self.seconds(loopSeconds - soundSeconds)) s of silence to the \(loop) s loop (--audio-fit loop repeats it)"
    case .pad:
      return
        "--audio: \(name) lasts \(sound) s; padded with \(Self.seconds(loopSeconds - soundSeconds)) s of silence to the \(loop) s loop (--audio-fit)"
    }
  }

  /// Seconds to at most three decimals, without trailing zeros: `10`, `2.5`, `0.125`.
  public static func seconds(_ value: Double) -> String {
    var text = String(Int((value * 1000).rounded()) / 1000)
    let fraction = Int((value * 1000).rounded()) % 1000
    if fraction != 0 {
      var digits = String(fraction)
      digits = String(repeating: "0", count: 3 - digits.count) + digits
      while digits.hasSuffix("0") { digits.removeLast() }
      text += "." + digits
    }
    return text
  }

  /// How long the sound at `path` lasts, read up to `limit` seconds (a longer sound reports more
  /// than `limit`), decoded at 48 kHz as the muxed track is.
  public static func soundSeconds(path: String, upTo limit: Double) throws -> Double {
    silenceLibAVLog()
    let rate = 48000
    let decoder = try AudioDecoder(soundAt: path, rate: rate, channels: 1)
    let wanted = Int((limit * Double(rate)).rounded(.up)) + 1
    var count = 0
    try decoder.forEachBlock { block in
      count += block.count
      return count < wanted
    }
    if count == 0 { throw AudioDecoder.holdsNoSamples(path) }
    return Double(count) / Double(rate)
  }
}
