/// A picture of premultiplied float pixels, row after row from the top left.
///
/// An image is a class on purpose: a 1080x1920 frame is 33 MB, and frames are reused from a ring,
/// never copied. It is shared across threads only by handing it over whole (one writer at a time),
/// which the render pipeline guarantees; hence `@unchecked Sendable`.
public final class Image: @unchecked Sendable {
  public let width: Int
  public let height: Int
  /// `width * height` pixels, row-major.
  public let pixels: UnsafeMutablePointer<Pixel>

  /// A transparent image. Sizes must be positive; callers validate user input before this.
  public init(width: Int, height: Int) {
    precondition(width > 0 && height > 0, "Image size \(width)x\(height) must be positive")
    precondition(width <= 1 << 15 && height <= 1 << 15, "Image size \(width)x\(height) is too large")
    self.width = width
    self.height = height
    pixels = .allocate(capacity: width * height)
    pixels.initialize(repeating: .zero, count: width * height)
  }

  deinit { pixels.deallocate() }

  public var count: Int { width * height }

  /// The pixel at column `x`, row `y`.
  @inline(__always) public subscript(x: Int, y: Int) -> Pixel {
    get {
      assert(x >= 0 && x < width && y >= 0 && y < height)
      return pixels[y * width + x]
    }
    set {
      assert(x >= 0 && x < width && y >= 0 && y < height)
      pixels[y * width + x] = newValue
    }
  }

  /// The first pixel of row `y`.
  @inline(__always) public func row(_ y: Int) -> UnsafeMutablePointer<Pixel> {
    pixels + y * width
  }

  /// Sets every pixel to `pixel`.
  public func fill(_ pixel: Pixel) {
    pixels.update(repeating: pixel, count: count)
  }
}
