/// A fraction such as a frame rate, 30/1.
public struct Rational: Sendable, Equatable, CustomStringConvertible {
  public var numerator: Int
  public var denominator: Int
  public init(_ numerator: Int, _ denominator: Int) { (self.numerator, self.denominator) = (numerator, denominator) }
  /// The value, or 0 when the denominator is 0 (libav's "unknown").
  public var value: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }
  public var description: String { "\(numerator)/\(denominator)" }
}

/// Facts about a file's first video stream, as a player or `loopsmith check` sees them.
public struct StreamInfo: Sendable {
  /// libavformat's name of the container, e.g. `mov,mp4,m4a,3gp,3g2,mj2` or `matroska,webm`.
  public var formatName: String
  /// The codec, e.g. `h264`, `hevc`, `vp9`, `png`.
  public var codecName: String
  /// The profile, e.g. `High`, `Main 10`, `Profile 0`; nil when libav knows none.
  public var profileName: String?
  /// The codec level as stored (H.264: 42 means 4.2); nil when unknown.
  public var level: Int?
  /// The stored pixel format, e.g. `yuv420p` (VP9 with alpha also says `yuv420p`: see `alphaMode`).
  public var pixelFormatName: String
  public var width: Int
  public var height: Int
  /// The average frame rate the container declares.
  public var frameRate: Rational
  /// The base ("real") frame rate.
  public var realFrameRate: Rational
  /// Frames in the stream, counted packet by packet (each of Loopsmith's packets holds one frame).
  public var frameCount: Int
  /// How many of those packets are key frames.
  public var keyframeCount: Int
  /// Whether the first packet is a key frame.
  public var firstPacketIsKeyframe: Bool
  /// The whole file's length in seconds.
  public var formatDuration: Double?
  /// The stream's own length in seconds; WebM stores none.
  public var streamDuration: Double?
  public var formatStartTime: Double?
  public var streamStartTime: Double?
  /// Colour tags as libav names them: `bt709`, `tv`, `unknown`...
  public var colorPrimaries: String
  public var colorTransfer: String
  public var colorMatrix: String
  public var colorRange: String
  /// Where the stream says its 4:2:0 chroma sits, as libav names it: `left` (also H.264's
  /// default when it says nothing), `center`, `unspecified`...
  public var chromaLocation = "unspecified"
  /// The sample entry's four characters (`avc1`, `hvc1`); empty when the container has none.
  public var codecTag: String
  /// MP4/MOV: whether the `moov` box comes before `mdat` (fast start); nil for other containers.
  public var moovBeforeMdat: Bool?
  /// MP4/MOV: entries in the video track's edit list (0 when it has none); nil for other containers.
  public var editListCount: Int?
  /// WebM: whether the stream says it carries VP9 alpha (`alpha_mode` 1).
  public var alphaMode: Bool
  /// The stored pixel format's samples, from libav's descriptor of it (not from its name).
  public var samples: SampleFormat
  /// Whether the decoded pictures carry alpha: the pixel format has an alpha plane (or is a
  /// palette, whose entries may be transparent), or the stream says it carries VP9 alpha.
  public var carriesAlpha: Bool { alphaMode || samples.alpha }
  public var hasAudio: Bool
  public var streamCount: Int
  /// The file's comment (MP4/MOV udta, a Matroska tag; in GIF, APNG and WebP a block of
  /// ImageComments) when it holds at most `commentLimit` bytes of UTF-8; of a longer one only its
  /// first 64 bytes, and `commentTooLong` says so.
  public var comment: String? = nil
  public var commentTooLong = false
  /// The longest comment read, in bytes.
  public static let commentLimit = 65536
}

/// What a pixel format's descriptor says of its samples.
public struct SampleFormat: Sendable, Equatable {
  /// Bits of the first component (8 for yuv420p, 10 for yuv420p10le).
  public var bitDepth: Int
  /// log2 of the chroma subsampling across and down (1 and 1 for 4:2:0, 0 and 0 for 4:4:4 or RGB).
  public var chromaShiftX: Int, chromaShiftY: Int
  /// An alpha plane, or a palette (whose entries may be transparent).
  public var alpha: Bool

  public var is420: Bool { chromaShiftX == 1 && chromaShiftY == 1 }
  public var is444: Bool { chromaShiftX == 0 && chromaShiftY == 0 }
}
