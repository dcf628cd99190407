import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reads `handle` to its end, retrying reads a signal interrupted. A read that fails otherwise
/// ends the data there and says so on stderr, so a test missing output shows why.
///
/// Foundation's `readDataToEndOfFile()` and `availableData` wrap their reads in `try!`: a read that
/// a signal handler interrupts (EINTR) aborts the whole test process. In a suite that starts many
/// child processes, some signal sometimes lands on the reading thread, and the run died with
/// "Interrupted system call" in FileHandle.swift.
public func readToEnd(_ handle: FileHandle) -> Data {
  var data = Data()
  while true {
    guard let chunk = readSome(handle) else {
      let reason = String(cString: strerror(errno))
      FileHandle.standardError.write(Data("readToEnd: descriptor \(handle.fileDescriptor): \(reason)\n".utf8))
      return data
    }
    if chunk.isEmpty { return data }
    data.append(chunk)
  }
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
