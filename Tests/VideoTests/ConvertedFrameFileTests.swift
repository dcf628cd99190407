import Foundation
import Raster
import Testing

@testable import Video

/// `ConvertedFrame.write(to:)` and `read(from:)`: how the bench feeds an encoder the same frames
/// from a file. Every plane comes back, and a file that ends early is refused.
@Suite struct ConvertedFrameFileTests {
  @Test(arguments: [("mp4", false), ("webm", true)])
  func framesComeBackFromAFile(ext: String, alpha: Bool) throws {
    let (w, h) = (37, 23)  // odd: chroma planes round up
    let image = Image(width: w, height: h)
    for y in 0..<h {
      for x in 0..<w { image[x, y] = Pixel(Float(x) / Float(w), Float(y) / Float(h), 0.3, 0.5 + Float(x % 2) / 2) }
    }
    let converter = FrameConverter(try settings("/tmp/unused.\(ext)", width: w, height: h, keepAlpha: alpha))
    let frame = converter.makeFrame(), copy = converter.makeFrame()
    converter.convert(image, into: frame)
    #expect(frame.planeCount == (alpha ? 4 : 3))

    let path = NSTemporaryDirectory() + "converted-frame-\(getpid())-\(ext).raw"
    defer { unlink(path) }
    let out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    #expect(frame.write(to: out))
    #expect(frame.write(to: out))
    close(out)

    let input = open(path, O_RDONLY)
    defer { close(input) }
    for _ in 0..<2 {
      #expect(copy.read(from: input))
      for plane in 0..<frame.planeCount {
        #expect(samples(copy, plane: plane) == samples(frame, plane: plane), "plane \(plane)")
      }
    }
    #expect(!copy.read(from: input), "a third frame where the file has two")

    // A file cut inside a frame is refused.
    let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    #expect(truncate(path, off_t(size / 2 - 5)) == 0)
    let cut = open(path, O_RDONLY)
    defer { close(cut) }
    #expect(!copy.read(from: cut))
  }
}
