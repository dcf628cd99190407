import Foundation
import Video

/// `DIR/index.html`: every output of a batch as a muted, autoplaying, looping video with a poster of
/// its first frame, its preset and size — a page to browse CI artifacts.
public enum Gallery {
  public static let fileName = "index.html"

  /// Where a preset's poster goes, relative to the folder: PNG unless `batch --poster-format` asks
  /// for JPEG or WebP.
  public static func posterName(_ preset: String, format: OutputFormat = .png) -> String {
    "posters/\(preset).\(format.rawValue)"
  }

  /// `--poster-format`'s value, checked: png, jpg (or jpeg) or webp.
  public static func posterFormat(_ text: String) throws -> OutputFormat {
    guard let format = OutputFormat(path: "poster." + text), RenderRequest.posterFormats.contains(format) else {
      throw InputError("--poster-format: '\(text)' is not a poster format; expected png, jpg or webp")
    }
    return format
  }

  /// Every name a preset's poster may have, PNG first.
  static func posterNames(_ preset: String) -> [String] {
    RenderRequest.posterFormats.map { posterName(preset, format: $0) }
  }

  /// The poster the page shows for `preset`: the first of its names that is a file in `dir`.
  static func existingPoster(_ preset: String, dir: String) -> String? {
    posterNames(preset).first { FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent($0)) }
  }

  /// Removes the preset's posters in formats other than `format`, so the page shows the one asked for.
  static func removeOtherPosters(_ preset: String, format: OutputFormat, dir: String) {
    for name in posterNames(preset) where name != posterName(preset, format: format) {
      try? FileManager.default.removeItem(atPath: (dir as NSString).appendingPathComponent(name))
    }
  }

  /// Frame 0 of the preset's loop as a PNG, for a preset whose outputs are up to date (a render
  /// writes its poster itself, `addingPoster`): the same request with the poster as its only output
  /// (a PNG without `time` shows t = 0 of the loop, not the Reduce Motion still). A transition
  /// clip starts on frame 0 of its FROM value's loop, so its poster is that loop's frame 0: the
  /// request without the transition, the effect's transition parameter set to FROM, and the loop's
  /// own length (as the clip plans it).
  static func poster(_ p: Batch.Prepared, dir: String, format: OutputFormat = .png) throws {
    guard let request = p.request else { return }
    removeOtherPosters(p.source.name, format: format, dir: dir)
    let path = (dir as NSString).appendingPathComponent(posterName(p.source.name, format: format))
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    _ = try RenderPipeline.run(posterRequest(request, job: p.job, to: path).job())
  }

  /// The request that draws `request`'s poster into `path`.
  static func posterRequest(_ request: RenderRequest, job: RenderJob?, to path: String) -> RenderRequest {
    var request = request
    request.outputs = [path]
    request.audio = nil
    request.codec = nil
    request.crf = nil
    request.bitDepth = nil
    if let job, let transition = job.transition, let spec = job.effectType.info.transition {
      request.transition = nil
      request.duration = nil
      request.parameters[spec.parameter] = .choice(transition.from)
    }
    return request
  }

  /// `job` writing the preset's poster too, from the same render (`RenderJob.posters`): a
  /// transition clip's frame 0 is its FROM loop's frame 0, as `posterRequest` draws it. Nil when
  /// the posters folder cannot be made inside `dir`; the poster is then drawn on its own.
  static func addingPoster(to job: RenderJob, preset: String, dir: String, format: OutputFormat = .png) -> RenderJob? {
    removeOtherPosters(preset, format: format, dir: dir)
    let path = (dir as NSString).appendingPathComponent(posterName(preset, format: format))
    let folder = (path as NSString).deletingLastPathComponent
    guard (try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)) != nil,
      Confinement.isInside(folder, folder: dir)
    else { return nil }
    return try? job.addingPoster(path)
  }

  /// Writes the poster, or leaves none: a poster is a picture for the page, never a reason to fail
  /// (or half-write) its preset, whose outputs are already rendered.
  static func tryPoster(_ p: Batch.Prepared, dir: String, format: OutputFormat = .png) {
    do {
      try poster(p, dir: dir, format: format)
    } catch {
      try? FileManager.default.removeItem(
        atPath: (dir as NSString).appendingPathComponent(posterName(p.source.name, format: format)))
    }
  }

  /// The `codecs` parameter for the file's video stream (RFC 6381), read from the stream itself:
  /// `avc1.PPCCLL` for H.264, `hvc1.P.C.LNN.B0` for HEVC, `vp09.PP.LL.DD` for VP9, `av01.P.LLT.DD`
  /// for AV1; nil for formats without one.
  public static func codecs(path: String) -> String? {
    guard let info = try? VideoReader(path: path).info else { return nil }
    return codecs(info)
  }

  public static func codecs(_ info: StreamInfo) -> String? { CodecSpec.codecsParameter(info) }

  /// The MIME type of a `<video>` file, from the table of formats; nil for formats shown otherwise.
  static func mime(_ format: String) -> String? {
    OutputFormat(rawValue: format).flatMap { $0.spec.page == .video ? $0.spec.mimeType : nil }
  }

  /// `s` as HTML text or a quoted attribute value: `& < > " ' \`` as character references, and
  /// control characters (which HTML forbids; a manifest may hold any) as U+FFFD.
  package static func escape(_ s: String) -> String {
    var out = ""
    out.unicodeScalars.reserveCapacity(s.unicodeScalars.count)
    for c in s.unicodeScalars {
      switch c {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      case "`": out += "&#96;"
      case "\t", "\n": out.unicodeScalars.append(c)
      case _ where c.value < 0x20 || (0x7F...0x9F).contains(c.value): out += "\u{FFFD}"
      default: out.unicodeScalars.append(c)
      }
    }
    return out
  }

  /// A path relative to the page as a URL in an attribute: each component percent-encoded (so
  /// `#`, `?`, `%`, `:` and spaces stay part of the name), `./` first so that no name reads as a
  /// scheme (`javascript:`), then escaped for the attribute.
  static func url(_ path: String) -> String {
    var allowed = CharacterSet.alphanumerics.intersection(
      CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(0x7F)))
    allowed.insert(charactersIn: "-._~")
    let parts = path.split(separator: "/", omittingEmptySubsequences: false).map { part in
      String(part).addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
    return escape("./" + parts.joined(separator: "/"))
  }

  /// The page's HTML: one figure per output, in manifest order.
  public static func html(_ manifest: BatchManifest, dir: String) -> String {
    var figures: [String] = []
    for e in manifest.entries {
      guard let path = e.path else {
        figures.append(
          "  <figure class=\"failed\"><figcaption><b>\(escape(e.preset))</b> failed: \(escape(e.error ?? ""))</figcaption></figure>"
        )
        continue
      }
      if e.status == .failed {
        figures.append(
          "  <figure class=\"failed\"><figcaption><b>\(escape(e.preset))</b> \(escape(path)) failed: \(escape(e.error ?? ""))</figcaption></figure>"
        )
        continue
      }
      let src = url(path)
      let posterAttr = existingPoster(e.preset, dir: dir).map { " poster=\"\(url($0))\"" } ?? ""
      let caption =
        "<figcaption><b>\(escape(e.preset))</b> \(escape(path)) · \(e.width)×\(e.height) · \(e.frames) frames, \(ParameterValueFormat.seconds(e.duration)) s</figcaption>"
      let body: String
      if let format = e.format, let type = mime(format) {
        let typeAttr = escape(e.codecs.map { "\(type); codecs=\"\($0)\"" } ?? type)
        body = """
              <video muted autoplay loop playsinline preload="auto" width="\(e.width)" height="\(e.height)"\(posterAttr) data-duration="\(e.duration)">
                <source src="\(src)" type="\(typeAttr)">
              </video>
          """
      } else if e.format.flatMap(OutputFormat.init(rawValue:))?.spec.page == .image {
        body = "    <img src=\"\(src)\" width=\"\(e.width)\" height=\"\(e.height)\" alt=\"\(escape(e.preset))\">"
      } else {
        body = "    <a href=\"\(src)\">\(escape(path))</a>"
      }
      figures.append("  <figure>\n\(body)\n    \(caption)\n  </figure>")
    }
    return """
      <!doctype html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>Loopsmith renders</title>
      <style>
        body { font: 14px system-ui, sans-serif; background: #111; color: #ddd; margin: 16px; }
        main { display: flex; flex-wrap: wrap; gap: 16px; align-items: flex-start; }
        figure { margin: 0; max-width: 360px; }
        video, img { display: block; max-width: 360px; height: auto; background: repeating-conic-gradient(#333 0 25%, #222 0 50%) 0 0 / 16px 16px; }
        figcaption { margin-top: 4px; }
        .failed { color: #f66; }
      </style>
      </head>
      <body>
      <h1>Loopsmith renders</h1>
      <main>
      \(figures.joined(separator: "\n"))
      </main>
      </body>
      </html>

      """
  }

  public static func write(_ manifest: BatchManifest, dir: String) throws {
    try writeAtomically(html(manifest, dir: dir), to: (dir as NSString).appendingPathComponent(fileName))
  }
}

enum ParameterValueFormat {
  static func seconds(_ v: Double) -> String { String(format: "%g", v) }
}
