import Foundation
import Video

/// How much memory a render may plan to use: frames in flight, layers and every encoder together,
/// checked before any work starts (`RenderRequest.job`).
///
/// The default is half the physical memory; `--memory-limit` sets another. Estimates are
/// deliberately high: an encoder that needs more than its estimate is a bug in the table below.
public enum MemoryBudget {
  /// Half the machine's memory: room for the rest of the system and for estimates that run low.
  public static var defaultBytes: UInt64 { ProcessInfo.processInfo.physicalMemory / 2 }

  /// Bytes from `text` (`ByteSize`: `512M`, `8G`, `1.5GiB`), at least 16 MiB.
  public static func parse(_ text: String, flag: String = "--memory-limit") throws -> UInt64 {
    let expected = "expected a size such as 512M or 8G (a number with K, M, G or T)"
    guard let bytes = ByteSize.parse(text) else { throw InputError("\(flag): '\(text)' is not valid; \(expected)") }
    guard bytes >= 16 << 20 else { throw InputError("\(flag): '\(text)' is under 16 MiB; \(expected)") }
    return bytes
  }

  /// The most memory one encoder of `settings` is expected to hold at once, in bytes.
  ///
  /// Per pixel of a frame, rounded up from peak RSS at 1080x1920 (/usr/bin/time, one render
  /// thread, less a render to Y4M that encodes nothing, 99 MB): libx264 medium about 410 MB
  /// (198 bytes a pixel; it keeps a 40-frame lookahead, slower presets 60), SVT-AV1 preset 8
  /// 324 MB (156; it allocates its picture pipeline at open). libx265 and libvpx-vp9 (25 frames
  /// of lag for the alternate reference) are estimated from their lookahead like x264; ProRes,
  /// PNG, GIF and APNG work a frame at a time; WebP a frame on each of its still encoders (one an
  /// encoder thread, at most 8: about 13 MB each at 1080x1920 beside the first, measured); AV1's
  /// loop-closing encode keeps 16 frames more.
  public static func encoderBytes(_ settings: OutputSettings) -> UInt64 {
    let pixels = UInt64(settings.width) * UInt64(settings.height)
    let frames = UInt64(max(settings.frameCount, 1))
    let fixed: UInt64 = 16 << 20
    // The sound is decoded whole before encoding: 48 kHz stereo float, 384 KB a second.
    let audio = settings.audio == nil ? 0 : (32 << 20) + frames * 48_000 * 8 / UInt64(max(settings.fps, 1))
    return audio + videoEncoderBytes(settings, pixels: pixels, frames: frames, fixed: fixed)
  }

  private static func videoEncoderBytes(
    _ settings: OutputSettings, pixels: UInt64, frames: UInt64, fixed: UInt64
  ) -> UInt64 {
    switch settings.codec {
    case .h264:
      let slow = ["slow", "slower", "veryslow", "placebo"].contains(settings.x264Preset)
      return fixed + pixels * (slow ? 300 : 220)
    case .hevc: return fixed + pixels * 260
    // With alpha, libvpx runs a second encoder on the alpha plane, as large as the first:
    // 688 MB peak at 1080x1920 against 386 MB opaque (one render thread, 30 frames).
    case .vp9: return fixed + pixels * (settings.carriesAlpha ? 320 : 160)
    // The loop-closing encode keeps copies of the loop's first frames (10-bit 4:2:0 at most: 3
    // bytes a pixel each) until the end.
    case .av1: return (64 << 20) + pixels * 200 + pixels * 3 * UInt64(settings.loopClosingFrames)
    case .prores: return fixed + pixels * 24
    case .png, .apng, .gif, .jpeg: return fixed + pixels * 24
    case .webp: return fixed + pixels * 24 * UInt64(settings.stillEncoders)
    case .rawvideo: return fixed + pixels * 8
    }
  }

  /// "1.5 GiB", "300 MiB": a size for a message, rounded up, so a need just over a budget never
  /// reads as the budget itself (1.04 GiB against 1 GiB is "1.1 GiB", not "1.0 GiB").
  static func describe(_ bytes: UInt64) -> String {
    if bytes >= 1 << 30 {
      return String(format: "%.1f GiB", (Double(bytes) / Double(1 << 30) * 10).rounded(.up) / 10)
    }
    return "\(max((bytes + (1 << 20) - 1) >> 20, 1)) MiB"
  }
}
