import CLibAV
import Foundation
import Raster
import Testing
import _TestSupport

@testable import Video

/// The table of formats holds, for every row, what the encoder, the converter, the gallery and
/// the checks read; and its limits are the encoders' own.
@Suite struct FormatTableTests {
  @Test(arguments: OutputFormat.allCases) func everyContainerHasWhatTheOthersRead(format: OutputFormat) {
    let spec = format.spec
    #expect(!spec.codecs.isEmpty)
    #expect(Set(spec.codecs).count == spec.codecs.count, "a codec listed twice")
    #expect(av_guess_format(spec.muxer, nil, nil) != nil, "this libav has no muxer \(spec.muxer)")
    #expect(spec.mimeType.split(separator: "/").count == 2)
    #expect(OutputFormat(path: "a." + format.rawValue.uppercased()) == format)
    if let encoder = spec.audioEncoder {
      #expect(avcodec_find_encoder_by_name(encoder) != nil, "no audio encoder \(encoder)")
      #expect(spec.isAnimated)
    }
    if spec.page == .video {
      #expect(spec.mimeType.hasPrefix("video/"))
      for codec in spec.codecs {
        #expect(codec.spec.codecsParameter != nil, "\(codec) plays in a <video> but has no codecs parameter")
      }
    }
    if spec.page == .image { #expect(spec.mimeType.hasPrefix("image/")) }
    // Every muxer option must be one the muxer knows: libav fails the header otherwise, and the
    // round trip below writes every container.
    for option in spec.options(fps: 25) { #expect(!option.name.isEmpty && !option.value.isEmpty) }
  }

  @Test(arguments: VideoCodec.allCases) func everyCodecHasWhatTheOthersRead(codec: VideoCodec) {
    let spec = codec.spec
    #expect(avcodec_find_encoder_by_name(spec.encoder) != nil, "this libav has no encoder \(spec.encoder)")
    #expect(avcodec_find_decoder_by_name(spec.libavName) != nil || spec.libavName == "apng")
    #expect(OutputFormat.allCases.contains { $0.spec.codecs.contains(codec) }, "no container holds \(codec)")
    #expect(spec.minimumSide >= 1 && spec.minimumSide <= spec.maximumSide)
    #expect(spec.minimumSide % spec.alignment == 0)
    let layouts = spec.layouts
    #expect(
      !layouts.eight.hasAlpha || layouts.alphaEight == layouts.eight,
      "an opaque layout with alpha must be the alpha one")
    for layout in [layouts.alphaEight, layouts.alphaTen].compactMap({ $0 }) { #expect(layout.hasAlpha) }
    // 4:2:0 layouts need an even size; the alignment says so.
    let subsampled: [PixelLayout] = [.yuv420p, .yuv420p10, .yuva420p]
    let all = [layouts.eight, layouts.ten, layouts.alphaEight, layouts.alphaTen].compactMap { $0 }
    #expect(all.contains(where: subsampled.contains) == (spec.alignment == 2))
    if let quality = spec.quality { #expect(quality.range.contains(quality.defaultValue)) }
    if let tag = spec.codecTag { #expect(tag.utf8.count == 4) }
  }

  /// Every container with every codec it holds, written at a size its codec takes and read back:
  /// the muxer, encoder, layout and libav name of each row agree.
  @Test(arguments: OutputFormat.allCases.flatMap { f in f.spec.codecs.map { (f, $0) } })
  func everyRowWritesAFileThatReadsBack(format: OutputFormat, codec: VideoCodec) throws {
    let folder = TemporaryDirectory()
    let path = folder.path("a." + format.rawValue)
    let side = max(16, codec.spec.minimumSide)
    let fps = codec.spec.fpsDivides.map { $0 / 4 } ?? 25
    let frames = format.isAnimated ? 3 : 1
    let s = try OutputSettings(path: path, codec: codec, width: side, height: side, fps: fps, frameCount: frames)
    let writer = try VideoWriter(s)
    for i in 0..<frames { try writer.append(testImage(width: side, height: side, frame: i)) }
    let written = try writer.finish()
    #expect(written.frames == frames && written.codec == codec)
    let reader = try VideoReader(path: path)
    #expect(reader.info.codecName == codec.spec.libavName)
    #expect(reader.info.width == side && reader.info.height == side)
    var decoded = 0
    while try reader.nextFrame() != nil { decoded += 1 }
    #expect(decoded == frames)
  }

  /// A codec's minimum side is the encoder's: one alignment step below it, avcodec_open2 fails.
  @Test(arguments: VideoCodec.allCases.filter { $0.spec.minimumSide > $0.spec.alignment })
  func theMinimumSideIsTheEncodersOwn(codec: VideoCodec) {
    let spec = codec.spec
    func opens(_ side: Int) -> Bool {
      guard let encoder = avcodec_find_encoder_by_name(spec.encoder),
        let context = try? CodecContext(codec: encoder, path: "")
      else { return false }
      let c = context.pointer
      c.pointee.width = Int32(side)
      c.pointee.height = Int32(side)
      c.pointee.pix_fmt = spec.layouts.eight.libavFormat
      c.pointee.time_base = AVRational(num: 1, den: 25)
      c.pointee.framerate = AVRational(num: 25, den: 1)
      c.pointee.thread_count = 1
      // As the Encoder does: SVT-AV1 run by root would put this test thread on SCHED_FIFO 99, and
      // the thread goes on to run other tests and start their children at that priority (CLibAV's shim).
      if codec == .av1 { _ = clibav_refuse_realtime_priority() }
      return avcodec_open2(c, encoder, nil) >= 0
    }
    silenceLibAVLog()
    var before = sched_param(), after = sched_param()
    let policy = sched_getscheduler(0)
    sched_getparam(0, &before)
    #expect(opens(spec.minimumSide))
    #expect(!opens(spec.minimumSide - spec.alignment))
    sched_getparam(0, &after)
    #expect(
      sched_getscheduler(0) == policy && after.sched_priority == before.sched_priority,
      "the test thread went from policy \(policy), priority \(before.sched_priority) to \(sched_getscheduler(0)), \(after.sched_priority)"
    )
    #expect(codec.sizeProblem(width: spec.minimumSide, height: spec.minimumSide) == nil)
    let small = spec.minimumSide - spec.alignment
    #expect(codec.sizeProblem(width: small, height: spec.minimumSide)?.contains("at least \(spec.minimumSide)") == true)
  }

  /// SVT-AV1 1.4 hangs in its deinit when opened and given no frame; a writer cancelled before
  /// its first frame (an interrupt, or a later output failing to open) must still let go.
  @Test(arguments: [OutputFormat.mp4, .webm]) func anAV1WriterCancelledBeforeItsFirstFrameLetsGo(
    format: OutputFormat
  ) throws {
    let folder = TemporaryDirectory()
    let writer = try VideoWriter(try settings(folder.path("a." + format.rawValue), frames: 4, codec: .av1))
    writer.cancel()
    #expect(files(in: folder.url.path).isEmpty)
  }

  @Test func theHelpAndTheChoicesComeFromTheTable() {
    for format in OutputFormat.allCases { #expect(OutputFormat.extensionList.contains("." + format.rawValue)) }
    #expect(VideoCodec.choosable == [.h264, .hevc, .vp9, .av1, .prores])
    #expect(VideoCodec.choiceList.hasPrefix("h264 (.mp4 default), hevc, vp9 (.webm default)"))
    #expect(VideoCodec.qualityRange == 0...100)
  }

  @Test func theCodecsParameterIsReadFromTheStream() throws {
    let folder = TemporaryDirectory()
    let path = folder.path("a.mp4")
    let writer = try VideoWriter(try settings(path, frames: 2))
    for i in 0..<2 { try writer.append(testImage(frame: i)) }
    _ = try writer.finish()
    let info = try VideoReader(path: path).info
    #expect(CodecSpec.codecsParameter(info)?.hasPrefix("avc1.6400") == true)
  }
}

/// One converter per output: the writer converts with the one the render threads use.
@Suite struct SharedConverterTests {
  @Test func aWriterUsesTheConverterItIsGiven() throws {
    let folder = TemporaryDirectory()
    let s = try settings(folder.path("a.webm"), frames: 1, keepAlpha: true)
    let converter = FrameConverter(s)
    let writer = try VideoWriter(s, converter: converter)
    #expect(writer.converter === converter)
    try writer.append(converter.convert(testImage(alpha: 0.5)))
    #expect(try writer.finish().pixelFormat == "yuva420p")
  }

  @Test func aConverterForOtherSettingsIsRefused() throws {
    let folder = TemporaryDirectory()
    let s = try settings(folder.path("a.webm"), frames: 1, keepAlpha: true)
    for other in [
      try settings(folder.path("b.webm"), width: 32, frames: 1, keepAlpha: true),  // another size
      try settings(folder.path("b.webm"), frames: 1),  // no alpha
      try settings(folder.path("b.mp4"), frames: 1),  // another codec, same layout, opaque
    ] {
      #expect(throws: VideoError.self) { try VideoWriter(s, converter: FrameConverter(other)) }
    }
    #expect(files(in: folder.url.path).isEmpty)
  }
}

/// The x265 parameters of frames one 64-pixel CTU wide or narrower (Encoder.narrowFrameParameters,
/// docs/ENCODING.md, Determinism): two CTUs across where the sizes allow, no cu-tree below 64.
@Test func narrowHEVCFramesGetSmallerCTUsAndNoCuTree() {
  #expect(Encoder.narrowFrameParameters(width: 16) == ":ctu=16:cutree=0")
  #expect(Encoder.narrowFrameParameters(width: 32) == ":ctu=16:cutree=0")
  #expect(Encoder.narrowFrameParameters(width: 34) == ":ctu=32:cutree=0")
  #expect(Encoder.narrowFrameParameters(width: 62) == ":ctu=32:cutree=0")
  #expect(Encoder.narrowFrameParameters(width: 64) == ":ctu=32")
  #expect(Encoder.narrowFrameParameters(width: 66) == "")
  #expect(Encoder.narrowFrameParameters(width: 1080) == "")
}
