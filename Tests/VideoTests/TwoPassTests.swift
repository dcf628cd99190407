import CLibAV
import Foundation
import Raster
import Testing
import _TestSupport

@testable import Video

/// Two-pass VP9 (`passes=2`, docs/ENCODING.md, Loop tuning): the first pass's statistics reach
/// the second (which then makes hidden alt-ref frames, as one pass at constant quality does not),
/// every frame is kept once at its exact time, and the frames kept between the passes leave no
/// file behind, whatever ends the encode.
@Suite struct TwoPassTests {
  /// A slow drift over a still gradient: what libvpx's two-pass alt-ref frames are for.
  static func image(_ i: Int) -> Image {
    let image = Image(width: 64, height: 64)
    for y in 0..<64 {
      for x in 0..<64 {
        let v = Float(x) / 64 * 0.6 + 0.2 + 0.1 * Float(sin(Double(i) / 24 * 2 * .pi + Double(y) / 20))
        image[x, y] = Pixel(v, 0.4 + Float(y) / 200, 1 - v, 1)
      }
    }
    return image
  }

  static func vp9(_ path: String, frames: Int, passes: Int?) throws -> OutputSettings {
    var s = try settings(path, fps: 10, frames: frames, codec: .vp9)
    if let passes { s.extraCodecOptions = [CodecOption(Encoder.passesOption, String(passes))] }
    return s
  }

  /// The number of frames in each packet: a VP9 superframe (a hidden frame, such as an alt-ref,
  /// packed with the next shown one) ends with an index that repeats its marker byte.
  static func framesPerPacket(_ packet: [UInt8]) -> Int {
    guard let last = packet.last, last & 0xe0 == 0xc0 else { return 1 }
    let count = Int(last & 0x7) + 1
    let index = 2 + (Int(last >> 3 & 0x3) + 1) * count
    guard packet.count >= index, packet[packet.count - index] == last else { return 1 }
    return count
  }

  @Test func onlyVP9WithoutAlphaTakesTwoPasses() throws {
    #expect(Encoder.passes(try Self.vp9("/x/a.webm", frames: 4, passes: 2)) == 2)
    #expect(Encoder.passes(try Self.vp9("/x/a.webm", frames: 4, passes: 1)) == 1)
    #expect(Encoder.passes(try Self.vp9("/x/a.webm", frames: 4, passes: nil)) == 1)
    var h264 = try settings("/x/a.mp4", codec: .h264)
    h264.extraCodecOptions = [CodecOption(Encoder.passesOption, "2")]
    #expect(Encoder.passes(h264) == 1)
    var alpha = try settings("/x/a.webm", codec: .vp9, keepAlpha: true)
    alpha.extraCodecOptions = [CodecOption(Encoder.passesOption, "2")]
    #expect(alpha.carriesAlpha && Encoder.passes(alpha) == 1)
  }

  @Test func theSecondPassMakesAltRefFramesAndKeepsEveryFrameOnce() throws {
    let folder = TemporaryDirectory()
    let frames = 48
    var hidden: [Int: Int] = [:]
    for passes in [1, 2] {
      let path = folder.path("\(passes).webm")
      let writer = try VideoWriter(try Self.vp9(path, frames: frames, passes: passes))
      for i in 0..<frames {
        try writer.append(Self.image(i))
        // The kept frames have no name: nothing but the writer's own temporary appears.
        #expect(files(in: folder.url.path).filter { $0.hasPrefix(".loopsmith-pass") }.isEmpty)
      }
      let written = try writer.finish()
      #expect(written.frames == frames)
      let packets = try videoPackets(path, fps: 10)
      // One packet a shown frame, at its exact time, one key frame at 0.
      #expect(packets.map(\.pts) == (0..<Int64(frames)).map { $0 })
      #expect(packets.allSatisfy { $0.duration == 1 })
      #expect(packets.map(\.key) == [true] + Array(repeating: false, count: frames - 1))
      hidden[passes] = packets.map { Self.framesPerPacket($0.bytes) - 1 }.reduce(0, +)
      let (info, decoded) = try decodeAll(path)
      #expect(decoded.count == frames && info.frameCount == frames)
      #expect(abs((info.formatDuration ?? 0) - Double(frames) / 10) < 0.0005, "\(info.formatDuration ?? 0)")
      // Close to its source: the second pass encoded the kept frames, in order.
      for i in [0, frames / 2, frames - 1] {
        let (a, b) = (mean(decoded[i]), mean(Self.image(i)))
        #expect(abs(a.x - b.x) < 0.02 && abs(a.z - b.z) < 0.02, "frame \(i) of \(passes) pass(es): \(a) vs \(b)")
      }
    }
    // One pass at constant quality makes no hidden frames; the second pass, with the first's
    // statistics, makes alt-refs.
    #expect(hidden[1] == 0)
    #expect((hidden[2] ?? 0) >= 1, "\(hidden)")
    #expect(files(in: folder.url.path) == ["1.webm", "2.webm"])
  }

  struct Stop: Error {}

  @Test func anInterruptDuringTheSecondPassLeavesNoFile() throws {
    let folder = TemporaryDirectory()
    let path = folder.path("a.webm")
    try Data("old".utf8).write(to: URL(fileURLWithPath: path))
    let writer = try VideoWriter(try Self.vp9(path, frames: 24, passes: 2))
    for i in 0..<24 { try writer.append(Self.image(i)) }
    var calls = 0
    #expect(throws: Stop.self) {
      try writer.flush {
        calls += 1
        if calls == 12 { throw Stop() }  // inside the second pass's frames
      }
    }
    writer.cancel()
    #expect(calls == 12)
    #expect(files(in: folder.url.path) == ["a.webm"])
    #expect(fileBytes(path) == Data("old".utf8))
  }
}
