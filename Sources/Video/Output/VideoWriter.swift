import CLibAV
import Foundation
import Raster

/// What `VideoWriter.finish()` wrote.
public struct WrittenFile: Sendable, Equatable {
  public var path: String
  /// The file's size; 0 for stdout.
  public var bytes: Int64
  public var frames: Int
  /// frames / fps, in seconds.
  public var duration: Double
  public var codec: VideoCodec
  /// libav's name of the encoded samples, e.g. `yuv420p`, `yuva420p`, `rgba`.
  public var pixelFormat: String
}

/// Encodes frames in order into one file, which appears at its path only when complete.
///
/// Use from one thread. Frames may be converted on other threads first (`converter`, then
/// `append(_: ConvertedFrame)`), so this thread only copies and encodes. Exactly
/// `settings.frameCount` frames must be appended before `finish()`. An unfinished writer
/// (cancelled, failed or released) deletes its temporary file; an older file at the path stays.
public final class VideoWriter {
  public let settings: OutputSettings
  /// The converter matching this writer's codec; thread-safe, share it with render threads.
  public let converter: FrameConverter
  private var temporary: TemporaryOutput?
  private var encoder: Encoder?
  private var y4m: Y4MWriter?
  private var scratch: ConvertedFrame?
  private var appended = 0
  private var state: State = .open

  private enum State: CustomStringConvertible {
    case open, flushed, finished, failed
    var description: String {
      switch self {
      case .open: "open"
      case .flushed: "flushed"
      case .finished: "finished"
      case .failed: "failed or cancelled"
      }
    }
  }

  /// A writer for `settings`, converting with `converter` when one made for the same settings is
  /// given (a render shares its converter with its render threads instead of building a second).
  public init(_ settings: OutputSettings, converter: FrameConverter? = nil) throws {
    try settings.validate()
    silenceLibAVLog()
    self.settings = settings
    let layout = FrameConverter.layout(for: settings)
    if let converter {
      guard converter.fits(settings) else {
        throw VideoError.invalidSettings(
          "a \(converter.width)x\(converter.height) converter given to a \(settings.width)x\(settings.height) \(settings.codec.rawValue) writer"
        )
      }
      self.converter = converter
    } else {
      self.converter = FrameConverter(settings)
    }
    if settings.path == "-" {
      y4m = try Y4MWriter(settings: settings, descriptor: STDOUT_FILENO)
      return
    }
    let temporary = try TemporaryOutput(destination: settings.path)
    self.temporary = temporary
    // Both write through the temporary's descriptor: the name is never opened again.
    if settings.format == .y4m {
      y4m = try Y4MWriter(settings: settings, descriptor: temporary.descriptor)
    } else {
      encoder = try Encoder(settings: settings, layout: layout, temporary: temporary)
    }
  }

  /// Converts and encodes the next frame.
  public func append(_ image: Image) throws {
    let frame = scratch ?? converter.makeFrame()
    scratch = frame
    converter.convert(image, into: frame)
    try append(frame)
  }

  /// The frames (of `settings.frameCount`) whose colours the palette should come from, for
  /// formats with a palette (GIF); empty for the others. Hand them, converted, to
  /// `addPaletteSample` before the first `append`; otherwise the palette comes from frame 0.
  public var paletteSampleFrames: [Int] {
    encoder?.indexedColour == true ? GIFPalette.Sampler.frameNumbers(count: settings.frameCount) : []
  }

  /// Adds a frame's colours to the palette (see `paletteSampleFrames`); ignored after the first `append`.
  public func addPaletteSample(_ frame: ConvertedFrame) throws {
    guard frame.width == settings.width, frame.height == settings.height, frame.layout == converter.layout else {
      throw VideoError.invalidSettings(
        "frame \(frame.width)x\(frame.height) does not match the writer's \(settings.width)x\(settings.height) output")
    }
    guard state == .open, appended == 0 else { return }
    encoder?.addPaletteSample(frame)
  }

  /// Encodes the next frame, converted by `converter` (possibly on another thread).
  public func append(_ frame: ConvertedFrame) throws {
    guard state == .open else { throw VideoError.io("\(settings.path): the writer is already \(state)") }
    guard frame.width == settings.width, frame.height == settings.height, frame.layout == converter.layout else {
      throw VideoError.invalidSettings(
        "frame \(frame.width)x\(frame.height) does not match the writer's \(settings.width)x\(settings.height) output")
    }
    guard appended < settings.frameCount else {
      throw VideoError.invalidSettings(
        "frame \(appended + 1) appended, but the settings promised \(settings.frameCount) frames")
    }
    do {
      if let encoder { try encoder.encode(frame) } else { try y4m?.encode(frame) }
      appended += 1
    } catch {
      fail()
      throw error
    }
  }

  /// Flushes the encoder, closes the file and renames it onto the path.
  public func finish() throws -> WrittenFile {
    try flush()
    return try commit()
  }

  /// Flushes the encoder and closes the temporary file, not yet at the path (`commit()` puts it
  /// there). `interrupt` is called between the packets of the flush, which may take a while (an
  /// encoder's lookahead); whatever it throws cancels the writer, leaving no file.
  public func flush(interrupt: () throws -> Void = {}) throws {
    guard state == .open else { throw VideoError.io("\(settings.path): the writer is already \(state)") }
    guard appended == settings.frameCount else {
      fail()
      throw VideoError.invalidSettings(
        "\(settings.path): \(appended) frames appended, but the settings promised \(settings.frameCount)")
    }
    do {
      try interrupt()
      try encoder?.finish(interrupt: interrupt)
      encoder = nil
    } catch {
      fail()
      throw error
    }
    state = .flushed
  }

  /// Renames the flushed file onto the path.
  public func commit() throws -> WrittenFile {
    guard state == .flushed else {
      throw VideoError.io("\(settings.path): the writer is \(state == .open ? "not flushed" : "already \(state)")")
    }
    do {
      try temporary?.commit()  // fsyncs, renames, then closes the descriptor (its flock outlives the rename)
    } catch {
      fail()
      throw error
    }
    state = .finished
    let bytes: Int64
    if settings.path == "-" {
      bytes = 0
    } else {
      let attributes = try? FileManager.default.attributesOfItem(atPath: settings.path)
      bytes = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
    }
    return WrittenFile(
      path: settings.path, bytes: bytes, frames: appended,
      duration: Double(appended) / Double(settings.fps), codec: settings.codec,
      pixelFormat: String(cString: av_get_pix_fmt_name(converter.layout.libavFormat)))
  }

  /// The flushed file, still under its temporary name until `commit()`: its path and size; nil
  /// before `flush()`, after `commit()`, and for stdout.
  public var flushedFile: (path: String, bytes: Int64)? {
    guard state == .flushed, let temporary else { return nil }
    var info = stat()
    guard fstat(temporary.descriptor, &info) == 0 else { return nil }
    return (temporary.path, Int64(info.st_size))
  }

  /// Stops writing and deletes the temporary file; an existing file at the path stays as it was.
  public func cancel() {
    guard state == .open || state == .flushed else { return }
    fail()
  }

  private func fail() {
    state = .failed
    encoder = nil  // releases libav's hold on the descriptor before it closes
    y4m = nil
    temporary?.discard()
  }

  deinit {
    if state == .open || state == .flushed { fail() }
  }
}
