import Foundation
import Raster
import Testing
import _TestSupport

@testable import Video

/// Packet times of the shortest encodes, where encoders' own bookkeeping is thinnest.
@Suite struct PacketTimeTests {
  /// libx265 3.5 computes the decoding times of an encode of fewer than three frames from a field
  /// it never sets (docs/ENCODING.md, Packet times); after other encodes have used the heap that
  /// field holds leftovers. Every file must still show frame 0 at 0 s, each frame once, for one
  /// frame each, with no edit list.
  @Test(arguments: [VideoCodec.hevc, .h264])
  func theShortestEncodesAreTimedFromZero(codec: VideoCodec) throws {
    let folder = TemporaryDirectory()
    for round in 0..<24 {
      let frames = 1 + round % 3
      let path = folder.path("\(round).mp4")
      _ = try write(try settings(path, width: 32, height: 32, fps: 10, frames: frames, codec: codec)) {
        testImage(width: 32, height: 32, frame: $0)
      }
      let packets = try videoPackets(path, fps: 10)
      #expect(packets.map(\.pts).sorted() == (0..<Int64(frames)).map { $0 }, "round \(round)")
      #expect(packets.allSatisfy { $0.duration == 1 }, "round \(round)")
      let (info, images) = try decodeAll(path)
      #expect(images.count == frames)
      #expect(info.editListCount == 0 && (info.streamStartTime ?? -1) == 0, "round \(round): \(info)")
    }
  }
}
