import Foundation
import Video

/// `DIR/index.html`: every output of a batch as a muted, autoplaying, looping video with a poster of
/// its first frame, its preset and size — a page to browse CI artifacts.
public enum Gallery {
  public static let fileName = "index.html"

  /// Where a preset's poster goes, relative to the folder.
  public static func posterName(_ preset: String) -> String { "posters/\(preset).png" }

  /// Frame 0 of the preset's loop as a PNG: the same request with the poster as its only output
  /// (a PNG without `time` shows t = 0 of the loop, not the Reduce Motion still).
  static func poster(_ p: Batch.Prepared, dir: String) throws {
    guard var request = p.request else { return }
    let path = (dir as NSString).appendingPathComponent(posterName(p.source.name))
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    request.outputs = [path]
    request.audio = nil
    request.codec = nil
    request.crf = nil
    request.bitDepth = nil
    _ = try RenderPipeline.run(try request.job())
  }

  /// The `codecs` parameter for the file's video stream (RFC 6381), read from the stream itself:
  /// `avc1.PPCCLL` for H.264, `hvc1.P.C.LNN.B0` for HEVC, `vp09.PP.LL.DD` for VP9, `av01.P.LLT.DD`
  /// for AV1; nil for formats without one.
  public static func codecs(path: String) -> String? {
    guard let info = try? VideoReader(path: path).info else { return nil }
    return codecs(info)
  }

  public static func codecs(_ info: StreamInfo) -> String? {
    let profile = (info.profileName ?? "").lowercased()
    let tenBit = info.pixelFormatName.contains("10")
    switch info.codecName {
    case "h264":
      let (idc, constraints): (Int, Int) =
        switch profile {
        case "constrained baseline": (66, 0xC0)
        case "baseline": (66, 0x00)
        case "main": (77, 0x40)
        case "extended": (88, 0x00)
        case "high 10", "high 10 intra": (110, 0x00)
        case "high 4:2:2", "high 4:2:2 intra": (122, 0x00)
        case "high 4:4:4 predictive", "high 4:4:4", "high 4:4:4 intra": (244, 0x00)
        default: (100, 0x00)
        }
      let level = max(0, info.level ?? 40)
      return String(format: "avc1.%02X%02X%02X", idc, constraints, level)
    case "hevc":
      let p = profile.contains("10") || tenBit ? 2 : 1
      let tag = info.codecTag == "hev1" ? "hev1" : "hvc1"
      return "\(tag).\(p).\(p == 1 ? 6 : 4).L\(max(0, info.level ?? 93)).B0"
    case "vp9":
      let p = tenBit ? 2 : (info.pixelFormatName.contains("444") ? 1 : 0)
      return String(format: "vp09.%02d.%02d.%02d", p, vp9Level(info), tenBit ? 10 : 8)
    case "av1":
      let level = info.level.flatMap { $0 >= 0 && $0 < 32 ? $0 : nil } ?? 8
      return String(format: "av01.0.%02dM.%02d", level, tenBit ? 10 : 8)
    default:
      return nil
    }
  }

  /// The smallest VP9 level whose picture size and sample rate hold the stream (libvpx stores none).
  static func vp9Level(_ info: StreamInfo) -> Int {
    let samples = Double(info.width * info.height)
    let rate = samples * max(1, info.frameRate.value)
    let levels: [(Int, Double, Double)] = [
      (10, 36864, 829440), (11, 73728, 2764800), (20, 122880, 4608000), (21, 245760, 9216000),
      (30, 552960, 20736000), (31, 983040, 36864000), (40, 2228224, 83558400), (41, 2228224, 160432128),
      (50, 8912896, 311951360), (51, 8912896, 588251136), (52, 8912896, 1176502272), (60, 35651584, 1176502272),
      (61, 35651584, 2353004544), (62, 35651584, 4706009088),
    ]
    return levels.first { samples <= $0.1 && rate <= $0.2 }?.0 ?? 62
  }

  static func mime(_ format: String) -> String? {
    switch format {
    case "mp4": "video/mp4"
    case "webm": "video/webm"
    case "mov": "video/quicktime"
    default: nil
    }
  }

  /// `s` as HTML text or a quoted attribute value: `& < > " ' \`` as character references, and
  /// control characters (which HTML forbids; a manifest may hold any) as U+FFFD.
  static func escape(_ s: String) -> String {
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
    var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(0x7F)))
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
        figures.append("  <figure class=\"failed\"><figcaption><b>\(escape(e.preset))</b> failed: \(escape(e.error ?? ""))</figcaption></figure>")
        continue
      }
      if e.status == .failed {
        figures.append("  <figure class=\"failed\"><figcaption><b>\(escape(e.preset))</b> \(escape(path)) failed: \(escape(e.error ?? ""))</figcaption></figure>")
        continue
      }
      let src = url(path)
      let poster = posterName(e.preset)
      let hasPoster = FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent(poster))
      let posterAttr = hasPoster ? " poster=\"\(url(poster))\"" : ""
      let caption = "<figcaption><b>\(escape(e.preset))</b> \(escape(path)) · \(e.width)×\(e.height) · \(e.frames) frames, \(ParameterValueFormat.seconds(e.duration)) s</figcaption>"
      let body: String
      if let format = e.format, let type = mime(format) {
        let typeAttr = escape(e.codecs.map { "\(type); codecs=\"\($0)\"" } ?? type)
        body = """
              <video muted autoplay loop playsinline preload="auto" width="\(e.width)" height="\(e.height)"\(posterAttr) data-duration="\(e.duration)">
                <source src="\(src)" type="\(typeAttr)">
              </video>
          """
      } else if ["gif", "apng", "webp", "png"].contains(e.format ?? "") {
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
