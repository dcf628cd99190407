import Foundation
import Raster
import Timing

// MARK: - Rain

/// Streaks in two depths, the near ones longer and faster, and splashes where they land.
enum WeatherRain {
  /// How far drops look: their length and speed against the near ones.
  static let farDepth = 0.6
  /// The part of each splash's cycle in which it is seen spreading.
  static let splashTime = 0.3
  /// How fast a near drop falls, in points a second.
  static let fallSpeed = 700.0

  static func draw(
    in context: inout GraphicsContext, size: (width: Double, height: Double), clock: Clock,
    drops: Int
  ) {
    let travel = size.height + 60
    // Every drop of one depth falls at the same rate: one motion per depth.
    let nearFall = clock.phase(fallSpeed, period: travel, layer: "rain.near", name: "y", kind: .wrap)
    let farFall = clock.phase(fallSpeed * farDepth, period: travel, layer: "rain.far", name: "y", kind: .wrap)
    let starts = (0..<drops).map { index in
      let y =
        WeatherMath.wrap(
          WeatherMath.noise(index, .y) * travel + (index % 3 == 0 ? nearFall : farFall), over: travel) - 30
      return SIMD2(WeatherMath.noise(index, .x) * (size.width + 40) - 20, y)
    }
    var near = Streaks(drops: starts, isNear: true, transform: context.transform)
    var far = Streaks(drops: starts, isNear: false, transform: context.transform)
    for (index, start) in starts.enumerated() {
      if index % 3 == 0 { near.add(start, on: context) } else { far.add(start, on: context) }
    }
    context.stroke(far.path, with: .color(.white.opacity(0.22)), lineWidth: far.width)
    context.stroke(near.path, with: .color(.white.opacity(0.5)), lineWidth: near.width)

    let splashing = clock.phase(1.6, period: 1, layer: "rain.splashes", name: "phase", kind: .wrap)
    for index in 0..<(drops / 4) {
      let phase = WeatherMath.wrap(splashing + WeatherMath.noise(index, .phase), over: 1)
      guard phase < splashTime else { continue }
      let grown = phase / splashTime
      let x = WeatherMath.noise(index, .offset) * size.width
      let y = size.height - 8 - WeatherMath.noise(index, .extra) * 70
      let width = 4 + grown * 14
      let box = Rect(x: x - width / 2, y: y - width * 0.12, width: width, height: width * 0.24)
      // A splash is a stroke of its own: one that misses the band is left out whole.
      let stroked = Rect(x: x - width / 2 - 0.5, y: y - width * 0.12 - 0.5, width: width + 1, height: width * 0.24 + 1)
      if context.missesBand(stroked) { continue }
      context.stroke(Path(ellipseIn: box), with: .color(.white.opacity(0.4 * (1 - grown))), lineWidth: 1)
    }
  }

  /// The streaks of one depth as one path, each a line from its drop down and a little to the
  /// left, stroked `width` wide.
  ///
  /// On a band, a streak more than two pixels above or below it is left out (it changes none of
  /// the band's pixels; stroking every streak again each band was a fifth of a rain frame). The
  /// streaks of one depth are one segment moved, so the ones whose drops lie farthest left,
  /// right, up and down bound the stroked path; they always stay (with any within a hundredth of
  /// a point of them, where rounding could tip which is outermost), so the path's bounds, and with
  /// them the coverage grid every streak is rasterized on, are the whole frame's: the same bits.
  /// That holds under a transform that only scales (by positive factors) and moves; under any
  /// other every streak stays.
  struct Streaks {
    private(set) var path = Path()
    let width: Double
    private let length: Double
    private let culls: Bool
    private let lowest: SIMD2<Double>, highest: SIMD2<Double>
    /// How close to an outermost drop another must lie to stay too, in points.
    private static let tie = 0.01

    /// The streaks of the drops at `drops` of one depth (every third drop is near, from the
    /// first), to be drawn under `transform`.
    init(drops: [SIMD2<Double>], isNear: Bool, transform t: Transform) {
      let depth = isNear ? 1 : WeatherRain.farDepth
      (length, width) = (18 * depth, isNear ? 1.4 : 1)
      culls = t.b == 0 && t.c == 0 && t.a > 0 && t.d > 0
      var (lowest, highest) = (SIMD2(repeating: Double.infinity), SIMD2(repeating: -Double.infinity))
      for (index, start) in drops.enumerated() where (index % 3 == 0) == isNear {
        (lowest, highest) = (pointwiseMin(lowest, start), pointwiseMax(highest, start))
      }
      (self.lowest, self.highest) = (lowest, highest)
    }

    /// Adds the streak of the drop at `start`, unless it misses the band `context` draws.
    mutating func add(_ start: SIMD2<Double>, on context: GraphicsContext) {
      let (x, y) = (start.x, start.y)
      if culls {
        let half = width / 2
        let box = Rect(x: x - length * 0.15 - half, y: y - half, width: length * 0.15 + width, height: length + width)
        let outermost = any(start .<= lowest + Self.tie) || any(start .>= highest - Self.tie)
        if !outermost && context.missesBand(box) { return }
      }
      path.move(to: Point(x, y))
      path.addLine(to: Point(x - length * 0.15, y + length))
    }
  }
}
