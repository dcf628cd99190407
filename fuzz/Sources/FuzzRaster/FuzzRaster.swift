import Foundation
import FuzzDriver

@testable import Raster

/// Bytes as a program of drawing calls on a small canvas: paths of lines and curves, fills and
/// strokes with colours and gradients, transforms, clips, blur and colour filters, layers,
/// shadows, crossfades and meshes, with floats that are often NaN, infinite, huge or subnormal.
///
/// Drawing anything is a fine answer; a trap (overflow, conversion of NaN, bounds) is the bug,
/// and so is a pixel left NaN or infinite.
struct Reader {
  var bytes: [UInt8]
  var index = 0

  mutating func byte() -> UInt8 {
    guard index < bytes.count else { return 0 }
    defer { index += 1 }
    return bytes[index]
  }

  var done: Bool { index >= bytes.count }

  static let specials: [Float] = [
    .nan, .infinity, -.infinity, 1e30, -1e30, 0, -0.0, .leastNonzeroMagnitude, .leastNormalMagnitude,
    .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e-20, 4_194_305, 16_777_217, 1, 0.5,
  ]

  /// A float: a special value, a small ordinary one, or raw bits.
  mutating func float() -> Float {
    let kind = byte()
    switch kind % 4 {
    case 0: return Self.specials[Int(byte()) % Self.specials.count]
    case 1, 2: return Float(Int8(bitPattern: byte())) / 4  // -32 ... 32, the canvas's own scale
    default:
      let bits = UInt32(byte()) | UInt32(byte()) << 8 | UInt32(byte()) << 16 | UInt32(byte()) << 24
      return Float(bitPattern: bits)
    }
  }

  mutating func point() -> Point { Point(float(), float()) }
  mutating func color() -> Color { Color(red: float(), green: float(), blue: float(), alpha: float()) }

  mutating func path() -> Path {
    var p = Path()
    let count = Int(byte() % 8)
    for _ in 0..<count {
      switch byte() % 7 {
      case 0: p.move(to: point())
      case 1, 2: p.addLine(to: point())
      case 3: p.addQuadCurve(to: point(), control: point())
      case 4: p.addCurve(to: point(), control1: point(), control2: point())
      case 5: p.addEllipse(in: Rect(x: float(), y: float(), width: float(), height: float()))
      default: p.closeSubpath()
      }
    }
    if count == 0 { p.addRect(Rect(x: float(), y: float(), width: float(), height: float())) }
    return p
  }

  mutating func gradient() -> Gradient {
    let n = Int(byte() % 4)
    let stops = (0..<n).map { _ in Gradient.Stop(color: color(), location: float()) }
    return Gradient(stops: stops, alphaInterpolation: byte() % 2 == 0 ? .premultiplied : .straight)
  }

  mutating func shading() -> Shading {
    switch byte() % 3 {
    case 0: .color(color())
    case 1: .linearGradient(gradient(), start: point(), end: point())
    default: .radialGradient(gradient(), center: point(), startRadius: float(), endRadius: float())
    }
  }
}

/// Runs up to `budget` operations on `context`; nesting (layers, shadows, crossfades) takes from the same budget.
/// Set FUZZ_TRACE=1 to print each operation (with the context's state) while replaying a crash.
let tracing = getenv("FUZZ_TRACE") != nil

func play(_ reader: inout Reader, _ context: inout GraphicsContext, depth: Int, budget: inout Int) {
  while !reader.done && budget > 0 {
    budget -= 1
    let op = reader.byte() % 16
    if tracing {
      FileHandle.standardError.write(
        Data(
          "depth \(depth) op \(op) at byte \(reader.index) transform \(context.transform) filters \(context.filters)\n"
            .utf8))
    }
    switch op {
    case 0, 1: context.fill(reader.path(), with: reader.shading(), rule: reader.byte() % 2 == 0 ? .nonZero : .evenOdd)
    case 2:
      context.stroke(
        reader.path(), with: reader.shading(), style: StrokeStyle(lineWidth: reader.float(), miterLimit: reader.float())
      )
    case 3: context.translateBy(x: Double(reader.float()), y: Double(reader.float()))
    case 4: context.rotate(by: Double(reader.float()))
    case 5: context.scaleBy(x: Double(reader.float()), y: Double(reader.float()))
    case 6: context.clip(to: reader.path())
    case 7: context.addFilter(.blur(radius: reader.float()))
    case 8:
      let r = SIMD4<Float>(reader.float(), reader.float(), reader.float(), reader.float())
      context.addFilter(.colorMatrix(ColorMatrix(r: r, g: [0, 1, 0, 0], b: [0, 0, 1, reader.float()])))
    case 9: context.opacity = Double(reader.float())
    case 10: context.blendMode = reader.byte() % 2 == 0 ? .sourceOver : .screen
    case 11 where depth < 3:
      context.drawLayer { inner in play(&reader, &inner, depth: depth + 1, budget: &budget) }
    case 12 where depth < 3:
      let color = reader.color()
      let radius = Double(reader.float())
      if tracing { FileHandle.standardError.write(Data("  shadow \(color) radius \(radius)\n".utf8)) }
      context.drawLayer(shadow: color, radius: radius) { inner in
        play(&reader, &inner, depth: depth + 1, budget: &budget)
      }
    case 13 where depth < 3:
      let weights = (0..<Int(reader.byte() % 3 + 1)).map { _ in Double(reader.float()) }
      context.drawBlended(weights: weights) { _, inner in play(&reader, &inner, depth: depth + 1, budget: &budget) }
    case 14:
      defer { if tracing { FileHandle.standardError.write(Data("  mesh drawn\n".utf8)) } }
      let mesh = MeshGradient(
        width: 2, height: 2, points: (0..<4).map { _ in reader.point() }, colors: (0..<4).map { _ in reader.color() },
        background: reader.color(), smoothsColors: reader.byte() % 2 == 0)
      context.drawMesh(
        mesh,
        in: reader.byte() % 2 == 0
          ? nil : Rect(x: reader.float(), y: reader.float(), width: reader.float(), height: reader.float()))
    default:
      let image = Image(width: 4, height: 4)
      image.fill(Pixel(1, 0.5, 0.25, 1))
      GaussianBlur().apply(sigma: reader.float(), to: image.pixels, width: 4, height: 4)
    }
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRaster(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  var reader = Reader(bytes: Array(UnsafeRawBufferPointer(start: start, count: min(count, 4096))))
  let width = Int(reader.byte() % 24) + 1, height = Int(reader.byte() % 24) + 1
  let scales: [Float] = [1, 2, 3, 0.5, 1e-20, 1e20]
  let image = Image(width: width, height: height)
  let surface = Surface(image: image, scale: scales[Int(reader.byte()) % scales.count])
  var context = surface.context()
  var budget = 64
  play(&reader, &context, depth: 0, budget: &budget)
  surface.finish()
  for i in 0..<image.count {
    let p = image.pixels[i]
    if !(p.x.isFinite && p.y.isFinite && p.z.isFinite && p.w.isFinite) {
      fatalError("pixel \(i) is \(p): drawing left a value that is not finite")
    }
  }
  return 0
}

// The executable's main (see FuzzDriver).
@_cdecl("fuzz_raster_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  runFuzzer(argc, argv, fuzzRaster)
}
