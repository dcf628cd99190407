import CLibAV
import Foundation

/// How loud a sound file is at each video frame, for effects that follow a voice.
public enum AudioLevels {
  /// Levels at or below this many dBFS count as silence (0).
  public static let floorDecibels = -50.0
  /// Levels at or above this many dBFS count as full (1).
  public static let ceilingDecibels = -10.0

  /// The loudness under each of `frameCount` video frames at `fps`, from 0 (silence) to 1.
  ///
  /// The sound is mixed to mono (the mean of its channels); frame i covers the samples from
  /// i/fps to (i+1)/fps, and its RMS in dBFS maps linearly from -50...-10 dB to 0...1 (clamped),
  /// roughly from a quiet room to a raised voice. Frames after the sound ends are 0.
  /// Throws `VideoError.io` for a missing file, `.libav` for one libav cannot read or decode,
  /// and `.invalidSettings` for a file with no audio or only silence.
  public static func envelope(path: String, fps: Int, frameCount: Int) throws -> [Double] {
    guard fps > 0, frameCount > 0 else {
      throw VideoError.invalidSettings("audio levels need fps and frame count above 0, got \(fps) and \(frameCount)")
    }
    silenceLibAVLog()
    let decoder = try AudioDecoder(soundAt: path)
    let rate = decoder.sampleRate
    var sums = [Double](repeating: 0, count: frameCount)
    var counts = [Int](repeating: 0, count: frameCount)
    var position = 0  // samples so far
    var peak: Float = 0
    let lastSample = (frameCount * rate + fps - 1) / fps
    try decoder.forEachMonoBlock { samples in
      for sample in samples {
        if position >= lastSample { return false }
        let frame = min(position * fps / rate, frameCount - 1)
        sums[frame] += Double(sample) * Double(sample)
        counts[frame] += 1
        peak = max(peak, abs(sample))
        position += 1
      }
      return true
    }
    if position == 0 { throw AudioDecoder.holdsNoSamples(path) }
    if peak == 0 { throw silent(path) }
    return levels(sums: sums, counts: counts)
  }

  /// Each frame's level from the sum of its samples' squares and their count: its RMS in dBFS,
  /// mapped from `floorDecibels`...`ceilingDecibels` to 0...1 (clamped); 0 for a frame without samples.
  static func levels(sums: [Double], counts: [Int]) -> [Double] {
    zip(sums, counts).map { sum, count in
      guard count > 0 else { return 0 }
      let rms = (sum / Double(count)).squareRoot()
      guard rms > 0 else { return 0 }
      return min(max((20 * log10(rms) - floorDecibels) / (ceilingDecibels - floorDecibels), 0), 1)
    }
  }

  static func silent(_ path: String) -> VideoError {
    .invalidSettings("\(path): the audio is silent; expected a voice recording")
  }
}

extension AudioLevels {
  /// The loudness under each frame of the sound as `fit` makes it the loop's length: for a
  /// shorter sound with `--audio-fit loop`, the repeats the file carries; otherwise the sound's
  /// own levels (`envelope(path:fps:frameCount:)`), which differ from the muxed sound only in its
  /// first 50 ms and last 5 ms.
  public static func envelope(path: String, fps: Int, frameCount: Int, fit: AudioFit) throws -> [Double] {
    guard fit == .loop, fps > 0, frameCount > 0 else {
      return try envelope(path: path, fps: fps, frameCount: frameCount)
    }
    let rate = 48000
    let length = AudioFit.loopSamples(frameCount: frameCount, fps: fps, rate: rate)
    silenceLibAVLog()
    let mono = try AudioDecoder(soundAt: path, rate: rate, channels: 1).samples(
      upTo: length + AudioFit.crossfadeSamples)
    // Longer: cut, as the sound's own levels say.
    guard mono.count < length else { return try envelope(path: path, fps: fps, frameCount: frameCount) }
    if !mono.contains(where: { $0 != 0 }) { throw silent(path) }
    let fitted = fit.fitted(mono, channels: 1, length: length)
    var sums = [Double](repeating: 0, count: frameCount)
    var counts = [Int](repeating: 0, count: frameCount)
    for (position, sample) in fitted.enumerated() {
      let frame = min(position * fps / rate, frameCount - 1)
      sums[frame] += Double(sample) * Double(sample)
      counts[frame] += 1
    }
    return levels(sums: sums, counts: counts)
  }
}

