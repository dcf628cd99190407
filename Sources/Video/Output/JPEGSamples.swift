/// Full-range BT.601 YCbCr from 8-bit RGB, as JFIF defines it: the samples libav's mjpeg encoder takes.
///
/// The converter hands a JPEG its frame as packed RGB (`CodecSpec.fullRangeYUV`); these rows become
/// the three 4:4:4 planes as the encoder takes the frame. Each sample is rounded and clamped to 0...255.
enum JPEGSamples {
  /// Y, Cb and Cr planes (`width` samples a row, at their own strides) from `rows` rows of packed RGB.
  static func fill(
    rgb: UnsafePointer<UInt8>, rgbBytesPerRow: Int, width: Int, rows: Int,
    planes: (y: UnsafeMutablePointer<UInt8>, cb: UnsafeMutablePointer<UInt8>, cr: UnsafeMutablePointer<UInt8>),
    strides: (y: Int, cb: Int, cr: Int)
  ) {
    for row in 0..<rows {
      let source = rgb + row * rgbBytesPerRow
      let (y, cb, cr) = (planes.y + row * strides.y, planes.cb + row * strides.cb, planes.cr + row * strides.cr)
      for x in 0..<width {
        let (r, g, b) = (Float(source[3 * x]), Float(source[3 * x + 1]), Float(source[3 * x + 2]))
        y[x] = code(0.299 * r + 0.587 * g + 0.114 * b)
        cb[x] = code(128 - 0.168_736 * r - 0.331_264 * g + 0.5 * b)
        cr[x] = code(128 + 0.5 * r - 0.418_688 * g - 0.081_312 * b)
      }
    }
  }

  /// `v` rounded to the nearest code in 0...255.
  @inline(__always) static func code(_ v: Float) -> UInt8 { UInt8(min(max(v.rounded(), 0), 255)) }
}
