import CLibAV
import Foundation

/// Exact loop lengths in every container: what the table's muxer options cannot say alone
/// (docs/ENCODING.md, Exact durations).
///
/// - MP4 and MOV start frame 0 at t = 0 without an edit list: negative composition offsets
///   (`ctts` version 1) instead of the B-frame delay in an edit. A file with AAC keeps the edit
///   list, which is how MP4 says that the first samples are the encoder's priming (and the
///   pre-roll `AudioEncoder` feeds before the loop).
/// - APNG frames last whole milliseconds (frame i starts at round(i * 1000 / fps) ms), because
///   Chromium truncates each delay to a millisecond: 1/30 s becomes 33 ms and the loop runs 1 % fast.
/// - WebP frames are given the same millisecond grid; the muxer times each frame but the last
///   by the next one's start, and the last by its packet's duration.
/// - WebM with Opus says the loop's length in its Duration, not that length plus Opus's pre-skip.
enum LoopTiming {
  /// Where frame `index` starts, in whole milliseconds, rounded to the nearest (halves up).
  static func millisecond(_ index: Int, fps: Int) -> Int64 {
    (Int64(index) * 2000 + Int64(fps)) / (2 * Int64(fps))
  }

  /// How long frame `index` lasts on the millisecond grid.
  static func milliseconds(ofFrame index: Int, fps: Int) -> Int64 {
    millisecond(index + 1, fps: fps) - millisecond(index, fps: fps)
  }

  /// Every muxer option a loop's file gets: the container's own (`ContainerSpec.options`), then
  /// the timing ones. `join` writes its files with the same.
  static func muxerOptions(format: OutputFormat, fps: Int, frameCount: Int, audio: Bool) -> [MuxerOption] {
    let timing: [MuxerOption]
    switch format {
    case .mp4, .mov:
      // The table's movflags carry +negative_cts_offsets; without audio no edit is needed at all.
      timing = audio ? [] : [MuxerOption("use_editlist", "0")]
    case .apng:
      // The muxer repeats the previous delay for the last frame unless told.
      timing = [MuxerOption("final_delay", "\(milliseconds(ofFrame: frameCount - 1, fps: fps))/1000")]
    default:
      timing = []
    }
    return format.spec.options(fps: fps) + timing
  }

  /// `muxerOptions` for an output's settings.
  static func muxerOptions(_ settings: OutputSettings) -> [MuxerOption] {
    muxerOptions(
      format: settings.format, fps: settings.fps, frameCount: settings.frameCount, audio: settings.audio != nil)
  }

  /// The time base the muxer is given for the video stream: milliseconds for APNG and WebP, else
  /// the codec's.
  static func streamTimeBase(_ settings: OutputSettings) -> AVRational {
    onMillisecondGrid(settings) ? AVRational(num: 1, den: 1000) : AVRational(num: 1, den: Int32(settings.fps))
  }

  /// Whether the frames are timed in whole milliseconds (APNG and WebP: Chromium truncates their
  /// delays to milliseconds).
  static func onMillisecondGrid(_ settings: OutputSettings) -> Bool {
    settings.codec == .apng || settings.codec == .webp
  }

  /// Sets a video packet's duration and moves its times from the codec's 1/fps time base into
  /// the stream's: one frame long, or for APNG and WebP onto the millisecond grid.
  static func retime(
    _ packet: UnsafeMutablePointer<AVPacket>, settings: OutputSettings, codecTimeBase: AVRational,
    streamTimeBase: AVRational
  ) {
    let p = packet
    if onMillisecondGrid(settings) {
      let frame = Int(p.pointee.pts)
      p.pointee.pts = millisecond(frame, fps: settings.fps)
      p.pointee.dts = p.pointee.pts
      p.pointee.duration = milliseconds(ofFrame: frame, fps: settings.fps)
      av_packet_rescale_ts(p, AVRational(num: 1, den: 1000), streamTimeBase)
      return
    }
    // libx264 and libvpx leave the duration at 0; the last frame would last 0 s
    // (docs/ENCODING.md, Seamless loops).
    p.pointee.duration = 1  // one frame in the codec's 1/fps time base
    if settings.codec == .hevc, settings.frameCount + settings.loopClosingFrames < 3 {
      // libx265 3.5 times an encode of fewer than three frames from a field it never sets: the
      // decoding times come out as leftovers of the heap, sometimes far enough below the
      // presentation times to abort FFmpeg 5.1's MP4 muxer. So few frames are never reordered,
      // so each is decoded when it is shown (docs/ENCODING.md, Packet times).
      p.pointee.dts = p.pointee.pts
    }
    av_packet_rescale_ts(p, codecTimeBase, streamTimeBase)
  }

  // MARK: - Matroska

