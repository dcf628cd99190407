import Raster

extension FrameConverter {
  /// How far from 1 alpha may be anywhere in samples that `convert(samples:)` takes: it treats
  /// them as opaque, where the pixel path would let the background show by as much.
  static let sampleAlphaSlack: Float = 1.0 / 4096

  /// Whether this converter's frames may be converted from samples at all: 8-bit 4:2:0 with no
  /// alpha and an even width (`takes` asks the rest).
  public var convertsSamples: Bool { layout == .yuv420p && stacked == nil && !keepsAlpha && width % 2 == 0 }

  /// Whether `convert(samples:rows:into:)` takes `sampled`: it `convertsSamples`, and every pixel
  /// the samples give is opaque (alpha within `sampleAlphaSlack` of 1).
  public func takes(_ sampled: SampledRows) -> Bool {
    guard convertsSamples, sampled.width == width, sampled.columns >= 2 else { return false }
    let (low, high) = sampled.range()
    return low.w >= 1 - Self.sampleAlphaSlack && high.w <= 1 + Self.sampleAlphaSlack
  }

  /// Writes frame rows `rows` (whole row pairs) into `frame` from the samples their pixels are
  /// interpolated from (`Surface.sampledRows`, a mesh drawn from samples), which `takes`: within
  /// a code of converting the pixels, at a fraction of the work.
  ///
  /// Luma, Cb and Cr are linear in the color and the pixels are linear between samples, so each
  /// row's samples are turned into luma (each row pair's into Cb and Cr) and those are
  /// interpolated and dithered: one value a pixel, eight pixels of a cell in one vector. The pixel
  /// path clamps each pixel's channels to 0...1 first (a mesh's smooth colors overshoot their
  /// points a little): a channel that stays on one side of 0 and of 1 across a cell is as linear
  /// clamped as not, so the samples are clamped before they are turned into luma; only a cell
  /// where a channel crosses 0 or 1 is computed a pixel at a time, clamped as the pixel path
  /// clamps. A chroma sample is the pair's mean color at its block's center, as the pixel path's
  /// 1 3 3 1 filter gives for a color linear across the block (a quarter pixel inwards at the
  /// frame's first and last block, where that filter repeats the edge column); the dither is the
  /// pixel path's, sample for sample. What differs is rounding, and where a channel crosses 0 or 1
  /// inside a block, the filter's mean of clamped values against the clamped value at the center:
  /// parts of a code on a few samples.
  public func convert(samples sampled: SampledRows, rows: Range<Int>, into frame: ConvertedFrame) {
    precondition(convertsSamples, "samples are converted to 8-bit 4:2:0 with no alpha")
    precondition(SampledRows.spacing == 8, "the cell loops are written for samples 8 pixels apart")
    precondition(sampled.rows == rows && sampled.width == width && sampled.columns >= 2, "samples of other rows")
    precondition(rows.lowerBound % 2 == 0 && rows.count % 2 == 0, "a 4:2:0 band \(rows) must hold whole row pairs")
    precondition(
      frame.width == width && frame.height == height && frame.layout == layout, "frame from another converter")
    let columns = sampled.columns, first = sampled.first
    let yPlane = frame.planes[0], cbPlane = frame.planes[1], crPlane = frame.planes[2]
    // Each channel's share of luma, Cb and Cr (before their offsets), in codes.
    let cbScale = 224 / BT709.cbDivisor, crScale = 224 / BT709.crDivisor
    let lumaWeights = SIMD3<Float>(BT709.kr, BT709.kg, BT709.kb) * 219
    let cbWeights = SIMD3<Float>(-BT709.kr, -BT709.kg, 1 - BT709.kb) * cbScale
    let crWeights = SIMD3<Float>(1 - BT709.kr, -BT709.kg, -BT709.kb) * crScale

    // Every buffer holds a row of samples a channel at a time, `padded` floats each, so eight
    // samples of a channel are one vector: the band's rows of samples (R, G, B), and for each
    // row of a pair its samples interpolated down (`raw`), clamped to 0...1 (`clamped`), as
    // luma, and which side of 0 and of 1 each channel lies on (`sides`: a cell whose two
    // samples differ crosses one of them). Then the pair's Cb and Cr.
    let padded = (columns + 7) / 8 * 8
    let sampleRange = sampled.sampleRows
    let planeFloats = 3 * padded
    // The band's rows of samples, then two rows raw, two clamped, and luma, Cb and Cr.
    let floatCount = (sampleRange.count + 5) * planeFloats
    let floats = UnsafeMutablePointer<Float>.allocate(capacity: floatCount)
    defer { floats.deallocate() }
    floats.initialize(repeating: 0, count: floatCount)
    let planes = floats
    for j in sampleRange {
      let row = sampled.sampleRow(j), plane = planes + (j - sampleRange.lowerBound) * planeFloats
      for i in 0..<columns {
        let p = row[i]
        (plane[i], plane[padded + i], plane[2 * padded + i]) = (p.x, p.y, p.z)
      }
    }
    let scratch = planes + sampleRange.count * planeFloats
    func raw(_ half: Int) -> UnsafeMutablePointer<Float> { scratch + half * planeFloats }
    func clamped(_ half: Int) -> UnsafeMutablePointer<Float> { scratch + (2 + half) * planeFloats }
    let luma = scratch + 4 * planeFloats, cb = luma + padded, cr = luma + 2 * padded
    let sideCodes = UnsafeMutablePointer<Int32>.allocate(capacity: 2 * padded)
    defer { sideCodes.deallocate() }
    func sides(_ half: Int) -> UnsafeMutablePointer<Int32> { sideCodes + half * padded }

    // The first pixel whose center is at or past sample 0, and the first chroma sample whose
    // block center is: from there on, every 8 pixels and every 4 chroma samples of a cell lie
    // at the same fractions of it.
    let start = Int((first - 0.5).rounded(.up))
    let chromaStart = Int(((first - 1) / 2).rounded(.up))
    let phase = Float(start) + 0.5 - first, chromaPhase = Float(2 * chromaStart + 1) - first
    let pixelFractions = Lanes((0..<8).map { (phase + Float($0)) / 8 })
    let chromaFractions = SIMD4<Float>((0..<4).map { (chromaPhase + 2 * Float($0)) / 8 })
    let pairFractions = Lanes(lowHalf: chromaFractions, highHalf: chromaFractions)
    let blocks = width / 2, cells = columns - 1
    let zero = Lanes(repeating: 0), one = Lanes(repeating: 1)
    let maximum = Lanes(repeating: 255), offset = Lanes(repeating: 128)
    /// One code as `byteCodes8` makes eight: clamped, rounded to nearest, ties to even.
    func code(_ v: Float) -> UInt8 { UInt8((min(max(v, 0), 255) + 8_388_608) - 8_388_608) }
    func load(_ p: UnsafeMutablePointer<Float>) -> Lanes { UnsafeRawPointer(p).loadUnaligned(as: Lanes.self) }
    func store(_ v: Lanes, _ p: UnsafeMutablePointer<Float>) {
      UnsafeMutableRawPointer(p).storeBytes(of: v, as: Lanes.self)
    }
    /// The color `t` of the way across cell `i` of a row (`raw`), clamped as the pixel path clamps.
    func color(_ line: UnsafeMutablePointer<Float>, _ i: Int, _ t: Float) -> SIMD3<Float> {
      var c = SIMD3<Float>()
      for k in 0..<3 {
        let p = line + k * padded
        c[k] = min(max(p[i] + (p[i + 1] - p[i]) * t, 0), 1)
      }
      return c
    }
    func dot(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float {
      let m = a * b
      return (m.x + m.y) + m.z
    }

    lumaDitherLines.withUnsafeBufferPointer { lumaLines in
      chromaDitherLines.withUnsafeBufferPointer { chromaLines in
        for cy in rows.lowerBound / 2..<rows.upperBound / 2 {
          for half in 0..<2 {
            let y = 2 * cy + half
            let (j, s) = sampled.position(y)
            let upper = planes + (j - sampleRange.lowerBound) * planeFloats, lower = upper + planeFloats
            let (line, clamp, side) = (raw(half), clamped(half), sides(half))
            let fraction = Lanes(repeating: s)
            for v in stride(from: 0, to: padded, by: 8) {
              var sideBits = SIMD8<Int32>()
              var l = Lanes(repeating: 16)
              for k in 0..<3 {
                let a = load(upper + k * padded + v)
                let x = a + (load(lower + k * padded + v) - a) * fraction
                store(x, line + k * padded + v)
                let c = clamp8(x, zero, one)
                store(c, clamp + k * padded + v)
                l += c * Lanes(repeating: lumaWeights[k])
                sideBits |= SIMD8<Int32>().replacing(with: Int32(1 << (2 * k)), where: x .< zero)
                sideBits |= SIMD8<Int32>().replacing(with: Int32(2 << (2 * k)), where: x .> one)
              }
              store(l, luma + v)
              UnsafeMutableRawPointer(side + v).storeBytes(of: sideBits, as: SIMD8<Int32>.self)
            }
            let out = (yPlane.pointer + y * yPlane.bytesPerRow).assumingMemoryBound(to: UInt8.self)
            let noise = lumaLines.baseAddress! + (y & 63) * 72
            // A pixel the slow way: its color interpolated, clamped, turned into luma.
            func pixel(_ x: Int, cell i: Int) {
              let t = (Float(x) + 0.5 - first) / 8 - Float(i)
              out[x] = code(dot(color(line, i, t), lumaWeights) + 16 + noise[x & 63])
            }
            for x in 0..<start { pixel(x, cell: 0) }
            for i in 0..<cells {
              let x = start + 8 * i
              guard side[i] == side[i + 1] else {
                for k in 0..<8 { pixel(x + k, cell: i) }
                continue
              }
              let a = Lanes(repeating: luma[i])
              var v = a + (Lanes(repeating: luma[i + 1]) - a) * pixelFractions
              v += UnsafeRawPointer(noise + (x & 63)).loadUnaligned(as: Lanes.self)
              storeByteCodes8(v, maximum: maximum, at: out + x)
            }
            for x in (start + 8 * cells)..<width { pixel(x, cell: cells - 1) }
          }
          // The pair's mean clamped color a sample, as Cb and Cr.
          for v in stride(from: 0, to: padded, by: 8) {
            var (b, r) = (zero, zero)
            for k in 0..<3 {
              let mean = (load(clamped(0) + k * padded + v) + load(clamped(1) + k * padded + v)) * Lanes(repeating: 0.5)
              b += mean * Lanes(repeating: cbWeights[k])
              r += mean * Lanes(repeating: crWeights[k])
            }
            store(b, cb + v)
            store(r, cr + v)
          }
          let cbRow = (cbPlane.pointer + cy * cbPlane.bytesPerRow).assumingMemoryBound(to: UInt8.self)
          let crRow = (crPlane.pointer + cy * crPlane.bytesPerRow).assumingMemoryBound(to: UInt8.self)
          let cbNoise = chromaLines.baseAddress! + ((cy + 29) & 63) * 144
          let crNoise = chromaLines.baseAddress! + ((cy + 7) & 63) * 144 + 72
          let (top, bottom) = (sides(0), sides(1))
          // A chroma sample the slow way: the pair's colors at its block's center, clamped.
          func block(_ cx: Int) {
            // The frame's first and last blocks' centers a quarter pixel inwards.
            let center = cx == 0 ? 1.125 : cx == blocks - 1 ? Float(2 * cx) + 0.875 : Float(2 * cx + 1)
            let v = (center - first) / 8
            let i = min(max(Int(v.rounded(.down)), 0), cells - 1)
            let t = v - Float(i)
            let m = (color(raw(0), i, t) + color(raw(1), i, t)) * 0.5
            cbRow[cx] = code(128 + dot(m, cbWeights) + cbNoise[cx & 63])
            crRow[cx] = code(128 + dot(m, crWeights) + crNoise[cx & 63])
          }
          for cx in 0..<chromaStart { block(cx) }
          for i in 0..<cells {
            let cx = chromaStart + 4 * i
            guard top[i] == top[i + 1] && bottom[i] == bottom[i + 1] else {
              for k in 0..<4 { block(cx + k) }
              continue
            }
            // Cb in lanes 0-3, Cr in lanes 4-7: four chroma samples of a cell in one vector.
            let a = Lanes(lowHalf: SIMD4(repeating: cb[i]), highHalf: SIMD4(repeating: cr[i]))
            let d = Lanes(lowHalf: SIMD4(repeating: cb[i + 1]), highHalf: SIMD4(repeating: cr[i + 1])) - a
            let n = Lanes(
              lowHalf: UnsafeRawPointer(cbNoise + (cx & 63)).loadUnaligned(as: SIMD4<Float>.self),
              highHalf: UnsafeRawPointer(crNoise + (cx & 63)).loadUnaligned(as: SIMD4<Float>.self))
            storeByteCodes4x2(offset + (a + d * pairFractions) + n, maximum: maximum, at: cbRow + cx, crRow + cx)
          }
          for cx in (chromaStart + 4 * cells)..<blocks { block(cx) }
          // The first and last blocks' centers sit a quarter pixel in from the pattern's.
          block(0)
          block(blocks - 1)
        }
      }
    }
  }
}

/// Each row of `ditherTable` extended past 64 by its own start, so eight lanes from any column
/// are one load (`convert(samples:)`, whose cells start at any column): 72 floats a row.
let lumaDitherLines: [Float] = (0..<64).flatMap { (row: Int) -> [Float] in
  (0..<72).map { (i: Int) in ditherTable[row << 6 | (i & 63)] }
}
