import Foundation
import Testing
import Video
import _TestSupport

/// `render <effect> --time 0 -o still.png` works for every effect and weather: a PNG of the
/// Reduce Motion still, opaque where the effect is a background, transparent where it is not.
@Suite struct StillTests {
  static let cases: [([String], Bool)] =
    [
      (["color-orbs"], true), (["aurora-mesh"], true), (["blob-morph-loader"], false), (["voice-orb"], false),
    ]
    + ["clearDay", "clearNight", "cloudy", "rain", "thunderstorm", "snow", "fog"].map {
      (["weather", "--weather", $0], true)
    }

  @Test(arguments: cases)
  func everyEffectHasAStill(args: [String], opaque: Bool) throws {
    let dir = TemporaryDirectory()
    let out = dir.path("still.png")
    let r = try runLoopsmith(["render"] + args + ["--time", "0", "--scale", "0.25", "-o", out, "--quiet"])
    #expect(r.status == 0, "\(r.stderr)")
    let image = try #require(try VideoReader(path: out).nextFrame())
    var alphaSum: Float = 0, visible = 0
    for i in 0..<image.count {
      let p = image.pixels[i]
      #expect(p.x.isFinite && p.w.isFinite)
      alphaSum += p.w
      if p.w > 0.5 && max(p.x, p.y, p.z) > 0.02 { visible += 1 }
    }
    #expect(visible > image.count / 20, "\(args): almost nothing drawn")
    if opaque {
      #expect(alphaSum == Float(image.count), "\(args): a background is opaque everywhere")
    } else {
      #expect(image[0, 0].w == 0, "\(args): the corner is transparent")
    }
  }
}
