/// Maps straight 8-bit RGBA to a GIF's 256 colours with one palette for the whole loop.
///
/// One global palette, because a palette per frame flickers at the seam (docs/ENCODING.md, GIF,
/// APNG and WebP). The palette is cut by median cut from pixels sampled across the loop
/// (`Sampler`: the render pipeline draws a few frames spread over the loop before encoding, so a
/// weather sequence's night keeps its dark colours); without samples it comes from the first
/// frame. Frames map onto it with an 8x8 Bayer
/// dither, which is deterministic and does not crawl between frames. When alpha is kept, entry
/// 255 is transparent and alpha below 128 maps to it (GIF transparency is 1-bit).
final class GIFPalette {
  /// 256 entries as 0xAARRGGBB, what libav's PAL8 frames hold.
  let entries: [UInt32]
  private let colours: [SIMD3<Int32>]
  private let keepsAlpha: Bool
  /// Nearest palette entry for each colour at 6 bits a channel, filled as colours turn up.
  private var cache = [Int16](repeating: -1, count: 1 << 18)

  /// Frames sampled on a regular grid, at most ~64k pixels in all however many frames come.
  struct Sampler {
    /// How many frames, spread over the loop, the palette is drawn from.
    static let frames = 32
    private(set) var samples: [SIMD3<Int32>] = []
    let keepsAlpha: Bool
    let budget: Int

    init(keepAlpha: Bool, frames: Int) {
      keepsAlpha = keepAlpha
      budget = 65536 / max(1, frames)
    }

    /// The frame numbers to sample from a loop of `count` frames, frame 0 first. They follow the
    /// golden ratio, not an even stride: a loop that repeats a shorter cycle (a weather sequence
    /// played many times over) would alias an even stride onto a few phases of the cycle and miss
    /// its fades (16 even samples of 600 frames with a 30-frame cycle hit only 4 phases).
    static func frameNumbers(count: Int) -> [Int] {
      guard count > frames else { return Array(0..<count) }
      let phi = (5.0.squareRoot() - 1) / 2
      return (0..<frames).map { i in
        Int((Double(i) * phi).truncatingRemainder(dividingBy: 1) * Double(count))
      }
    }

    /// Adds about `budget` pixels of `rgba` (straight alpha); transparent pixels are skipped.
    mutating func add(rgba: UnsafePointer<UInt8>, bytesPerRow: Int, width: Int, height: Int) {
      let step = max(1, Int((Double(width * height) / Double(budget)).squareRoot().rounded(.up)))
      for y in stride(from: 0, to: height, by: step) {
        for x in stride(from: 0, to: width, by: step) {
          let p = rgba + y * bytesPerRow + x * 4
          if keepsAlpha && p[3] < 128 { continue }
          samples.append(SIMD3(Int32(p[0]), Int32(p[1]), Int32(p[2])))
        }
      }
    }
  }

  /// A palette cut from the pixels of `rgba` (`width` x `height`, straight alpha).
  convenience init(rgba: UnsafePointer<UInt8>, bytesPerRow: Int, width: Int, height: Int, keepAlpha: Bool) {
    var sampler = Sampler(keepAlpha: keepAlpha, frames: 1)
    sampler.add(rgba: rgba, bytesPerRow: bytesPerRow, width: width, height: height)
    self.init(sampler)
  }

