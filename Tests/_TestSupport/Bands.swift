import Raster

/// `draw` drawn on a whole `width` x `height` frame at scale 1, and band by band (`bandRows` rows
/// a band) on a band surface, the bands put together into one image (band rendering: the two
/// must be the same bits). `banded` is false, and `assembled` incomplete, when a band asked for
/// the whole frame (`Surface.needsWholeFrame`).
public func drawWholeAndInBands(
  width: Int, height: Int, bandRows: Int, _ draw: (inout GraphicsContext) -> Void
) -> (whole: Image, assembled: Image, banded: Bool) {
  let whole = Surface(image: Image(width: width, height: height), scale: 1)
  whole.clear()
  var context = whole.context()
  draw(&context)
  whole.finish()
  let band = Surface(width: width, height: height, bandRows: bandRows, scale: 1)
  let assembled = Image(width: width, height: height)
  for top in stride(from: 0, to: height, by: bandRows) {
    let rows = top..<min(top + bandRows, height)
    band.drawBand(rows)
    var context = band.context()
    draw(&context)
    if band.needsWholeFrame { return (whole.image, assembled, false) }
    band.finish()
    assembled.row(rows.lowerBound).update(from: band.image.pixels, count: rows.count * width)
  }
  return (whole.image, assembled, true)
}

/// The bits of every channel of every pixel of `image`, in order.
public func channelBits(_ image: Image) -> [UInt32] {
  (0..<image.count).flatMap { i in
    let p = image.pixels[i]
    return [p.x.bitPattern, p.y.bitPattern, p.z.bitPattern, p.w.bitPattern]
  }
}
