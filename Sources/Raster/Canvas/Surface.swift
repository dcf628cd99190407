/// Everything one thread needs to draw frames into an image: the coverage accumulator, scratch
/// rows, a pool of layers and the blur's buffers. Made once per render thread and reused for every
/// frame, so drawing allocates nothing once it has warmed up.
///
/// A band surface (`init(width:height:bandRows:scale:)`) draws a frame a band of rows at a time
/// (docs/PERFORMANCE.md, Band rendering): its image holds one band, `drawBand(_:)` picks which,
/// and the effect draws the whole frame into it each time while only the band's rows are
/// rasterized, blended and stored, with the same numbers as over the whole frame.
public final class Surface: @unchecked Sendable {
  /// The image drawn into: the whole frame, or on a band surface the band's rows (`band`).
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
  /// The row a shadowed layer's band is composited through (`GraphicsContext.drawBand(shadow:)`).
  let compositeRow = Scratch<Pixel>()
  private var freeLayers: [Layer] = []
  /// The last mesh tessellated, for the next bands of a frame.
  let meshes = MeshTessellations()
  /// The frame's large blurs and shadows, blurred small once for all its bands.
  let blurredOnce = BlurredOnce()
  /// Whether `GraphicsContext.fill(discs:)` may draw its discs together; off, it fills them one
  /// at a time (tests compare the two).
  var fusesDiscs = true
  /// Whether a large opaque mesh that tiles its layer may be painted from samples
  /// (`MeshSamples`); off, its triangles are filled at every pixel (tests compare the two).
  var samplesMeshes = true

  /// Set when a drawing operation cannot be drawn band by band (a large blur before another
  /// filter, which blurs its whole layer; blurs and shadows otherwise draw with margins or blur
  /// once a frame): the band's pixels are then not what the whole frame's would be, and the frame
  /// must be drawn whole. Drawing is the same calls in every band, so the first band tells.
  /// Cleared by `clear()`.
  public internal(set) var needsWholeFrame = false
  /// Where this surface's time goes (the bench's profile), nil when not measured.
  public var profile: DrawProfile?

  /// Starts charging `work` to the profile if there is one (`DrawProfile.enter`), returning it
  /// for the caller's `leave`.
  @inline(__always) func entering(_ work: DrawProfile.Work) -> DrawProfile? {
    profile?.enter(work)
    return profile
  }

  /// A surface drawing into `image` at `scale` pixels per point.
  public init(image: Image, scale: Float) {
    precondition(scale > 0 && scale.isFinite, "display scale \(scale) must be positive")
    self.image = image
    self.scale = scale
    canvasLayer = Layer(wrapping: image)
  }

  /// A surface drawing a `width` x `height` frame a band of at most `bandRows` rows at a time.
  public init(width: Int, height: Int, bandRows: Int, scale: Float) {
    precondition(scale > 0 && scale.isFinite, "display scale \(scale) must be positive")
    precondition(bandRows > 0)
    image = Image(width: width, height: min(bandRows, height))
    self.scale = scale
    canvasLayer = Layer(wrapping: image, height: height)
  }

  /// The frame's size in pixels.
  public var width: Int { canvasLayer.width }
  public var height: Int { canvasLayer.height }

  /// The frame rows the image holds; image row 0 is frame row `band.lowerBound`.
  public var band: Range<Int> { canvasLayer.rows }

  /// Whether the image holds fewer rows than the frame.
  var isBand: Bool { canvasLayer.isBand }

  /// Makes the image hold `rows` of the frame (at most as many as it has), cleared as by `clear()`.
  ///
  /// The bands of a frame are drawn from the top: a band at or above the last one starts a new
  /// frame (what was blurred for the last frame's bands, `BlurredOnce`, is dropped).
  ///
  /// The image must hold what the last band's drawing and `finish()` left in it (the pipeline
  /// only reads a band once drawn): the clear then writes only the pixels drawn since the image
  /// was last wholly clear (`Layer.retireDirty`), not the whole band. After `clear()` or
  /// `image` written from outside, the next clear writes every pixel again.
  public func drawBand(_ rows: Range<Int>) {
    let profile = entering(.frame)
    defer { profile?.leave() }
    blurredOnce.start(band: rows)
    canvasLayer.store(rows: rows)
    startFrame()
  }

