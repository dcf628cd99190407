import Foundation
import Testing
import _TestSupport

@testable import Raster

/// The kernels that work two pixels (or eight) a vector give the bits of the one-pixel formulas
/// they replace, written out here: the blends, a clip's masked blend, the blur's re-enlarging and
/// the color matrix, over odd and even counts and starts.
@Suite struct PairKernelTests {
  /// Pixels from a fixed sequence: premultiplied-looking values, some clear, some past 0...1.
  static func pixels(_ count: Int, seed: UInt64) -> [Pixel] {
    var random = SeededRandom(seed: seed)
    return (0..<count).map { i in
      let a = i % 7 == 3 ? 0 : random.next()
      return Pixel(random.next() * a * 1.1, random.next() * a, random.next() * a - 0.01, a)
    }
  }

  static func bits(_ p: Pixel) -> SIMD4<UInt32> {
    SIMD4(p.x.bitPattern, p.y.bitPattern, p.z.bitPattern, p.w.bitPattern)
  }

  /// The one-pixel formulas (docs/SWIFTUI-SEMANTICS.md, Compositing).
  static func blend(_ mode: BlendMode, _ s: Pixel, _ d: Pixel) -> Pixel {
    switch mode {
    case .sourceOver: return s + d * Pixel(repeating: 1 - s.w)
    case .screen: return s + d - s * d
    }
  }

