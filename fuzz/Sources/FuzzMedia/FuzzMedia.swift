import Foundation
import FuzzDriver

@testable import Video

/// Bytes as a media file through the frame readers `check` and `--audio` use: `VideoReader`
/// (libav's demuxers among `Demuxers.video`, our animated WebP reader, the conversions to float
/// pictures) to its last frame, and the audio decoder (`AudioEnds`) when the file has sound.
///
/// The file is an unlinked file in /dev/shm named by `/proc/self/fd`, so it is a regular file as `InputFile`
/// demands. Pictures are held to 64x64 and 64 frames here, so an input's time goes to parsing, not
/// to decoding a large picture the headers declare (the budget that bounds those is `check`'s).
/// Any thrown error is a fine answer; a trap or a hang is the bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMedia(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  var template = Array("/dev/shm/fuzz-media-XXXXXX".utf8CString)
  let fd = mkstemp(&template)
  if fd >= 0 { unlink(template) }  // the descriptor (and /proc/self/fd) keeps it while we read
  guard fd >= 0 else { return 0 }
  defer { close(fd) }
  _ = write(fd, start, count)
  let path = "/proc/self/fd/\(fd)"
  if let reader = try? VideoReader(path: path, keepAlpha: true),
    reader.info.width * reader.info.height <= 64 * 64, reader.info.frameCount <= 64
  {
    var frames = 0
    while frames < 64, let image = try? reader.nextFrame() {
      precondition(image.width == reader.info.width && image.height == reader.info.height)
      frames += 1
    }
    if reader.info.hasAudio { _ = try? AudioEnds.read(path: path) }
  }
  return 0
}

// The executable's main (see FuzzDriver).
@_cdecl("fuzz_media_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  runFuzzer(argc, argv, fuzzMedia)
}
