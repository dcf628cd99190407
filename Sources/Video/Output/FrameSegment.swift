/// Which frames of a loop a segment file holds: `first..<end` of `total` (`render --frames`).
///
/// A segment is timed from 0, so that it plays on its own and `join` only adds its start to each
/// timestamp; the range itself travels in the file, as the container's `comment` (MP4, MOV, WebM)
/// or a `XLOOPSMITH=` header parameter (Y4M), which players ignore. Timestamps alone could not
/// tell a segment 30:60 from 0:30, so order, gaps and overlaps are checked against this tag.
/// The container's comment carries the whole loop's loopsmith-preset tag on its next line, so
/// `join --key-frames first` can encode the loop again at the quality it was made with.
public struct FrameSegment: Sendable, Equatable, CustomStringConvertible {
  public var first: Int
  /// One past the last frame.
  public var end: Int
  /// The frames in the whole loop.
  public var total: Int

  public init(first: Int, end: Int, total: Int) { (self.first, self.end, self.total) = (first, end, total) }

  public var count: Int { end - first }
  public var description: String { "frames \(first):\(end) of \(total)" }

  static let metadataKey = "comment"
  static let prefix = "loopsmith frames "

  /// The container tag: `loopsmith frames 30:60 of 90`.
  var tag: String { "\(Self.prefix)\(first):\(end) of \(total)" }

  /// The Y4M header parameter: `XLOOPSMITH=30:60:90`.
  var y4mParameter: String { "XLOOPSMITH=\(first):\(end):\(total)" }

  /// The frame parameter a Y4M segment's every frame carries: the 64-bit FNV-1a hash of the
  /// whole loop's preset tag, in hex (`FRAME XLOOPSMITHTAG=0123456789abcdef`), so `join` can tell
  /// segments of two renders apart. The tag itself does not fit: libav reads a Y4M stream header
  /// of at most 96 bytes and a frame header of at most 80 (docs/ENCODING.md, Segments).
  static func y4mFrameLine(presetTag: String?) -> String {
    guard let presetTag else { return "FRAME\n" }
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in presetTag.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    let hex = String(hash, radix: 16)
    return "FRAME \(y4mTagKey)\(String(repeating: "0", count: 16 - hex.count))\(hex)\n"
  }

  static let y4mTagKey = "XLOOPSMITHTAG="

  /// The container's comment: the tag, and the whole loop's preset tag on the next line when given.
  func comment(presetTag: String?) -> String { presetTag.map { tag + "\n" + $0 } ?? tag }

  /// The whole loop's preset tag a segment's comment carries after its first line, or nil.
  static func presetTag(inComment comment: String) -> String? {
    guard let newline = comment.firstIndex(of: "\n") else { return nil }
    let rest = comment[comment.index(after: newline)...]
    return rest.isEmpty ? nil : String(rest)
  }

  /// The range a container tag names (the comment's first line), or nil when it is not one.
  init?(tag comment: String) {
    let tag = comment.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)[0]
    guard tag.hasPrefix(Self.prefix) else { return nil }
    let words = tag.dropFirst(Self.prefix.count).split(separator: " ")
    guard words.count == 3, words[1] == "of" else { return nil }
    let range = words[0].split(separator: ":")
    guard range.count == 2 else { return nil }
    self.init(numbers: [range[0], range[1], words[2]])
  }

  /// The range a Y4M header parameter's value (`30:60:90`) names, or nil.
  init?(y4mValue: Substring) {
    self.init(numbers: y4mValue.split(separator: ":", omittingEmptySubsequences: false))
  }

  private init?(numbers: [Substring]) {
    guard numbers.count == 3,
      numbers.allSatisfy({ !$0.isEmpty && $0.count < 10 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
      let a = Int(numbers[0]), let b = Int(numbers[1]), let n = Int(numbers[2]), a < b, b <= n
    else { return nil }
    self.init(first: a, end: b, total: n)
  }
}

extension Encoder {
  /// The whole loop's seam zones (`seamZones(frameCount:pixels:)`) that fall in the segment, in
  /// the segment's frame numbers: only the segment holding frame 0 boosts its first frame, only
  /// the one holding the loop's last frames ramps up to it, so the joined file's seam is coded
  /// like a whole render's rather than every segment's edges.
  static func seamZones(segment s: FrameSegment, codec: VideoCodec = .h264, pixels: Int) -> String? {
    let whole = codec == .hevc ? hevcSeamZones(frameCount: s.total) : seamZones(frameCount: s.total, pixels: pixels)
    guard let whole else { return nil }
    let zones = whole.split(separator: "/").compactMap { zone -> String? in
      let parts = zone.split(separator: ",", maxSplits: 2)  // "first,last,b=factor", one frame each
      guard parts.count == 3, let f = Int(parts[0]), s.first <= f, f < s.end else { return nil }
      return "\(f - s.first),\(f - s.first),\(parts[2])"
    }
    return zones.isEmpty ? nil : zones.joined(separator: "/")
  }
}
