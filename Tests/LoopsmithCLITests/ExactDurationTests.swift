import CLibAV
import Foundation
import Testing
import _TestSupport

@testable import Video

/// Every file lasts exactly its loop, and starts at frame 0, in players that read only part of
/// the container (docs/ENCODING.md, Exact durations). The files come from the real binary; the
/// boxes, EBML elements and chunks are read here by hand, and the streams through libav.
@Suite struct ExactDurationTests {
  /// 1 s at 30 fps of the orbs, small: enough motion for B-frames.
  static func render(_ out: String, _ extra: [String] = []) throws {
    let r = try runLoopsmith(
      [
        "render", "color-orbs", "-o", out, "--size", "64x64", "--scale", "0.2", "--fps", "30", "--duration", "1",
        "--max-speed-change", "1", "--quiet",
      ] + extra)
    #expect(r.status == 0, "\(r.stderr)")
  }

  @Test(arguments: [("mp4", "h264"), ("mp4", "hevc"), ("mov", "h264")])
  func mp4StartsAtFrameZeroWithoutAnEditList(container: String, codec: String) throws {
    let dir = TemporaryDirectory()
    let out = dir.path("a.\(container)")
    try Self.render(out, ["--codec", codec])
    let boxes = try MP4BoxList(path: out)
    #expect(boxes.types.contains("moov") && boxes.types.contains("ctts"), "\(boxes.types)")
    #expect(!boxes.types.contains("elst") && !boxes.types.contains("edts"), "an edit list: \(boxes.types)")
    // B-frames shown before the frame decoded ahead of them: signed offsets (ctts version 1).
    let ctts = try #require(boxes.ctts)
    #expect(ctts.version == 1)
    #expect(ctts.offsets.first == 0, "frame 0's composition offset: \(ctts.offsets.prefix(8))")
    #expect(ctts.offsets.contains { $0 < 0 }, "no B-frame shown before its reference: \(ctts.offsets.prefix(8))")
    // 30 frames at 30 fps in a timescale of 30000: exactly 1 s in the movie and the track.
    #expect(boxes.movieDuration == 1.0 && boxes.mediaDuration == 1.0)
    let first = try firstVideoFrame(out)
    #expect(first.streamStart == 0 && first.framePTS == 0, "\(first)")
    #expect(first.frames == 30)
  }

