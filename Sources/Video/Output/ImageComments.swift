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
    guard let head = FileBytes.read(descriptor, at: 0, count: 33) else {
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
      let riff = FileBytes.littleEndian(head, at: 4, count: 4)
      guard riff + 8 == size, size % 2 == 0 else { throw VideoError.io("the finished WebP's RIFF size is not its own") }
      let chunk = webpChunk(text)
      let grown = riff + chunk.count
      guard grown <= Int(UInt32.max) else { throw VideoError.io("the WebP would pass RIFF's 4 GiB with its comment") }
      try insert(chunk, at: size, size: size, descriptor: descriptor)
      guard FileBytes.write(FileBytes.littleEndian(grown, count: 4), descriptor, at: 4) else {
        throw VideoError.io("cannot write the comment: \(String(cString: strerror(errno)))")
      }
    default:
      return
    }
  }

  /// The WebP chunk that holds the comment: a chunk type of our own, which readers skip.
  static let webpChunkType = "LSPT"

  /// A WebP chunk: type, little-endian size, `text` in UTF-8, a pad byte to an even size.
  static func webpChunk(_ text: String) -> [UInt8] {
    let bytes = Array(text.utf8)
    return Array(webpChunkType.utf8) + FileBytes.littleEndian(bytes.count, count: 4) + bytes
      + (bytes.count % 2 == 1 ? [0] : [])
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
    guard FileBytes.write(block, descriptor, at: offset) else {
      throw VideoError.io("cannot write the comment: \(String(cString: strerror(errno)))")
    }
  }

  /// The `Comment` text of a PNG or APNG file open at `descriptor`, read with `pread` (the file's
  /// position stays where libav left it): the first `iTXt` chunk with that keyword before the
  /// image data. Hostile input: at most 64 chunks are looked at, none past the file's end; a
  /// text over `limit` bytes is not read whole (its first 64 bytes come back with `tooLong`),
  /// and text that is not UTF-8, or compressed, counts as none.
  static func pngComment(descriptor: Int32, limit: Int) -> (text: String?, tooLong: Bool) {
    guard FileBytes.read(descriptor, at: 0, count: 8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] else {
      return (nil, false)
    }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return (nil, false) }
    let size = Int(info.st_size)
    var offset = 8
    let prefix = Array(pngKeyword.utf8) + [0, 0, 0, 0, 0]
    for _ in 0..<64 {
      guard let header = FileBytes.read(descriptor, at: offset, count: 8) else { return (nil, false) }
      let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
      let type = String(decoding: header[4..<8], as: UTF8.self)
      if ["IDAT", "fdAT", "fcTL", "IEND"].contains(type) || length > size - offset - 12 { return (nil, false) }
      if type == "iTXt" && length >= prefix.count,
        FileBytes.read(descriptor, at: offset + 8, count: prefix.count) == prefix
      {
        let textLength = length - prefix.count
        let tooLong = textLength > limit
        guard let text = FileBytes.read(descriptor, at: offset + 8 + prefix.count, count: tooLong ? 64 : textLength)
        else { return (nil, false) }
        return tooLong ? (String(decoding: text, as: UTF8.self), true) : (String(bytes: text, encoding: .utf8), false)
      }
      offset += 12 + length
    }
    return (nil, false)
  }
}
