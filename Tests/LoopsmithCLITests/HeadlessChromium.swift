import Foundation
import Testing
import _TestSupport

/// Debian's Chromium (`make browser` installs it), run headless on a page whose script writes its
/// results into the DOM. Every test that plays our files in a browser goes through here: a fresh
/// profile in a temporary folder, the browser stopped by its pid whatever happens, and a watchdog
/// for a browser that never finishes. A test that needs Chromium fails when it is missing.
enum HeadlessChromium {
  static var path: String? {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
  }

  /// The DOM of `page` after its scripts ran (virtual time, at most `budget` ms), or nil when the
  /// browser had not finished within `timeout` seconds of real time. `disableGPU: false` lets
  /// `extra` choose a GPU (SwiftShader), whose video paths differ from the software ones.
  static func dumpDOM(
    _ page: String, budget: Int = 30000, timeout: Double = 120, extra: [String] = [], disableGPU: Bool = true
  ) throws
    -> String?
  {
    let chromium = try #require(path, "Chromium is not installed; run `make browser`")
    let profile = TemporaryDirectory("loopsmith-chromium")
    let process = Process()
    process.executableURL = URL(fileURLWithPath: chromium)
    process.arguments =
      [
        "--headless", "--no-sandbox", "--user-data-dir=\(profile.url.path)",
        "--autoplay-policy=no-user-gesture-required", "--allow-file-access-from-files",
        "--virtual-time-budget=\(budget)",
      ] + (disableGPU ? ["--disable-gpu"] : []) + extra + ["--dump-dom", URL(fileURLWithPath: page).absoluteString]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    // A browser still running after `timeout` is stopped (SIGTRAP, then SIGKILL) and gives nil.
    do {
      return try collect(process, stdout: pipe, stderr: nil, seconds: timeout).stdout
    } catch is ChildTimedOut {
      return nil
    }
  }

  /// The JSON a page wrote into `<pre id="ID">`, or nil when it wrote none.
  static func result(_ dom: String, id: String = "result") -> Any? {
    guard let start = dom.range(of: "<pre id=\"\(id)\">"),
      let end = dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex)
    else { return nil }
    let json = String(dom[start.upperBound..<end.lowerBound]).replacingOccurrences(of: "&quot;", with: "\"")
      .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
      .replacingOccurrences(of: "&amp;", with: "&")
    return try? JSONSerialization.jsonObject(with: Data(json.utf8))
  }
}