  @Test func webmWithOpusLastsExactlyTheLoop() throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("voice.wav"), out = dir.path("orb.webm")
    try writeWAV(to: wav, silent: 0.2, loud: 1.5)  // longer than the 1 s loop
    let r = try runLoopsmith([
      "render", "voice-orb", "--audio", wav, "-o", out, "--size", "64x64", "--scale", "0.2", "--fps", "30",
      "--duration", "1", "--max-speed-change", "1", "--progress", "none",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let ebml = try MatroskaFacts(path: out)
    #expect(ebml.durationMilliseconds == 1000, "Segment Duration \(ebml.durationMilliseconds)")
    // libopus's pre-skip (312 samples) and 24 of the loop's end before it: 7 ms, a whole
    // millisecond of WebM's block times (AudioEncoder.preRoll).
    #expect(ebml.codecDelay == 7_000_000)
    #expect(ebml.durationTags.allSatisfy { $0 == "00:00:01.000000000" }, "\(ebml.durationTags)")
    #expect(try decodedSampleFrames(out) == 48000)
    let info = try VideoReader(path: out).info
    #expect(info.formatDuration == 1.0)
  }

  /// AAC in MP4 and Opus in WebM decode to exactly the loop's samples, the first at t = 0 and
  /// the sound's own onset where the source has it, after the container's trims: MP4's edit (media
  /// time: AAC's 1024 priming and the pre-roll that makes the stream whole frames; duration: the
  /// video's), WebM's CodecDelay (a whole millisecond) and DiscardPadding. Before, libav decoded
  /// 96256 samples of AAC for a 2 s loop (the last frame whole: 5.3 ms past the video's end).
  @Test(arguments: [1, 2])
  func aacAndOpusDecodeToExactlyTheLoop(seconds: Int) throws {
    let dir = TemporaryDirectory()
    let wav = dir.path("onset.wav")
    try Self.onsetWAV(wav, seconds: Double(seconds))
    let (mp4, webm) = (dir.path("orb.mp4"), dir.path("orb.webm"))
    let r = try runLoopsmith([
      "render", "voice-orb", "--state", "speaking", "--audio", wav, "-o", mp4, "-o", webm, "--size", "32x32", "--scale",
      "0.1", "--fps", "30",
      "--duration", String(seconds), "--max-speed-change", "1", "--background", "black", "--progress", "none",
    ])
    #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
    for path in [mp4, webm] {
      let sound = try decodedAudio(path)
      #expect(abs(sound.samples - seconds * 48000) <= 2, "\(path): \(sound.samples) samples")
      #expect(sound.firstTime == 0, "\(path): the first sample at \(sound.firstTime) s")
      #expect(abs(sound.onset - Self.onset) <= 3, "\(path): the tone starts at sample \(sound.onset)")
    }
    let boxes = try MP4BoxList(path: mp4)
    let audioEdit = try #require(boxes.edits.last?.first, "\(boxes.edits)")
    #expect(boxes.edits.count == 2 && boxes.edits.last?.count == 1, "\(boxes.edits)")
    // The movie's timescale is the video's (30000 at 30 fps): the edit lasts the loop.
    #expect(audioEdit.duration == seconds * 30000, "\(audioEdit)")
    #expect(audioEdit.mediaTime >= 1024 && (audioEdit.mediaTime + seconds * 48000) % 1024 == 0, "\(audioEdit)")
    #expect(try MatroskaFacts(path: webm).codecDelay == 7_000_000)
  }

  /// The first sample of `onsetWAV`'s tone above 0.1 after decoding: the tone starts at 0.25 s
  /// (sample 12000) at -6 dBFS, mixed to stereo 3 dB down, so it first passes 0.1 five samples in.
  static let onset = 12005

  /// `seconds` of mono 48 kHz: silence, then from 0.25 s a 440 Hz tone at half scale.
  static func onsetWAV(_ path: String, seconds: Double) throws {
    let samples =
      [Int16](repeating: 0, count: 12000) + toneSamples(seconds: seconds - 0.25, frequency: 440, peak: 16384)
    try wavBytes(samples: samples, rate: 48000).write(to: URL(fileURLWithPath: path))
  }

  @Test func webpFramesLastTheMillisecondGridToTheEnd() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("a.webp")
    try Self.render(out)
    let durations = try webpFrameDurations(out)
    #expect(durations.reduce(0, +) == 1000, "\(durations)")
    #expect(durations.last == 33 || durations.last == 34, "\(durations)")
    // Frame i starts at round(i * 1000 / 30) ms: 0, 33, 67, 100, ...
    if durations.count == 30 { #expect(Array(durations.prefix(3)) == [33, 34, 33]) }
  }

  @Test func apngDelaysAreWholeMilliseconds() throws {
    let dir = TemporaryDirectory()
    let out = dir.path("a.apng")
    try Self.render(out)
    let delays = try apngDelays(out)
    #expect(delays.count == 30)
    // Chromium truncates a delay to whole milliseconds: num * 1000 / den must be exact.
    #expect(delays.allSatisfy { ($0.num * 1000) % $0.den == 0 }, "\(delays)")
    let ms = delays.map { $0.num * 1000 / $0.den }
    #expect(ms.reduce(0, +) == 1000, "\(ms)")
    #expect(Array(ms.prefix(3)) == [33, 34, 33] && ms.last == 33, "\(ms)")
  }
}

extension ExactDurationTests {
  /// At other rates too (libwebp merges identical frames of this tiny, slow picture at 60 fps),
  /// and one frame, which libwebp and the apng muxer write as stills.
  @Test(arguments: [1, 7, 24, 60])
  func everyRateSumsToTheLoop(fps: Int) throws {
    let dir = TemporaryDirectory()
    let webp = dir.path("a.webp"), apng = dir.path("a.apng")
    let r = try runLoopsmith([
      "render", "color-orbs", "-o", webp, "-o", apng, "--size", "16x16", "--scale", "0.05", "--fps", "\(fps)",
      "--duration", "1", "--max-speed-change", "1", "--quiet",
    ])
    #expect(r.status == 0, "\(r.stderr)")
    let frames = try webpFrameDurations(webp)
    #expect(fps == 1 ? frames.isEmpty : frames.reduce(0, +) == 1000, "\(frames)")
    let delays = try apngDelays(apng)
    // One frame: the apng muxer writes a plain PNG, without frame controls.
    #expect(
      fps == 1 ? delays.isEmpty : delays.count == fps && delays.map { $0.num * 1000 / $0.den }.reduce(0, +) == 1000,
      "\(delays)")
  }
}

