// `loopsmith-bench --loop-report` (`make loop-report`): how faithfully each codec keeps every default
// loop's motion, seam included. A benchmark, not a test: it prints a table and writes
// bench/loop-report.md and bench/loop-report.json.
//
// Each loop is rendered once, frame by frame on one thread. Its frames, converted as `render`
// converts them, are written losslessly as Y4M (the reference: "the source") and kept raw so
// every codec encodes the very same frames; transparent effects also keep YUVA frames for VP9 with
// alpha. Each file is then decoded with the project's VideoReader beside the reference, and for
// every step between frames, the seam (last frame to frame 0) included, it measures the
// change of each 16x16 block mean in each plane (Y, Cb, Cr in 8-bit codes) in the file and in the
// source (the absolute change of the block's mean). A step *jumps* when some block of the file changes by more than 1.5 times the source's
// change of that block plus 1 code: slow motion held, then released at once (docs/ENCODING.md,
// Loop tuning). It also reports PSNR and SSIM (luma, 8x8 windows) against the reference, and
// banding in dark, slow gradients against the float image before dither and quantisation
// (`BandingMeasure`; docs/ENCODING.md, Quality levels): the largest local (8x8) mean error and the
// largest rise of the float picture under one run of equal decoded codes ("flat").
//
// LOOP_REPORT_SIZE=WxH (default 540x960; "default" renders each loop at its effect's own default
// size: 1080x1920 for most, 288x288 for the loader, 1200x1200 for the voice orb),
// LOOP_REPORT_ONLY=name,name (cases), LOOP_REPORT_CODECS
// (default h264,hevc,vp9,vp9a,av1; vp9a is VP9 with alpha, for transparent effects only; webp
// too, its frames over the background),
// LOOP_REPORT_TUNING=on|off|both (the codecs' loop tuning, default on), LOOP_REPORT_QUALITY=a list
// of crf values or level names (default: the codec's default), LOOP_REPORT_OPTIONS=
// "codec:name=value,name=value;codec:..." extra encoder options (experiments), LOOP_REPORT_OUT=path
// prefix of the .md and .json (default bench/loop-report), LOOP_REPORT_FRAMES=N renders only the
// first N frames of each loop (quality sweeps: the banding figures hold, the seam figures then
// measure a cut, not the loop's seam).
//
// Beside its own block measure, each file gets `check --against`'s verdict (LoopCheck): the same
// `LocalChange` steps of the decoded file and of the source drawn in float (over the converter's
// background, or over black and white with alpha), judged by `Fidelity.jumps` and
// `SeamJudgement.judge`, so the *check* column says whether `loopsmith check FILE --against ...`
// passes the file's motion and seam (the stream facts it also checks do not depend on size).
//
// Rows are written to the .md and .json after every file. LOOP_REPORT_RESUME=1 keeps the rows of
// an earlier run's .json and skips every file whose loop, codec, quality, tuning (with the tuning's
// options), extra options, size and frame count match one of them, and a loop's rendering when
// all its files are there: a full-size report (hours on 2 cores) can be made over several runs.
import Dispatch
import Effects
import Foundation
import Loopsmith
import Raster
import Video

#if canImport(Glibc)
  import Glibc
#endif

/// One default loop.
struct LoopCase {
  var name: String
  var effect: String
  var parameters: [String: String] = [:]
}

/// Every effect's default loop, each weather and each voice state.
let loopCases: [LoopCase] =
  [LoopCase(name: "color-orbs", effect: "color-orbs"), LoopCase(name: "aurora-mesh", effect: "aurora-mesh")]
  + Weather.Kind.allCases.map {
    LoopCase(name: "weather \($0.rawValue)", effect: "weather", parameters: ["weather": $0.rawValue])
  }
  + [LoopCase(name: "blob-morph-loader", effect: "blob-morph-loader")]
  + VoiceOrbState.allCases.map {
    LoopCase(name: "voice-orb \($0.rawValue)", effect: "voice-orb", parameters: ["state": $0.rawValue])
  }

/// One encoded variant of a loop: a codec (vp9a: VP9 with alpha), its quality, tuning on or off.
struct LoopVariant {
  var label: String
  var codec: VideoCodec
  var alpha: Bool
  var crf: Int?
  var tuning: Bool
  var extra: [CodecOption]

  /// The crf the file is encoded at: the variant's, or the codec's default.
  var effectiveCRF: Int { crf ?? codec.spec.quality?.defaultValue ?? 0 }
  /// The extra options, and the loop tuning's when tuning is on, as `name=value,...`.
  var extraText: String { optionText(extra) }
  var tuningText: String { tuning ? optionText(codec.loopTuning(alpha: alpha)) : "" }
}

/// Encoder options as `name=value,...`.
func optionText(_ options: [CodecOption]) -> String {
  options.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
}

