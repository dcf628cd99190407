import Foundation
import Raster
import Timing

// MARK: - Snow

/// Flakes in two depths that fall slowly and sway from side to side.
enum WeatherSnow {
  static let count = 130
  /// The flakes' motion names, made once rather than once a flake a band.
  static let sways = (0..<count).map { "flake\($0).sway" }

  static func draw(in context: inout GraphicsContext, size: (width: Double, height: Double), clock: Clock) {
    var near = Path()
    var far = Path()
    // On a band, flakes more than two pixels above or below it are left out of the paths (they
    // change none of its pixels, and flattening 130 ellipses once a band was a fifth of a snow
    // frame); their outermost points stay, so each path's bounds, and with them the coverage
    // grid every flake is rasterized on, are the whole frame's: the same bits. Under a transform
    // that only scales (by positive factors) and moves, the outermost points in user space are
    // the outermost in pixels.
    let t = context.transform
    let culls = t.b == 0 && t.c == 0 && t.a > 0 && t.d > 0
    var nearLeftOut = Outermost(), farLeftOut = Outermost()
    let travel = size.height + 20
    let nearFall = clock.phase(50, period: travel, layer: "snow.near", name: "y", kind: .wrap)
    let farFall = clock.phase(25, period: travel, layer: "snow.far", name: "y", kind: .wrap)
    for index in 0..<count {
      let isNear = index % 3 == 0
      let depth = isNear ? 1.0 : 0.5
      let y = WeatherMath.wrap(WeatherMath.noise(index, .y) * travel + (isNear ? nearFall : farFall), over: travel) - 10
      let swayRate = 0.5 + WeatherMath.noise(index, .speed)
      let swayPhase = clock.phase(
        swayRate, period: 2 * .pi, layer: isNear ? "snow.near" : "snow.far",
        name: sways[index])
      let sway = sin(swayPhase + WeatherMath.noise(index, .phase) * 2 * .pi) * 14 * depth
      let x = WeatherMath.noise(index, .x) * size.width + sway
      let radius = (1.3 + WeatherMath.noise(index, .size) * 2) * depth
      let box = Rect(center: Point(x, y), radius: Float(radius))
      if culls && context.missesBand(box) {
        if isNear { nearLeftOut.add(box) } else { farLeftOut.add(box) }
        continue
      }
      // Same-direction ellipses in one path fill their union: overlapping flakes do not darken.
      if isNear { near.addEllipse(in: box) } else { far.addEllipse(in: box) }
    }
    nearLeftOut.mark(in: &near)
    farLeftOut.mark(in: &far)
    context.fill(far, with: .color(.white.opacity(0.55)))
    context.fill(near, with: .color(.white.opacity(0.9)))
  }

  /// The outermost of the points where ellipses left out of a path meet their boxes: the points
  /// `Path.addEllipse(in:)` starts its curves at, made by the same arithmetic. Flattening puts
  /// those very points into the lines, and no other point of an ellipse lies farther out.
  struct Outermost {
    var left: Point?, right: Point?, top: Point?, bottom: Point?

    mutating func add(_ r: Rect) {
      let (cx, cy) = (r.midX, r.midY)
      let (rx, ry) = (r.width / 2, r.height / 2)
      let (l, rt, b, tp) = (Point(cx - rx, cy), Point(cx + rx, cy), Point(cx, cy + ry), Point(cx, cy - ry))
      if left.map({ l.x < $0.x }) ?? true { left = l }
      if right.map({ rt.x > $0.x }) ?? true { right = rt }
      if bottom.map({ b.y > $0.y }) ?? true { bottom = b }
      if top.map({ tp.y < $0.y }) ?? true { top = tp }
    }

    /// Adds each point as a line of no length, which bounds the path and covers nothing.
    func mark(in path: inout Path) {
      for case let p? in [left, right, top, bottom] {
        path.move(to: p)
        path.addLine(to: p)
      }
    }
  }
}