// MARK: - Readers, written for the tests

/// The boxes of an MP4 or MOV, in file order, with the few fields the tests check.
struct MP4BoxList {
  var types: [String] = []
  var ctts: (version: Int, offsets: [Int])?
  var movieDuration: Double?
  var mediaDuration: Double?
  /// Each track's edit list (version 0 entries: duration in the movie's timescale, media time).
  var edits: [[(duration: Int, mediaTime: Int)]] = []

  init(path: String) throws {
    let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    func u32(_ p: Int) -> Int { Int(data[p]) << 24 | Int(data[p + 1]) << 16 | Int(data[p + 2]) << 8 | Int(data[p + 3]) }
    let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts"]
    func walk(_ from: Int, _ to: Int) {
      var p = from
      while p + 8 <= to {
        var size = u32(p)
        let type = String(decoding: data[(p + 4)..<(p + 8)], as: UTF8.self)
        var header = 8
        if size == 1 { size = u32(p + 12); header = 16 }  // 64-bit sizes of small files
        if size == 0 { size = to - p }
        guard size >= header, p + size <= to else { return }
        types.append(type)
        let body = p + header
        switch type {
        case "ctts" where ctts == nil:
          let version = Int(data[body])
          var offsets: [Int] = []
          for i in 0..<u32(body + 4) {
            let count = u32(body + 8 + 8 * i)
            let value = Int(Int32(bitPattern: UInt32(u32(body + 12 + 8 * i))))
            offsets += Array(repeating: value, count: count)
          }
          ctts = (version, offsets)
        case "elst" where data[body] == 0:
          edits.append(
            (0..<u32(body + 4)).map { i in
              (u32(body + 8 + 12 * i), Int(Int32(bitPattern: UInt32(u32(body + 12 + 12 * i)))))
            })
        case "mvhd" where data[body] == 0:
          movieDuration = Double(u32(body + 16)) / Double(u32(body + 12))
        case "mdhd" where data[body] == 0 && mediaDuration == nil:
          mediaDuration = Double(u32(body + 16)) / Double(u32(body + 12))
        default: break
        }
        if containers.contains(type) { walk(body, p + size) }
        p += size
      }
    }
    walk(0, data.count)
  }
}

/// Frame 0 as libav's decoder hands it back: its time, the stream's start, and the frame count.
func firstVideoFrame(_ path: String) throws -> (streamStart: Int64, framePTS: Int64, frames: Int) {
  var context: UnsafeMutablePointer<AVFormatContext>? = nil
  guard avformat_open_input(&context, path, nil, nil) >= 0, let ic = context else {
    throw VideoError.io("open \(path)")
  }
  defer { avformat_close_input(&context) }
  guard avformat_find_stream_info(ic, nil) >= 0 else { throw VideoError.io("stream info \(path)") }
  let index = av_find_best_stream(ic, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
  guard index >= 0, let stream = ic.pointee.streams[Int(index)],
    let codec = avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id)
  else { throw VideoError.io("no video in \(path)") }
  var decoder = avcodec_alloc_context3(codec)
  defer { avcodec_free_context(&decoder) }
  avcodec_parameters_to_context(decoder, stream.pointee.codecpar)
  guard avcodec_open2(decoder, codec, nil) >= 0 else { throw VideoError.io("decoder for \(path)") }
  var packet = av_packet_alloc(), frame = av_frame_alloc()
  defer {
    av_packet_free(&packet)
    av_frame_free(&frame)
  }
  var firstPTS: Int64? = nil
  var frames = 0
  func receive() {
    while avcodec_receive_frame(decoder, frame) >= 0 {
      if firstPTS == nil { firstPTS = frame!.pointee.best_effort_timestamp }
      frames += 1
    }
  }
  while av_read_frame(ic, packet) >= 0 {
    if packet!.pointee.stream_index == index {
      avcodec_send_packet(decoder, packet)
      receive()
    }
    av_packet_unref(packet)
  }
  avcodec_send_packet(decoder, nil)
  receive()
  return (stream.pointee.start_time, firstPTS ?? -1, frames)
}

