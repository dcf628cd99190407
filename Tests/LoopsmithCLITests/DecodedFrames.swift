import Foundation
import Raster
import Video

/// The frames of a file a test wrote, decoded by the project's own reader, and how far two
/// pictures are apart.
enum Decoded {
  /// Every frame of `path`, with the stream's description; alpha dropped when `keepAlpha` is false.
  static func frames(_ path: String, keepAlpha: Bool = true) throws -> (info: StreamInfo, frames: [Image]) {
    let reader = try VideoReader(path: path, keepAlpha: keepAlpha)
    var frames: [Image] = []
    while let f = try reader.nextFrame() { frames.append(f) }
    return (reader.info, frames)
  }

  /// The mean squared difference of `a` and `b` over RGB in 0...1.
  static func meanSquaredError(_ a: Image, _ b: Image) -> Double {
    var sum = 0.0
    for i in 0..<a.count {
      let d = a.pixels[i] - b.pixels[i]
      sum += Double(d.x * d.x + d.y * d.y + d.z * d.z)
    }
    return sum / Double(a.count * 3)
  }

  /// A mean squared error as PSNR, in dB (infinite when 0).
  static func decibels(_ mse: Double) -> Double { mse == 0 ? .infinity : 10 * log10(1 / mse) }
}
