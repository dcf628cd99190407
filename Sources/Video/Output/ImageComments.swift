import CLibAV
import Foundation

/// The comment (the preset tag) in GIF, APNG and WebP files, which libav 5.1's muxers leave out
/// (docs/ENCODING.md, The preset tag in every file).
///
/// - GIF: a comment extension (GIF89a: 0x21 0xFE, sub-blocks of at most 255 bytes, a zero)
///   right after the logical screen descriptor and its global colour table. libav's GIF demuxer
///   reads it as the file's `comment`; players skip it.
/// - APNG: an `iTXt` chunk (UTF-8, uncompressed) with the keyword `Comment` right after `IHDR`.
///   libav's demuxer does not surface text chunks, so `VideoReader` reads it here
///   (`pngComment`); players skip it.
///
/// Both are put in after the muxer's trailer, through the temporary file's descriptor, by moving
/// the bytes after the insertion point along.
enum ImageComments {
  /// A GIF comment extension holding `text`.
  static func gifExtension(_ text: String) -> [UInt8] {
    var block: [UInt8] = [0x21, 0xFE]
    let bytes = Array(text.utf8)
    var start = 0
    while start < bytes.count {
      let count = min(255, bytes.count - start)
      block.append(UInt8(count))
      block += bytes[start..<(start + count)]
      start += count
    }
    block.append(0)
    return block
  }

  static let pngKeyword = "Comment"

  /// A PNG `iTXt` chunk: keyword, no compression, no language, `text` in UTF-8.
  static func pngChunk(_ text: String) -> [UInt8] {
    let body = Array("iTXt".utf8) + Array(pngKeyword.utf8) + [0, 0, 0, 0, 0] + Array(text.utf8)
    let length = UInt32(body.count - 4)
    let crc = body.withUnsafeBufferPointer { b in
      ~av_crc(av_crc_get_table(AV_CRC_32_IEEE_LE), 0xFFFF_FFFF, b.baseAddress, b.count)
    }
    return bigEndian(length) + body + bigEndian(crc)
  }

