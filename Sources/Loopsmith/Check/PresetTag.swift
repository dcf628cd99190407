import Effects
import Foundation
import Video

/// The effective preset a file carries in its container's `comment` (docs/ENCODING.md, Judging a
/// loop): the JSON a preset file would hold to render the same loop, so `check FILE` can re-render
/// the file's source and compare every step with it.
///
/// Read back, the tag is hostile input like any preset: bounded in size, strict JSON, and files it
/// names (a level track, audio) are confined to the video's folder.
public enum PresetTag {
  /// What starts a comment that holds a preset; comments without it are someone else's.
  public static let prefix = "loopsmith-preset "
  /// The largest tag read back, in bytes (a preset with a long sequence is a few KB).
  public static let limit = StreamInfo.commentLimit

  /// The tag for a render of `request`: its preset keys and parameters, without outputs; a file
  /// setting keeps only its file name, read beside the video.
  public static func text(for request: RenderRequest) -> String? {
    guard let effect = request.effect else { return nil }
    var object: [String: Any] = ["version": Preset.version, "effect": effect]
    for setting in RenderSetting.all {
      guard let key = setting.presetKey, key != "outputs", let value = setting.value(in: request) else { continue }
      switch value {
      case .integer(let n): object[key] = n
      case .number(let d): object[key] = d
      case .text(let s): object[key] = setting.isFile ? (s as NSString).lastPathComponent : s
      case .toggle(let b): object[key] = b
      case .size(let w, let h): object[key] = [w, h]
      case .texts(let a): object[key] = a
      case .bytes(let n): object[key] = n
      }
    }
    if !request.parameters.isEmpty {
      object["parameters"] = request.parameters.mapValues { $0.description }
    }
    guard JSONSerialization.isValidJSONObject(object),
      let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
      let json = String(data: data, encoding: .utf8), json.utf8.count + prefix.utf8.count <= limit
    else { return nil }
    return prefix + json
  }

  /// The request a file's comment holds, nil when the comment is none of ours; an `InputError`
  /// naming the file and what is wrong when it is ours but too large, not strict JSON, or not a
  /// preset.
  public static func request(in info: StreamInfo, videoPath: String) throws -> RenderRequest? {
    guard let comment = info.comment, comment.hasPrefix(prefix) else { return nil }
    if info.commentTooLong {
      throw InputError(
        "\(videoPath): its loopsmith-preset tag is over \(limit) bytes; expected a preset's JSON of a few KB")
    }
    let data = Data(comment.utf8.dropFirst(prefix.utf8.count))
    // The preset decoder names this label in its errors and confines files to its folder: the video's.
    return try Preset.decode(data, name: "tag", path: videoPath + " (loopsmith-preset tag)").request
  }
}