/// What one file measured.
struct LoopMeasure: Codable {
  var caseName: String
  var codec: String
  var crf: Int
  var tuning: Bool
  var options: String
  var size: String
  var frames: Int
  var bytes: Int
  var psnr: Double
  var ssim: Double
  /// Steps (of `frames`, the seam included) where some block jumps beyond 1.5 x the source + 1.
  var jumps: Int
  /// The largest excess of a block over 1.5 x the source's change + 1, in codes, and its step
  /// (step i goes from frame i-1 to frame i; step `frames` is the seam).
  var worstExcess: Double
  var worstStep: Int
  /// The seam's excess (negative: within the source's motion) and its rank among the steps by excess (1 = worst).
  var seamExcess: Double
  var seamRank: Int
  /// The seam's largest block change against the median of the other steps' (the file alone).
  var seamRatio: Double
  /// The largest 16x16 luma block mean error against the reference, in codes.
  var bandError: Double
  /// Banding against the float image (`BandingMeasure`), in luma codes: the largest 8x8 mean error in
  /// dark smooth windows, the largest float rise under one run of equal decoded codes in dark smooth
  /// rows, and the per-mille of dark smooth pixels in runs whose float rises by more than
  /// `BandingMeasure.flatLimit`; the same three of the lossless (dithered) source beside them.
  var bandMean: Double = 0
  var bandFlat: Double = 0
  var bandFlatPermille: Double = 0
  var sourceBandMean: Double = 0
  var sourceBandFlat: Double = 0
  var sourceBandFlatPermille: Double = 0
  /// Whether the file is visually lossless by `BandingMeasure.passes`.
  var bandPasses: Bool = false
  var encodeSeconds: Double
  /// `check --against`'s verdict on the file's motion and seam (see the top of this file): whether
  /// it passes, how many steps jump beyond 1.5 x the source's step + the slack, and the seam's and
  /// the worst step's largest block change, file against source.
  var checkPasses: Bool = false
  var checkJumps: Int = 0
  var checkSeamFile: Double = 0
  var checkSeamSource: Double = 0
  var checkWorstStep: Int = 0
  var checkWorstFile: Double = 0
  var checkWorstSource: Double = 0
  /// The loop tuning's encoder options when tuning is on (part of what identifies a row on resume).
  var tuningOptions: String = ""
  /// With LOOP_REPORT_TAIL=1, the coding noise in `check`'s blocks (`NoiseTail`).
  var tail: NoiseTail.Summary?

  /// What identifies the file this row measured, for LOOP_REPORT_RESUME.
  var key: String {
    Self.key(caseName, codec, crf, tuning, options, tuningOptions, size, frames)
  }

  static func key(
    _ caseName: String, _ codec: String, _ crf: Int, _ tuning: Bool, _ options: String, _ tuningOptions: String,
    _ size: String, _ frames: Int
  ) -> String {
    [caseName, codec, "\(crf)", tuning ? "on" : "off", options, tuningOptions, size, "\(frames)"].joined(separator: "|")
  }
}

/// The steps `check` judges (`LocalChange`, every plane, frame i to i + 1), recorded frame by
/// frame; `closed` adds the seam, the last frame to frame 0.
struct StepRecorder {
  private var current: LocalChange.Planes
  private var previous: LocalChange.Planes
  private var first: LocalChange.Planes?
  private(set) var steps: [Double] = []

  init(width: Int, height: Int, alpha: Bool) {
    current = LocalChange.Planes(width: width, height: height, alpha: alpha)
    previous = current
  }

  mutating func add(_ image: Image, background: SIMD3<Float> = .zero) {
    LocalChange.fill(&current, from: image, background: background)
    if first == nil { first = current } else { steps.append(LocalChange.step(previous, current)) }
    swap(&current, &previous)
  }

  /// The planes of the last two frames added, older first (nil until there are two). Plane 0 is
  /// Y over black, with alpha or without.
  var lastStep: (LocalChange.Planes, LocalChange.Planes)? { steps.isEmpty ? nil : (current, previous) }

  var closed: [Double] {
    guard let first, !steps.isEmpty else { return steps }
    return steps + [LocalChange.step(previous, first)]
  }
}

/// How coding noise fills `check`'s 16x16 blocks (LOOP_REPORT_TAIL=1): per step, the Y blocks
/// whose source (the lossless reference) changes by under `quiet` codes, where every change in the
/// file is the encoder's. Their count, mean, deviation and largest say how the largest block (the
/// step `check` compares) rises above the noise's mean as a picture holds more blocks: for
/// independent blocks the largest of N sits about sqrt(2 ln N) deviations above the mean.
struct NoiseTail {
  static let quiet = 0.25
  struct Summary: Codable {
    /// Medians over the steps: quiet blocks, their mean, deviation and largest change, and
    /// (largest - mean) / deviation.
    var blocks: Double
    var mean: Double
    var deviation: Double
    var largest: Double
    var z: Double
    /// The 90th percentile over the steps of the largest quiet block, and the largest of all.
    var largest90: Double
    var largestAll: Double
    /// The steps measured (those with 16 or more quiet blocks).
    var steps: Int
  }
  private var source: (LocalChange.Planes, LocalChange.Planes)
  private var rows: [(n: Double, mean: Double, sd: Double, max: Double)] = []

  init(width: Int, height: Int) {
    let empty = LocalChange.Planes(width: width, height: height, alpha: false)
    source = (empty, empty)
  }

