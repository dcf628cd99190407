import Foundation
import Raster
import Testing
import Timing

@testable import Effects

@Test(arguments: [0.0, 1.7, 12.25, 1234.5, -3])
func auroraCornersStayAndEdgePointsSlideAlongTheirEdges(time: Double) {
  let p = AuroraMeshMath.points(clock: Clock(time: time), speed: 0.6)
  #expect(p.count == 9)
  #expect(p[0] == SIMD2<Float>(Float(0), Float(0)) && p[2] == SIMD2<Float>(Float(1), Float(0)))
  #expect(p[6] == SIMD2<Float>(Float(0), Float(1)) && p[8] == SIMD2<Float>(Float(1), Float(1)))
  #expect(p[1].y == 0 && p[7].y == 1 && p[3].x == 0 && p[5].x == 1)
  for i in [1, 7] { #expect(p[i].x >= 0.3 && p[i].x <= 0.7) }
  for i in [3, 5] { #expect(p[i].y >= 0.3 && p[i].y <= 0.7) }
  #expect(p[4].x >= 0.3 && p[4].x <= 0.7 && p[4].y >= 0.3 && p[4].y <= 0.7)
}

@Test func auroraAtTimeZeroMatchesTheSeed() {
  // wave(speed, phase) = 0.5 + sin(phase) * 0.2 at time 0.
  let p = AuroraMeshMath.points(clock: Clock(time: 0), speed: 0.6)
  #expect(abs(Double(p[1].x) - (0.5 + sin(2.1) * 0.2)) < 1e-6)
  #expect(abs(Double(p[4].y) - (0.5 + sin(4.2) * 0.2)) < 1e-6)
}

@Test func auroraWavesGoThroughTheClock() {
  let recorder = MotionRecorder()
  _ = AuroraMeshMath.points(clock: Clock(time: 1, recorder: recorder), speed: 0.6)
  let motions = recorder.motions
  #expect(motions.count == 6)
  #expect(motions.allSatisfy { $0.layer == "mesh" && $0.period == 2 * .pi })
  #expect(abs(motions[0].rate - 0.48) < 1e-12)  // top edge: 0.8 · speed 0.6
}

@Test func auroraRenderIsOpaqueAndFinite() {
  let image = Image(width: 18, height: 32)
  var context = Surface(image: image, scale: 0.05).context()
  let effect = AuroraMesh(values: ParameterValues(specs: AuroraMesh.info.parameters), environment: RenderEnvironment())
  effect.draw(in: &context, clock: Clock(time: 3))
  for i in 0..<image.count {
    let p = image.pixels[i]
    #expect(p.x.isFinite && p.y.isFinite && p.z.isFinite)
    #expect(p.w == 1)
  }
  // The top left corner is the first color, indigo (dark iOS 26: 109, 124, 255), nearly exactly.
  #expect(abs(image[0, 0].z - 1) < 0.02 && abs(image[0, 0].x - 109 / 255) < 0.03)
}
