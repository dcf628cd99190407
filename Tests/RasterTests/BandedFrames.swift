@testable import Raster

/// What `draw` draws on a `width` x `height` frame band by band, `bandRows` rows at a time, on one
/// band surface at `scale`, the bands put together into one frame. `setUp` runs on the surface
/// once, `beforeBand` before each band (an old frame left in its image, say).
func drawnInBands(
  width: Int, height: Int, bandRows: Int, scale: Float = 1, setUp: (Surface) -> Void = { _ in },
  beforeBand: (Surface) -> Void = { _ in }, _ draw: (inout GraphicsContext) -> Void
) -> Image {
  let surface = Surface(width: width, height: height, bandRows: bandRows, scale: scale)
  setUp(surface)
  let frame = Image(width: width, height: height)
  for start in stride(from: 0, to: height, by: bandRows) {
    let rows = start..<min(start + bandRows, height)
    beforeBand(surface)
    surface.drawBand(rows)
    var context = surface.context()
    draw(&context)
    surface.finish()
    frame.row(rows.lowerBound).update(from: surface.image.pixels, count: rows.count * width)
  }
  return frame
}