  /// The next frame of the source; `step` is the file's planes of the same step, from the
  /// `StepRecorder` that has just taken the file's frame (nil on the first frame).
  mutating func add(file step: (LocalChange.Planes, LocalChange.Planes)?, source reference: Image) {
    LocalChange.fill(&source.1, from: reference)
    if let step {
      let f = LocalChange.blockChanges(step.0, step.1, plane: 0)
      let r = LocalChange.blockChanges(source.0, source.1, plane: 0)
      let quiet = f.indices.filter { r[$0] < Self.quiet }.map { f[$0] }
      if quiet.count >= 16 {
        let mean = quiet.reduce(0, +) / Double(quiet.count)
        let sd = (quiet.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(quiet.count - 1)).squareRoot()
        rows.append((Double(quiet.count), mean, sd, quiet.max() ?? 0))
      }
    }
    swap(&source.0, &source.1)
  }

  var summary: Summary? {
    guard !rows.isEmpty else { return nil }
    func quantile(_ v: [Double], _ q: Double) -> Double { v.sorted()[min(v.count - 1, Int(q * Double(v.count)))] }
    func median(_ v: [Double]) -> Double { quantile(v, 0.5) }
    let z = rows.map { $0.sd > 0 ? ($0.max - $0.mean) / $0.sd : 0 }
    return Summary(
      blocks: median(rows.map(\.n)), mean: median(rows.map(\.mean)), deviation: median(rows.map(\.sd)),
      largest: median(rows.map(\.max)), z: median(z),
      largest90: quantile(rows.map(\.max), 0.9), largestAll: rows.map(\.max).max() ?? 0,
      steps: rows.count)
  }
}

/// 8-bit RGB codes of a decoded frame (premultiplied: a file with alpha shows over black, like
/// the reference, which is composited over black).
func rgbCodes(_ image: Image) -> [UInt8] {
  var out = [UInt8](repeating: 0, count: image.count * 3)
  out.withUnsafeMutableBufferPointer { o in
    for i in 0..<image.count {
      let p = image.pixels[i]
      for c in 0..<3 { o[i * 3 + c] = UInt8(max(0, min(255, (p[c] * 255).rounded()))) }
    }
  }
  return out
}

/// Per 16x16 block (8x8 in chroma) and plane (Y, Cb, Cr), how far the block's mean moves from `a`
/// to `b`, in codes (the absolute change of the mean: coding noise averages out, a
/// held-then-released block does not).
func blockChanges(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> [Float] {
  let bw = (width + 15) / 16
  let bh = (height + 15) / 16
  var sums = [Float](repeating: 0, count: bw * bh * 3)
  a.withUnsafeBufferPointer { a in
    b.withUnsafeBufferPointer { b in
      for y in 0..<height {
        let by = y / 16
        for x in 0..<width {
          let i = (y * width + x) * 3
          let k = (by * bw + x / 16) * 3
          for c in 0..<3 { sums[k + c] += Float(Int(b[i + c]) - Int(a[i + c])) }
        }
      }
    }
  }
  // The mean change of R, G and B, as the change of the file's own planes: BT.709 limited-range
  // Y, Cb and Cr (linear, so the block means convert exactly).
  for by in 0..<bh {
    for bx in 0..<bw {
      let n = Float(min(16, width - bx * 16) * min(16, height - by * 16))
      let k = (by * bw + bx) * 3
      let (r, g, b) = (sums[k] / n, sums[k + 1] / n, sums[k + 2] / n)
      let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
      sums[k] = abs(y * 219 / 255)
      sums[k + 1] = abs((b - y) / 1.8556 * 224 / 255)
      sums[k + 2] = abs((r - y) / 1.5748 * 224 / 255)
    }
  }
  return sums
}

/// Luma in codes (BT.709 weights) of RGB codes.
func luma(_ rgb: [UInt8], count: Int) -> [Float] {
  var y = [Float](repeating: 0, count: count)
  for i in 0..<count {
    y[i] = 0.2126 * Float(rgb[i * 3]) + 0.7152 * Float(rgb[i * 3 + 1]) + 0.0722 * Float(rgb[i * 3 + 2])
  }
  return y
}

/// Mean SSIM over 8x8 windows of two luma planes.
func ssim(_ a: [Float], _ b: [Float], width: Int, height: Int) -> Double {
  let c1 = pow(0.01 * 255, 2.0)
  let c2 = pow(0.03 * 255, 2.0)
  var total = 0.0
  var windows = 0
  for wy in stride(from: 0, to: height - 7, by: 8) {
    for wx in stride(from: 0, to: width - 7, by: 8) {
      var (sa, sb, saa, sbb, sab) = (0.0, 0.0, 0.0, 0.0, 0.0)
      for y in wy..<wy + 8 {
        for x in wx..<wx + 8 {
          let p = Double(a[y * width + x])
          let q = Double(b[y * width + x])
          sa += p
          sb += q
          saa += p * p
          sbb += q * q
          sab += p * q
        }
      }
      let n = 64.0
      let (ma, mb) = (sa / n, sb / n)
      let va = saa / n - ma * ma
      let vb = sbb / n - mb * mb
      let cov = sab / n - ma * mb
      total += ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (va + vb + c2))
      windows += 1
    }
  }
  return windows == 0 ? 1 : total / Double(windows)
}

/// The largest 16x16 block mean difference of two luma planes, in codes.
func blockMeanError(_ a: [Float], _ b: [Float], width: Int, height: Int) -> Double {
  var worst = 0.0
  for by in stride(from: 0, to: height, by: 16) {
    for bx in stride(from: 0, to: width, by: 16) {
      var d = 0.0
      var n = 0
      for y in by..<min(height, by + 16) {
        for x in bx..<min(width, bx + 16) {
          d += Double(a[y * width + x] - b[y * width + x])
          n += 1
        }
      }
      worst = max(worst, abs(d / Double(n)))
    }
  }
  return worst
}

