import Foundation

/// The first and last samples of a file's first audio stream, per channel, decoded: what `check`
/// needs to hear the audio seam (the last sample into the first) without holding the whole track.
public struct AudioEnds: Sendable {
  public var sampleRate: Int
  /// `head[c]` is channel c's first samples, `tail[c]` its last, each at most `keep` long, as
  /// floats in -1...1.
  public var head: [[Float]]
  public var tail: [[Float]]
  /// Every sample decoded, per channel.
  public var sampleCount: Int

  /// Decodes the first audio stream of `path` (as `AudioDecoder` reads every sound: through our
  /// own descriptor, its rate and channels bounded, as floats); `keep` samples per channel are
  /// kept at each end. A file without audio is an error.
  public static func read(path: String, keep: Int = 4096) throws -> AudioEnds {
    silenceLibAVLog()
    let decoder = try AudioDecoder(file: try InputFile(path: path, limit: InputFile.Limit.video, what: "video file"))
    let channels = decoder.channels
    var head = [[Float]](repeating: [], count: channels)
    // The last `keep` samples of each channel, in a ring: sample n at n % keep.
    var ring = [[Float]](repeating: [Float](repeating: 0, count: keep), count: channels)
    var seen = 0
    try decoder.forEachBlock { block in
      for i in 0..<(block.count / channels) {
        for c in 0..<channels {
          let v = block[i * channels + c]
          if seen < keep { head[c].append(v) }
          ring[c][seen % keep] = v
        }
        seen += 1
      }
      return true
    }
    let kept = (seen - min(keep, seen))..<seen
    return AudioEnds(
      sampleRate: decoder.sampleRate, head: head, tail: ring.map { r in kept.map { r[$0 % keep] } },
      sampleCount: seen)
  }
}
