import Foundation
import Raster
import Video

/// A small moving test picture: a horizontal gradient that slides with the frame.
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

/// Writes `frames` frames made by `image(i)` and returns what the writer reports.
@discardableResult
func write(_ settings: OutputSettings, image: (Int) -> Image) throws -> WrittenFile {
  let writer = try VideoWriter(settings)
  for i in 0..<settings.frameCount { try writer.append(image(i)) }
  return try writer.finish()
}

/// All decoded frames of a file.
func decodeAll(_ path: String, keepAlpha: Bool = true) throws -> (StreamInfo, [Image]) {
  let reader = try VideoReader(path: path, keepAlpha: keepAlpha)
  var frames: [Image] = []
  while let frame = try reader.nextFrame() { frames.append(frame) }
  return (reader.info, frames)
}

/// The mean pixel of an image.
func mean(_ image: Image) -> Pixel {
  var sum = SIMD4<Double>.zero
  for i in 0..<image.count {
    let p = image.pixels[i]
    sum += SIMD4<Double>(Double(p.x), Double(p.y), Double(p.z), Double(p.w))
  }
  let m = sum / Double(image.count)
  return Pixel(Float(m.x), Float(m.y), Float(m.z), Float(m.w))
}

/// Files in a folder, hidden ones included.
func files(in folder: String) -> [String] {
  (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted() ?? []
}

func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }
