import Foundation
import Testing
import _TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The three browser engines the web player is proven in, each started by a test on one URL with a
/// fresh profile in a temporary folder and stopped by its pid whatever happens (`make browser`
/// installs them): Debian's Chromium headless, Firefox ESR headless, and WebKitGTK's MiniBrowser
/// (the Safari engine family) on an Xvfb display of its own. Pages send their results to a
/// `LocalHTTPServer`, which works alike in all three.
enum WebEngine: String, CaseIterable, CustomStringConvertible {
  case chromium, firefox, webkit

  var description: String { rawValue }

  static let miniBrowser: String? = {
    let lib = URL(fileURLWithPath: "/usr/lib")
    let arches = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
    for arch in arches.sorted() {
      for version in ["webkit2gtk-4.1", "webkit2gtk-4.0", "webkitgtk-6.0"] {
        let path = lib.appendingPathComponent(arch).appendingPathComponent(version).appendingPathComponent(
          "MiniBrowser"
        )
        .path
        if FileManager.default.isExecutableFile(atPath: path) { return path }
      }
    }
    return nil
  }()

  /// The engine's program, or nil with the reason when it is not installed.
  var program: (path: String?, missing: String) {
    switch self {
    case .chromium: (HeadlessChromium.path, "Chromium is not installed; run `make browser`")
    case .firefox:
      (
        ["/usr/bin/firefox-esr", "/usr/bin/firefox"].first { FileManager.default.isExecutableFile(atPath: $0) },
        "Firefox ESR is not installed; run `make browser`"
      )
    case .webkit:
      (
        FileManager.default.isExecutableFile(atPath: "/usr/bin/Xvfb") ? Self.miniBrowser : nil,
        "WebKitGTK's MiniBrowser (webkit2gtk-driver) or Xvfb is not installed; run `make browser`"
      )
    }
  }

  /// `url` open in this engine until the returned session is stopped. `reducedMotion` makes the
  /// engine answer `prefers-reduced-motion: reduce`: Chromium's switch, Firefox's
  /// ui.prefersReducedMotion, GTK's gtk-enable-animations=false for WebKitGTK.
  func open(_ url: String, reducedMotion: Bool = false) throws -> BrowserSession {
    let program = try #require(program.path, "\(program.missing)")
    let session = BrowserSession(engine: self)
    let profile = session.profile.url
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    var environment = ProcessInfo.processInfo.environment
    environment["HOME"] = profile.path
    environment["XDG_CONFIG_HOME"] = profile.appendingPathComponent("config").path
    environment["XDG_CACHE_HOME"] = profile.appendingPathComponent("cache").path
    environment["XDG_DATA_HOME"] = profile.appendingPathComponent("data").path
    switch self {
    case .chromium:
      process.arguments =
        [
          "--headless", "--no-sandbox", "--user-data-dir=\(profile.path)", "--no-first-run",
          "--autoplay-policy=no-user-gesture-required", "--window-size=800,600",
          "--use-gl=angle", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
          "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
          "--disable-backgrounding-occluded-windows",
        ] + (reducedMotion ? ["--force-prefers-reduced-motion"] : []) + [url]
    case .firefox:
      let prefs = [
        "media.autoplay.default": "0", "media.autoplay.blocking_policy": "0",
        "browser.shell.checkDefaultBrowser": "false", "browser.aboutwelcome.enabled": "false",
        "datareporting.policy.dataSubmissionEnabled": "false", "toolkit.telemetry.reportingpolicy.firstRun": "false",
        "app.update.disabledForTesting": "true", "browser.startup.homepage_override.mstone": "\"ignore\"",
        "browser.sessionstore.resume_from_crash": "false", "webgl.force-enabled": "true",
        "ui.prefersReducedMotion": reducedMotion ? "1" : "0",
      ]
      let userJS = prefs.sorted { $0.key < $1.key }.map { "user_pref(\"\($0.key)\", \($0.value));" }
      try (userJS.joined(separator: "\n") + "\n").write(
        to: profile.appendingPathComponent("user.js"), atomically: true, encoding: .utf8)
      environment["MOZ_HEADLESS_WIDTH"] = "800"
      environment["MOZ_HEADLESS_HEIGHT"] = "600"
      process.arguments = ["--headless", "--no-remote", "--profile", profile.path, url]
    case .webkit:
      let gtk = profile.appendingPathComponent("config/gtk-3.0")
      try FileManager.default.createDirectory(at: gtk, withIntermediateDirectories: true)
      // WebKitGTK answers prefers-reduced-motion from GTK's animation setting.
      try "[Settings]\ngtk-enable-animations=\(reducedMotion ? "false" : "true")\n".write(
        to: gtk.appendingPathComponent("settings.ini"), atomically: true, encoding: .utf8)
      environment["DISPLAY"] = ":\(try session.startDisplay())"
      environment["LIBGL_ALWAYS_SOFTWARE"] = "1"
      environment["GTK_THEME"] = "Adwaita"
      process.arguments = ["--autoplay-policy=allow", url]
    }
    process.environment = environment
    let log = FileHandle(forWritingAtPath: session.logPath) ?? FileHandle.nullDevice
    process.standardOutput = log
    process.standardError = log
    process.standardInput = FileHandle.nullDevice
    try process.run()
    session.browser = process
    return session
  }
}

/// One engine running a page: its browser (and WebKit's display), stopped by pid in `stop()`,
/// which runs whatever happens when the session is released.
final class BrowserSession {
  let engine: WebEngine
  let profile = TemporaryDirectory("loopsmith-browser")
  var browser: Process?
  var display: Process?
  var logPath: String { profile.path("browser.log") }

  init(engine: WebEngine) {
    self.engine = engine
    _ = FileManager.default.createFile(atPath: profile.path("browser.log"), contents: nil)
  }

  deinit { stop() }

  /// An Xvfb display of its own, on the first free number, which Xvfb itself picks and writes to
  /// its stdout (-displayfd 1), so tests side by side never collide.
  func startDisplay() throws -> Int {
    let xvfb = Process()
    xvfb.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
    xvfb.arguments = ["-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp", "-noreset"]
    let out = Pipe()
    xvfb.standardOutput = out
    xvfb.standardError = FileHandle.nullDevice
    try xvfb.run()
    display = xvfb
    var text = ""
    let deadline = Date().addingTimeInterval(20)
    let handle = out.fileHandleForReading
    while !text.contains("\n") && Date() < deadline {
      var poller = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
      if poll(&poller, 1, 500) > 0 {
        let chunk = handle.availableData
        if chunk.isEmpty { break }
        text += String(decoding: chunk, as: UTF8.self)
      }
    }
    return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), "Xvfb gave no display number")
  }

  /// What the browser wrote to stdout and stderr, its end, for a failure's message.
  var logTail: String {
    String((try? String(contentsOfFile: logPath, encoding: .utf8))?.suffix(3000) ?? "")
  }

  func stop() {
    for process in [browser, display].compactMap({ $0 }) where process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      try? waitForExit(process, seconds: 20)
    }
    browser = nil
    display = nil
  }
}
