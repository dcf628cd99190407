/// Everything one thread needs to draw frames into an image: the coverage accumulator, scratch
/// rows, a pool of layers and the blur's buffers. Made once per render thread and reused for every
/// frame, so drawing allocates nothing once it has warmed up.
public final class Surface: @unchecked Sendable {
  /// The image drawn into.
  public let image: Image
  /// Pixels per point: the display scale.
  public let scale: Float

  let canvasLayer: Layer
  let coverage = Coverage()
  let blur = GaussianBlur()
  var lines = Polylines()
  var outline = Polylines()
  /// Lines mapped to a blur's shrunk pixels (`GraphicsContext.drawShrunk`).
  var shrunkLines = Polylines()
  private let coverageRows = Scratch<Float>()
  private let sourceRows = Scratch<Pixel>()
  private var freeLayers: [Layer] = []

  /// A surface drawing into `image` at `scale` pixels per point.
  public init(image: Image, scale: Float) {
    precondition(scale > 0 && scale.isFinite, "display scale \(scale) must be positive")
    self.image = image
    self.scale = scale
    canvasLayer = Layer(wrapping: image)
  }

  /// Makes the image transparent for a new frame, with nothing drawn on it yet: drawing a layer
  /// onto it can then draw straight into it (`GraphicsContext.drawBlended`).
  public func clear() {
    image.fill(.zero)
    canvasLayer.dirty = .empty
  }

  /// The size of the image in points.
  public var size: (width: Double, height: Double) {
    (Double(image.width) / Double(scale), Double(image.height) / Double(scale))
  }

  /// A context drawing into the image in points, with SwiftUI's default state.
  public func context() -> GraphicsContext {
    GraphicsContext(surface: self, target: canvasLayer, transform: .scale(scale, scale))
  }

  /// Scratch rows of coverage and of source pixels, each at least `width` long.
  func rows(_ width: Int) -> (coverage: UnsafeMutablePointer<Float>, source: UnsafeMutablePointer<Pixel>) {
    (coverageRows.reserve(width), sourceRows.reserve(width))
  }

  func checkout() -> Layer { freeLayers.popLast() ?? Layer() }
  func checkin(_ layer: Layer) { freeLayers.append(layer) }
}
