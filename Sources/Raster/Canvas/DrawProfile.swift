import Dispatch

/// Where a surface's time goes, by the kind of work it is spent in: the bench's profile of a
/// scene (docs/PERFORMANCE.md, Measuring). Each drawing call is charged its own time, not that of
/// the calls inside it: a layer's content is charged to its fills, the layer to `layers` (its
/// clear, mixing and compositing), and the effect's code between calls inside the content to
/// `effect`.
///
/// Attached to a surface (`Surface.profile`), it costs two clock reads a drawing call; without
/// one, a test of nil. It changes no pixel. One surface, one thread: not shared between threads.
public final class DrawProfile: @unchecked Sendable {
  /// The kinds of work, in the order the bench lists them.
  public enum Work: Int, CaseIterable, Sendable {
    /// The effect's own code between drawing calls: clocks, noise, paths built.
    case effect
    /// `Surface.drawBand`, `clear`, `finish`: starting a band or frame and writing what was
    /// left pending (a clear, a base color, the sky's rows).
    case frame
    /// Fills and strokes of one color, with no filter.
    case fills
    /// Fills and strokes of a linear or radial gradient, with no filter.
    case gradientFills
    /// Fills and strokes through a filter (each blurred on its own: the sun's rays, clouds).
    case filteredFills
    case clips
    /// Layers: `drawLayer`, `drawBlended`, a layer's clear, mixing and compositing with its
    /// filters, opacity, blend mode and clip.
    case layers
    /// `drawLayer(shadow:)`: the shadow's blur and the composite of shadow and layer.
    case shadows
    /// `drawMesh`, `drawBlended(meshes:)`.
    case meshes
    /// `fill(discs:)`, `fill(base:blendedDiscs:)`.
    case discs
    /// Conversion of drawn pixels to an encoder's samples, measured by the caller (`measure`).
    case conversion

    public var name: String {
      switch self {
      case .effect: "effect code"
      case .frame: "band set-up and finish"
      case .fills: "solid fills"
      case .gradientFills: "gradient fills"
      case .filteredFills: "blurred fills"
      case .clips: "clips"
      case .layers: "layers"
      case .shadows: "shadows"
      case .meshes: "meshes"
      case .discs: "discs"
      case .conversion: "conversion"
      }
    }
  }

  private var nanoseconds = [UInt64](repeating: 0, count: Work.allCases.count)
  private var stack: [Work] = []
  private var last: UInt64 = 0

  public init() {}

  /// The seconds charged to `work` so far.
  public func seconds(_ work: Work) -> Double { Double(nanoseconds[work.rawValue]) * 1e-9 }

  /// The seconds charged to every kind of work so far: the wall time inside outermost calls.
  public var totalSeconds: Double { Double(nanoseconds.reduce(0, +)) * 1e-9 }

  /// Runs `body` charging its time, but for the calls it makes, to `work`.
  public func measure<T>(_ work: Work, _ body: () throws -> T) rethrows -> T {
    enter(work)
    defer { leave() }
    return try body()
  }

  /// Starts charging `work`; the time since the last mark goes to the work it interrupts.
  func enter(_ work: Work) {
    let t = DispatchTime.now().uptimeNanoseconds
    if let outer = stack.last { nanoseconds[outer.rawValue] &+= t &- last }
    stack.append(work)
    last = t
  }

  /// Ends the innermost `enter`, charging it the time since the last mark.
  func leave() {
    let t = DispatchTime.now().uptimeNanoseconds
    let work = stack.removeLast()
    nanoseconds[work.rawValue] &+= t &- last
    last = t
  }
}
