import Foundation
import Raster
import Testing
import _TestSupport

@testable import Video

/// A small moving test picture: a horizontal gradient whose brightness follows the frame.
func testImage(width: Int = 64, height: Int = 64, frame: Int = 0, alpha: Float = 1) -> Image {
  let image = Image(width: width, height: height)
  for y in 0..<height {
    for x in 0..<width {
      let v = Float((x + frame * 3) % width) / Float(width)
      image[x, y] = Pixel(v, 0.5, 1 - v, 1) * alpha
    }
  }
  return image
}

@Test func smokeWriteEveryFormat() throws {
  let folder = TemporaryDirectory()
  for name in ["a.mp4", "a.webm", "a.png", "a.y4m"] {
    let frames = name.hasSuffix(".png") ? 1 : 8
    let settings = try OutputSettings(path: folder.path(name), width: 64, height: 64, fps: 25, frameCount: frames)
    let writer = try VideoWriter(settings)
    for i in 0..<frames { try writer.append(testImage(frame: i)) }
    let file = try writer.finish()
    #expect(file.frames == frames)
    print(file)
    if let keep = ProcessInfo.processInfo.environment["KEEP_DIR"] {
      try? FileManager.default.removeItem(atPath: keep + "/" + name)
      try FileManager.default.copyItem(atPath: folder.path(name), toPath: keep + "/" + name)
    }
  }
}
