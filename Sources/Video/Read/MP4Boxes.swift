import Foundation

/// Reads the few MP4/MOV boxes libav does not report: the top-level order and the edit list.
enum MP4Boxes {
  struct Box {
    let type: String
    let start: Int  // of the payload
    let end: Int
  }

  /// The boxes one after another in `data[range]`; stops at a truncated or malformed box.
  static func boxes(in data: Data, from start: Int, to end: Int) -> [Box] {
    var result: [Box] = []
    var offset = start
    while offset + 8 <= end {
      var size = Int(readUInt32(data, offset))
      let type = String(decoding: data[(data.startIndex + offset + 4)..<(data.startIndex + offset + 8)], as: UTF8.self)
      var header = 8
      if size == 1 {
        guard offset + 16 <= end else { break }
        size = Int(clamping: readUInt64(data, offset + 8))
        header = 16
      } else if size == 0 {
        size = end - offset
      }
      guard size >= header, offset + size <= end || type == "mdat" else { break }
      result.append(Box(type: type, start: offset + header, end: min(offset + size, end)))
      offset += size
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
    while offset + 8 <= fileSize {
      try? handle.seek(toOffset: offset)
      guard let header = try? handle.read(upToCount: 16), header.count >= 8 else { break }
      var size = UInt64(readUInt32(header, 0))
      let type = String(decoding: header[(header.startIndex + 4)..<(header.startIndex + 8)], as: UTF8.self)
      var headerSize: UInt64 = 8
      if size == 1, header.count >= 16 {
        size = readUInt64(header, 8)
        headerSize = 16
      } else if size == 0 {
        size = fileSize - offset
      }
      guard size >= headerSize else { break }
      order.append(type)
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
