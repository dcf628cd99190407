import Foundation
import Raster
import Timing

// MARK: - Snow

/// Flakes in two depths that fall slowly and sway from side to side.
enum WeatherSnow {
  static let count = 130
  /// The flakes' motion names, made once rather than once a flake a band.
  static let sways = (0..<count).map { "flake\($0).sway" }
  /// Each flake's noise, made once: the seed's noise is a sine, and five of them a flake a band
  /// cost a snow frame more than its sways did (12% of its CPU on one thread against 5%, each
  /// measured against the build before it).
  private static func noise(_ salt: WeatherMath.Salt) -> [Double] { (0..<count).map { WeatherMath.noise($0, salt) } }
  private static let noiseX = noise(.x), noiseY = noise(.y), noiseSize = noise(.size)
  private static let noiseSpeed = noise(.speed), noisePhase = noise(.phase)

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
    /// A flake's x: across the width, swayed by at most 14 points times its depth.
    func x(of index: Int, depth: Double) -> Double {
      let swayRate = 0.5 + noiseSpeed[index]
      let swayPhase = clock.phase(
        swayRate, period: 2 * .pi, layer: index % 3 == 0 ? "snow.near" : "snow.far",
        name: sways[index])
      let sway = sin(swayPhase + noisePhase[index] * 2 * .pi) * 14 * depth
      return noiseX[index] * size.width + sway
    }
    /// A flake's box, as its path and its outermost points take it.
    func box(_ index: Int, y: Double, radius: Double, depth: Double) -> Rect {
      Rect(center: Point(x(of: index, depth: depth), y), radius: Float(radius))
    }
    // Whether a flake misses the band depends on its rows alone, so a left-out flake's sway (a
    // clock lookup and a sine, once a flake a band, which with the noise's sines made a quarter
    // of a snow frame) is worked out only if the flake may be one of the outermost (`LeftOut`).
    // A clock that records the motions the effect uses (to plan a loop) is asked for every
    // flake's.
    let lazily = culls && clock.recorder == nil && clock.time.isFinite
    var nearLazy = LeftOut(), farLazy = LeftOut()
    for index in 0..<count {
      let isNear = index % 3 == 0
      let depth = isNear ? 1.0 : 0.5
      let y = WeatherMath.wrap(noiseY[index] * travel + (isNear ? nearFall : farFall), over: travel) - 10
      let radius = (1.3 + noiseSize[index] * 2) * depth
      if lazily {
        let flake = LeftOut.Flake(index: index, y: y, radius: radius, depth: depth, across: noiseX[index] * size.width)
        if context.missesBand(flake.rows) {
          if isNear { nearLazy.flakes.append(flake) } else { farLazy.flakes.append(flake) }
          continue
        }
      }
      let rect = box(index, y: y, radius: radius, depth: depth)
      // (Lazily, its rows were found not to miss the band just above.)
      if culls && !lazily && context.missesBand(rect) {
        if isNear { nearLeftOut.add(rect) } else { farLeftOut.add(rect) }
        continue
      }
      // Same-direction ellipses in one path fill their union: overlapping flakes do not darken.
      if isNear { near.addEllipse(in: rect) } else { far.addEllipse(in: rect) }
    }
    // In order, as the loop would have added them: the same outermost points.
    for f in nearLazy.mayBeOutermost() { nearLeftOut.add(box(f.index, y: f.y, radius: f.radius, depth: f.depth)) }
    for f in farLazy.mayBeOutermost() { farLeftOut.add(box(f.index, y: f.y, radius: f.radius, depth: f.depth)) }
    nearLeftOut.mark(in: &near)
    farLeftOut.mark(in: &far)
    context.fill(far, with: .color(.white.opacity(0.55)))
    context.fill(near, with: .color(.white.opacity(0.9)))
  }

  /// The flakes a band leaves out, before their x is known, and which of them may give an
  /// outermost point (`Outermost`): only those are swayed. A box's top and bottom are known
  /// exactly from its rows; its left and right side lie within its sway (14 points times its
  /// depth) of where they would be unswayed.
  struct LeftOut {
    struct Flake {
      let index: Int
      let y: Double, radius: Double, depth: Double
      /// Its x before the sway.
      let across: Double
      /// The box's rows, as the flake's own box has them: its x plays no part in them.
      var rows: Rect { Rect(center: Point(0.0, y), radius: Float(radius)) }
    }

    var flakes: [Flake] = []

    /// The flakes, in order, that may hold an outermost point once swayed: each whose top or
    /// bottom is the outermost (as `Outermost` works them out), and each whose left or right
    /// side may reach as far out as another's surely does. A point of slack on those bounds
    /// covers the rounding of the box's float coordinates. Any other flake's side is strictly
    /// inside another's, so `Outermost`, which keeps the first of equal points, never takes it.
    func mayBeOutermost() -> [Flake] {
      guard !flakes.isEmpty else { return [] }
      let slack = 1.0
      func top(_ f: Flake) -> Float { f.rows.midY - f.rows.height / 2 }
      func bottom(_ f: Flake) -> Float { f.rows.midY + f.rows.height / 2 }
      func sway(_ f: Flake) -> Double { 14 * f.depth + slack }
      var highest = Float.infinity, lowest = -Float.infinity
      var leftSurely = Double.infinity, rightSurely = -Double.infinity
      for f in flakes {
        highest = min(highest, top(f))
        lowest = max(lowest, bottom(f))
        leftSurely = min(leftSurely, f.across - f.radius + sway(f))
        rightSurely = max(rightSurely, f.across + f.radius - sway(f))
      }
      return flakes.filter { f in
        top(f) == highest || bottom(f) == lowest || f.across - f.radius - sway(f) <= leftSurely
          || f.across + f.radius + sway(f) >= rightSurely
      }
    }
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
