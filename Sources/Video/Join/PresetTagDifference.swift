import Foundation

/// How two segments' loopsmith-preset tags differ, in words, for `join`'s refusal: the keys whose
/// values differ, each as `key value` (or `no key`), at most three of them.
///
/// The tag is the whole loop's preset (its effect, parameters, size, rate, codec, alpha, quality),
/// the same in every segment of one render: a segment's frame range travels on the comment's first
/// line, not in the tag, so segments of different ranges compare equal. Tags are read from the
/// files, so they are hostile input: a tag that is not a JSON object is compared as text, and every
/// value shown is cut short.
struct PresetTagDifference {
  /// This segment's side, e.g. `effect weather`.
  var this: String
  /// The first segment's side, e.g. `effect color-orbs`.
  var other: String

  static let prefix = "loopsmith-preset "
  /// The longest value shown, in characters.
  static let shownLength = 40
  /// The most keys shown.
  static let shownKeys = 3

  /// The difference between `tag` and `first`, or nil when they are the same preset.
  init?(_ tag: String?, against first: String?) {
    if tag == first { return nil }
    guard let tag else { (this, other) = ("none", Self.cut(first ?? "none")); return }
    guard let first else { (this, other) = (Self.cut(tag), "none"); return }
    guard let a = Self.object(tag), let b = Self.object(first) else {
      (this, other) = (Self.cut(tag), Self.cut(first))
      return
    }
    let keys = Set(a.keys).union(b.keys).sorted().filter { !Self.same(a[$0], b[$0]) }
    if keys.isEmpty { return nil }  // the same JSON spelled differently
    let shown = keys.prefix(Self.shownKeys)
    let more = keys.count > shown.count ? ", …" : ""
    this = shown.map { Self.describe($0, a[$0]) }.joined(separator: ", ") + more
    other = shown.map { Self.describe($0, b[$0]) }.joined(separator: ", ") + more
  }

  /// The tag's preset as a JSON object, or nil when it is not one.
  static func object(_ tag: String) -> [String: Any]? {
    guard tag.hasPrefix(prefix) else { return nil }
    let data = Data(tag.utf8.dropFirst(prefix.utf8.count))
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
  }

  static func same(_ a: Any?, _ b: Any?) -> Bool {
    switch (a, b) {
    case (nil, nil): true
    case (let a?, let b?): NSDictionary(dictionary: ["v": a]).isEqual(to: ["v": b])
    default: false
    }
  }

  static func describe(_ key: String, _ value: Any?) -> String {
    guard let value else { return "no \(cut(key))" }
    let text: String
    if let string = value as? String {
      text = string
    } else if JSONSerialization.isValidJSONObject(value),
      let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
    {
      text = String(decoding: data, as: UTF8.self)
    } else if let number = value as? NSNumber {
      text = number.stringValue
    } else {
      text = "\(value)"
    }
    return "\(cut(key)) \(cut(text))"
  }

  /// `text` on one line and at most `shownLength` characters, so a hostile tag keeps the message one line.
  static func cut(_ text: String) -> String {
    let line = text.map { $0.isNewline || $0 == "\t" ? " " : $0 }
    return line.count > shownLength ? String(line.prefix(shownLength - 1)) + "…" : String(line)
  }
}
