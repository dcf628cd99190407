#if canImport(Glibc)
  import Glibc
  private let (systemRead, systemWrite) = (Glibc.read, Glibc.write)
#else
  import Darwin
  private let (systemRead, systemWrite) = (Darwin.read, Darwin.write)
#endif

/// How a converted frame's samples are laid out; each maps to one libav pixel format.
enum PixelLayout: Sendable, Equatable {
  case yuv420p  // 8-bit Y, Cb, Cr planes; chroma at half width and height
  case yuv420p10  // the same with 16-bit little-endian samples holding 10 bits
  case yuva420p  // yuv420p plus a full-size 8-bit alpha plane (VP9 alpha)
  case yuva444p10  // 10-bit 4:4:4 with alpha (ProRes 4444)
  case rgb24, rgba, bgra  // one packed plane, straight alpha, 8 bits a channel

  var hasAlpha: Bool {
    switch self {
    case .yuva420p, .yuva444p10, .rgba, .bgra: true
    default: false
    }
  }

  /// Whether chroma is at half width and height (4:2:0), so the picture's sides must be even.
  var isSubsampled: Bool { [.yuv420p, .yuv420p10, .yuva420p].contains(self) }

  /// Bytes per row and rows of each plane for a `width` x `height` picture.
  func planeShapes(width: Int, height: Int) -> [(bytesPerRow: Int, rows: Int)] {
    let (cw, ch) = ((width + 1) / 2, (height + 1) / 2)
    switch self {
    case .yuv420p: return [(width, height), (cw, ch), (cw, ch)]
    case .yuv420p10: return [(width * 2, height), (cw * 2, ch), (cw * 2, ch)]
    case .yuva420p: return [(width, height), (cw, ch), (cw, ch), (width, height)]
    case .yuva444p10: return Array(repeating: (width * 2, height), count: 4)
    case .rgb24: return [(width * 3, height)]
    case .rgba, .bgra: return [(width * 4, height)]
    }
  }
}

/// One plane of samples, owned by a `ConvertedFrame`.
struct Plane {
  let pointer: UnsafeMutableRawPointer
  let bytesPerRow: Int
  let rows: Int
}

/// A frame already converted to the encoder's samples (YUV or RGB bytes), ready to append.
///
/// Converting is the costly part of handing a frame over, so it runs on the render threads
/// (`FrameConverter` is thread-safe) and the encoder thread only copies and encodes. A frame is
/// reused from a ring like the images; it crosses threads only whole, hence `@unchecked Sendable`.
public final class ConvertedFrame: @unchecked Sendable {
  public let width: Int
  public let height: Int
  let layout: PixelLayout
  let planes: [Plane]
  /// The frame whose memory this one's planes point into, or nil when it owns its planes.
  private let owner: ConvertedFrame?

  init(width: Int, height: Int, layout: PixelLayout) {
    (self.width, self.height, self.layout) = (width, height, layout)
    planes = layout.planeShapes(width: width, height: height).map { shape in
      let pointer = UnsafeMutableRawPointer.allocate(byteCount: shape.bytesPerRow * shape.rows, alignment: 64)
      pointer.initializeMemory(as: UInt8.self, repeating: 0, count: shape.bytesPerRow * shape.rows)
      return Plane(pointer: pointer, bytesPerRow: shape.bytesPerRow, rows: shape.rows)
    }
    owner = nil
  }

  /// A view of `owner`'s memory as other planes.
  private init(width: Int, height: Int, layout: PixelLayout, planes: [Plane], owner: ConvertedFrame) {
    (self.width, self.height, self.layout, self.planes, self.owner) = (width, height, layout, planes, owner)
  }

  deinit { if owner == nil { for plane in planes { plane.pointer.deallocate() } } }

  /// A stacked-alpha frame (8-bit 4:2:0, twice the picture's height) seen as the picture's
  /// `yuva420p` frame: its Y, Cb and Cr planes are the top halves, its alpha plane is the bottom
  /// half's luma.
  func stackedHalves() -> ConvertedFrame {
    precondition(layout == .yuv420p && height % 4 == 0, "stacked alpha is 8-bit 4:2:0 of an even picture")
    let h = height / 2
    let (y, cb, cr) = (planes[0], planes[1], planes[2])
    return ConvertedFrame(
      width: width, height: h, layout: .yuva420p,
      planes: [
        Plane(pointer: y.pointer, bytesPerRow: y.bytesPerRow, rows: h),
        Plane(pointer: cb.pointer, bytesPerRow: cb.bytesPerRow, rows: cb.rows / 2),
        Plane(pointer: cr.pointer, bytesPerRow: cr.bytesPerRow, rows: cr.rows / 2),
        Plane(pointer: y.pointer + h * y.bytesPerRow, bytesPerRow: y.bytesPerRow, rows: h),
      ], owner: self)
  }

  /// The 8-bit sample of plane `plane` at column `x` (counted in samples) and row `y`.
  /// For tests and checks; 10-bit planes answer their 16-bit value.
  public func sample(plane: Int, x: Int, y: Int) -> Int {
    precondition(plane >= 0 && plane < planes.count, "plane \(plane) of \(planes.count)")
    let p = planes[plane]
    switch layout {
    case .yuv420p10, .yuva444p10:
      return Int(p.pointer.load(fromByteOffset: y * p.bytesPerRow + x * 2, as: UInt16.self))
    default:
      return Int(p.pointer.load(fromByteOffset: y * p.bytesPerRow + x, as: UInt8.self))
    }
  }

  /// How many planes the frame has (Y, Cb, Cr and maybe A; or one packed RGB plane).
  public var planeCount: Int { planes.count }

  /// Writes every plane's bytes, one after another, to the file descriptor `fd`: with
  /// `read(from:)`, how frames rendered once are encoded again from a file (a size budget's
  /// tries, the benchmarks). False when a write fails.
  public func write(to fd: Int32) -> Bool {
    planes.allSatisfy { plane in transfer(plane) { systemWrite(fd, $0, $1) } }
  }

  /// Reads every plane's bytes, as `write(to:)` wrote them, from `fd`. False at the end of the
  /// file or when a read fails.
  public func read(from fd: Int32) -> Bool {
    planes.allSatisfy { plane in transfer(plane) { systemRead(fd, $0, $1) } }
  }

  /// Moves a plane's bytes through `io` (a read or a write) until done; false on an error or an end.
  private func transfer(_ plane: Plane, _ io: (UnsafeMutableRawPointer, Int) -> Int) -> Bool {
    var done = 0
    let count = plane.bytesPerRow * plane.rows
    while done < count {
      let n = io(plane.pointer + done, count - done)
      if n < 0 && errno == EINTR { continue }  // a signal's handler ran; the loop checks for it between frames
      if n <= 0 { return false }
      done += n
    }
    return true
  }
}