  /// Notes that an operation cannot be drawn band by band (`needsWholeFrame`); true when so (on a
  /// band), and the caller then draws nothing.
  func refusesBand() -> Bool {
    guard isBand else { return false }
    needsWholeFrame = true
    return true
  }

  /// Makes the image transparent for a new frame, with nothing drawn on it yet: drawing a layer
  /// onto it can then draw straight into it (`GraphicsContext.drawBlended`).
  ///
  /// The clear itself waits for the first drawing: a first fill of opaque color over the whole
  /// image (the sky, a base color) writes its color without clearing or reading the old frame,
  /// which is 33 MB written and 33 MB read less at 1080x1920. Call `finish()` before reading
  /// the image.
  public func clear() {
    let profile = entering(.frame)
    defer { profile?.leave() }
    canvasLayer.forgetUncleared()  // anyone may have written the image since: clear every pixel
    startFrame()
  }

  /// A pending clear and nothing drawn.
  private func startFrame() {
    canvasLayer.pendingFill = .zero
    canvasLayer.dirty = .empty
    needsWholeFrame = false
  }

  /// The part of the frame drawn on since `clear()`, in frame rows (within `band`): every pixel
  /// outside it is clear.
  public var drawn: IntRect { canvasLayer.dirty }

  /// Makes the image's pixels what was drawn since `clear()` (clears them if nothing was).
  public func finish() {
    let profile = entering(.frame)
    defer { profile?.leave() }
    canvasLayer.settle()
  }

  /// `finish()`, except that when what was drawn is one mesh painted from samples over the whole
  /// image and nothing after it (`sampledRows`), the pixels are left unwritten: a converter takes
  /// the samples, or `finish()` writes the pixels. Likewise rows that are one color of a
  /// gradient over the whole image (the sky) that nothing else drew on are left unwritten, two
  /// by two (`pendingRow`).
  public func finishKeepingSamples() {
    let profile = entering(.frame)
    defer { profile?.leave() }
    guard canvasLayer.pendingSamples == nil else { return }
    if canvasLayer.hasPendingRows { canvasLayer.writeRowPartners() } else { canvasLayer.settle() }
  }

  /// After `finishKeepingSamples()`, frame row `y` (a row of `band`) when it is one color that
  /// is written only in some columns (`PendingRow.written`), else nil: its other pixels are not
  /// what was drawn, and a converter takes the color for them, or `finish()` writes them. Rows
  /// `2k` and `2k + 1` have the same columns written. Valid until anything is drawn or
  /// `drawBand`, `clear` or `finish` is called.
  public func pendingRow(_ y: Int) -> PendingRow? { canvasLayer.pendingRow(y) }

  /// Whether rows of the band may be left unwritten (`pendingRow`).
  public var keepsRowColors: Bool { canvasLayer.hasPendingRows }

  /// After `finishKeepingSamples()`, the samples every pixel of the image is interpolated from,
  /// when it was drawn as one mesh from samples (`MeshSamples`), else nil. Valid until anything
  /// is drawn or `drawBand`, `clear` or `finish` is called.
  public var sampledRows: SampledRows? { canvasLayer.pendingSamples }