/// Banding in dark, slow gradients, measured against the float picture the renderer drew (before
/// the converter's dither and 8-bit quantisation), on luma in limited-range codes (16 + 219 Y'):
///
/// - **mean**: the largest error of a local mean, decoded against float, over 8x8 windows every 4
///   pixels (so windows straddle the codecs' block edges, where a flattened gradient steps) that
///   are dark (every float sample under `darkLimit`) and smooth (the float spans at most
///   `smoothSpan` codes in the window). A band is a region whose level is off: the eye averages
///   dither and noise, so the local mean is what it sees.
/// - **flat**: along rows of dark pixels whose float changes by less than `smoothSlope` codes a
///   pixel, each run of equal decoded codes is measured by how far the float picture rises under
///   it (max - min). Plain rounding without dither already makes runs that rise by up to 1 code;
///   an encoder that flattens a gradient makes runs over which the picture rises by 2, 3 codes,
///   ending in a step of that height: a band edge. The figure is the largest rise, and the
///   per-mille of such pixels in runs rising by more than `flatLimit`.
///
/// docs/ENCODING.md (Quality levels) gives the thresholds' reasons and the sweep that used them.
struct BandingMeasure {
  static let darkLimit: Float = 128
  static let smoothSpan: Float = 4
  static let smoothSlope: Float = 0.25
  static let flatLimit: Float = 2
  /// Visually lossless: no dark smooth window's mean off by more than `meanLimit` codes and at most
  /// `permilleLimit` per mille of dark smooth pixels in runs rising by more than `flatLimit`.
  static let meanLimit = 1.5
  static let permilleLimit = 1.0

  var mean = 0.0
  var flat = 0.0
  var flatPixels = 0
  var darkPixels = 0
  var permille: Double { darkPixels == 0 ? 0 : 1000 * Double(flatPixels) / Double(darkPixels) }
  var passes: Bool { mean <= Self.meanLimit && permille <= Self.permilleLimit }

  /// Limited-range luma codes (not rounded) of an image's premultiplied RGB (over black).
  static func luma(_ image: Image) -> [Float] {
    var out = [Float](repeating: 0, count: image.count)
    for i in 0..<image.count {
      let p = image.pixels[i]
      out[i] = 16 + 219 * (0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z)
    }
    return out
  }

  /// The runs of one row or column: `count` samples from `first`, `step` apart.
  private mutating func addRuns(_ decoded: [Float], _ float: [Float], first: Int, step: Int, count: Int) {
    var start = 0
    var (lo, hi) = (Float.infinity, -Float.infinity)
    var code = Float.nan
    func close(_ end: Int) {
      let length = end - start
      guard length >= 2 else { return }
      let rise = hi - lo
      flat = max(flat, Double(rise))
      if rise > Self.flatLimit { flatPixels += length }
    }
    for n in 0..<count {
      let i = first + n * step
      let f = float[i]
      let slope = n + 1 < count ? abs(float[i + step] - f) : 0
      guard f < Self.darkLimit, slope < Self.smoothSlope else {
        if !code.isNaN { close(n) }
        code = .nan
        continue
      }
      darkPixels += 1
      let c = decoded[i].rounded()
      if c != code {
        if !code.isNaN { close(n) }
        start = n
        code = c
        (lo, hi) = (f, f)
      } else {
        lo = min(lo, f)
        hi = max(hi, f)
      }
    }
    if !code.isNaN { close(count) }
  }

  /// Adds one frame: `decoded` and `float` are luma codes (`luma(_:)`) of the same frame.
  mutating func add(decoded: [Float], float: [Float], width: Int, height: Int) {
    // Local means over 8x8 windows every 4 pixels.
    for wy in stride(from: 0, through: height - 8, by: 4) {
      for wx in stride(from: 0, through: width - 8, by: 4) {
        var (lo, hi, sd, sf) = (Float.infinity, -Float.infinity, Float(0), Float(0))
        for y in wy..<wy + 8 {
          for x in wx..<wx + 8 {
            let f = float[y * width + x]
            lo = min(lo, f)
            hi = max(hi, f)
            sf += f
            sd += decoded[y * width + x]
          }
        }
        guard hi < Self.darkLimit, hi - lo <= Self.smoothSpan else { continue }
        mean = max(mean, Double(abs(sd - sf) / 64))
      }
    }
    // Runs of equal decoded codes along rows and along columns of dark, slowly changing pixels
    // (a sky's gradient runs down the columns).
    for y in 0..<height { addRuns(decoded, float, first: y * width, step: 1, count: width) }
    for x in 0..<width { addRuns(decoded, float, first: x, step: width, count: height) }
  }
}

