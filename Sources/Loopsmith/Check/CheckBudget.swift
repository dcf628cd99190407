import Foundation
import Video

/// What `check` may spend on a file, worked out from its headers before a frame is decoded: the
/// memory of the pictures it holds at once, against the memory budget (`--memory-limit`, half
/// the memory by default), and the pixels it decodes in all, against a fixed bound
/// (docs/ENCODING.md, Reading files we did not write).
///
/// A file's headers cost its author nothing: 108 bytes of GIF declare an 8192x4320 screen, 412
/// bytes of WebP an hour of frames at 1000 a second. Both are refused here, by their numbers, not
/// after hours or gigabytes.
public enum CheckBudget {
  /// The most pixels `check` decodes from one file, every frame's together (its `--then` file's
  /// two frames and the source's besides): 2^36, ten minutes of 1080x1920 at 55 frames a second.
  public static let maximumPixels: UInt64 = 1 << 36

  /// Bytes a pixel of the picture, deliberately high: the decoded float image and the next one
  /// (32), the decoder's reference pictures (16 of 4 bytes), a conversion buffer (8), an animated
  /// WebP's canvas (16), and three sets of the compared planes (LocalChange.Planes: 3 planes, or 7
  /// with alpha, of 4 bytes).
  static func bytesPerPixel(alpha: Bool) -> UInt64 { 32 + 64 + 8 + 16 + 3 * (alpha ? 7 : 3) * 4 }

  /// Throws `InputError` when checking a file of `info` (spliced into `then`, compared with a
  /// source rendered on `threads` threads) would need more than `limit` bytes or decode more than
  /// `maximumPixels`; `path` names the file.
  public static func require(
    _ info: StreamInfo, path: String, then next: StreamInfo?, source: Bool, threads: Int, limit: UInt64?
  ) throws {
    let pixels = UInt64(max(info.width, 0)) * UInt64(max(info.height, 0))
    let frames = UInt64(max(info.frameCount, 0))
    let decoded = pixels.multipliedReportingOverflow(by: frames)
    if decoded.overflow || decoded.partialValue > maximumPixels {
      throw InputError(
        "\(path): checking \(frames) frames of \(info.width)x\(info.height) decodes \(describe(pixels: decoded.overflow ? .max : decoded.partialValue)); expected at most \(describe(pixels: maximumPixels)) (about ten minutes of 1080x1920 at 55 fps)"
      )
    }
    let alpha = info.carriesAlpha
    var need = (16 << 20) + pixels * bytesPerPixel(alpha: alpha)
    if let next {
      let nextPixels = UInt64(max(next.width, 0)) * UInt64(max(next.height, 0))
      need += nextPixels * bytesPerPixel(alpha: next.carriesAlpha)
    }
    if source {
      // The source's surfaces (a float image and about three layers each) and its three plane sets.
      need += pixels * (UInt64(max(threads, 1)) * 64 + 3 * (alpha ? 7 : 3) * 4)
    }
    let budget = limit ?? MemoryBudget.defaultBytes
    guard need <= budget else {
      let named = limit == nil ? "the default memory budget (half the memory)" : "the memory budget"
      throw InputError(
        "--memory-limit: checking \(path) (\(info.width)x\(info.height)\(alpha ? " with alpha" : "")\(source ? ", beside its source" : "")) needs \(MemoryBudget.describe(need)); \(named) is \(MemoryBudget.describe(budget)): raise it with --memory-limit"
      )
    }
  }

  /// "68.7 G pixels", "4.1 M pixels".
  static func describe(pixels: UInt64) -> String {
    let value = Double(pixels)
    if value >= 1e9 { return String(format: "%.1f G pixels", value / 1e9) }
    if value >= 1e6 { return String(format: "%.1f M pixels", value / 1e6) }
    return "\(pixels) pixels"
  }
}
