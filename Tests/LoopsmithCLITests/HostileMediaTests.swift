import CLibAV
import Foundation
import Testing
import _TestSupport

/// Media files from anywhere through `check`, `join` and `render --audio`: sizes that overflow an
/// offset, frames that change size, files that name other files, headers that declare more work
/// or memory than the file holds (docs/ENCODING.md, Reading files we did not write). Each answer
/// is one line on stderr and an exit status, in bounded time.
@Suite struct HostileMediaTests {
  static let small = ["--size", "32x56", "--fps", "4", "--duration", "2", "--quiet"]

  /// A folder with a small H.264 loop, its WebM and a WAV.
  static func fixtures() throws -> TemporaryDirectory {
    let dir = TemporaryDirectory("hostile-media")
    let r = try runLoopsmith(["render", "color-orbs", "-o", "a.mp4", "-o", "a.webm"] + small, in: dir.url)
    #expect(r.status == 0, "\(r.stderr)")
    try wavBytes(samples: toneSamples(seconds: 1, frequency: 220, peak: 8000), rate: 48_000)
      .write(to: dir.url.appendingPathComponent("voice.wav"))
    return dir
  }

  static func expectOneLine(_ r: RunResult, status: Int32, containing text: String, _ what: String) {
    #expect(r.status == status, "\(what): status \(r.status): \(r.stderr)")
    let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: true)
    #expect(lines.count == 1, "\(what): \(r.stderr)")
    #expect(r.stderr.contains(text), "\(what): \(r.stderr)")
  }

  /// The offset of the first top-level box of `type` in an MP4, and its size.
  static func box(_ type: String, in data: Data) -> (offset: Int, size: Int)? {
    var offset = 0
    while offset + 8 <= data.count {
      let size = data[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
      if String(decoding: data[(offset + 4)..<(offset + 8)], as: UTF8.self) == type { return (offset, size) }
      guard size >= 8 else { return nil }
      offset += size
    }
    return nil
  }

  static func bigEndian32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * $0)) } }
  static func bigEndian64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * $0)) } }

  /// `data` with `insert` placed at the end of its `moov`, whose size grows to hold it.
  static func insertingIntoMoov(_ data: Data, _ insert: [UInt8]) throws -> Data {
    let moov = try #require(box("moov", in: data))
    var out = Data(data[..<moov.offset])
    out.append(contentsOf: bigEndian32(moov.size + insert.count))
    out.append(data[(moov.offset + 4)..<(moov.offset + moov.size)])
    out.append(contentsOf: insert)
    out.append(data[(moov.offset + moov.size)...])
    return out
  }

  // MARK: - Our own parsers are total

  @Test func boxSizesThatOverflowAnOffsetEndTheWalkInsteadOfTrapping() throws {
    let dir = try Self.fixtures()
    let mp4 = try Data(contentsOf: dir.url.appendingPathComponent("a.mp4"))
    // An appended free box of 64-bit size 2^64 - 1.
    var appended = mp4
    appended.append(contentsOf: Self.bigEndian32(1) + Array("free".utf8) + Self.bigEndian64(.max))
    try appended.write(to: dir.url.appendingPathComponent("appended.mp4"))
    // A second moov at the end (libav skips it, the box walker reads it) whose child has
    // largesize 2^63 - 1.
    var child = mp4
    child.append(
      contentsOf: Self.bigEndian32(24) + Array("moov".utf8) + Self.bigEndian32(1) + Array("free".utf8)
        + Self.bigEndian64(UInt64(Int64.max)))
    try child.write(to: dir.url.appendingPathComponent("child.mp4"))
    for name in ["appended.mp4", "child.mp4"] {
      let r = try runLoopsmith(["check", name, "--no-against"], in: dir.url, seconds: 120)
      #expect([0, 1, 2].contains(r.status), "\(name): status \(r.status) (132 is a trap): \(r.stderr)")
      #expect(!r.stderr.contains("Fatal error"), "\(name): \(r.stderr)")
      #expect(r.stdout.contains("frames 8"), "\(name): \(r.stdout)")
    }
  }

  @Test func aSpliceWhoseFramesChangeSizeMidStreamIsRefusedNotTrapped() throws {
    let dir = try Self.fixtures()
    let r0 = try runLoopsmith(
      ["render", "color-orbs", "-o", "large.webm", "--size", "48x64", "--fps", "4", "--duration", "2", "--quiet"],
      in: dir.url)
    #expect(r0.status == 0, "\(r0.stderr)")
    // One WebM whose first 4 frames are 32x56 and whose last 4 are 48x64: its header says 32x56.
    try remuxVP9(
      [(dir.path("a.webm"), 0..<4), (dir.path("large.webm"), 0..<4)], header: dir.path("a.webm"),
      into: dir.path("changing.webm"))
    // The splice's far side, whose second picture (read with its first) is the larger one.
    try remuxVP9(
      [(dir.path("a.webm"), 0..<1), (dir.path("large.webm"), 0..<7)], header: dir.path("a.webm"),
      into: dir.path("larger.webm"))
    for (args, frame) in [(["check", "a.webm", "--then", "larger.webm"], 1), (["check", "changing.webm"], 4)] {
      let r = try runLoopsmith(args + ["--no-against"], in: dir.url, seconds: 120)
      Self.expectOneLine(
        r, status: 2, containing: "frame \(frame) is 48x64, where the stream declares 32x56",
        args.joined(separator: " ") + ": " + r.stdout)
    }
  }

  // MARK: - Only the named file is read

  @Test func aFileThatNamesOtherFilesIsRefusedByItsFormatAndOpensNothing() throws {
    let dir = try Self.fixtures()
    let fifo = dir.path("fifo")
    #expect(mkfifo(fifo, 0o644) == 0)
    let outside = TemporaryDirectory("hostile-outside")
    try "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\n\(dir.path("a.mp4"))\n#EXT-X-ENDLIST\n".write(
      toFile: outside.path("list.m3u8"), atomically: true, encoding: .utf8)
    let scripts = [
      "fifo": "ffconcat version 1.0\nfile 'fifo'\n",
      "self": "ffconcat version 1.0\nfile 'self.mp4'\nfile 'self.mp4'\n",
      "outside": "ffconcat version 1.0\nfile '\(outside.path("list.m3u8"))'\n",
      "link": "ffconcat version 1.0\nfile 'link.mp4'\n",
    ]
    #expect(symlink(dir.path("a.mp4"), dir.path("link.mp4")) == 0)
    for (name, script) in scripts {
      try script.write(toFile: dir.path("\(name).mp4"), atomically: true, encoding: .utf8)
      try script.write(toFile: dir.path("\(name).wav"), atomically: true, encoding: .utf8)
    }
    // An HLS playlist named directly.
    for name in ["playlist.mp4", "playlist.wav"] {
      try "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\nfifo\n#EXT-X-ENDLIST\n".write(
        toFile: dir.path(name), atomically: true, encoding: .utf8)
    }
    for name in scripts.keys.sorted() + ["playlist"] {
      let check = try runLoopsmith(["check", "\(name).mp4", "--no-against"], in: dir.url, seconds: 60)
      Self.expectOneLine(check, status: 2, containing: "which is not read here", "check \(name)")
      let join = try runLoopsmith(
        ["join", "\(name).mp4", "a.mp4", "-o", "joined-\(name).mp4"], in: dir.url, seconds: 60)
      Self.expectOneLine(join, status: 2, containing: "which is not read here", "join \(name)")
      #expect(!FileManager.default.fileExists(atPath: dir.path("joined-\(name).mp4")))
      let audio = try runLoopsmith(
        ["render", "voice-orb", "--state", "speaking", "--audio", "\(name).wav", "-o", "orb-\(name).mp4"] + Self.small,
        in: dir.url, seconds: 60)
      Self.expectOneLine(audio, status: 2, containing: "which is not read here", "--audio \(name)")
      #expect(!FileManager.default.fileExists(atPath: dir.path("orb-\(name).mp4")))
    }
  }

  @Test func aStopSignalEndsAnAudioReadAtOnce() throws {
    let dir = try Self.fixtures()
    // Ten minutes of sound: reading it takes a moment; SIGTERM must end the render within a second.
    try wavBytes(samples: toneSamples(seconds: 600, frequency: 220, peak: 8000), rate: 48_000)
      .write(to: dir.url.appendingPathComponent("long.wav"))
    let process = Process()
    process.executableURL = loopsmithBinary()
    process.arguments = [
      "render", "voice-orb", "--state", "speaking", "--audio", "long.wav", "-o", "orb.mp4", "--size", "32x56", "--fps",
      "4", "--duration", "600", "--quiet",
    ]
    process.currentDirectoryURL = dir.url
    let err = Pipe()
    process.standardError = err
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    usleep(400_000)
    let sent = Date()
    kill(process.processIdentifier, SIGTERM)
    let r = try collect(process, stdout: nil, stderr: err, seconds: 60)
    let waited = Date().timeIntervalSince(sent)
    #expect(r.status == 128 + SIGTERM, "\(r.stderr)")
    #expect(waited < 5, "the render went on \(waited) s after SIGTERM")
    #expect(!FileManager.default.fileExists(atPath: dir.path("orb.mp4")))
  }

  // MARK: - check has a budget

  /// A GIF of `frames` frames of one pixel each on a `width` x `height` screen: a few bytes a frame.
  static func gif(width: Int, height: Int, frames: Int) -> Data {
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8)] }
    var g = Array("GIF89a".utf8) + le16(width) + le16(height) + [0, 0, 0]
    for _ in 0..<frames {
      g += [0x21, 0xF9, 0x04, 0x00, 0x0A, 0x00, 0x00, 0x00]  // 0.1 s
      g += [0x2C] + le16(0) + le16(0) + le16(1) + le16(1) + [0x80, 0xFF, 0, 0, 0, 0, 0]
      g += [0x02, 0x02, 0x44, 0x01, 0x00]
    }
    return Data(g + [0x3B])
  }

  @Test func checkRefusesWhatTheHeadersSayWouldNotFitBeforeDecoding() throws {
    let dir = TemporaryDirectory("hostile-budget")
    // 43 bytes declaring an 8192x4320 screen: over a 1 GiB budget, refused before a frame is decoded.
    try Self.gif(width: 8192, height: 4320, frames: 1).write(to: dir.url.appendingPathComponent("screen.gif"))
    let memory = try runLoopsmith(["check", "screen.gif", "--memory-limit", "1G"], in: dir.url, seconds: 60)
    Self.expectOneLine(memory, status: 2, containing: "--memory-limit: checking screen.gif (8192x4320", "memory")
    #expect(memory.stderr.contains("the memory budget is 1.0 GiB"), "\(memory.stderr)")
    // 2,400 frames of that screen: 85 G pixels to decode from 60 KB.
    try Self.gif(width: 8192, height: 4320, frames: 2400).write(to: dir.url.appendingPathComponent("frames.gif"))
    let work = try runLoopsmith(["check", "frames.gif"], in: dir.url, seconds: 120)
    Self.expectOneLine(work, status: 2, containing: "checking 2400 frames of 8192x4320 decodes 84.9 G pixels", "work")
    let limit = try runLoopsmith(["check", "screen.gif", "--memory-limit", "lots"], in: dir.url, seconds: 60)
    Self.expectOneLine(limit, status: 2, containing: "--memory-limit: 'lots' is not valid", "a bad limit")
  }

  @Test func aFileOfManyStreamsIsRefusedBeforeItsDecodersOpen() throws {
    let dir = try Self.fixtures()
    let mp4 = try Data(contentsOf: dir.url.appendingPathComponent("a.mp4"))
    let moov = try #require(Self.box("moov", in: mp4))
    let inner = Data(mp4[(moov.offset + 8)..<(moov.offset + moov.size)])
    let trak = try #require(Self.box("trak", in: inner))
    let copies = (0..<40).flatMap { _ in Array(inner[trak.offset..<(trak.offset + trak.size)]) }
    try Self.insertingIntoMoov(mp4, copies).write(to: dir.url.appendingPathComponent("tracks.mp4"))
    let r = try runLoopsmith(["check", "tracks.mp4", "--no-against"], in: dir.url, seconds: 60)
    Self.expectOneLine(
      r, status: 2, containing: "tracks.mp4: the file holds 41 streams; expected at most 8", "41 tracks")
  }
}