/// Decodes `file` beside the reference Y4M and measures it (see the top of this file).
func measureLoop(
  file: String, reference: String, caseName: String, variant: LoopVariant, width: Int, height: Int,
  floats: [Int: [Float]], sourceSteps: [Double]
)
  throws -> LoopMeasure
{
  let f = try VideoReader(path: file, keepAlpha: true)
  // The reference is ours: a full-size Y4M of a long loop (clear day's 3600 frames) is 11 GB.
  let r = try VideoReader(path: reference, keepAlpha: false, limit: 1 << 40)
  var checkSteps = StepRecorder(width: width, height: height, alpha: f.info.carriesAlpha)
  let measuresTail = ProcessInfo.processInfo.environment["LOOP_REPORT_TAIL"] == "1"
  var tail = measuresTail ? NoiseTail(width: width, height: height) : nil
  var first: (f: [UInt8], r: [UInt8])? = nil
  var previous: (f: [UInt8], r: [UInt8])? = nil
  var steps: [(excess: Double, fileMax: Float)] = []
  var sse = 0.0
  var ssimTotal = 0.0
  var band = 0.0
  var banding = BandingMeasure()
  var sourceBanding = BandingMeasure()
  var frames = 0
  func step(_ from: (f: [UInt8], r: [UInt8]), _ to: (f: [UInt8], r: [UInt8])) {
    let fb = blockChanges(from.f, to.f, width: width, height: height)
    let rb = blockChanges(from.r, to.r, width: width, height: height)
    var excess = -Double.infinity
    var fileMax: Float = 0
    for i in 0..<fb.count {
      excess = max(excess, Double(fb[i] - (1.5 * rb[i] + 1)))
      fileMax = max(fileMax, fb[i])
    }
    steps.append((excess, fileMax))
  }
  while let fi = try f.nextFrame() {
    guard let ri = try r.nextFrame() else { break }
    checkSteps.add(fi)
    tail?.add(file: checkSteps.lastStep, source: ri)
    let codes = (f: rgbCodes(fi), r: rgbCodes(ri))
    for i in 0..<codes.f.count {
      let d = Double(Int(codes.f[i]) - Int(codes.r[i]))
      sse += d * d
    }
    let (lf, lr) = (luma(codes.f, count: width * height), luma(codes.r, count: width * height))
    ssimTotal += ssim(lf, lr, width: width, height: height)
    band = max(band, blockMeanError(lf, lr, width: width, height: height))
    if let float = floats[frames] {
      banding.add(decoded: BandingMeasure.luma(fi), float: float, width: width, height: height)
      sourceBanding.add(decoded: BandingMeasure.luma(ri), float: float, width: width, height: height)
    }
    if let previous { step(previous, codes) }
    if first == nil { first = codes }
    previous = codes
    frames += 1
  }
  if let first, let previous, frames > 1 { step(previous, first) }  // the seam
  let mse = sse / Double(max(1, frames * width * height * 3))
  let worst = steps.indices.max { steps[$0].excess < steps[$1].excess } ?? 0
  let seam = steps.last?.excess ?? 0
  let others = steps.dropLast().map(\.fileMax).sorted()
  let median = others.isEmpty ? 0 : others[others.count / 2]
  let bytes = ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber)?.intValue ?? 0
  var m = LoopMeasure(
    caseName: caseName, codec: variant.label, crf: variant.effectiveCRF, tuning: variant.tuning,
    options: variant.extraText,
    size: "\(width)x\(height)", frames: frames, bytes: bytes, psnr: mse == 0 ? 99 : 10 * log10(255 * 255 / mse),
    ssim: ssimTotal / Double(max(1, frames)), jumps: steps.filter { $0.excess > 0 }.count,
    worstExcess: steps.isEmpty ? 0 : steps[worst].excess, worstStep: worst + 1, seamExcess: seam,
    seamRank: steps.filter { $0.excess > seam }.count + 1,
    seamRatio: Double((steps.last?.fileMax ?? 0) / max(median, 0.01)), bandError: band, encodeSeconds: 0)
  (m.bandMean, m.bandFlat, m.bandFlatPermille) = (banding.mean, banding.flat, banding.permille)
  (m.sourceBandMean, m.sourceBandFlat, m.sourceBandFlatPermille) =
    (sourceBanding.mean, sourceBanding.flat, sourceBanding.permille)
  m.bandPasses = banding.passes
  m.tail = tail?.summary
  let fileSteps = checkSteps.closed
  if fileSteps.count == sourceSteps.count, !fileSteps.isEmpty {
    let blocks = LocalChange.blocks(width: width, height: height)
    let jumps = Fidelity.jumps(file: fileSteps, source: sourceSteps, blocks: blocks)
    m.checkJumps = jumps.count
    m.checkPasses = jumps.isEmpty && SeamJudgement.judge(steps: fileSteps, source: sourceSteps).passed
    (m.checkSeamFile, m.checkSeamSource) = (fileSteps.last ?? 0, sourceSteps.last ?? 0)
    // The worst step: the largest excess over the threshold (negative when none jumps).
    let slack = Fidelity.slack(blocks: blocks)
    let excess = fileSteps.indices.map { fileSteps[$0] - (Fidelity.factor * sourceSteps[$0] + slack) }
    let worst = excess.indices.max { excess[$0] < excess[$1] } ?? 0
    (m.checkWorstStep, m.checkWorstFile, m.checkWorstSource) = (worst + 1, fileSteps[worst], sourceSteps[worst])
  }
  return m
}

/// The `check` column: `pass` or `FAIL n`, then the seam's block change file/source, and the worst
/// step's when it is not the seam.
func checkText(_ m: LoopMeasure) -> String {
  var t = (m.checkPasses ? "pass" : "FAIL \(m.checkJumps)")
  t += String(format: " seam %.2f/%.2f", m.checkSeamFile, m.checkSeamSource)
  if m.checkWorstStep != m.frames {
    t += String(format: " worst %d: %.2f/%.2f", m.checkWorstStep, m.checkWorstFile, m.checkWorstSource)
  }
  return t
}

