import Foundation

/// A rectangle of premultiplied pixels placed at `(x0, y0)` of the image it will be drawn into.
///
/// Layers come from a surface's pool and are reused frame after frame; their storage only grows.
public final class Layer: @unchecked Sendable {
  public private(set) var x0 = 0, y0 = 0, width = 0, height = 0
  public private(set) var pixels: UnsafeMutablePointer<Pixel>
  private var capacity: Int
  /// The part that may hold non-transparent pixels, in layer coordinates (empty when clear).
  var dirty = IntRect.empty
  /// The one color every pixel counts as holding while the pixels themselves still hold an old
  /// frame, or nil when they are as drawn: clear (`.zero`) after `Surface.clear`, an opaque color
  /// after a first fill of it over the whole layer (a base color), so that the first drawing
  /// writes it instead of a pass of its own. Asking for a row (`row`) or the mesh fill
  /// (`TriangleFill`) settles it; a fill over every pixel with opaque color replaces it, and
  /// `fill(discs:)` writes it row by row under the discs.
  var pendingFill: Pixel?

  /// Writes the pending color into the pixels if there is one.
  @inline(__always) func settle() {
    if pendingFill != nil { settleNow() }
  }

  @inline(never) private func settleNow() {
    pixels.update(repeating: pendingFill ?? .zero, count: width * height)
    pendingFill = nil
  }

  init() {
    capacity = 1
    pixels = Layer.allocateZeroed(1)
  }

  /// Zeroed pixels from `calloc`: large blocks come straight from the kernel as zero pages, which
  /// take no memory until drawn on, so a full-screen layer holding a band of clouds costs the
  /// band (peak memory in `make bench`).
  private static func allocateZeroed(_ count: Int) -> UnsafeMutablePointer<Pixel> {
    guard let raw = calloc(count, MemoryLayout<Pixel>.stride) else {
      fatalError("out of memory for a layer of \(count) pixels")
    }
    precondition(Int(bitPattern: raw) % MemoryLayout<Pixel>.alignment == 0, "calloc returned misaligned pixels")
    return raw.bindMemory(to: Pixel.self, capacity: count)
  }

  private static func free(_ pixels: UnsafeMutablePointer<Pixel>) {
    Foundation.free(pixels)
  }

  /// A layer over an existing image (the canvas itself); the image keeps the storage.
  init(wrapping image: Image) {
    capacity = -1  // not owned
    pixels = image.pixels
    (width, height) = (image.width, image.height)
    dirty = IntRect(x: 0, y: 0, width: width, height: height)
  }

  deinit { if capacity >= 0 { Layer.free(pixels) } }

  /// Makes the layer a transparent rectangle of the given size and place.
  func reset(x0: Int, y0: Int, width: Int, height: Int) {
    precondition(capacity >= 0, "a wrapped image cannot be reset")
    precondition(width >= 0 && height >= 0)
    let needed = max(width * height, 1)
    if needed > capacity {
      Layer.free(pixels)
      capacity = needed
      pixels = Layer.allocateZeroed(needed)
    } else {
      // Pixels outside `dirty` are clear (every write widens it), so only what was drawn needs
      // clearing, in the old shape: a full-screen layer that held one small glow costs a small
      // clear, not 33 MB, and pages never drawn on are never touched.
      for y in dirty.y..<dirty.maxY {
        (pixels + y * self.width + dirty.x).update(repeating: .zero, count: dirty.width)
      }
    }
    (self.x0, self.y0, self.width, self.height) = (x0, y0, width, height)
    dirty = .empty
  }

  /// The first pixel of row `y`, after any pending clear: whoever reads or writes rows sees the
  /// layer as drawn, with no call of their own to forget.
  @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<Pixel> {
    settle()
    return pixels + y * width
  }

  var bounds: IntRect { IntRect(x: 0, y: 0, width: width, height: height) }
}

/// Coverage of a clip: 0...1 per pixel over `rect` of the target, 0 outside it.
final class ClipMask: @unchecked Sendable {
  let rect: IntRect
  let values: UnsafeMutablePointer<Float>

  init(rect: IntRect) {
    self.rect = rect
    values = .allocate(capacity: max(rect.width * rect.height, 1))
    values.initialize(repeating: 0, count: max(rect.width * rect.height, 1))
  }

  deinit { values.deallocate() }

  @inline(__always) func row(_ y: Int) -> UnsafeMutablePointer<Float> {
    values + (y - rect.y) * rect.width
  }
}