// MARK: - A WebM of VP9 packets from several files

/// Writes a WebM whose video is `parts`' VP9 packets (each file's packets in its range, in
/// order), under the first file's stream header: a stream whose pictures change size where a
/// part of another size starts. Test-only remuxing through libav.
/// With `tags`, the header file's container tags too (a segment's frame range and preset tag).
func remuxVP9(
  _ parts: [(path: String, packets: Range<Int>)], header: String, into output: String, tags: Bool = false
) throws {
  struct Failure: Error, CustomStringConvertible { var description: String }
  var out: UnsafeMutablePointer<AVFormatContext>? = nil
  guard avformat_alloc_output_context2(&out, nil, "webm", output) >= 0, let out else {
    throw Failure(description: "cannot make a WebM muxer")
  }
  defer { avformat_free_context(out) }
  var stream: UnsafeMutablePointer<AVStream>?
  var written = 0
  let packet = av_packet_alloc()
  defer {
    var p = packet
    av_packet_free(&p)
  }
  for (index, part) in parts.enumerated() {
    var input: UnsafeMutablePointer<AVFormatContext>? = nil
    guard avformat_open_input(&input, part.path, nil, nil) >= 0, let ic = input else {
      throw Failure(description: "cannot open \(part.path)")
    }
    defer { avformat_close_input(&input) }
    guard avformat_find_stream_info(ic, nil) >= 0, let source = ic.pointee.streams[0] else {
      throw Failure(description: "no stream in \(part.path)")
    }
    if index == 0 {
      guard let s = avformat_new_stream(out, nil) else { throw Failure(description: "no stream") }
      var headerInput: UnsafeMutablePointer<AVFormatContext>? = nil
      guard avformat_open_input(&headerInput, header, nil, nil) >= 0, let hc = headerInput,
        avformat_find_stream_info(hc, nil) >= 0, let declared = hc.pointee.streams[0]
      else { throw Failure(description: "cannot open \(header)") }
      avcodec_parameters_copy(s.pointee.codecpar, declared.pointee.codecpar)
      if tags { av_dict_copy(&out.pointee.metadata, hc.pointee.metadata, 0) }
      avformat_close_input(&headerInput)
      s.pointee.codecpar.pointee.codec_tag = 0
      s.pointee.time_base = source.pointee.time_base
      guard avio_open(&out.pointee.pb, output, AVIO_FLAG_WRITE) >= 0, avformat_write_header(out, nil) >= 0 else {
        throw Failure(description: "cannot write \(output)")
      }
      stream = s
    }
    guard let stream else { break }
    var n = 0
    while av_read_frame(ic, packet) >= 0 {
      defer { av_packet_unref(packet) }
      guard packet!.pointee.stream_index == 0 else { continue }
      defer { n += 1 }
      guard part.packets.contains(n) else { continue }
      let step = av_rescale_q(1, AVRational(num: 1, den: 4), stream.pointee.time_base)
      packet!.pointee.pts = Int64(written) * step
      packet!.pointee.dts = packet!.pointee.pts
      packet!.pointee.duration = step
      packet!.pointee.pos = -1
      if n == part.packets.lowerBound { packet!.pointee.flags |= AV_PKT_FLAG_KEY }
      guard av_interleaved_write_frame(out, packet) >= 0 else { throw Failure(description: "cannot write a packet") }
      written += 1
    }
  }
  av_write_trailer(out)
  avio_closep(&out.pointee.pb)
}