/// The variants the environment asks for.
func loopVariants(env: [String: String], transparent: Bool) -> [LoopVariant] {
  let codecs = (env["LOOP_REPORT_CODECS"] ?? "h264,hevc,vp9,vp9a,av1").split(separator: ",").map(String.init)
  let tunings: [Bool] =
    switch env["LOOP_REPORT_TUNING"] ?? "on" {
    case "off": [false]
    case "both": [false, true]
    default: [true]
    }
  var extra: [String: [CodecOption]] = [:]
  for part in (env["LOOP_REPORT_OPTIONS"] ?? "").split(separator: ";") {
    let halves = part.split(separator: ":", maxSplits: 1)
    guard halves.count == 2 else { continue }
    extra[String(halves[0])] = halves[1].split(separator: ",").compactMap { pair in
      let kv = pair.split(separator: "=", maxSplits: 1)
      return kv.count == 2 ? CodecOption(String(kv[0]), String(kv[1])) : nil
    }
  }
  let qualities = (env["LOOP_REPORT_QUALITY"] ?? "").split(separator: ",").map(String.init)
  var out: [LoopVariant] = []
  for label in codecs {
    let alpha = label == "vp9a"
    if alpha && !transparent { continue }
    guard let codec = VideoCodec(rawValue: alpha ? "vp9" : label), let quality = codec.spec.quality else { continue }
    let crfs: [Int?] =
      qualities.isEmpty
      ? [nil]
      : qualities.map { q in Int(q) ?? QualityLevel(rawValue: q).map { quality.value(for: $0) } }
    for crf in crfs {
      for tuning in tunings {
        out.append(
          LoopVariant(label: label, codec: codec, alpha: alpha, crf: crf, tuning: tuning, extra: extra[label] ?? []))
      }
    }
  }
  return out
}

