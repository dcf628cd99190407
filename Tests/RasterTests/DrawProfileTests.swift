import Foundation
import Testing
import _TestSupport

@testable import Raster

/// A surface's profile (`DrawProfile`, the bench's "by kind of work") charges each drawing call
/// its own time and changes no pixel.
@Suite struct DrawProfileTests {
  /// A scene with one of most kinds of call: a layer holding a solid and a gradient fill, a
  /// blurred fill, a clip; `pause` runs in the layer's content between its calls.
  static func draw(on surface: Surface, pause: () -> Void = {}) {
    surface.clear()
    var context = surface.context()
    context.fill(
      Path(rect: Rect(x: 0, y: 0, width: 96, height: 64)), with: .color(Color(red: 0.1, green: 0.2, blue: 0.4)))
    context.drawLayer { layer in
      layer.fill(Path(ellipseIn: Rect(x: 10, y: 8, width: 40, height: 30)), with: .color(.white.opacity(0.5)))
      pause()
      layer.fill(
        Path(rect: Rect(x: 30, y: 20, width: 50, height: 40)),
        with: .radialGradient(
          Gradient(colors: [.white, .clear]), center: Point(55, 40), startRadius: 0, endRadius: 30))
    }
    var blurred = context
    blurred.clip(to: Path(rect: Rect(x: 4.5, y: 4.5, width: 80, height: 50)))
    blurred.addFilter(.blur(radius: 9))
    blurred.fill(Path(ellipseIn: Rect(x: 20, y: 10, width: 30, height: 30)), with: .color(.white.opacity(0.3)))
    surface.finish()
  }

  @Test func aProfiledSurfaceDrawsTheSameBits() {
    let plain = Surface(image: Image(width: 96, height: 64), scale: 1)
    let profiled = Surface(image: Image(width: 96, height: 64), scale: 1)
    profiled.profile = DrawProfile()
    Self.draw(on: plain)
    Self.draw(on: profiled)
    #expect(channelBits(plain.image) == channelBits(profiled.image))
    #expect(profiled.profile!.totalSeconds > 0)
  }

  /// Each call is charged its own time: the pause in the layer's content goes to the effect's
  /// code, not to the layer around it; a conversion measured inside the effect's code goes to
  /// the conversion; kinds of call never made stay at zero; and the kinds add up to the time
  /// inside the outermost measure.
  @Test func eachCallIsChargedItsOwnTime() {
    let surface = Surface(image: Image(width: 96, height: 64), scale: 1)
    let profile = DrawProfile()
    surface.profile = profile
    let pause = 0.03
    // The profile's clock (monotonic), so the two can be compared to the nanosecond.
    let start = DispatchTime.now().uptimeNanoseconds
    profile.measure(.effect) {
      Self.draw(on: surface) { Thread.sleep(forTimeInterval: pause) }
      profile.measure(.conversion) { Thread.sleep(forTimeInterval: pause) }
    }
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9

    #expect(profile.seconds(.effect) >= pause)
    #expect(profile.seconds(.conversion) >= pause)
    #expect(profile.seconds(.layers) < pause, "the layer was charged its content's pause")
    for work in [DrawProfile.Work.fills, .gradientFills, .filteredFills, .clips, .layers, .frame] {
      #expect(profile.seconds(work) > 0, "\(work.name) made and not charged")
    }
    for work in [DrawProfile.Work.shadows, .meshes, .discs] {
      #expect(profile.seconds(work) == 0, "\(work.name) charged though never made")
    }
    let sum = DrawProfile.Work.allCases.reduce(0) { $0 + profile.seconds($1) }
    #expect(abs(sum - profile.totalSeconds) < 1e-9)
    #expect(profile.totalSeconds <= wall && profile.totalSeconds >= 2 * pause)
  }
}