/// The sample frames the file's audio stream decodes to, after libav applies the pre-skip,
/// priming and end padding the container states.
func decodedSampleFrames(_ path: String) throws -> Int {
  let decoder = try AudioDecoder(file: InputFile(path: path, limit: InputFile.Limit.video, what: "file"))
  var count = 0
  try decoder.forEachBlock { block in
    count += block.count / decoder.channels
    return true
  }
  return count
}

/// A file's audio as libav decodes it after the container's trims: the sample frames, the time
/// of the first one in seconds, and the first sample frame whose left channel passes 0.1 (-1 for none).
func decodedAudio(_ path: String) throws -> (samples: Int, firstTime: Double, onset: Int) {
  var context: UnsafeMutablePointer<AVFormatContext>? = nil
  guard avformat_open_input(&context, path, nil, nil) >= 0, let ic = context else {
    throw VideoError.io("open \(path)")
  }
  defer { avformat_close_input(&context) }
  guard avformat_find_stream_info(ic, nil) >= 0 else { throw VideoError.io("stream info \(path)") }
  let index = av_find_best_stream(ic, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
  guard index >= 0, let stream = ic.pointee.streams[Int(index)],
    let codec = avcodec_find_decoder(stream.pointee.codecpar.pointee.codec_id)
  else { throw VideoError.io("no audio in \(path)") }
  var decoder = avcodec_alloc_context3(codec)
  defer { avcodec_free_context(&decoder) }
  avcodec_parameters_to_context(decoder, stream.pointee.codecpar)
  decoder!.pointee.pkt_timebase = stream.pointee.time_base  // so skipped samples move the times
  guard avcodec_open2(decoder, codec, nil) >= 0 else { throw VideoError.io("decoder for \(path)") }
  var packet = av_packet_alloc(), frame = av_frame_alloc()
  defer {
    av_packet_free(&packet)
    av_frame_free(&frame)
  }
  var first: Double?
  var (samples, onset) = (0, -1)
  func receive() {
    while avcodec_receive_frame(decoder, frame) >= 0, let f = frame {
      let tb = stream.pointee.time_base
      if first == nil { first = Double(f.pointee.best_effort_timestamp) * Double(tb.num) / Double(tb.den) }
      let count = Int(f.pointee.nb_samples)
      let planar = av_sample_fmt_is_planar(AVSampleFormat(rawValue: f.pointee.format)) != 0
      let step = planar ? 1 : Int(f.pointee.ch_layout.nb_channels)
      if onset < 0, AVSampleFormat(rawValue: f.pointee.format) == (planar ? AV_SAMPLE_FMT_FLTP : AV_SAMPLE_FMT_FLT),
        let data = f.pointee.extended_data[0]
      {
        let left = UnsafeRawPointer(data).assumingMemoryBound(to: Float.self)
        if let i = (0..<count).first(where: { abs(left[$0 * step]) > 0.1 }) { onset = samples + i }
      }
      samples += count
      av_frame_unref(f)
    }
  }
  while av_read_frame(ic, packet) >= 0 {
    if packet!.pointee.stream_index == index {
      avcodec_send_packet(decoder, packet)
      receive()
    }
    av_packet_unref(packet)
  }
  avcodec_send_packet(decoder, nil)
  receive()
  return (samples, first ?? .nan, onset)
}

/// The decoded audio of a file, interleaved, at its own rate.
func decodedSamples(_ path: String) throws -> (samples: [Float], channels: Int) {
  let decoder = try AudioDecoder(file: InputFile(path: path, limit: InputFile.Limit.video, what: "file"))
  var all: [Float] = []
  try decoder.forEachBlock { block in
    all += block
    return true
  }
  return (all, decoder.channels)
}

/// What a WebM says about its length: the Segment Duration in milliseconds, the Opus track's
/// CodecDelay in ns, and the per-track DURATION tags.
struct MatroskaFacts {
  var durationMilliseconds = -1.0
  var codecDelay = -1
  var durationTags: [String] = []

  init(path: String) throws {
    let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    func vint(_ p: Int, keep: Bool) -> (Int, Int) {
      let length = data[p].leadingZeroBitCount + 1
      var v = Int(keep ? data[p] : data[p] & (0xFF >> length))
      for i in 1..<length { v = v << 8 | Int(data[p + i]) }
      if !keep && v == (1 << (7 * length)) - 1 { v = -1 }
      return (v, length)
    }
    let masters: Set<Int> = [0x1853_8067, 0x1549_A966, 0x1654_AE6B, 0xAE, 0x1254_C367, 0x7373, 0x67C8]
    var lastTagName = ""
    func walk(_ from: Int, _ to: Int) {
      var p = from
      while p < to {
        let (id, idLength) = vint(p, keep: true)
        var (size, sizeLength) = vint(p + idLength, keep: false)
        let body = p + idLength + sizeLength
        if size < 0 { size = to - body }
        guard body + size <= to else { return }
        let bytes = data[body..<(body + size)]
        let uint = bytes.reduce(0) { $0 << 8 | Int($1) }
        switch id {
        case 0x4489:
          durationMilliseconds =
            size == 8 ? Double(bitPattern: UInt64(uint)) : Double(Float(bitPattern: UInt32(uint)))
        case 0x56AA: codecDelay = uint
        case 0x45A3: lastTagName = String(decoding: bytes, as: UTF8.self)
        case 0x4487 where lastTagName == "DURATION":
          durationTags.append(String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self))
        default: break
        }
        if masters.contains(id) { walk(body, body + size) }
        if id == 0x1F43_B675 { return }  // the clusters: nothing after them is needed
        p = body + size
      }
    }
    let (_, l) = vint(0, keep: true)
    let (headerSize, sl) = vint(l, keep: false)
    walk(l + sl + headerSize, data.count)
  }
}