func runLoopReport() throws {
  let env = ProcessInfo.processInfo.environment
  let sizeText = env["LOOP_REPORT_SIZE"] ?? "540x960"
  let parts = sizeText.lowercased().split(separator: "x").compactMap { Int($0) }
  let defaultSizes = sizeText == "default"
  guard defaultSizes || (parts.count == 2 && parts[0] > 0 && parts[1] > 0) else {
    log("LOOP_REPORT_SIZE '\(sizeText)': expected WxH, like 540x960, or default")
    exit(2)
  }
  let only = env["LOOP_REPORT_ONLY"].map { $0.split(separator: ",").map(String.init) }
  let outPrefix = env["LOOP_REPORT_OUT"] ?? "bench/loop-report"
  let frameCap = env["LOOP_REPORT_FRAMES"].flatMap { Int($0) }.map { max(2, $0) }
  let work = NSTemporaryDirectory() + "loopsmith-loop-report-\(getpid())"
  try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: work) }
  var results: [LoopMeasure] = []
  if env["LOOP_REPORT_RESUME"] == "1" {
    if let data = FileManager.default.contents(atPath: outPrefix + ".json"),
      let earlier = try? JSONDecoder().decode([LoopMeasure].self, from: data)
    {
      results = earlier
      print("loop-report: resuming with \(earlier.count) rows of \(outPrefix).json")
    } else {
      print("loop-report: nothing to resume in \(outPrefix).json (missing, or written by an older report)")
    }
  }
  print(
    "loop-report at \(sizeHeading(sizeText)): "
      + "jumps = steps where a 16x16 block changes > 1.5 x the source + 1 code")
  print(
    "case                      codec tune crf     bytes   PSNR   SSIM  jumps/steps  worst@step  seam(rank)  seam/median  band"
      + "  mean  flat  flat‰ (source: mean flat flat‰) visually-lossless"
  )
  for c in loopCases where only.map({ $0.contains(c.name) }) ?? true {
    var request = RenderRequest()
    request.effect = c.effect
    for (k, v) in c.parameters { try request.setParameter(k, to: v) }
    if !defaultSizes { request.size = (parts[0], parts[1]) }
    request.encoderThreads = RenderSetting.defaultEncoderThreads
    let reference = work + "/reference.y4m"
    request.outputs = [reference]
    let job = try request.job()
    let (width, height) = (job.width, job.height)
    let transparent = type(of: job.makeEffect()).info.isTransparent
    let frameCount = min(job.frameCount, frameCap ?? job.frameCount)
    let done = Set(results.map(\.key))
    let variants = loopVariants(env: env, transparent: transparent).filter { v in
      v.codec.sizeProblem(width: width, height: height) == nil
        && !done.contains(identity(c.name, v, size: "\(width)x\(height)", frames: frameCount))
    }
    if variants.isEmpty { continue }
    // The float luma of about 40 frames spread over the loop, for the banding measure.
    let bandingStride = max(1, frameCount / 40)
    var floats: [Int: [Float]] = [:]
    // The frames, once: the Y4M reference, and raw opaque (and YUVA) frames for the encoders.
    let opaqueSettings = try OutputSettings(
      path: work + "/o.mp4", codec: .h264, width: width, height: height, fps: job.fps, frameCount: frameCount)
    let alphaSettings = try OutputSettings(
      path: work + "/a.webm", codec: .vp9, width: width, height: height, fps: job.fps, frameCount: frameCount,
      keepAlpha: true)
    // WebP takes BGRA frames (opaque, over the background, as its files are judged).
    let wantsRGB = variants.contains { $0.codec == .webp }
    let rgbSettings = try OutputSettings(
      path: work + "/r.webp", codec: .webp, width: width, height: height, fps: job.fps, frameCount: frameCount)
    var referenceSettings = job.outputs[0]
    referenceSettings.frameCount = frameCount
    let referenceWriter = try VideoWriter(referenceSettings)
    let opaqueConverter = FrameConverter(opaqueSettings)
    let alphaConverter = FrameConverter(alphaSettings)
    let rgbConverter = FrameConverter(rgbSettings)
    let opaqueRaw = work + "/opaque.raw"
    let alphaRaw = work + "/alpha.raw"
    let rgbRaw = work + "/rgb.raw"
    let opaqueFD = open(opaqueRaw, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let alphaFD = transparent ? open(alphaRaw, O_WRONLY | O_CREAT | O_TRUNC, 0o600) : -1
    let rgbFD = wantsRGB ? open(rgbRaw, O_WRONLY | O_CREAT | O_TRUNC, 0o600) : -1
    guard opaqueFD >= 0, !transparent || alphaFD >= 0, !wantsRGB || rgbFD >= 0 else {
      throw RenderFailure("\(work): cannot create the raw frame files: \(String(cString: strerror(errno)))")
    }
    let effect = job.makeEffect()
    let surface = Surface(image: Image(width: width, height: height), scale: Float(job.scale))
    // The source's steps as `check --against` sees them: over the opaque files' background, and
    // with alpha for VP9 with alpha.
    let background = SIMD3<Float>(
      opaqueSettings.background.red, opaqueSettings.background.green, opaqueSettings.background.blue)
    var opaqueSteps = StepRecorder(width: width, height: height, alpha: false)
    var alphaSteps = StepRecorder(width: width, height: height, alpha: true)
    let started = Date()
    let opaqueFrame = opaqueConverter.makeFrame()
    let alphaFrame = alphaConverter.makeFrame()
    let rgbFrame = rgbConverter.makeFrame()
    for i in 0..<frameCount {
      RenderPipeline.draw(effect, job: job, frame: i, on: surface)
      opaqueConverter.convert(surface.image, into: opaqueFrame)
      if i % bandingStride == 0 { floats[i] = BandingMeasure.luma(surface.image) }
      opaqueSteps.add(surface.image, background: transparent ? background : .zero)
      if transparent { alphaSteps.add(surface.image) }
      try referenceWriter.append(opaqueFrame)
      var written = opaqueFrame.write(to: opaqueFD)
      if transparent {
        alphaConverter.convert(surface.image, into: alphaFrame)
        written = written && alphaFrame.write(to: alphaFD)
      }
      if wantsRGB {
        rgbConverter.convert(surface.image, into: rgbFrame)
        written = written && rgbFrame.write(to: rgbFD)
      }
      guard written else {
        throw RenderFailure("\(work): cannot write raw frames: \(String(cString: strerror(errno)))")
      }
    }
    close(opaqueFD)
    if alphaFD >= 0 { close(alphaFD) }
    if rgbFD >= 0 { close(rgbFD) }
    _ = try referenceWriter.finish()
    FileHandle.standardError.write(
      Data(
        "\(c.name): \(frameCount) frames rendered in \(String(format: "%.0f", Date().timeIntervalSince(started))) s\n"
          .utf8))
    for variant in variants {
      let ext = variant.codec == .vp9 ? "webm" : variant.codec == .webp ? "webp" : "mp4"
      let path = work + "/file.\(ext)"
      var settings = try OutputSettings(
        path: path, codec: variant.codec, width: width, height: height, fps: job.fps, frameCount: frameCount,
        crf: variant.crf, threads: RenderSetting.defaultEncoderThreads, keepAlpha: variant.alpha)
      settings.loopTuning = variant.tuning
      settings.extraCodecOptions = variant.extra
      let writer = try VideoWriter(settings)
      let frame = writer.converter.makeFrame()
      let fd = open(variant.alpha ? alphaRaw : variant.codec == .webp ? rgbRaw : opaqueRaw, O_RDONLY)
      let encodeStart = Date()
      while frame.read(from: fd) { try writer.append(frame) }
      close(fd)
      _ = try writer.finish()
      var m = try measureLoop(
        file: path, reference: reference, caseName: c.name, variant: variant, width: width, height: height,
        floats: floats, sourceSteps: variant.alpha ? alphaSteps.closed : opaqueSteps.closed)
      m.encodeSeconds = Date().timeIntervalSince(encodeStart)
      m.tuningOptions = variant.tuningText
      results.append(m)
      print(
        c.name.padding(toLength: 26, withPad: " ", startingAt: 0)
          + m.codec.padding(toLength: 6, withPad: " ", startingAt: 0)
          + (m.tuning ? "on  " : "off ")
          + String(
            format: "%3d %9d %6.2f %6.4f %5d/%-5d %7.2f@%-4d %7.2f(%d) %8.2f %6.2f", m.crf, m.bytes, m.psnr, m.ssim,
            m.jumps, m.frames, m.worstExcess, m.worstStep, m.seamExcess, m.seamRank, m.seamRatio, m.bandError)
          + String(
            format: " %5.2f %5.2f %5.2f (%5.2f %5.2f %5.2f) ", m.bandMean, m.bandFlat, m.bandFlatPermille,
            m.sourceBandMean, m.sourceBandFlat, m.sourceBandFlatPermille) + (m.bandPasses ? "yes" : "no")
          + "  check: " + checkText(m) + (m.options.isEmpty ? "" : "  " + m.options)
          + (m.tail.map {
            String(
              format: "  tail: %.0f quiet blocks, mean %.3f sd %.3f largest %.3f (z %.2f, sqrt(2 ln N) %.2f), "
                + "p90 %.3f, max %.3f",
              $0.blocks, $0.mean, $0.deviation, $0.largest, $0.z, (2 * log($0.blocks)).squareRoot(), $0.largest90,
              $0.largestAll)
          } ?? ""))
      fflush(stdout)
      try? FileManager.default.removeItem(atPath: path)
      try writeLoopReport(results, prefix: outPrefix, sizeText: sizeText)
    }
  }
  try writeLoopReport(results, prefix: outPrefix, sizeText: sizeText)
  print("loop-report: wrote \(outPrefix).md and \(outPrefix).json")
}

