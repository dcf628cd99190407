import Foundation
import Loopsmith

/// `render --web DIR`: a folder ready to drop into a site, holding the files `<loopsmith-loop>`
/// chooses between, the poster, the player and an index.html embedding them as README.md's
/// snippet does (docs/WEB-PLAYER.md, A folder for a site).
struct WebFolder {
  /// One `<source>`: the file, its `type` and its `data-alpha`, if any.
  struct Source: Equatable {
    let file: String
    let type: String
    let alpha: String?
  }

  let name: String
  let sources: [Source]
  let poster: String

  /// The files for a loop named `name`: a transparent one gets the stacked-alpha MP4 (which every
  /// engine decodes through WebCodecs) and the VP9 WebM with alpha (for `<video loop>` where
  /// WebCodecs is missing), an opaque one its MP4; both get frame 0 as a PNG poster.
  init(name: String, transparent: Bool, hevc: Bool) {
    self.name = name
    // The player orders opaque MP4s by a type naming hvc1 (docs/WEB-PLAYER.md, Choosing a source).
    let mp4Type = hevc ? "video/mp4; codecs=hvc1" : "video/mp4"
    sources =
      transparent
      ? [
        Source(file: name + "-stacked.mp4", type: mp4Type, alpha: "stacked"),
        Source(file: name + ".webm", type: "video/webm", alpha: "native"),
      ]
      : [Source(file: name + ".mp4", type: mp4Type, alpha: nil)]
    poster = name + ".png"
  }

  static let scripts: [(file: String, text: String)] = [
    ("loopsmith-loop.js", PlayerScripts.classic), ("loopsmith-loop.mjs", PlayerScripts.module),
  ]

  /// Every file the folder gets, in the order written.
  var files: [String] { sources.map(\.file) + [poster] + Self.scripts.map(\.file) + ["index.html"] }

  /// Text for HTML, inside an element or a quoted attribute: a preset's name is its file's, and
  /// a file name may carry markup or quotes. The gallery's rule, so the two pages escape alike.
  static func escape(_ text: String) -> String { Gallery.escape(text) }

  /// A file beside the page as a relative URL, escaped for an attribute: `#`, `?`, `%` and spaces
  /// in a name would otherwise end or change the URL.
  static func href(_ file: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~!$&'()*+,;=@")
    return escape(file.addingPercentEncoding(withAllowedCharacters: allowed) ?? file)
  }

  /// The page: the README's snippet (On a web page) with this folder's files, sized to the loop's
  /// picture like an `<img>`.
  func html(width: Int, height: Int) -> String {
    var lines = [
      "<!doctype html>",
      "<!-- Written by loopsmith render --web. Serve this folder over HTTP: browsers do not let a file: page",
      "     fetch the MP4, and <loopsmith-loop> then falls back to <video loop>. -->",
      "<html lang=\"en\">",
      "<head>",
      "<meta charset=\"utf-8\">",
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
      "<title>\(Self.escape(name))</title>",
      "<style>",
      "  body { margin: 0; min-height: 100vh; display: grid; place-items: center; }",
      "  /* Sized like an <img>; object-fit applies to the picture inside. */",
      "  loopsmith-loop { width: min(90vw, \(width)px); aspect-ratio: \(width) / \(height); object-fit: contain; }",
      "</style>",
      "</head>",
      "<body>",
      "<script src=\"loopsmith-loop.js\"></script>",
      "<loopsmith-loop poster=\"\(Self.href(poster))\">",
    ]
    for s in sources {
      let alpha = s.alpha.map { " data-alpha=\"\($0)\"" } ?? ""
      lines.append("  <source src=\"\(Self.href(s.file))\" type=\"\(Self.escape(s.type))\"\(alpha)>")
    }
    lines += ["</loopsmith-loop>", "</body>", "</html>"]
    return lines.joined(separator: "\n") + "\n"
  }

  // MARK: - Writing whole or not at all

  /// A folder beside (or, when `dir` exists, inside) `dir` that the render writes into, so that
  /// nothing partial is ever at `dir`: its files are moved into place only when all are written.
  static func stage(_ dir: String) throws -> (staging: String, existing: Bool) {
    let fm = FileManager.default
    var isDir: ObjCBool = false
    let exists = fm.fileExists(atPath: dir, isDirectory: &isDir)
    if exists && !isDir.boolValue {
      throw RenderFailure("--web: cannot write '\(dir)': it is a file, not a folder")
    }
    let url = URL(fileURLWithPath: dir).standardizedFileURL
    let parent = exists ? url.path : url.deletingLastPathComponent().path
    if !exists {
      do { try fm.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
        throw RenderFailure("--web: cannot write '\(dir)': \(reason(error))")
      }
    }
    var template = Array((parent as NSString).appendingPathComponent(".loopsmith-web-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else {
      throw RenderFailure("--web: cannot write '\(dir)': \(String(cString: strerror(errno)))")
    }
    let staging = String(cString: made)
    // mkdtemp's folder is private (0700); a folder for a site is readable as any other the user makes.
    let mask = umask(0)
    umask(mask)
    chmod(staging, 0o777 & ~mask)
    return (staging, exists)
  }

  /// Moves the staged files to `dir`: the whole folder when `dir` did not exist, else file by file.
  static func commit(_ staging: String, to dir: String, existing: Bool, files: [String]) throws {
    if !existing {
      guard rename(staging, dir) == 0 else {
        throw RenderFailure("--web: cannot write '\(dir)': \(String(cString: strerror(errno)))")
      }
      return
    }
    for file in files {
      let from = (staging as NSString).appendingPathComponent(file)
      let to = (dir as NSString).appendingPathComponent(file)
      guard rename(from, to) == 0 else {
        throw RenderFailure("--web: cannot write '\(to)': \(String(cString: strerror(errno)))")
      }
    }
    try? FileManager.default.removeItem(atPath: staging)
  }

  /// The system's words for a failure, without Foundation's wrapping.
  static func reason(_ error: any Error) -> String {
    let e = error as NSError
    if let posix = e.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
      return String(cString: strerror(Int32(posix.code)))
    }
    return e.localizedDescription
  }
}
