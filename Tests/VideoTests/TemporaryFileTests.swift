import CLibAV
import Foundation
import Raster
import Testing
import _TestSupport

@testable import Video

/// The temporary beside an output: an unguessable name, created exclusively, never following a
/// symlink, written through the descriptor it was created with and renamed when complete.
@Suite struct TemporaryFileTests {
  /// Symlinks at every name the old scheme (`.<name>.<pid>-<n>.loopsmith-tmp`) would have used,
  /// all pointing at a victim file outside the folder's control.
  @Test(arguments: ["a.mp4", "a.webm", "a.mov", "a.png", "a.y4m", "a.gif", "a.apng", "a.webp"])
  func aPlantedSymlinkIsNeverFollowed(name: String) throws {
    let folder = TemporaryDirectory()
    let elsewhere = TemporaryDirectory()
    let victim = elsewhere.path("victim.txt")
    try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
    for n in 0..<64 {
      symlink(victim, folder.path(".\(name).\(getpid())-\(n).loopsmith-tmp"))
    }
    let planted = files(in: folder.url.path).count
    let written = try write(try settings(folder.path(name), fps: 25, frames: name.hasSuffix(".png") ? 1 : 4)) {
      testImage(frame: $0)
    }
    #expect(fileBytes(victim) == Data("precious".utf8))
    #expect(files(in: folder.url.path).count == planted + 1)  // the output, and the links as they were
    var info = stat()
    #expect(lstat(folder.path(name), &info) == 0)
    #expect(info.st_mode & S_IFMT == S_IFREG)
    // 0644 less the umask: readable by others as any file a program writes, never executable.
    let mask = umask(0)
    umask(mask)
    #expect(info.st_mode & 0o777 == 0o644 & ~mask)
    #expect(written.bytes == Int64(info.st_size) && info.st_size > 0)
  }

  @Test func twoTemporariesForOneOutputHaveUnrelatedNames() throws {
    let folder = TemporaryDirectory()
    let a = try TemporaryOutput(destination: folder.path("x.mp4"))
    let b = try TemporaryOutput(destination: folder.path("x.mp4"))
    #expect(a.path != b.path)
    // Past the pid, the names share nothing guessable: no counter.
    let tail = { (p: String) in p.dropLast(".loopsmith-tmp".count).split(separator: "-").last.map(String.init) ?? "" }
    #expect(tail(a.path) != tail(b.path))
    #expect(a.path.hasSuffix(".loopsmith-tmp") && a.path.contains("/.x.mp4.\(getpid())-"))
    a.discard()
    b.discard()
    #expect(files(in: folder.url.path).isEmpty)
  }

  @Test func aTemporaryReplacedByAnotherFileIsNeitherRenamedNorRemoved() throws {
    let folder = TemporaryDirectory()
    let temporary = try TemporaryOutput(destination: folder.path("x.mp4"))
    // Someone swaps the name for their own file: committing must not publish it, and discarding
    // must not delete it.
    unlink(temporary.path)
    try Data("theirs".utf8).write(to: URL(fileURLWithPath: temporary.path))
    #expect(throws: VideoError.self) { try temporary.commit() }
    #expect(!FileManager.default.fileExists(atPath: folder.path("x.mp4")))
    temporary.discard()
    #expect(fileBytes(temporary.path) == Data("theirs".utf8))
  }

  /// The nameless create needs O_TMPFILE, which only C can spell: the shim gives glibc's value
  /// (`__O_TMPFILE`, which includes O_DIRECTORY), not 0, and a temporary made with it is a file.
  @Test func oTmpfileComesFromTheCHeaders() throws {
    #expect(clibav_o_tmpfile() == 0o20_000_000 | O_DIRECTORY)
    let dir = TemporaryDirectory("o-tmpfile")
    let fd = TemporaryFile.create(dir.path("t"))
    #expect(fd >= 0)
    defer { close(fd) }
    var info = stat()
    #expect(lstat(dir.path("t"), &info) == 0 && info.st_mode & S_IFMT == S_IFREG)
  }

  @Test func anOutputNameHoldingANULIsRefused() throws {
    let folder = TemporaryDirectory()
    #expect { try TemporaryOutput(destination: folder.url.path + "/shared.mp4\u{0}.webm") } throws: { error in
      guard case .invalidSettings(let message) = error as? VideoError else { return false }
      return message.contains("holds a NUL character")
    }
    #expect(files(in: folder.url.path).isEmpty)
  }
}

/// Input files are opened once, as regular files of bounded size.
@Suite struct InputFileTests {
  @Test func aRegularFileIsReadWhole() throws {
    let folder = TemporaryDirectory()
    try Data("0,0.5\n".utf8).write(to: URL(fileURLWithPath: folder.path("a.csv")))
    let file = try InputFile(path: folder.path("a.csv"), limit: 100, what: "levels file")
    #expect(try file.readAll() == Data("0,0.5\n".utf8))
    #expect(file.size == 6)
  }

  @Test func aFileOverItsLimitIsRefusedWithoutReading() throws {
    let folder = TemporaryDirectory()
    try Data(repeating: 65, count: 101).write(to: URL(fileURLWithPath: folder.path("a.csv")))
    #expect { try InputFile(path: folder.path("a.csv"), limit: 100, what: "levels file") } throws: { error in
      (error as? VideoError)?.description
        == "\(folder.path("a.csv")): 101 bytes; expected a levels file of at most 100 bytes"
    }
  }

  @Test(arguments: ["fifo", "folder", "/dev/null", "missing", ""])
  func anythingButARegularFileIsRefused(name: String) throws {
    let folder = TemporaryDirectory()
    mkfifo(folder.path("fifo"), 0o644)
    try FileManager.default.createDirectory(atPath: folder.path("folder"), withIntermediateDirectories: false)
    let path = name.hasPrefix("/") || name.isEmpty ? name : folder.path(name)
    #expect { try InputFile(path: path, limit: 1 << 20, what: "audio file") } throws: { error in
      guard case .invalidSettings = error as? VideoError else { return false }
      return true
    }
  }

  @Test func audioDecodingReadsThroughTheDescriptorEvenAfterTheNameIsGone() throws {
    // The decoder opens nothing by name: once InputFile has the file, unlinking it changes nothing.
    let folder = TemporaryDirectory()
    let path = folder.path("tone.wav")
    var bytes = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WAVEfmt ".utf8)
    func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
    func le16(_ v: Int) -> [UInt8] { (0..<2).map { UInt8((v >> (8 * $0)) & 0xFF) } }
    let samples = (0..<8000).flatMap { le16(Int(sin(Double($0) * 0.3) * 8000) & 0xFFFF) }
    bytes +=
      le32(16) + le16(1) + le16(1) + le32(8000) + le32(16000) + le16(2) + le16(16) + Array("data".utf8)
      + le32(samples.count) + samples
    bytes.replaceSubrange(4..<8, with: le32(bytes.count - 8))
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let file = try InputFile(path: path, limit: InputFile.Limit.audio, what: "audio file")
    unlink(path)
    let decoder = try AudioDecoder(file: file, formats: .audio)
    var count = 0
    try decoder.forEachMonoBlock { block in
      count += block.count
      return true
    }
    #expect(decoder.sampleRate == 8000)
    #expect(count == 8000)
  }
}