  private static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
  }

  /// Puts `text` into the finished GIF, APNG or WebP file open at `descriptor`; other formats are left.
  static func insert(_ text: String, format: OutputFormat, descriptor: Int32) throws {
    let size = Int(lseek(descriptor, 0, SEEK_END))
    var head = [UInt8](repeating: 0, count: 33)
    guard size >= head.count, read(descriptor, at: 0, into: &head) else {
      throw VideoError.io("the finished \(format.rawValue) file is too short for its comment")
    }
    switch format {
    case .gif:
      // "GIF89a", the logical screen descriptor (7 bytes), then its colour table if flagged.
      guard head[0..<6].elementsEqual("GIF89a".utf8) else {
        throw VideoError.io("the finished GIF has no GIF89a header")
      }
      let table = head[10] & 0x80 != 0 ? 3 << (Int(head[10] & 0x07) + 1) : 0
      guard 13 + table <= size else { throw VideoError.io("the finished GIF ends inside its colour table") }
      try insert(gifExtension(text), at: 13 + table, size: size, descriptor: descriptor)
    case .apng:
      // The signature (8 bytes), then IHDR: length 13, type, 13 bytes, CRC.
      guard head[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
        head[8..<12].elementsEqual([0, 0, 0, 13]), head[12..<16].elementsEqual("IHDR".utf8)
      else { throw VideoError.io("the finished APNG does not start with IHDR") }
      try insert(pngChunk(text), at: 33, size: size, descriptor: descriptor)
    case .webp:
      // RIFF, its size (little-endian, of what follows), WEBP: the chunk goes at the end.
      guard head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WEBP".utf8) else {
        throw VideoError.io("the finished WebP has no RIFF WEBP header")
      }
      let riff = Int(head[4]) | Int(head[5]) << 8 | Int(head[6]) << 16 | Int(head[7]) << 24
      guard riff + 8 == size, size % 2 == 0 else { throw VideoError.io("the finished WebP's RIFF size is not its own") }
      let chunk = webpChunk(text)
      let grown = riff + chunk.count
      guard grown <= Int(UInt32.max) else { throw VideoError.io("the WebP would pass RIFF's 4 GiB with its comment") }
      let header: [UInt8] = [
        UInt8(grown & 0xFF), UInt8((grown >> 8) & 0xFF), UInt8((grown >> 16) & 0xFF), UInt8(grown >> 24),
      ]
      try insert(chunk, at: size, size: size, descriptor: descriptor)
      try overwrite(header, at: 4, descriptor: descriptor)
    default:
      return
    }
  }

  /// The WebP chunk that holds the comment: a chunk type of our own, which readers skip.
  static let webpChunkType = "LSPT"

  /// A WebP chunk: type, little-endian size, `text` in UTF-8, a pad byte to an even size.
  static func webpChunk(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    let n = bytes.count
    let size: [UInt8] = [UInt8(n & 0xFF), UInt8((n >> 8) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8((n >> 24) & 0xFF)]
    return Array(webpChunkType.utf8) + size + bytes + (n % 2 == 1 ? [0] : [])
  }

  /// Writes `bytes` over the file's bytes at `offset`.
  private static func overwrite(_ bytes: [UInt8], at offset: Int, descriptor: Int32) throws {
    let wrote = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
    guard wrote == bytes.count else {
      throw VideoError.io("cannot write the comment: \(String(cString: strerror(errno)))")
    }
  }

  /// Moves the file's bytes from `offset` on along by `block.count`, from the end back in pieces
  /// of a megabyte, and writes `block` at `offset`.
  private static func insert(_ block: [UInt8], at offset: Int, size: Int, descriptor: Int32) throws {
    let piece = 1 << 20
    var buffer = [UInt8](repeating: 0, count: min(piece, size - offset))
    var end = size
    while end > offset {
      let count = min(piece, end - offset)
      let start = end - count
      let moved = buffer.withUnsafeMutableBytes { b in
        pread(descriptor, b.baseAddress, count, off_t(start)) == count
          && pwrite(descriptor, b.baseAddress, count, off_t(start + block.count)) == count
      }
      guard moved else { throw VideoError.io("cannot make room for the comment: \(String(cString: strerror(errno)))") }
      end = start
    }
    let wrote = block.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
    guard wrote == block.count else {
      throw VideoError.io("cannot write the comment: \(String(cString: strerror(errno)))")
    }
  }

  private static func read(_ descriptor: Int32, at offset: Int, into bytes: inout [UInt8]) -> Bool {
    let count = bytes.count
    return bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) } == count
  }

  /// The `Comment` text of a PNG or APNG file open at `descriptor`, read with `pread` (the file's
  /// position stays where libav left it): the first `iTXt` chunk with that keyword before the
  /// image data. Hostile input: at most 64 chunks are looked at, none past the file's end; a
  /// text over `limit` bytes is not read whole (its first 64 bytes come back with `tooLong`),
  /// and text that is not UTF-8, or compressed, counts as none.
  static func pngComment(descriptor: Int32, limit: Int) -> (text: String?, tooLong: Bool) {
    var signature = [UInt8](repeating: 0, count: 8)
    guard read(descriptor, at: 0, into: &signature), signature == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    else { return (nil, false) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return (nil, false) }
    let size = Int(info.st_size)
    var offset = 8
    let prefix = Array(pngKeyword.utf8) + [0, 0, 0, 0, 0]
    for _ in 0..<64 {
      var header = [UInt8](repeating: 0, count: 8)
      guard read(descriptor, at: offset, into: &header) else { return (nil, false) }
      let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
      let type = String(decoding: header[4..<8], as: UTF8.self)
      if ["IDAT", "fdAT", "fcTL", "IEND"].contains(type) || length > size - offset - 12 { return (nil, false) }
      if type == "iTXt" && length >= prefix.count {
        let textLength = length - prefix.count
        var start = [UInt8](repeating: 0, count: prefix.count)
        guard read(descriptor, at: offset + 8, into: &start) else { return (nil, false) }
        if start == prefix {
          var text = [UInt8](repeating: 0, count: textLength > limit ? 64 : textLength)
          guard read(descriptor, at: offset + 8 + prefix.count, into: &text) else { return (nil, false) }
          if textLength > limit { return (String(decoding: text, as: UTF8.self), true) }
          return (String(bytes: text, encoding: .utf8), false)
        }
      }
      offset += 12 + length
    }
    return (nil, false)
  }
}