/// Decodes a file's first audio stream to interleaved float samples, optionally resampled.
final class AudioDecoder {
  let path: String
  /// The rate and channel count of the samples handed out.
  let sampleRate: Int
  let channels: Int
  /// The channels the resampler hands out: the source's own when they have no named layout
  /// (9-15 or 17-64 channels in a plain WAV) and `channels` differs, which swr cannot rematrix;
  /// then `forEachBlock` mixes them to `channels` itself, every source channel weighted equally.
  private let decodedChannels: Int
  private let input: InputContext
  private let context: CodecContext
  private let resampler: Resampler
  private let streamIndex: Int32

  /// Decodes at the source's rate and channels, or converts to `rate` and `channels` if given.
  /// `formats`: the demuxers the file may be read with (a video's sound: `.video`).
  init(
    file: InputFile, formats: Demuxers = .video, rate outputRate: Int? = nil, channels outputChannels: Int? = nil
  ) throws {
    let path = file.path
    self.path = path
    input = try InputContext(file: file, formats: formats)
    try input.findStreamInfo(path: path)
    let index = av_find_best_stream(input.pointer, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
    if index < 0 {
      throw VideoError.invalidSettings("\(path): no audio stream found")
    }
    streamIndex = index
    guard let stream = input.pointer.pointee.streams[Int(index)], let parameters = stream.pointee.codecpar,
      let codec = avcodec_find_decoder(parameters.pointee.codec_id)
    else {
      throw VideoError.libav(
        function: "avcodec_find_decoder", code: clibav_error(ENOSYS), message: "no decoder for this audio", path: path)
    }
    context = try CodecContext(codec: codec, path: path)
    try check(avcodec_parameters_to_context(context.pointer, parameters), "avcodec_parameters_to_context", path: path)
    try check(avcodec_open2(context.pointer, codec, nil), "avcodec_open2", path: path)
    let rate = Int(context.pointer.pointee.sample_rate)
    let sourceChannels = Int(context.pointer.pointee.ch_layout.nb_channels)
    guard rate > 0, sourceChannels > 0 else {
      throw VideoError.invalidSettings("\(path): the audio has no sample rate or channels; expected a sound file")
    }
    // The decoder may find other numbers than the header's, which InputContext checked.
    guard InputContext.sampleRates.contains(rate), sourceChannels <= InputContext.maximumChannels else {
      throw VideoError.invalidSettings(
        "\(path): the audio is \(rate) Hz with \(sourceChannels) channels; expected \(InputContext.sampleRates.lowerBound) to \(InputContext.sampleRates.upperBound) Hz and at most \(InputContext.maximumChannels) channels"
      )
    }
    sampleRate = outputRate ?? rate
    channels = outputChannels ?? sourceChannels
    if context.pointer.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC {
      av_channel_layout_default(&context.pointer.pointee.ch_layout, Int32(sourceChannels))
    }
    // libav names layouts for 1-8 and 16 channels only; others stay unnamed after the default.
    let unnamed = context.pointer.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC
    decodedChannels = unnamed ? sourceChannels : channels
    var layout = AVChannelLayout()
    if outputChannels != nil, !unnamed {
      av_channel_layout_default(&layout, Int32(channels))
    } else {
      try check(
        av_channel_layout_copy(&layout, &context.pointer.pointee.ch_layout), "av_channel_layout_copy", path: path)
    }
    defer { av_channel_layout_uninit(&layout) }
    resampler = try Resampler(
      from: &context.pointer.pointee.ch_layout, format: context.pointer.pointee.sample_fmt, rate: rate,
      to: &layout, format: AV_SAMPLE_FMT_FLT, rate: sampleRate, path: path)
  }

  /// Decodes a sound file a user named (`--audio`), within the audio size limit.
  convenience init(soundAt path: String, rate: Int? = nil, channels: Int? = nil) throws {
    try self.init(
      file: InputFile(path: path, limit: InputFile.Limit.audio, what: "audio file"), formats: .audio, rate: rate,
      channels: channels)
  }

  static func holdsNoSamples(_ path: String) -> VideoError {
    .invalidSettings("\(path): the audio stream holds no samples")
  }

  /// The first `count` interleaved samples, fewer when the sound is shorter; an error when it
  /// holds none.
  func samples(upTo count: Int) throws -> [Float] {
    var all: [Float] = []
    all.reserveCapacity(count)
    try forEachBlock { block in
      all.append(contentsOf: block.prefix(count - all.count))
      return all.count < count
    }
    if all.isEmpty { throw Self.holdsNoSamples(path) }
    return all
  }

  /// Calls `body` with each block of interleaved samples until it returns false or the file ends.
  func forEachBlock(_ body: ([Float]) throws -> Bool) throws {
    let packet = try Packet(path: path)
    let frame = try Frame(path: path)
    var interleaved: [Float] = []
    /// Converts `count` samples at `data` (nil flushes the resampler); false when `body` is done.
    func convert(_ data: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, _ count: Int) throws -> Bool {
      let capacity = Int(swr_get_out_samples(resampler.pointer, Int32(count))) + 256
      interleaved = [Float](repeating: 0, count: capacity * decodedChannels)
      let converted = try interleaved.withUnsafeMutableBytes { raw -> Int32 in
        var out: UnsafeMutablePointer<UInt8>? = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let input = data.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: UnsafePointer<UInt8>?.self) }
        return try check(
          swr_convert(resampler.pointer, &out, Int32(capacity), input, Int32(count)), "swr_convert", path: path)
      }
      guard converted > 0 else { return true }
      interleaved.removeLast(interleaved.count - Int(converted) * decodedChannels)
      Self.makeFinite(&interleaved)
      if decodedChannels != channels { interleaved = Self.mix(interleaved, from: decodedChannels, to: channels) }
      return try body(interleaved)
    }
    func receive() throws -> Bool {
      while true {
        let code = avcodec_receive_frame(context.pointer, frame.pointer)
        if code == errorAgain { return true }
        if code == errorEOF {
          _ = try convert(nil, 0)  // what the resampler still holds
          return false
        }
        try check(code, "avcodec_receive_frame", path: path)
        defer { av_frame_unref(frame.pointer) }
        if try !convert(frame.pointer.pointee.extended_data, Int(frame.pointer.pointee.nb_samples)) { return false }
      }
    }
    var ended = false
    while !ended {
      let code = av_read_frame(input.pointer, packet.pointer)
      if code == errorEOF {
        try check(avcodec_send_packet(context.pointer, nil), "avcodec_send_packet(NULL)", path: path)
        ended = true
      } else {
        try check(code, "av_read_frame", path: path)
        defer { av_packet_unref(packet.pointer) }
        guard packet.pointer.pointee.stream_index == streamIndex else { continue }
        try check(avcodec_send_packet(context.pointer, packet.pointer), "avcodec_send_packet", path: path)
      }
      if try !receive() { return }
    }
  }

  /// A float file may hold NaN or infinities, which poison a level's mean and which the AAC and
  /// Opus encoders refuse: NaN plays as silence, anything beyond full scale as full scale.
  static func makeFinite(_ samples: inout [Float]) {
    for i in samples.indices {
      let s = samples[i]
      if !(abs(s) <= 1) { samples[i] = s.isNaN ? 0 : (s < 0 ? -1 : 1) }
    }
  }

  /// `samples` of `from` interleaved channels as `to` channels, each the mean of all the source's.
  static func mix(_ samples: [Float], from: Int, to: Int) -> [Float] {
    let frames = samples.count / from
    var out = [Float](repeating: 0, count: frames * to)
    for i in 0..<frames {
      var sum: Float = 0
      for c in 0..<from { sum += samples[i * from + c] }
      for c in 0..<to { out[i * to + c] = sum / Float(from) }
    }
    return out
  }

  /// Calls `body` with each block mixed to mono (the mean of the channels).
  func forEachMonoBlock(_ body: ([Float]) throws -> Bool) throws {
    let channels = self.channels
    var mono: [Float] = []
    try forEachBlock { block in
      mono.removeAll(keepingCapacity: true)
      for i in 0..<(block.count / channels) {
        var sum: Float = 0
        for c in 0..<channels { sum += block[i * channels + c] }
        mono.append(sum / Float(channels))
      }
      return try body(mono)
    }
  }
}

/// A libswresample context.
final class Resampler {
  let pointer: OpaquePointer

  init(
    from inLayout: UnsafeMutablePointer<AVChannelLayout>, format inFormat: AVSampleFormat, rate inRate: Int,
    to outLayout: UnsafeMutablePointer<AVChannelLayout>, format outFormat: AVSampleFormat, rate outRate: Int,
    path: String
  ) throws {
    var context: OpaquePointer? = nil
    try check(
      swr_alloc_set_opts2(&context, outLayout, outFormat, Int32(outRate), inLayout, inFormat, Int32(inRate), 0, nil),
      "swr_alloc_set_opts2", path: path)
    guard let context else {
      throw VideoError.outOfMemory("swr_alloc_set_opts2", path: path)
    }
    pointer = context
    // Once `pointer` is set, deinit frees the context even when this initialiser throws:
    // freeing it here as well was a double free (a WAV claiming 2147483647 Hz).
    try check(swr_init(context), "swr_init", path: path)
  }

  deinit {
    var context: OpaquePointer? = pointer
    swr_free(&context)
  }
}
