/// Stacked alpha: transparency in a video format without an alpha plane (H.264 or HEVC in MP4),
/// for players that decode only those (Safari, iOS, Android, every `<video>`).
///
/// The encoded frame is twice the picture's height. The top half is the picture's colour,
/// un-premultiplied, black where alpha is 0; the bottom half is alpha as luma with neutral chroma
/// (Cb = Cr = 128). Alpha is stored in limited range, Y = 16 + 219 a, like the colour half and
/// as the stream is tagged: any decoder's YUV to RGB conversion then gives R = G = B = a in the
/// bottom half, with nothing clipped, so a player reads alpha from the decoded picture as it is.
/// `player/loopsmith-alpha.js` composites such a file on any background (README, Stacked alpha).
public enum StackedAlpha {
  /// The codecs a stacked file can hold: those every platform's `<video>` decodes in hardware.
  public static let codecs: [VideoCodec] = [.h264, .hevc]

  /// The encoded height for a picture `height` pixels high.
  public static func encodedHeight(_ height: Int) -> Int { height * 2 }

  /// The alpha half's luma codes, 16 + 219 a (before dither), like the colour half's limited range.
  public static let alphaOffset: Float = 16
  public static let alphaRange: Float = 219
}

extension OutputSettings {
  /// Why these settings cannot hold stacked alpha, or nil (also nil when it is not asked for).
  var stackedAlphaProblem: String? {
    guard stackedAlpha else { return nil }
    if !StackedAlpha.codecs.contains(codec) {
      return "stacked alpha needs "
        + StackedAlpha.codecs.map(\.rawValue).joined(separator: " or ")
        + " (.mp4 or .mov); \(codec.rawValue) (.\(format.rawValue)) carries its own alpha or none"
    }
    if bitDepth != 8 { return "stacked alpha is 8-bit; expected bit depth 8" }
    if keepAlpha { return "stacked alpha stores alpha in the picture; keepAlpha must be off" }
    if height % 4 != 0 { return "stacked alpha's encoded height \(height) must be twice an even picture height" }
    return nil
  }
}
