import Foundation
import Raster
import Synchronization

/// A folder under the system's temporary directory, removed when the value is released, or, for
/// one a suite keeps in a `static let` (never released), when the test process exits.
public final class TemporaryDirectory {
  public let url: URL
  public init(_ name: String = "loopsmith-test") {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(name)-\(UUID().uuidString)", isDirectory: true)
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    _ = Self.live.withLock { $0.insert(url.path) }
  }
  deinit {
    _ = Self.live.withLock { $0.remove(url.path) }
    try? FileManager.default.removeItem(at: url)
  }

  /// The folders not released yet; made (once, with the exit handler that removes them) by the
  /// first folder.
  private static let live: Mutex<Set<String>> = {
    atexit { TemporaryDirectory.removeLive() }
    return Mutex([])
  }()

  private static func removeLive() {
    for path in live.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
  }

  public func path(_ file: String) -> String { url.appendingPathComponent(file).path }
}
