import Foundation
import Loopsmith
import Testing
import Video
import _TestSupport

/// The library's front door, used as another package would (a plain `import Loopsmith`): the
/// example in `Renderer`'s documentation, at a small size, read back through `Video`.
@Suite struct RendererTests {
  @Test func theDocumentedExampleRendersAndReadsBack() throws {
    let dir = TemporaryDirectory()
    var request = RenderRequest()
    request.effect = "aurora-mesh"
    request.size = (36, 64)
    request.fps = 10
    request.duration = 1
    try request.setParameter("speed", to: "0.6")
    let calls = Counter()
    let result = try Renderer.render(request, to: [dir.path("aurora.mp4"), dir.path("aurora.webm")]) { done, total in
      calls.add(done == total ? 1 : 0)
    }
    #expect(result.files.map(\.path) == [dir.path("aurora.mp4"), dir.path("aurora.webm")])
    #expect(result.frames == 10)
    #expect(calls.value == 1, "progress reaches the total once")
    for file in result.files {
      let report = try LoopCheck.run(path: file.path)
      #expect(report.frames == 10, "\(file.path)")
      #expect(report.info.width == 36 && report.info.height == 64)
    }
  }

  @Test func aBadParameterNamesItAndWhatWasExpected() {
    var request = RenderRequest()
    request.effect = "aurora-mesh"
    #expect(throws: InputError.self) { try request.setParameter("sped", to: "1") }
    do {
      try request.setParameter("speed", to: "fast")
      Issue.record("no error")
    } catch {
      #expect("\(error)".hasPrefix("speed: 'fast' is not valid; expected a number"))
    }
  }
}

/// A count that the encoder's thread adds to.
private final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var n = 0
  var value: Int { lock.withLock { n } }
  func add(_ k: Int) { lock.withLock { n += k } }
}
