import Foundation
import Raster

/// The local change between two pictures: per plane, the largest mean absolute difference over a
/// block of 16x16 pixels, in 8-bit code values (docs/ENCODING.md, Judging a loop).
///
/// Whole-frame means hide what a viewer sees: an encoder that skips a slowly changing block for
/// many frames and then updates it in one jump barely moves the frame's mean, but the block
/// pops. 16x16 is the macroblock H.264 decides skips in. Noise spread evenly over a picture (dither,
/// coding noise) adds its mean absolute difference at any block size; smaller blocks only make
/// the largest of them vary more from frame to frame.
public enum LocalChange {
  /// The side of a block, in pixels; blocks at the right and bottom edges may be smaller.
  public static let block = 16

  /// The blocks of one plane of a `width` x `height` picture.
  public static func blocks(width: Int, height: Int) -> Int {
    ((width + block - 1) / block) * ((height + block - 1) / block)
  }

  /// A picture as planes of 8-bit code values: Y, Cb, Cr of the picture over a background, or for
  /// a picture with alpha, Y, Cb, Cr over black, the same over white, and alpha.
  public struct Planes: Sendable {
    public let width: Int
    public let height: Int
    public let names: [String]
    public var data: [[Float]]

    /// An empty set for pictures of this size, with or without alpha.
    public init(width: Int, height: Int, alpha: Bool) {
      (self.width, self.height) = (width, height)
      names =
        alpha
        ? ["Y over black", "Cb over black", "Cr over black", "Y over white", "Cb over white", "Cr over white", "alpha"]
        : ["Y", "Cb", "Cr"]
      data = names.map { _ in [Float](repeating: 0, count: width * height) }
    }

    public var hasAlpha: Bool { names.count == 7 }
  }

  /// Fills `planes` from a premultiplied image: over `background` (straight RGB, 0...1) for a
  /// set without alpha, over black and white and alpha for one with alpha.
  public static func fill(_ planes: inout Planes, from image: Image, background: SIMD3<Float> = .zero) {
    precondition(image.width == planes.width && image.height == planes.height, "planes and image sizes differ")
    let count = image.count
    let alpha = planes.hasAlpha
    let pixels = image.pixels
    func ycc(_ r: Float, _ g: Float, _ b: Float) -> (Float, Float, Float) {
      let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
      return (y * 255, (b - y) / 1.8556 * 255, (r - y) / 1.5748 * 255)
    }
    // Moved out and back, so the planes are written in place without copies.
    var d = planes.data
    planes.data = []
    d.withUnsafeMutableBufferPointer { all in
      for i in 0..<count {
        let px = pixels[i]
        let a = min(max(px.w, 0), 1)
        if alpha {
          let (y0, b0, r0) = ycc(px.x, px.y, px.z)
          let (y1, b1, r1) = ycc(px.x + 1 - a, px.y + 1 - a, px.z + 1 - a)
          all[0][i] = y0
          all[1][i] = b0
          all[2][i] = r0
          all[3][i] = y1
          all[4][i] = b1
          all[5][i] = r1
          all[6][i] = a * 255
        } else {
          let u = 1 - a
          let (y, cb, cr) = ycc(px.x + u * background.x, px.y + u * background.y, px.z + u * background.z)
          all[0][i] = y
          all[1][i] = cb
          all[2][i] = cr
        }
      }
    }
    planes.data = d
  }

  /// Per plane, the largest block mean absolute difference between `a` and `b`.
  public static func largestBlockChange(_ a: Planes, _ b: Planes) -> [Double] {
    a.data.indices.map { p in
      var largest = 0.0
      forEachBlock(a, b, plane: p) { largest = max(largest, $0) }
      return largest
    }
  }

  /// Every block's mean absolute difference between plane `plane` of `a` and of `b`, row by row.
  public static func blockChanges(_ a: Planes, _ b: Planes, plane: Int) -> [Double] {
    var blocks: [Double] = []
    blocks.reserveCapacity(Self.blocks(width: a.width, height: a.height))
    forEachBlock(a, b, plane: plane) { blocks.append($0) }
    return blocks
  }

  /// Calls `body` with each block's mean absolute difference between plane `p` of `a` and of
  /// `b`, row by row.
  private static func forEachBlock(_ a: Planes, _ b: Planes, plane p: Int, _ body: (Double) -> Void) {
    precondition(a.width == b.width && a.height == b.height && a.names == b.names, "planes differ in shape")
    precondition(a.data.indices.contains(p), "no plane \(p)")
    let (w, h) = (a.width, a.height)
    let columns = (w + block - 1) / block
    withUnsafeTemporaryAllocation(of: Double.self, capacity: columns) { sums in
      a.data[p].withUnsafeBufferPointer { x in
        b.data[p].withUnsafeBufferPointer { y in
          var top = 0
          while top < h {
            let rows = min(block, h - top)
            for c in 0..<columns { sums[c] = 0 }
            for row in top..<(top + rows) {
              let base = row * w
              for c in 0..<columns {
                let start = c * block
                let end = min(start + block, w)
                var s: Float = 0
                for i in (base + start)..<(base + end) { s += abs(x[i] - y[i]) }
                sums[c] += Double(s)
              }
            }
            for c in 0..<columns {
              let width = min(block, w - c * block)
              body(sums[c] / Double(width * rows))
            }
            top += block
          }
        }
      }
    }
  }

  /// The step from `a` to `b`: the largest block change over every plane.
  public static func step(_ a: Planes, _ b: Planes) -> Double {
    largestBlockChange(a, b).max() ?? 0
  }

}
