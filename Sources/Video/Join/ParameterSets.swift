import CLibAV

/// The part of a stream's codec extradata that decides how its packets decode, for `join` to
/// compare between segments (docs/ENCODING.md, Seamless loops).
///
/// libx265 writes a user-data SEI into HEVC's `hvcC` beside the VPS, SPS and PPS: its version and
/// every option it ran with, the segment's own seam zones among them, so the extradata of two
/// segments of one render differ while their parameter sets are the same. SEI NAL units (types 39
/// and 40) decode nothing another frame depends on, so they are left out of the comparison. H.264's
/// `avcC` holds only SPS and PPS (libx264 puts its SEI in the first packet), and VP9's and AV1's
/// extradata hold no SEI, so theirs are compared whole.
enum ParameterSets {
  /// The bytes of `extradata` that must agree between segments: for an HEVC `hvcC`, its 23-byte
  /// header and every NAL unit array but the SEI ones; for anything else, or an `hvcC` whose
  /// lengths do not add up (hostile), every byte.
  static func comparable(_ extradata: [UInt8], codec: AVCodecID) -> [UInt8] {
    guard codec == AV_CODEC_ID_HEVC, let kept = hvcCWithoutSEI(extradata) else { return extradata }
    return kept
  }

  /// An `hvcC` record (ISO 14496-15, 8.3.3.1) without its SEI arrays, or nil when `data` is not
  /// one: version 1, 22 bytes of header, a count of arrays, each a NAL unit type, a count and
  /// length-prefixed NAL units that end exactly at the end of the record.
  static func hvcCWithoutSEI(_ data: [UInt8]) -> [UInt8]? {
    guard data.count >= 23, data[0] == 1 else { return nil }  // Annex B extradata starts with 0
    var kept = Array(data[0..<22])
    var arrays: [[UInt8]] = []
    var at = 23
    /// The next `n` bytes, or nil past the end: every length read from the file is checked here.
    func take(_ n: Int) -> ArraySlice<UInt8>? {
      guard n >= 0, n <= data.count - at else { return nil }
      defer { at += n }
      return data[at..<at + n]
    }
    for _ in 0..<Int(data[22]) {
      guard let head = take(3) else { return nil }
      let type = head[head.startIndex] & 0x3F
      let count = Int(head[head.startIndex + 1]) << 8 | Int(head[head.startIndex + 2])
      var array = Array(head)
      for _ in 0..<count {
        guard let length = take(2) else { return nil }
        let n = Int(length[length.startIndex]) << 8 | Int(length[length.startIndex + 1])
        guard let unit = take(n) else { return nil }
        array += length
        array += unit
      }
      if type != 39 && type != 40 { arrays.append(array) }  // SEI prefix and suffix
    }
    guard at == data.count else { return nil }
    kept.append(UInt8(arrays.count))
    for array in arrays { kept += array }
    return kept
  }
}
