import Foundation
import Testing
import Video
import _TestSupport

@testable import Loopsmith

/// The pieces of issue 47's fixes that the end-to-end `SharedFolderTests` cannot reach on demand:
/// the lock a temporary is created with, and a merge's renames put back when one fails midway.
@Suite struct SharedFolderUnitTests {
  /// A temporary is locked from its creation: another open of it cannot take the lock, so the
  /// sweep leaves it; closed (its owner dead), it is swept.
  @Test func aTemporaryIsLockedFromItsCreationUntilItsOwnerCloses() throws {
    let dir = TemporaryDirectory()
    let path = dir.path(".a.mp4.1-x.loopsmith-tmp")
    let fd = TemporaryFile.create(path)
    try #require(fd >= 0, "\(String(cString: strerror(errno)))")
    let other = open(path, O_RDONLY | O_CLOEXEC)
    defer { close(other) }
    #expect(flock(other, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
    #expect(!TemporaryFile.removeIfUnowned(path))
    #expect(FileManager.default.fileExists(atPath: path))
    // The name is taken: a second creation fails with EEXIST, as O_EXCL would.
    #expect(TemporaryFile.create(path) == -1 && errno == EEXIST)
    close(fd)
    #expect(TemporaryFile.removeIfUnowned(path))
    #expect(!FileManager.default.fileExists(atPath: path))
  }

  /// A FIFO or a folder at a temporary's name is neither waited on nor removed.
  @Test func theSweepNeitherWaitsOnAFIFONorRemovesAFolder() throws {
    let dir = TemporaryDirectory()
    let fifo = dir.path(".f.mp4.1-x.loopsmith-tmp"), folder = dir.path(".d.mp4.1-x.loopsmith-tmp")
    try #require(mkfifo(fifo, 0o644) == 0)
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    #expect(!TemporaryFile.removeIfUnowned(fifo))
    #expect(!TemporaryFile.removeIfUnowned(folder))
    #expect(FileManager.default.fileExists(atPath: fifo) && FileManager.default.fileExists(atPath: folder))
  }

  /// A rename that fails after others succeeded puts every renamed destination back: the old file
  /// where there was one, nothing where there was none, and no staged or kept file is left.
  @Test func aMergeWhoseLastRenameFailsPutsBackTheOthers() throws {
    let dir = TemporaryDirectory()
    for (name, text) in [("old.y4m", "old"), (".s1", "new 1"), (".s2", "new 2"), (".s3", "new 3")] {
      try Data(text.utf8).write(to: URL(fileURLWithPath: dir.path(name)))
    }
    // The third destination's folder is missing: its rename fails with ENOENT after two succeeded.
    let staged = [
      (tmp: dir.path(".s1"), dst: dir.path("old.y4m")), (tmp: dir.path(".s2"), dst: dir.path("fresh.y4m")),
      (tmp: dir.path(".s3"), dst: dir.path("missing/third.y4m")),
    ]
    #expect(throws: RenderFailure.self) { try Batch.placeStaged(staged) }
    #expect(try String(contentsOfFile: dir.path("old.y4m"), encoding: .utf8) == "old")
    let left = try FileManager.default.contentsOfDirectory(atPath: dir.url.path).sorted()
    #expect(left == ["old.y4m"], "\(left)")
  }

  /// Canonically equivalent spellings are equal Strings but two ExactNames; `./` and `//` vanish
  /// from a path, and names sort as Strings do.
  @Test func exactNamesAreBytes() {
    #expect("caf\u{E9}" == "cafe\u{301}")
    #expect(ExactName("caf\u{E9}") != ExactName("cafe\u{301}"))
    #expect(Set(["caf\u{E9}", "cafe\u{301}"].map(ExactName.init)).count == 2)
    #expect(ExactName.normalized("./a.mp4") == "a.mp4")
    #expect(ExactName.normalized("segments//./b.mp4") == "segments/b.mp4")
    #expect(ExactName("a") < ExactName("b") && !(ExactName("b") < ExactName("a")))
  }
}