  @Test(arguments: [BlendMode.sourceOver, .screen])
  func blendsOfARowGiveTheOnePixelBits(mode: BlendMode) {
    for count in 0...9 {
      for opacity: Float in [1, 0.37] {
        let source = Self.pixels(count, seed: UInt64(count) + 1)
        let under = Self.pixels(count, seed: UInt64(count) + 100)
        let mask = Self.pixels(count, seed: UInt64(count) + 200).map { $0.x }
        var row = under, masked = under, solid = under
        let color = Pixel(0.2, 0.4, 0.1, 0.6)
        source.withUnsafeBufferPointer { src in
          row.withUnsafeMutableBufferPointer {
            blendSpan(
              mode, count: count, dest: $0.baseAddress!, coverage: nil, solid: .zero, source: src.baseAddress!,
              opacity: opacity)
          }
          mask.withUnsafeBufferPointer { m in
            masked.withUnsafeMutableBufferPointer {
              blendSpan(
                mode, count: count, dest: $0.baseAddress!, source: src.baseAddress!, mask: m.baseAddress!,
                opacity: opacity)
            }
          }
        }
        solid.withUnsafeMutableBufferPointer {
          blendSpan(
            mode, count: count, dest: $0.baseAddress!, coverage: nil, solid: color, source: nil, opacity: opacity)
        }
        for i in 0..<count {
          let s = opacity == 1 ? source[i] : source[i] * opacity
          #expect(Self.bits(row[i]) == Self.bits(Self.blend(mode, s, under[i])), "row, \(count) pixels, pixel \(i)")
          var m = source[i] * mask[i]
          if opacity != 1 { m *= opacity }
          #expect(Self.bits(masked[i]) == Self.bits(Self.blend(mode, m, under[i])), "masked, \(count), \(i)")
          #expect(
            Self.bits(solid[i]) == Self.bits(Self.blend(mode, color * opacity, under[i])), "solid, \(count), \(i)")
        }
      }
    }
  }

  /// A coverage row skips runs of eight with nothing to blend (a thin shape's row is mostly
  /// those); every other pixel, a NaN's included, blends as one at a time.
  @Test(arguments: [BlendMode.sourceOver, .screen])
  func coverageRowsSkipOnlyWhatBlendsNothing(mode: BlendMode) {
    // Runs of zero (some -0) eight and more long, at odd starts, and covered pixels between.
    var coverage = [Float](repeating: 0, count: 61)
    for i in [0, 9, 10, 29, 45, 60] { coverage[i] = Float(i + 1) / 62 }
    coverage[17] = -0.0
    coverage[38] = .nan
    coverage[52] = -0.25
    let source = Self.pixels(coverage.count, seed: 7)
    let under = Self.pixels(coverage.count, seed: 8)
    let color = Pixel(0.2, 0.4, 0.1, 0.6)
    for start in 0..<3 {
      let count = coverage.count - start
      for opacity: Float in [1, 0.37] {
        var solid = under, shaded = under
        coverage.withUnsafeBufferPointer { cov in
          solid.withUnsafeMutableBufferPointer {
            blendSpan(
              mode, count: count, dest: $0.baseAddress! + start, coverage: cov.baseAddress! + start, solid: color,
              source: nil, opacity: opacity)
          }
          source.withUnsafeBufferPointer { src in
            shaded.withUnsafeMutableBufferPointer {
              blendSpan(
                mode, count: count, dest: $0.baseAddress! + start, coverage: cov.baseAddress! + start, solid: .zero,
                source: src.baseAddress! + start, opacity: opacity)
            }
          }
        }
        for i in 0..<coverage.count {
          let a = coverage[i] * opacity
          let blends = i >= start && !(a <= 0)
          let wantSolid = blends ? Self.blend(mode, color * a, under[i]) : under[i]
          let wantShaded = blends ? Self.blend(mode, source[i] * a, under[i]) : under[i]
          #expect(Self.bits(solid[i]) == Self.bits(wantSolid), "solid, from \(start), pixel \(i)")
          #expect(Self.bits(shaded[i]) == Self.bits(wantShaded), "shaded, from \(start), pixel \(i)")
        }
      }
    }
  }

  /// The rows `columns` of the blur whose small pixels are `small` (`sw` x `sh`), enlarged to
  /// `width` columns and `rows` (from 0), blended source-over onto clear pixels at opacity 1:
  /// each pixel `s + 0 * (1 - s.alpha)`, which is the enlarged pixel itself (but a -0, made +0).
  /// Columns outside `columns` stay clear.
  static func enlargedOverClear(
    sigma: Float, _ small: [Pixel], _ sw: Int, _ sh: Int, width: Int, rows: Range<Int>, columns: Range<Int>
  ) -> [Pixel] {
    var small = small
    var made = [Pixel](repeating: .zero, count: width * rows.count)
    small.withUnsafeMutableBufferPointer { src in
      made.withUnsafeMutableBufferPointer { dest in
        let base = dest.baseAddress!
        let blend = RowBlend(
          row: { y in base + y * width + columns.lowerBound }, mode: .sourceOver, opacity: 1, prefetchStride: nil)
        GaussianBlur().enlargeBlurred(
          sigma: sigma, src.baseAddress!, sw, sh, width: width, rows: rows, columns: columns, onto: blend)
      }
    }
    return made
  }

  /// Sigmas whose blur shrinks by 2, 4, 8 and 16.
  @Test(arguments: [8.0, 16.0, 32.0, 64.0] as [Float])
  func enlargingGivesTheBilinearBits(sigma: Float) {
    let factor = GaussianBlur.shrinkFactor(sigma: sigma)
    #expect(factor == Int(sigma) / 4)
    let (sw, sh) = (5, 4)
    let width = sw * factor - 3  // the last small column covers part of a block
    let small = Self.pixels(sw * sh, seed: UInt64(factor))
    for columns in [0..<width, 1..<(width - 2), (factor / 2 + 1)..<(factor + 2), 3..<4] {
      let rows = 0..<(sh * factor)
      let made = Self.enlargedOverClear(sigma: sigma, small, sw, sh, width: width, rows: rows, columns: columns)
      // Bilinear at each pixel's center; the small image is clear outside its pixels.
      func at(_ i: Int, _ j: Int) -> Pixel { i >= 0 && i < sw && j >= 0 && j < sh ? small[j * sw + i] : .zero }
      let inv = 1 / Float(factor)
      var wrong = 0
      for y in rows {
        let v = (Float(y) + 0.5) * inv - 0.5
        let j = Int(v.rounded(.down))
        let fy = Pixel(repeating: v - v.rounded(.down))
        for x in columns {
          let u = (Float(x) + 0.5) * inv - 0.5
          let i = Int(u.rounded(.down))
          func mixed(_ i: Int) -> Pixel {
            let (a, b) = (at(i, j), at(i, j + 1))
            if j >= 0 && j < sh && j + 1 < sh { return a + (b - a) * fy }
            if j >= 0 && j < sh { return a * (1 - fy) }
            if j + 1 >= 0 && j + 1 < sh { return b * fy }
            return .zero
          }
          let (left, right) = (mixed(i), mixed(i + 1))
          let expected = left + (right - left) * Pixel(repeating: u - u.rounded(.down))
          if Self.bits(made[y * width + x]) != Self.bits(Self.blend(.sourceOver, expected, .zero)) { wrong += 1 }
        }
      }
      #expect(wrong == 0, "factor \(factor), columns \(columns)")
    }
  }

  /// The blur the enlarging tests blend: sigma 16 (shrunk by 8), 5 x 4 small pixels enlarged to
  /// an odd width, every row.
  static let smallBlur: (sigma: Float, sw: Int, sh: Int, width: Int, rows: Range<Int>) = {
    let factor = GaussianBlur.shrinkFactor(sigma: 16)
    return (16, 5, 4, 5 * factor - 3, 0..<(4 * factor))
  }()

  /// `smallBlur`'s small pixels from `seed`, with a clear 2x2 block: the runs between its
  /// columns, on the rows between its rows, are clear and are skipped when blended; the rows
  /// around mix it with colour.
  static func smallPixels(seed: UInt64) -> [Pixel] {
    var small = pixels(smallBlur.sw * smallBlur.sh, seed: seed)
    for i in [6, 7, 11, 12] { small[i] = .zero }
    return small
  }

  /// Enlarged rows blended as they are made (`enlargeBlurred(…onto:)`) are the bits of the rows
  /// made first (over clear) and then blended by `blendSpan`, in both modes, at opacity 1 and
  /// not, with a clip's mask and without, over odd column ranges, clear runs included.
  @Test(arguments: [BlendMode.sourceOver, .screen])
  func enlargedRowsBlendedAsMadeGiveTheBlendedRowsBits(mode: BlendMode) {
    let (sigma, sw, sh, width, rows) = Self.smallBlur
    var small = Self.smallPixels(seed: 41)
    let under = Self.pixels(width * rows.count, seed: 42)
    let mask = Self.pixels(width * rows.count, seed: 43).map { $0.x }
    let blur = GaussianBlur()
    for columns in [0..<width, 1..<(width - 2), 3..<4] {
      var made = Self.enlargedOverClear(sigma: sigma, small, sw, sh, width: width, rows: rows, columns: columns)
      for opacity: Float in [1, 0.37] {
        for masked in [false, true] {
          var viaRows = under, asMade = under
          small.withUnsafeMutableBufferPointer { src in
            mask.withUnsafeBufferPointer { m in
              let maskRow = { (y: Int) in m.baseAddress! + y * width + columns.lowerBound }
              viaRows.withUnsafeMutableBufferPointer { dest in
                made.withUnsafeMutableBufferPointer { made in
                  for y in rows {
                    let at = y * width + columns.lowerBound
                    let (to, from) = (dest.baseAddress! + at, made.baseAddress! + at)
                    if masked {
                      blendSpan(
                        mode, count: columns.count, dest: to, source: from, mask: maskRow(y), opacity: opacity)
                    } else {
                      blendSpan(
                        mode, count: columns.count, dest: to, coverage: nil, solid: .zero, source: from,
                        opacity: opacity)
                    }
                  }
                }
              }
              asMade.withUnsafeMutableBufferPointer { dest in
                let base = dest.baseAddress!
                let blend = RowBlend(
                  row: { y in base + y * width + columns.lowerBound }, mask: masked ? maskRow : nil, mode: mode,
                  opacity: opacity, prefetchStride: nil)
                blur.enlargeBlurred(
                  sigma: sigma, src.baseAddress!, sw, sh, width: width, rows: rows, columns: columns, onto: blend)
              }
            }
          }
          let wrong = (0..<under.count).filter { Self.bits(viaRows[$0]) != Self.bits(asMade[$0]) }
          #expect(
            wrong.isEmpty,
            "columns \(columns), opacity \(opacity), masked \(masked): first wrong pixel \(wrong.first ?? -1)")
          #expect(viaRows.indices.contains { Self.bits(viaRows[$0]) != Self.bits(under[$0]) })
        }
      }
    }
  }

  /// Rows taken as clear (`RowBlend.ontoClear`, a band's rows whose clear `Layer.claimClear`
  /// took) get the bits of blending onto cleared rows, whatever they held: in both modes, with a
  /// clip's mask and without, at opacity 1 and not, for a row read from memory (`RowBlend.blend`)
  /// and for a blur's rows enlarged as they are blended, every pixel written.
  @Test(arguments: [BlendMode.sourceOver, .screen])
  func rowsTakenAsClearGetTheBitsOfBlendingOntoClearedRows(mode: BlendMode) {
    let (sigma, sw, sh, width, rows) = Self.smallBlur
    let small = Self.smallPixels(seed: 51)
    let source = Self.pixels(width * rows.count, seed: 52)
    let stale = Self.pixels(width * rows.count, seed: 53)
    let mask = Self.pixels(width * rows.count, seed: 54).map { $0.x }
    let cleared = [Pixel](repeating: .zero, count: width * rows.count)
    for opacity: Float in [1, 0.37] {
      for masked in [false, true] {
        for enlarged in [false, true] {
          func blended(onto start: [Pixel], ontoClear: Bool) -> [Pixel] {
            var out = start, small = small
            small.withUnsafeMutableBufferPointer { small in
              source.withUnsafeBufferPointer { src in
                mask.withUnsafeBufferPointer { m in
                  out.withUnsafeMutableBufferPointer { dest in
                    let base = dest.baseAddress!
                    let maskRow = { (y: Int) in m.baseAddress! + y * width }
                    let blend = RowBlend(
                      row: { y in base + y * width }, mask: masked ? maskRow : nil, mode: mode, opacity: opacity,
                      prefetchStride: nil, ontoClear: ontoClear)
                    if enlarged {
                      GaussianBlur().enlargeBlurred(
                        sigma: sigma, small.baseAddress!, sw, sh, width: width, rows: rows, columns: 0..<width,
                        onto: blend)
                    } else {
                      for y in rows {
                        blend.blend(
                          UnsafeMutablePointer(mutating: src.baseAddress! + y * width), row: y, count: width,
                          rowsEnd: rows.upperBound)
                      }
                    }
                  }
                }
              }
            }
            return out
          }
          let expected = blended(onto: cleared, ontoClear: false)
          let taken = blended(onto: stale, ontoClear: true)
          let wrong = expected.indices.filter { Self.bits(expected[$0]) != Self.bits(taken[$0]) }
          let same = wrong.isEmpty
          #expect(
            same,
            "opacity \(opacity), masked \(masked), enlarged \(enlarged): \(wrong.count) wrong, first \(wrong.first ?? -1)"
          )
          // What the rows held shows through a blend that reads them.
          let overStale = blended(onto: stale, ontoClear: false)
          #expect(expected.indices.contains { Self.bits(expected[$0]) != Self.bits(overStale[$0]) })
        }
      }
    }
  }

  @Test func theColorMatrixOfARowGivesTheOnePixelBits() {
    let matrix = ColorMatrix.hueRotation(radians: 1.1).concatenating(.saturation(1.3)).concatenating(.brightness(0.05))
    for count in [0, 1, 7, 8, 9, 16, 19] {
      var row = Self.pixels(count, seed: UInt64(count) + 7)
      if count > 8 {
        row[2] = Pixel(0.5, 0.25, 0.1, -0.2)  // negative alpha: clear
        row[5] = Pixel(0.5, 0.25, 0.1, .nan)  // not a number: clear
        row[6] = Pixel(0.3, 0.2, 0.1, 1e-30)  // tiny alpha: large straight colors
      }
      let before = row
      row.withUnsafeMutableBufferPointer { matrix.apply(row: $0.baseAddress!, count: count) }
      for i in 0..<count {
        #expect(Self.bits(row[i]) == Self.bits(matrix.apply(before[i])), "\(count) pixels, pixel \(i)")
      }
    }
  }
}