  /// The size of the image in points.
  public var size: (width: Double, height: Double) {
    (Double(width) / Double(scale), Double(height) / Double(scale))
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

/// What a band surface blurs once a frame for all its bands (docs/PERFORMANCE.md, Band
/// rendering): a large blur's or a shadow's small blurred pixels (`GaussianBlur.shrinkAndBlur`),
/// which every band enlarges its own rows of, or a small shadow's blurred pixels. The effect makes
/// the same calls in every band of a frame, so the n-th blurred operation of a band is the n-th of
/// the first; its key (the operation's kind, sigma, region, geometry and a fill's shading) is
/// checked all the same, and one that differs is blurred again. A later band finds a fill's entry
/// by the fill as the effect called it, before flattening its path (`FillSource`). Kept only for
/// the bands of one frame.
final class BlurredOnce {
  struct Key: Equatable {
    /// 0: a fill's blur, 1: a shadow.
    var kind: Int
    var sigma: UInt32
    var region: IntRect
    var rule: FillRule?
    var points: Int
    /// The bits of the operation's points, mixed.
    var hash: UInt64
    /// A fill's shading and the transform it is shaded through (a tint is blurred in).
    var shading: Shading? = nil
    var transform: Transform? = nil
  }

  /// A blurred fill as the effect called it: the path and everything that, with the frame's
  /// size, decides the blurred pixels and where they lie.
  struct FillSource: Equatable {
    var elements: [Path.Element]
    var transform: Transform
    var shading: Shading
    var rule: FillRule
    var sigma: UInt32
  }

  final class Entry {
    /// Set anew by an operation that blurs into this entry, which forgets `source`.
    var key: Key? { didSet { source = nil } }
    /// The fill this entry's key was made for, before flattening (`GraphicsContext.fill`): a
    /// later band's fill of the same source takes the entry without flattening its path again.
    var source: FillSource?
    let pixels = Scratch<Pixel>()
    /// The blurred pixels' size.
    var width = 0, height = 0
    /// Where the pixels lie, in the target's pixels (a shadow's), and whether nothing was drawn.
    var region = IntRect.empty
    var isEmpty = true
    /// A shadow's content, drawn whole by the first band for the frame's bands, and how many
    /// entries its own blurred operations took (the later bands skip them).
    let content = Layer()
    var contentEntries = 0
  }

  private var entries: [Entry] = []
  private var next = 0
  /// How many fills of this frame's bands took their entry by their source (`nextEntry(madeFor:)`).
  private(set) var keptFills = 0
  private var band: Range<Int>?

  /// A new band: its operations count from the first entry; a band not below the last one
  /// starts a new frame and forgets every entry.
  func start(band rows: Range<Int>) {
    let continuesFrame = band.map { rows.lowerBound > $0.lowerBound } ?? false
    if !continuesFrame {
      for entry in entries { entry.key = nil }
      keptFills = 0
    }
    band = rows
    next = 0
  }

  /// How many entries the band's operations have taken so far.
  var position: Int { next }

  /// Passes over the next `count` entries, which the first band's operations took: a band that
  /// does not draw those operations again keeps its later ones on the first band's entries.
  func skip(_ count: Int) {
    precondition(next + count <= entries.count, "skipping entries no band took")
    next += count
  }

  /// The entry the band's next blurred operation would take, if the first band made it for a
  /// fill of `source`; nil otherwise, and then no entry is taken.
  func nextEntry(madeFor source: FillSource) -> Entry? {
    guard next < entries.count, let kept = entries[next].source, kept == source else { return nil }
    next += 1
    keptFills += 1
    return entries[next - 1]
  }

  /// Records that the entry at `position`, the one operation since then, was made for `source`.
  func note(_ source: FillSource, from position: Int) {
    guard next == position + 1, entries[position].key?.kind == 0 else { return }
    entries[position].source = source
  }

  /// The entry of the band's next blurred operation.
  func nextEntry() -> Entry {
    if next == entries.count { entries.append(Entry()) }
    next += 1
    return entries[next - 1]
  }

  /// The bits of `points`, mixed (FNV-1a over both coordinates).
  static func hash(_ points: [Point]) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for p in points {
      h = (h ^ UInt64(p.x.bitPattern)) &* 0x100_0000_01b3
      h = (h ^ UInt64(p.y.bitPattern)) &* 0x100_0000_01b3
    }
    return h
  }
}
