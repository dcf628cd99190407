import CHints
import CLibAV
import Foundation

/// What the linked libav can do for each output format (`loopsmith doctor`): its versions, and
/// for every format the muxer, the encoders and the decoders it needs, each found or not.
public enum LibAVCapabilities {
  /// A library's name and its version (`61.3.100`).
  public struct Library: Sendable {
    public let name: String
    public let version: String
  }

  /// One libav component a format needs, and whether this build has it.
  public struct Component: Sendable {
    /// `muxer`, `encoder` or `decoder`.
    public let kind: String
    public let name: String
    /// What it is for (`video`, `audio`, `alpha`, `check`).
    public let role: String
    public let present: Bool
  }

  /// A container and codec pair, as `-o FILE` (and `--codec`) picks it.
  public struct FormatSupport: Sendable {
    public let format: OutputFormat
    public let codec: VideoCodec
    /// Whether it is the container's default codec (`-o x.mp4` without `--codec`).
    public let isDefault: Bool
    public let components: [Component]
    /// Whether every component the video needs is present (audio and checks aside).
    public var canWrite: Bool { components.filter { $0.role == "video" }.allSatisfy(\.present) }
    /// The components it needs that are missing.
    public var missing: [Component] { components.filter { !$0.present } }
  }

  /// The libav libraries, as linked at run time.
  public static var libraries: [Library] {
    func text(_ v: UInt32) -> String { "\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)" }
    return [
      Library(name: "libavcodec", version: text(avcodec_version())),
      Library(name: "libavformat", version: text(avformat_version())),
      Library(name: "libavutil", version: text(avutil_version())),
      Library(name: "libswscale", version: text(swscale_version())),
      Library(name: "libswresample", version: text(swresample_version())),
    ]
  }

  /// The FFmpeg release the libraries come from (`5.1.6-0+deb12u1`).
  public static var ffmpegVersion: String { String(cString: av_version_info()) }

  /// Every container and codec pair the format table offers, defaults first within a container.
  public static var formats: [FormatSupport] {
    OutputFormat.allCases.flatMap { format in
      format.spec.codecs.enumerated().map { index, codec in
        FormatSupport(
          format: format, codec: codec, isDefault: index == 0, components: components(format: format, codec: codec))
      }
    }
  }

  /// What writing `codec` in `format` needs, and what `check` needs to read it back.
  static func components(format: OutputFormat, codec: VideoCodec) -> [Component] {
    let spec = codec.spec
    var out = [
      Component(
        kind: "muxer", name: format.spec.muxer, role: "video",
        present: av_guess_format(format.spec.muxer, nil, nil) != nil),
      Component(
        kind: "encoder", name: spec.encoder, role: "video", present: avcodec_find_encoder_by_name(spec.encoder) != nil),
    ]
    // The decoder `check` and the tests read the file back with: the encoder's codec id.
    let id =
      avcodec_find_encoder_by_name(spec.encoder)?.pointee.id
      ?? avcodec_find_decoder_by_name(spec.libavName)?
      .pointee.id
    let decoder = id.flatMap { avcodec_find_decoder($0) }
    out.append(
      Component(
        kind: "decoder", name: decoder.map { String(cString: $0.pointee.name) } ?? spec.libavName, role: "check",
        present: decoder != nil))
    if codec == .vp9 {
      // VP9 alpha is a second stream in the WebM's side data; only libvpx decodes it.
      out.append(
        Component(
          kind: "decoder", name: "libvpx-vp9", role: "alpha",
          present: avcodec_find_decoder_by_name("libvpx-vp9") != nil))
    }
    if let audio = format.spec.audioEncoder {
      out.append(
        Component(kind: "encoder", name: audio, role: "audio", present: avcodec_find_encoder_by_name(audio) != nil))
    }
    return out
  }
}

/// The CPU features this build assumes and those the machine has.
public enum CPUFeatures {
  /// The architecture the binary was compiled for.
  public static var architecture: String {
    #if arch(x86_64)
      "x86_64"
    #elseif arch(arm64)
      "arm64"
    #else
      "other"
    #endif
  }

  /// The names `/proc/cpuinfo` uses for the features the bits of `chints_compiled_x86_features` stand for.
  static let x86Names = ["sse4_1", "sse4_2", "avx", "avx2", "fma", "bmi2", "f16c", "avx512f"]

  /// The instruction sets the build was compiled to use beyond the architecture's baseline
  /// (`make build CPU=x86-64-v3`: avx2, fma, ...); empty for a portable build.
  public static var compiled: [String] {
    #if arch(x86_64)
      let bits = chints_compiled_x86_features()
      return x86Names.enumerated().filter { bits & (1 << UInt32($0.offset)) != 0 }.map(\.element)
    #elseif arch(arm64)
      return ["neon"]  // part of arm64
    #else
      return []
    #endif
  }

  /// The machine's features among those that matter to the build (SIMD and FMA), from
  /// `/proc/cpuinfo`'s first `flags` (x86) or `Features` (arm) line; nil when it cannot be read.
  public static func machine(cpuinfo path: String = "/proc/cpuinfo") -> [String]? {
    guard let text = readSmallText(path) else { return nil }
    guard
      let line = text.split(separator: "\n").first(where: { $0.hasPrefix("flags") || $0.hasPrefix("Features") }),
      let colon = line.firstIndex(of: ":")
    else { return [] }
    let flags = Set(line[line.index(after: colon)...].split(separator: " ").map(String.init))
    let interesting = x86Names + ["sse2", "ssse3", "asimd", "fp", "sve"]
    return interesting.filter(flags.contains)
  }

  /// At most 1 MiB of a text file (procfs files have no size), or nil.
  private static func readSmallText(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_NONBLOCK)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var data: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while data.count < 1 << 20 {
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n <= 0 { break }
      data += buffer[0..<n]
    }
    return String(decoding: data, as: UTF8.self)
  }
}
