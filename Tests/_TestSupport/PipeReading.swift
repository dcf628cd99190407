import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads `handle` to its end, retrying reads a signal interrupted.
///
/// Foundation's `readDataToEndOfFile()` and `availableData` wrap their reads in `try!`: a read that
/// a signal handler interrupts (EINTR) aborts the whole test process. In a suite that starts many
/// child processes, some signal sometimes lands on the reading thread, and the run died with
/// "Interrupted system call" in FileHandle.swift.
public func readToEnd(_ handle: FileHandle) -> Data {
  var data = Data()
  while let chunk = readSome(handle), !chunk.isEmpty { data.append(chunk) }
  return data
}

/// One read of up to 64 KiB from `handle`, retried on EINTR: empty at the end, nil on an error.
public func readSome(_ handle: FileHandle) -> Data? {
  var buffer = [UInt8](repeating: 0, count: 65536)
  while true {
    let n = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
    if n >= 0 { return Data(buffer[0..<n]) }
    if errno != EINTR { return nil }
  }
}
