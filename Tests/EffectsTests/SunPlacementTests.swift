import Foundation
import Raster
import Testing
import Timing

@testable import Effects

/// The clear-day sun sits where SwiftUI lays out the seed's 520-point canvas: pinned to the top
/// trailing corner of a stack that overflows a screen narrower or lower than 520 points equally on
/// both sides.
@Suite struct SunPlacementTests {
  /// Where the seed's sun lands, worked out by hand from the stack's rule for each case.
  static let cases: [(width: Double, height: Double, x: Double, y: Double)] = [
    (320, 693, 326.4, 93.6),  // 160 + 166.4: the center is past the right edge
    (360, 640, 346.4, 93.6),  // every 1080x1920 render at scale 3
    (390, 844, 361.4, 93.6),
    (430, 932, 381.4, 93.6),
    (520, 900, 426.4, 93.6),  // both rules agree here
    (540, 960, 446.4, 93.6),
    (1024, 1366, 930.4, 93.6),
    (844, 390, 750.4, 28.6),  // landscape: 195 - 166.4
    (390, 390, 361.4, 28.6),
  ]

  @Test(arguments: cases)
  func theCenterFollowsTheOverflowingStack(screen: (width: Double, height: Double, x: Double, y: Double)) {
    let ltr = WeatherSun.center(width: screen.width, height: screen.height, rightToLeft: false)
    #expect(abs(ltr.x - screen.x) < 1e-9 && abs(ltr.y - screen.y) < 1e-9, "\(screen): \(ltr)")
    let rtl = WeatherSun.center(width: screen.width, height: screen.height, rightToLeft: true)
    #expect(abs(rtl.x - (screen.width - screen.x)) < 1e-9 && abs(rtl.y - screen.y) < 1e-9, "RTL \(screen): \(rtl)")
  }

  /// The brightest pixel of a drawn clear day is the visible point nearest the sun's center.
  @Test(arguments: [cases[1], cases[0], cases[7]], [false, true])
  func theGlowIsDrawnThere(screen: (width: Double, height: Double, x: Double, y: Double), rightToLeft: Bool) {
    let scale: Float = 0.5
    let spec = Weather.info.parameter(named: "weather")!
    let values = ParameterValues(specs: Weather.info.parameters, given: ["weather": try! spec.parse("clearDay")])
    let effect = Weather(values: values, environment: RenderEnvironment(rightToLeft: rightToLeft))
    let image = Image(width: Int(screen.width * Double(scale)), height: Int(screen.height * Double(scale)))
    var context = Surface(image: image, scale: scale).context()
    effect.draw(in: &context, clock: Clock(time: 0))
    var best = (x: 0, y: 0, v: -Float.infinity)
    for y in 0..<image.height {
      for x in 0..<image.width {
        let p = image[x, y]
        if p.x + p.y + p.z > best.v { best = (x, y, p.x + p.y + p.z) }
      }
    }
    let x = rightToLeft ? screen.width - screen.x : screen.x
    let expected = (x: min(max(x, 0), screen.width), y: min(max(screen.y, 0), screen.height))
    let found = ((Double(best.x) + 0.5) / Double(scale), (Double(best.y) + 0.5) / Double(scale))
    #expect(abs(found.0 - expected.x) <= 4 && abs(found.1 - expected.y) <= 4, "\(screen) RTL \(rightToLeft): \(found)")
  }
}
