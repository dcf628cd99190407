import Foundation

/// Bytes of a file open at a descriptor, read and written with `pread`/`pwrite`: the file's
/// position stays where libav left it, and the file is never reopened by name.
enum FileBytes {
  /// `count` bytes from `offset`; nil when the file has fewer there or the read fails. The file's
  /// size is looked at before any memory is taken, so a count read from a hostile header costs
  /// nothing.
  static func read(_ descriptor: Int32, at offset: Int, count: Int) -> [UInt8]? {
    var info = stat()
    guard offset >= 0, count >= 0, fstat(descriptor, &info) == 0, count <= Int(info.st_size) - offset else {
      return nil
    }
    var bytes = [UInt8](repeating: 0, count: count)
    let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
    return got == count ? bytes : nil
  }

  /// Writes `bytes` at `offset`; false when not all were written (`errno` says why).
  static func write(_ bytes: [UInt8], _ descriptor: Int32, at offset: Int) -> Bool {
    bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) } == bytes.count
  }

  /// `value`'s low `count` bytes, least significant first (RIFF sizes, WebP fields).
  static func littleEndian(_ value: Int, count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }

  /// The `count` bytes of `bytes` from `offset`, least significant first, as a number.
  static func littleEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> Int {
    (0..<count).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
  }
}
