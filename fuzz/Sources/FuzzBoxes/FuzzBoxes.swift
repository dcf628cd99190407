import Foundation
import FuzzDriver

@testable import Video

/// Bytes as an MP4 through our own box walker: the walk over the bytes (`MP4Boxes.boxes`, as
/// `moov`'s children are walked) and the file inspection through a descriptor (`MP4Boxes.inspect`:
/// the top-level order, `moov`'s tracks, the video track's edit list).
///
/// Any answer is fine; a trap (an offset that overflows, a read out of bounds) is the bug.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBoxes(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let data = Data(bytes: start, count: count)
  for box in MP4Boxes.boxes(in: data, from: 0, to: data.count) {
    _ = MP4Boxes.boxes(in: data, from: box.start, to: box.end)
  }
  // The same bytes as a file: an unlinked file in /dev/shm, read through its descriptor as `check` reads one.
  var template = Array("/dev/shm/fuzz-boxes-XXXXXX".utf8CString)
  let fd = mkstemp(&template)
  if fd >= 0 { unlink(template) }  // the descriptor (and /proc/self/fd) keeps it while we read
  guard fd >= 0 else { return 0 }
  defer { close(fd) }
  _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  _ = MP4Boxes.inspect(descriptor: fd)
  return 0
}

// The executable's main (see FuzzDriver).
@_cdecl("fuzz_boxes_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  runFuzzer(argc, argv, fuzzBoxes)
}
