import Foundation

/// A Gaussian blur whose standard deviation is the SwiftUI blur radius (SEMANTICS.md 4.4),
/// transparent outside the pixels it is given.
///
/// Up to `directLimit` pixels of sigma it is exact: a separable kernel to 3 sigma, renormalised.
/// Above, it blurs a copy shrunk by 2^k with nested 2x2 box averages until sigma is between 4 and
/// 8 shrunk pixels, with the shrinking's and the bilinear re-enlarging's own variance taken out of
/// the small blur's sigma (variances add), so the whole keeps the requested sigma. Against an exact
/// Gaussian the error on shapes (edges, bars) stays below 1% of full scale; a one-pixel line, the
/// worst case, stays within 6% of its blurred peak (BlurTests pins both).
public final class GaussianBlur: @unchecked Sendable {
  static let directLimit: Float = 4

  private let small = Scratch<Pixel>()
  private let scratch = Scratch<Pixel>()
  private let weights = Scratch<Float>()
  private let columnIndex = Scratch<Int>()
  private let columnWeight = Scratch<Float>()
  private let line = Scratch<Pixel>()

  public init() {}

  /// Blurs `width x height` pixels at `pixels`, rows one after another, in place.
  public func apply(sigma: Float, to pixels: UnsafeMutablePointer<Pixel>, width: Int, height: Int) {
    guard sigma > 0, sigma.isFinite, width > 0, height > 0 else { return }
    if sigma <= GaussianBlur.directLimit {
      blurDirect(pixels, width: width, height: height, sigma: sigma)
      return
    }
    let k = max(1, Int(log2(sigma / 4)))
    let factor = 1 << k
    let f = Float(factor)
    // Variance of a box of `factor` pixels, and of the bilinear tent that re-enlarges.
    let boxVariance = (f * f - 1) / 12
    let tentVariance = f * f / 6
    let smallSigma = max(sigma * sigma - boxVariance - tentVariance, 0.25).squareRoot() / f
    let sw = (width + factor - 1) / factor, sh = (height + factor - 1) / factor
    let shrunk = small.reserve(sw * sh)
    shrink(pixels, width: width, height: height, factor: factor, into: shrunk, sw, sh)
    blurDirect(shrunk, width: sw, height: sh, sigma: smallSigma)
    enlarge(shrunk, sw, sh, factor: factor, into: pixels, width: width, height: height)
  }

  /// Each small pixel is the mean of its `factor x factor` block; missing pixels count as clear.
  private func shrink(
    _ src: UnsafeMutablePointer<Pixel>, width: Int, height: Int, factor: Int,
    into dst: UnsafeMutablePointer<Pixel>, _ sw: Int, _ sh: Int
  ) {
    dst.update(repeating: .zero, count: sw * sh)
    for y in 0..<height {
      let row = src + y * width
      let out = dst + (y / factor) * sw
      var x = 0
      while x < width {
        let end = min(x + factor, width)
        var sum = Pixel.zero
        for i in x..<end { sum += row[i] }
        out[x / factor] += sum
        x = end
      }
    }
    let scale = Pixel(repeating: 1 / Float(factor * factor))
    for i in 0..<(sw * sh) { dst[i] *= scale }
  }

  /// Bilinear sampling of the small image at each pixel's center; the small image is clear
  /// outside its pixels.
  ///
  /// Bilinear is separable: each output row first mixes its two small rows into `line` (a small
  /// row with a clear pixel at either end), then each pixel mixes two neighbours of `line`. That
  /// is the same weighted sum as four samples a pixel, without the bounds checks in the loop.
  private func enlarge(
    _ src: UnsafeMutablePointer<Pixel>, _ sw: Int, _ sh: Int, factor: Int,
    into dst: UnsafeMutablePointer<Pixel>, width: Int, height: Int
  ) {
    let inv = 1 / Float(factor)
    let columnIndex = self.columnIndex.reserve(width)
    let columnWeight = self.columnWeight.reserve(width)
    let line = self.line.reserve(sw + 2)
    // Column weights repeat for every row: compute them once. u >= -0.5 + 0.5 / factor, so the
    // left index is at least -1; u <= sw - 0.5, so the right one is at most sw.
    for x in 0..<width {
      let u = (Float(x) + 0.5) * inv - 0.5
      let fl = u.rounded(.down)
      columnIndex[x] = Int(fl) + 1  // into `line`, whose entry 0 stands for small column -1
      columnWeight[x] = u - fl
    }
    line[0] = .zero
    line[sw + 1] = .zero
    for y in 0..<height {
      let v = (Float(y) + 0.5) * inv - 0.5
      let fl = v.rounded(.down)
      let j = Int(fl)
      let fy = Pixel(repeating: v - fl)
      let r0 = j >= 0 && j < sh ? src + j * sw : nil
      let r1 = j + 1 >= 0 && j + 1 < sh ? src + (j + 1) * sw : nil
      switch (r0, r1) {
      case let (a?, b?):
        for i in 0..<sw { line[i + 1] = a[i] + (b[i] - a[i]) * fy }
      case let (a?, nil):
        let keep = 1 - fy
        for i in 0..<sw { line[i + 1] = a[i] * keep }
      case let (nil, b?):
        for i in 0..<sw { line[i + 1] = b[i] * fy }
      case (nil, nil):
        (line + 1).update(repeating: .zero, count: sw)
      }
      let out = dst + y * width
      for x in 0..<width {
        let i = columnIndex[x]
        let left = line[i], right = line[i + 1]
        out[x] = left + (right - left) * Pixel(repeating: columnWeight[x])
      }
    }
  }

  /// The exact separable blur: a horizontal pass into scratch, a vertical pass back.
  private func blurDirect(_ pixels: UnsafeMutablePointer<Pixel>, width: Int, height: Int, sigma: Float) {
    let radius = max(1, Int((3 * sigma).rounded(.up)))
    let w = weights.reserve(radius + 1)
    var total: Float = 0
    for k in 0...radius {
      w[k] = exp(-Float(k * k) / (2 * sigma * sigma))
      total += k == 0 ? w[k] : 2 * w[k]
    }
    for k in 0...radius { w[k] /= total }  // the kernel to 3 sigma sums to 1
    let scratch = self.scratch.reserve(width * height)
    do {
      // Horizontal: pixels -> scratch.
      for y in 0..<height {
        let src = pixels + y * width, dst = scratch + y * width
        for x in 0..<width {
          var sum = src[x] * w[0]
          let reach = min(radius, max(x, width - 1 - x))
          var k = 1
          while k <= reach {
            let wk = Pixel(repeating: w[k])
            if x - k >= 0 { sum += src[x - k] * wk }
            if x + k < width { sum += src[x + k] * wk }
            k += 1
          }
          dst[x] = sum
        }
      }
      // Vertical: scratch -> pixels, a row at a time so memory is read in order.
      for y in 0..<height {
        let dst = pixels + y * width
        let w0 = Pixel(repeating: w[0])
        let center = scratch + y * width
        for x in 0..<width { dst[x] = center[x] * w0 }
        for k in 1...radius {
          let wk = Pixel(repeating: w[k])
          if y - k >= 0 {
            let up = scratch + (y - k) * width
            for x in 0..<width { dst[x] += up[x] * wk }
          }
          if y + k < height {
            let down = scratch + (y + k) * width
            for x in 0..<width { dst[x] += down[x] * wk }
          }
        }
      }
    }
  }
}