/// The resume key (`LoopMeasure.key`) of the file a variant of loop `name` would make.
func identity(_ name: String, _ v: LoopVariant, size: String, frames: Int) -> String {
  LoopMeasure.key(name, v.label, v.effectiveCRF, v.tuning, v.extraText, v.tuningText, size, frames)
}

/// What LOOP_REPORT_SIZE says in words: a size, or each loop's own.
func sizeHeading(_ sizeText: String) -> String {
  sizeText == "default" ? "each loop's default size" : sizeText
}

/// Writes the rows, in the order of `loopCases` and then of the codecs, as Markdown and JSON.
func writeLoopReport(_ rows: [LoopMeasure], prefix outPrefix: String, sizeText: String) throws {
  let caseOrder = Dictionary(loopCases.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { a, _ in a })
  let codecOrder = ["h264": 0, "hevc": 1, "vp9": 2, "vp9a": 3, "av1": 4]
  let results = rows.enumerated().sorted { a, b in
    let ka = (caseOrder[a.element.caseName] ?? 99, codecOrder[a.element.codec] ?? 9, a.element.crf, a.offset)
    let kb = (caseOrder[b.element.caseName] ?? 99, codecOrder[b.element.codec] ?? 9, b.element.crf, b.offset)
    return ka < kb
  }.map(\.element)
  // The table as Markdown, and every figure as JSON.
  var md = "# Loop report at \(sizeHeading(sizeText))\n\n"
  md +=
    "Made by `make loop-report` (LOOP_REPORT_SIZE=\(sizeText)). A *jump* is a step (the seam included) where some 16x16 block of the file changes by more than 1.5 x the source's change + 1 code; *worst* is the largest such excess in codes; *seam* is the seam's excess (negative: within the source's motion) and its rank among the steps; *band* is the largest 16x16 luma block mean error in codes against the lossless frames. Banding against the float picture (dark, slow gradients; docs/ENCODING.md, Quality levels): *mean* is the largest 8x8 local mean error in codes, *flat* the largest rise of the float picture under one run of equal decoded codes, *flat‰* the per-mille of dark smooth pixels in runs rising by more than \(BandingMeasure.flatLimit) codes; *VL* (visually lossless) is mean <= \(BandingMeasure.meanLimit) and flat‰ <= \(BandingMeasure.permilleLimit); the lossless source's figures are in brackets. *check* is `check --against`'s verdict on the file's motion and seam: `pass`, or `FAIL` and how many steps jump (a step's largest 16x16 block mean absolute difference, any plane, above 1.5 x the float source's + a slack of 1 code at 64x112 that grows with the picture's blocks, `Fidelity.slack(blocks:)`; or a seam out of line with the other steps), then the seam's and the worst step's block change, file/source.\n\n"
  md +=
    "| loop | size | codec | tuning | crf | bytes | PSNR dB | SSIM | jumps/steps | worst | seam (rank) | band "
    + "| mean | flat | flat‰ | VL | check |\n"
  md += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
  for m in results {
    md +=
      "| \(m.caseName) | \(m.size) | \(m.codec) | \(m.tuning ? "on" : "off") | \(m.crf) | \(m.bytes) | "
      + String(
        format: "%.2f | %.4f | %d/%d | %.2f | %.2f (%d) | %.2f | %.2f (%.2f) | %.2f (%.2f) | %.2f (%.2f) | ",
        m.psnr, m.ssim, m.jumps, m.frames, m.worstExcess, m.seamExcess, m.seamRank, m.bandError, m.bandMean,
        m.sourceBandMean, m.bandFlat, m.sourceBandFlat, m.bandFlatPermille, m.sourceBandFlatPermille)
      + (m.bandPasses ? "yes" : "no") + " | " + checkText(m) + " |\n"
  }
  try md.write(toFile: outPrefix + ".md", atomically: true, encoding: .utf8)
  let encoder = JSONEncoder()
  encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
  try encoder.encode(results).write(to: URL(fileURLWithPath: outPrefix + ".json"), options: .atomic)
}
