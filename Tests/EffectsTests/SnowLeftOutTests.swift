import Raster
import Testing

@testable import Effects

/// A band leaves out the snowflakes that miss its rows, but keeps their outermost points so the
/// paths' bounds stay the whole frame's (`WeatherSnow.Outermost`); it sways only the left-out
/// flakes that may hold one of those points (`WeatherSnow.LeftOut`). Whatever each flake's sway
/// within its reach, the points from those flakes alone are the points from all of them.
@Suite struct SnowLeftOutTests {
  /// A small repeatable generator, so a failure names a case that can be run again.
  struct Mix {
    var state: UInt64
    mutating func next() -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Double(state >> 11) / Double(1 << 53)
    }
  }

  @Test(arguments: 0..<200)
  func theSwayedFewGiveTheOutermostPointsOfAll(seed: Int) {
    var mix = Mix(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
    var leftOut = WeatherSnow.LeftOut()
    var sways: [Double] = []
    let count = 1 + Int(mix.next() * 40)
    for index in 0..<count {
      let depth = mix.next() < 0.5 ? 1.0 : 0.5
      // Places closer than a sway's reach, and few distinct places and sizes, so that the
      // outermost is often not the flake that would be unswayed, and ties (equal points, of
      // which the first counts) come up.
      let across = (mix.next() * 40).rounded()
      let y = (mix.next() * 6).rounded() * 100
      let radius = (1.3 + (mix.next() * 3).rounded() * 0.5) * depth
      // Any sway in reach, its ends included.
      let pick = mix.next()
      let sway = pick < 0.2 ? -14 * depth : pick > 0.8 ? 14 * depth : (mix.next() * 2 - 1) * 14 * depth
      sways.append(sway)
      leftOut.flakes.append(
        .init(index: index, y: y, radius: radius, depth: depth, across: across))
    }
    func box(_ f: WeatherSnow.LeftOut.Flake) -> Rect {
      Rect(center: Point(f.across + sways[f.index], f.y), radius: Float(f.radius))
    }
    var all = WeatherSnow.Outermost()
    for f in leftOut.flakes { all.add(box(f)) }
    var few = WeatherSnow.Outermost()
    let swayed = leftOut.mayBeOutermost()
    for f in swayed { few.add(box(f)) }
    #expect(swayed.map(\.index) == swayed.map(\.index).sorted(), "in order")
    #expect(few.left == all.left && few.right == all.right, "seed \(seed): sides")
    #expect(few.top == all.top && few.bottom == all.bottom, "seed \(seed): top and bottom")
  }

  /// The point of it: of 130 flakes spread as the snow's are, a handful are swayed.
  @Test func fewAreSwayed() {
    var mix = Mix(state: 7)
    var leftOut = WeatherSnow.LeftOut()
    for index in 0..<130 {
      let depth = index % 3 == 0 ? 1.0 : 0.5
      let y = mix.next() * 660 - 10
      let radius = (1.3 + mix.next() * 2) * depth
      leftOut.flakes.append(
        .init(index: index, y: y, radius: radius, depth: depth, across: mix.next() * 360))
    }
    let swayed = leftOut.mayBeOutermost().count
    #expect(swayed >= 2 && swayed <= 20, "\(swayed) of 130 swayed")
  }
}
