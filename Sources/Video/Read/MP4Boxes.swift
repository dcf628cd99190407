import Foundation

/// Reads the few MP4/MOV boxes libav does not report: the top-level order and the edit list.
enum MP4Boxes {
  struct Box {
    let type: String
    let start: Int  // of the payload
    let end: Int
  }

  /// The boxes one after another in `data[start..<end]`; stops at a truncated or malformed box.
  ///
  /// Every size is the file's word, so none is trusted: a box must fit in what is left of its
  /// parent (a 64-bit size of 2^64 - 1, or 2^63 - 1 in a child of `moov`, ends the walk instead of
  /// overflowing an offset), and `start` and `end` are clamped to the data.
  static func boxes(in data: Data, from start: Int, to end: Int) -> [Box] {
    var result: [Box] = []
    let end = min(max(end, 0), data.count)
    var offset = max(start, 0)
    while end - offset >= 8 {
      let declared = UInt64(readUInt32(data, offset))
      let type = String(decoding: data[(data.startIndex + offset + 4)..<(data.startIndex + offset + 8)], as: UTF8.self)
      let left = UInt64(end - offset)
      var size = declared
      var header: UInt64 = 8
      if declared == 1 {
        guard left >= 16 else { break }
        size = readUInt64(data, offset + 8)
        header = 16
      } else if declared == 0 {
        size = left
      }
      // `mdat` may run past what was read (only its start is in `data`); anything else must fit.
      guard size >= header, size <= left || type == "mdat" else { break }
      let length = Int(min(size, left))
      result.append(Box(type: type, start: offset + Int(header), end: offset + length))
      offset += length
    }
    return result
  }

  static func readUInt32(_ data: Data, _ offset: Int) -> UInt32 {
    let i = data.startIndex + offset
    return UInt32(data[i]) << 24 | UInt32(data[i + 1]) << 16 | UInt32(data[i + 2]) << 8 | UInt32(data[i + 3])
  }

  static func readUInt64(_ data: Data, _ offset: Int) -> UInt64 {
    UInt64(readUInt32(data, offset)) << 32 | UInt64(readUInt32(data, offset + 4))
  }

  /// Whether `moov` precedes `mdat`, and the video track's edit-list entry count.
  /// Reads through `descriptor` (left open), never reopening the file by name.
  static func inspect(descriptor: Int32) -> (moovFirst: Bool?, editListCount: Int?) {
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
    guard let fileSize = try? handle.seekToEnd() else { return (nil, nil) }
    var offset: UInt64 = 0
    var order: [String] = []
    var moov: Data?
    // Sizes are 64-bit words from the file: each is checked against what is left of it before
    // an offset moves, so no sum can overflow (fuzz/README.md, fuzz-boxes).
    while fileSize >= 8, offset <= fileSize - 8 {
      try? handle.seek(toOffset: offset)
      guard let header = try? handle.read(upToCount: 16), header.count >= 8 else { break }
      let left = fileSize - offset
      var size = UInt64(readUInt32(header, 0))
      let type = String(decoding: header[(header.startIndex + 4)..<(header.startIndex + 8)], as: UTF8.self)
      var headerSize: UInt64 = 8
      if size == 1 {
        guard header.count >= 16 else { break }
        size = readUInt64(header, 8)
        headerSize = 16
      } else if size == 0 {
        size = left
      }
      order.append(type)  // a box cut short still shows where it starts (an mdat being written)
      guard size >= headerSize, size <= left else { break }
      if type == "moov", size < 256 << 20 {
        try? handle.seek(toOffset: offset + headerSize)
        moov = try? handle.read(upToCount: Int(size - headerSize))
      }
      offset += size
    }
    var moovFirst: Bool? = nil
    if let m = order.firstIndex(of: "moov"), let d = order.firstIndex(of: "mdat") { moovFirst = m < d }
    var edits: Int? = nil
    if let moov {
      for trak in boxes(in: moov, from: 0, to: moov.count) where trak.type == "trak" {
        let children = boxes(in: moov, from: trak.start, to: trak.end)
        guard let mdia = children.first(where: { $0.type == "mdia" }),
          let hdlr = boxes(in: moov, from: mdia.start, to: mdia.end).first(where: { $0.type == "hdlr" }),
          hdlr.start + 12 <= hdlr.end
        else { continue }
        let handler = String(
          decoding: moov[(moov.startIndex + hdlr.start + 8)..<(moov.startIndex + hdlr.start + 12)], as: UTF8.self)
        guard handler == "vide" else { continue }
        edits = 0
        if let edts = children.first(where: { $0.type == "edts" }),
          let elst = boxes(in: moov, from: edts.start, to: edts.end).first(where: { $0.type == "elst" }),
          elst.start + 8 <= elst.end
        {
          edits = Int(readUInt32(moov, elst.start + 4))
        }
        break
      }
    }
    return (moovFirst, edits)
  }
}
