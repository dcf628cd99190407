import Foundation
import Testing
@testable import Raster

@Suite struct BlurTests {
  /// An exact Gaussian of a one-pixel-wide vertical line, sampled at column centers.
  func exactLine(width: Int, at x0: Int, sigma: Float) -> [Float] {
    (0..<width).map { x in
      let d = Float(x - x0)
      return exp(-d * d / (2 * sigma * sigma)) / (sigma * (2 * Float.pi).squareRoot())
    }
  }

  func blurredLine(width: Int, height: Int, at x0: Int, sigma: Float) -> [Float] {
    let image = Image(width: width, height: height)
    for y in 0..<height { image[x0, y] = Pixel(1, 1, 1, 1) }
    GaussianBlur().apply(sigma: sigma, to: image.pixels, width: width, height: height)
    return (0..<width).map { image[$0, height / 2].w }
  }

  @Test(arguments: [1.5, 3.0, 4.0])
  func theDirectBlurIsAnExactGaussian(sigma: Float) {
    let got = blurredLine(width: 41, height: 41, at: 20, sigma: sigma)
    let want = exactLine(width: 41, at: 20, sigma: sigma)
    let total = got.reduce(0, +)
    #expect(abs(total - 1) < 1e-3)  // mass kept
    #expect(zip(got, want).map { abs($0 - $1) }.max()! < 0.003)
  }

  @Test(arguments: [6.0, 12.0, 28.0, 84.0])
  func theShrunkBlurOfALineStaysNearAnExactGaussian(sigma: Float) {
    let width = Int(8 * sigma) + 33
    // Tall enough that the middle row's vertical blur loses nothing past the top and bottom.
    let got = blurredLine(width: width, height: width, at: width / 2, sigma: sigma)
    let want = exactLine(width: width, at: width / 2, sigma: sigma)
    let peak = want.max()!
    let worst = zip(got, want).map { abs($0 - $1) }.max()!
    // Relative to the peak, the largest error of the shrink-blur-enlarge path on its worst input.
    #expect(worst / peak < 0.06)
    #expect(abs(got.reduce(0, +) - 1) < 0.01)
  }

  @Test(arguments: [6.0, 12.0, 28.0, 84.0])
  func aBlurredBarStaysWithinOnePercentOfTheExactProfile(sigma: Float) {
    let width = Int(12 * sigma) + 40
    let (a, b) = (width / 2 - Int(2 * sigma), width / 2 + Int(2 * sigma))
    let image = Image(width: width, height: width)
    for y in 0..<width { for x in a..<b { image[x, y] = Pixel(1, 1, 1, 1) } }
    GaussianBlur().apply(sigma: sigma, to: image.pixels, width: width, height: width)
    let s = sigma * Float(2).squareRoot()
    var worst: Float = 0
    for x in 0..<width {
      let c = Float(x) + 0.5
      let exact = 0.5 * (erf((Float(b) - c) / s) - erf((Float(a) - c) / s))
      worst = max(worst, abs(image[x, width / 2].w - exact))
    }
    #expect(worst < 0.01)
  }

  @Test func aBlurredOperationSpreadsPastItsShapeAndKeepsItsMass() {
    let image = Image(width: 40, height: 40)
    var ctx = Surface(image: image, scale: 1).context()
    ctx.addFilter(.blur(radius: 3))
    ctx.fill(Path(rect: Rect(x: 15, y: 15, width: 10, height: 10)), with: .color(.white))
    var mass: Float = 0
    for i in 0..<image.count { mass += image.pixels[i].w }
    #expect(abs(mass - 100) < 0.5)
    #expect(image[13, 20].w > 0.05)  // outside the square, inside 3 sigma
    // At the center the 2-D Gaussian over ±5 px holds erf(5 / (3√2))² = 0.818 of the mass.
    #expect(abs(image[20, 20].w - 0.818) < 0.01)
  }
}
