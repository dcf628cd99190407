import Foundation
import Testing
import _TestSupport

@testable import Video

@Suite struct FileBytesTests {
  /// A count read from a hostile header (here 2^62 bytes) is refused before memory is taken for
  /// it: taking it would trap. Reads inside the file, and up to its end, come back whole.
  @Test func readsStayInsideTheFile() throws {
    let folder = TemporaryDirectory()
    let path = folder.path("f")
    try Data([1, 2, 3, 4, 5]).write(to: URL(fileURLWithPath: path))
    let descriptor = open(path, O_RDONLY)
    defer { close(descriptor) }
    #expect(FileBytes.read(descriptor, at: 1, count: 4) == [2, 3, 4, 5])
    #expect(FileBytes.read(descriptor, at: 1, count: 5) == nil)
    #expect(FileBytes.read(descriptor, at: 6, count: 0) == nil)
    #expect(FileBytes.read(descriptor, at: 0, count: 1 << 62) == nil)
    #expect(FileBytes.read(descriptor, at: -1, count: 1) == nil)
  }
}