  /// Sets a finished Matroska file's Duration (and any per-track DURATION tag that says more) to
  /// `seconds`, in place through `descriptor`.
  ///
  /// FFmpeg 5.1's Matroska muxer writes the end of the last block, in block time, as the
  /// Duration. Opus blocks are stamped with their pre-skip (CodecDelay, 6.5 ms) ahead of the
  /// time they play, so a loop with sound said 10.007 s for 10 s of frames and sound.
  static func setMatroskaDuration(descriptor: Int32, seconds: Double) throws {
    let size = lseek(descriptor, 0, SEEK_END)
    guard size > 0 else { throw VideoError.io("Matroska file is empty") }
    func read(_ offset: Int, _ count: Int) -> [UInt8] {
      FileBytes.read(descriptor, at: offset, count: max(0, min(count, Int(size) - offset))) ?? []
    }
    func write(_ bytes: [UInt8], at offset: Int) throws {
      guard FileBytes.write(bytes, descriptor, at: offset) else {
        throw VideoError.io("cannot rewrite the Matroska duration: \(String(cString: strerror(errno)))")
      }
    }
    // An element's ID (kept whole) and size at `offset` in `data`, and where its body starts.
    func element(_ data: [UInt8], _ offset: Int) -> (id: UInt32, size: Int, body: Int)? {
      func vint(_ at: Int, keepMarker: Bool) -> (value: UInt64, length: Int)? {
        guard at < data.count, data[at] != 0 else { return nil }
        let length = data[at].leadingZeroBitCount + 1
        guard length <= 8, at + length <= data.count else { return nil }
        var value = UInt64(keepMarker ? data[at] : data[at] & (0xFF >> length))
        for i in 1..<length { value = value << 8 | UInt64(data[at + i]) }
        if !keepMarker && value == (UInt64(1) << (7 * UInt64(length))) - 1 { value = UInt64.max }  // unknown size
        return (value, length)
      }
      guard let id = vint(offset, keepMarker: true), id.length <= 4,
        let size = vint(offset + id.length, keepMarker: false)
      else { return nil }
      return (
        UInt32(id.value), size.value > UInt64(Int.max / 2) ? -1 : Int(size.value), offset + id.length + size.length
      )
    }
    // The EBML header, then the Segment; its children are read one header at a time.
    let head = read(0, 64)
    guard let ebml = element(head, 0), ebml.id == 0x1A45_DFA3, ebml.size >= 0 else {
      throw VideoError.io("not a Matroska file")
    }
    let segmentHead = read(ebml.body + ebml.size, 16)
    guard let segment = element(segmentHead, 0), segment.id == 0x1853_8067 else {
      throw VideoError.io("Matroska file without a Segment")
    }
    let segmentStart = ebml.body + ebml.size + segment.body
    let segmentEnd = segment.size < 0 ? Int(size) : min(Int(size), segmentStart + segment.size)
    var offset = segmentStart
    var scale = 1_000_000.0  // TimestampScale, ns a tick
    var patchedDuration = false
    while offset < segmentEnd {
      guard let child = element(read(offset, 16), 0), child.size >= 0 else { break }
      let bodyStart = offset + child.body
      if child.id == 0x1549_A966 || child.id == 0x1254_C367, child.size <= 1 << 20 {  // Info, Tags
        let body = read(bodyStart, child.size)
        if child.id == 0x1549_A966 {
          var p = 0
          var durationAt: (Int, Int)? = nil
          while p < body.count, let e = element(body, p), e.size >= 0 {
            if e.id == 0x2A_D7B1 {
              scale = Double(body[e.body..<(e.body + e.size)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            }
            if e.id == 0x4489 { durationAt = (e.body, e.size) }
            p = e.body + e.size
          }
          if let (at, count) = durationAt {
            let ticks = seconds * 1e9 / scale
            let bytes: [UInt8] =
              count == 8
              ? withUnsafeBytes(of: ticks.bitPattern.bigEndian, Array.init)
              : withUnsafeBytes(of: Float(ticks).bitPattern.bigEndian, Array.init)
            guard count == 4 || count == 8 else { throw VideoError.io("Matroska Duration of \(count) bytes") }
            try write(bytes, at: bodyStart + at)
            patchedDuration = true
          }
        } else {
          try fixDurationTags(body, bodyStart: bodyStart, seconds: seconds, element: element, write: write)
        }
      }
      offset = bodyStart + child.size
    }
    if !patchedDuration { throw VideoError.io("Matroska file without a Duration") }
  }

  /// Per-track DURATION tags (`HH:MM:SS.nnnnnnnnn`) longer than `seconds` get `seconds`.
  private static func fixDurationTags(
    _ tags: [UInt8], bodyStart: Int, seconds: Double,
    element: ([UInt8], Int) -> (id: UInt32, size: Int, body: Int)?, write: ([UInt8], Int) throws -> Void
  ) throws {
    // Tag (0x7373) > SimpleTag (0x67C8) > TagName (0x45A3) and TagString (0x4487).
    func children(_ from: Int, _ to: Int) -> [(id: UInt32, size: Int, body: Int)] {
      var list: [(id: UInt32, size: Int, body: Int)] = []
      var p = from
      while p < to, let e = element(tags, p), e.size >= 0, e.body + e.size <= to {
        list.append(e)
        p = e.body + e.size
      }
      return list
    }
    for tag in children(0, tags.count) where tag.id == 0x7373 {
      for simple in children(tag.body, tag.body + tag.size) where simple.id == 0x67C8 {
        let fields = children(simple.body, simple.body + simple.size)
        guard let name = fields.first(where: { $0.id == 0x45A3 }),
          String(decoding: tags[name.body..<(name.body + name.size)], as: UTF8.self) == "DURATION",
          let value = fields.first(where: { $0.id == 0x4487 })
        else { continue }
        let text = String(decoding: tags[value.body..<(value.body + value.size)], as: UTF8.self)
          .trimmingCharacters(in: CharacterSet(charactersIn: "\0 "))
        let parts = text.split(separator: ":")
        guard parts.count == 3, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]),
          h * 3600 + m * 60 + s > seconds
        else { continue }
        let nanoseconds = Int64((seconds * 1e9).rounded())
        let whole = nanoseconds / 1_000_000_000
        let fraction = String(nanoseconds % 1_000_000_000)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let replacement =
          "\(two(whole / 3600)):\(two(whole / 60 % 60)):\(two(whole % 60))."
          + String(repeating: "0", count: 9 - fraction.count) + fraction
        var bytes = Array(replacement.utf8)
        guard bytes.count <= value.size else { continue }
        bytes += [UInt8](repeating: 0, count: value.size - bytes.count)
        try write(bytes, bodyStart + value.body)
      }
    }
  }
}