/// Each ANMF frame's duration in a WebP, in milliseconds.
func webpFrameDurations(_ path: String) throws -> [Int] {
  let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  var out: [Int] = []
  var p = 12
  while p + 8 <= data.count {
    let size = Int(data[p + 4]) | Int(data[p + 5]) << 8 | Int(data[p + 6]) << 16 | Int(data[p + 7]) << 24
    if Array(data[p..<(p + 4)]) == Array("ANMF".utf8) {
      let d = p + 8 + 12
      out.append(Int(data[d]) | Int(data[d + 1]) << 8 | Int(data[d + 2]) << 16)
    }
    p += 8 + size + (size & 1)
  }
  return out
}

/// Each APNG frame's delay (fcTL delay_num / delay_den; 0 means 100).
func apngDelays(_ path: String) throws -> [(num: Int, den: Int)] {
  let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  var out: [(num: Int, den: Int)] = []
  var p = 8
  while p + 12 <= data.count {
    let size = Int(data[p]) << 24 | Int(data[p + 1]) << 16 | Int(data[p + 2]) << 8 | Int(data[p + 3])
    if Array(data[(p + 4)..<(p + 8)]) == Array("fcTL".utf8) {
      let b = p + 8 + 20
      let den = Int(data[b + 2]) << 8 | Int(data[b + 3])
      out.append((Int(data[b]) << 8 | Int(data[b + 1]), den == 0 ? 100 : den))
    }
    p += 12 + size
  }
  return out
}
