import Foundation
import Video

/// What `join --key-frames` and `batch --merge --key-frames` ask for, and the encoder settings of
/// `first`, which encodes the joined loop again (`SegmentJoin.KeyFrames`).
public enum JoinEncoding {
  /// What `--key-frames` expects, for messages and help.
  public static let expected =
    "first (one key frame, at frame 0: the video is encoded again) or segments (a key frame where each segment starts: copied, the default)"

  /// The `--key-frames` value, checked; nil (not given) is `segments`.
  public static func keyFrames(_ text: String?) throws -> SegmentJoin.KeyFrames {
    guard let text else { return .segments }
    guard let keyFrames = SegmentJoin.KeyFrames(rawValue: text) else {
      throw InputError("--key-frames: '\(text)' is not valid; expected \(expected)")
    }
    return keyFrames
  }

  /// The settings a render of the loop used, for the segments' codec: `crf` when given, else
  /// `quality`'s value for the codec, else the crf or quality the loop's preset tag names, else the
  /// codec's default; the tag's x264 preset; the default encoder threads (`--encoder-threads`
  /// is not in the tag, and threads change the bytes, so they never follow the machine).
  public static func choice(crf: Int?, quality: QualityLevel?) -> SegmentJoin.EncodingChoice {
    { codec, tag, path in
      var request = RenderRequest()
      if let tag, tag.hasPrefix(PresetTag.prefix) {
        // Hostile input like any preset: bounded, then strict JSON.
        guard tag.utf8.count <= PresetTag.limit else {
          throw InputError(
            "\(path): its loopsmith-preset tag is over \(PresetTag.limit) bytes; expected a preset's JSON of a few KB")
        }
        let data = Data(tag.utf8.dropFirst(PresetTag.prefix.utf8.count))
        request = try Preset.decode(data, name: "tag", path: path + " (loopsmith-preset tag)").request
      }
      guard let spec = codec.spec.quality else {
        return SegmentJoin.Encoding(crf: nil, threads: RenderSetting.defaultEncoderThreads)
      }
      if let crf, !spec.range.contains(crf) {
        throw InputError(
          "--crf: \(crf) is out of range for the segments' \(codec.rawValue); expected \(spec.range.lowerBound) to \(spec.range.upperBound)"
        )
      }
      let tagLevel = request.quality.flatMap { QualityLevel(rawValue: $0.lowercased()) }
      let chosen = crf ?? quality.map(spec.value(for:)) ?? request.crf ?? tagLevel.map(spec.value(for:))
      return SegmentJoin.Encoding(
        crf: chosen, x264Preset: request.x264Preset ?? "medium", threads: RenderSetting.defaultEncoderThreads)
    }
  }
}
