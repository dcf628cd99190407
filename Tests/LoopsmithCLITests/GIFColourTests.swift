import Foundation
import Raster
import Testing
import Video
import _TestSupport

/// A GIF's one palette holds the colours of the whole loop, not only of frame 0: a weather
/// sequence from clear day to clear night, rendered once to GIF and to APNG (lossless), decodes
/// to the same colours within the palette's error, and its night sky stays dark.
@Suite struct GIFColourTests {
  @Test func aDayToNightSequenceKeepsItsNightColours() throws {
    let dir = TemporaryDirectory()
    let gif = dir.path("s.gif"), apng = dir.path("s.apng")
    let r = try runLoopsmith([
      "render", "weather", "--set", "sequence=clearDay:3,clearNight:3", "--size", "36x64", "--fps", "5",
      "-o", gif, "-o", apng, "--quiet",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let gifFrames = try frames(gif, first: 30), apngFrames = try frames(apng, first: 30)
    try #require(gifFrames.count == 30 && apngFrames.count == 30, "\(gifFrames.count) and \(apngFrames.count) frames")
    // Frames 0-14 are the clear day, 15-19 the fade, 20-29 the clear night (at 5 fps). Measured:
    // night frames 35.7-36.0 dB and means within 1 code of the APNG's with the palette sampled
    // across the loop; 10.1-10.5 dB with frame 0's palette, where the night is drawn in the day's
    // blues (a mean of 89,155,230 against 166,169,186). The day frames measure 33.7-36.4 dB.
    // 30 dB leaves room for dither and palette cuts while failing any palette that lacks the night.
    for i in 20..<30 {
      let g = meanCodes(gifFrames[i]), a = meanCodes(apngFrames[i])
      let worst = (0..<3).map { abs(g[$0] - a[$0]) }.max() ?? 0
      #expect(worst <= 3, "frame \(i): GIF mean \(g), APNG mean \(a)")
      let db = psnr(gifFrames[i], apngFrames[i])
      #expect(db > 30, "frame \(i): \(db) dB against the APNG")
    }
    for i in 0..<15 {
      let db = psnr(gifFrames[i], apngFrames[i])
      #expect(db > 30, "frame \(i): \(db) dB against the APNG")
    }
  }

  private func frames(_ path: String, first count: Int) throws -> [Image] {
    let reader = try VideoReader(path: path)
    var out: [Image] = []
    while out.count < count, let f = try reader.nextFrame() { out.append(f) }
    return out
  }

  /// The mean colour in 8-bit codes.
  private func meanCodes(_ image: Image) -> SIMD3<Double> {
    var sum = SIMD3<Double>.zero
    for i in 0..<image.count {
      let p = image.pixels[i]
      sum += SIMD3(Double(p.x), Double(p.y), Double(p.z))
    }
    return (sum / Double(image.count) * 255).rounded(.toNearestOrEven)
  }

  /// PSNR of the colour channels in dB, 8-bit codes.
  private func psnr(_ a: Image, _ b: Image) -> Double {
    var squared = 0.0
    for i in 0..<a.count {
      let d = (a.pixels[i] - b.pixels[i]) * 255
      squared += Double(d.x * d.x + d.y * d.y + d.z * d.z)
    }
    let mse = squared / Double(a.count * 3)
    return 10 * log10(255 * 255 / max(mse, 1e-9))
  }
}