  /// A palette cut from everything `sampler` collected.
  init(_ sampler: Sampler) {
    keepsAlpha = sampler.keepsAlpha
    let limit = keepsAlpha ? 255 : 256
    var samples = sampler.samples
    if samples.isEmpty { samples = [SIMD3(0, 0, 0)] }
    var boxes: [Range<Int>] = [0..<samples.count]
    func spread(_ box: Range<Int>) -> (channel: Int, range: Int32) {
      var lo = SIMD3<Int32>(repeating: 255)
      var hi = SIMD3<Int32>(repeating: 0)
      for s in samples[box] {
        lo = pointwiseMin(lo, s)
        hi = pointwiseMax(hi, s)
      }
      let r = hi &- lo
      let channel = r.x >= r.y && r.x >= r.z ? 0 : r.y >= r.z ? 1 : 2
      return (channel, r[channel])
    }
    while boxes.count < limit {
      // Split the box with the widest channel; ties go to the earliest box, so the cut is repeatable.
      var best = -1
      var bestSpread = (channel: 0, range: Int32(0))
      for (i, box) in boxes.enumerated() where box.count > 1 {
        let s = spread(box)
        if s.range > bestSpread.range {
          (best, bestSpread) = (i, s)
        }
      }
      guard best >= 0 else { break }
      let box = boxes[best]
      let channel = bestSpread.channel
      samples[box].sort { ($0[channel], $0.x, $0.y, $0.z) < ($1[channel], $1.x, $1.y, $1.z) }
      let middle = box.lowerBound + box.count / 2
      boxes[best] = box.lowerBound..<middle
      boxes.append(middle..<box.upperBound)
    }
    colours = boxes.map { box in
      var sum = SIMD3<Int32>(repeating: 0)
      for s in samples[box] { sum &+= s }
      return sum / Int32(box.count)
    }
    var entries = colours.map { c in 0xFF00_0000 | UInt32(c.x) << 16 | UInt32(c.y) << 8 | UInt32(c.z) }
    while entries.count < 256 { entries.append(0xFF00_0000) }
    if keepsAlpha { entries[255] = 0 }  // transparent
    self.entries = entries
  }

  /// The 8x8 Bayer matrix, thresholds 0..<64.
  private static let bayer: [Int32] = [
    0, 32, 8, 40, 2, 34, 10, 42, 48, 16, 56, 24, 50, 18, 58, 26,
    12, 44, 4, 36, 14, 46, 6, 38, 60, 28, 52, 20, 62, 30, 54, 22,
    3, 35, 11, 43, 1, 33, 9, 41, 51, 19, 59, 27, 49, 17, 57, 25,
    15, 47, 7, 39, 13, 45, 5, 37, 63, 31, 55, 23, 61, 29, 53, 21,
  ]

  /// Writes palette indices for `rgba` into `indices`.
  func map(
    rgba: UnsafePointer<UInt8>, bytesPerRow: Int, width: Int, height: Int,
    into indices: UnsafeMutablePointer<UInt8>, indexBytesPerRow: Int
  ) {
    for y in 0..<height {
      let row = rgba + y * bytesPerRow
      let out = indices + y * indexBytesPerRow
      for x in 0..<width {
        let p = row + x * 4
        if keepsAlpha && p[3] < 128 {
          out[x] = 255
          continue
        }
        // ±8 codes of ordered dither before the lookup.
        let offset = (Self.bayer[(y & 7) << 3 | (x & 7)] - 32) / 4
        let r = min(max(Int32(p[0]) + offset, 0), 255)
        let g = min(max(Int32(p[1]) + offset, 0), 255)
        let b = min(max(Int32(p[2]) + offset, 0), 255)
        let key = Int(r >> 2) << 12 | Int(g >> 2) << 6 | Int(b >> 2)
        var index = cache[key]
        if index < 0 {
          index = Int16(nearest(SIMD3((r & ~3) | 2, (g & ~3) | 2, (b & ~3) | 2)))  // the cell centre
          cache[key] = index
        }
        out[x] = UInt8(index)
      }
    }
  }

  private func nearest(_ c: SIMD3<Int32>) -> Int {
    var best = 0
    var bestDistance = Int32.max
    for (i, p) in colours.enumerated() {
      let d = p &- c
      // Weighted like the eye: green counts most, blue least.
      let distance = 2 &* d.x &* d.x &+ 4 &* d.y &* d.y &+ d.z &* d.z
      if distance < bestDistance { (best, bestDistance) = (i, distance) }
    }
    return best
  }
}
