import Foundation
import Raster

/// A folder under the system's temporary directory, removed when the value is released.
public final class TemporaryDirectory {
  public let url: URL
  public init(_ name: String = "loopsmith-test") {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(name)-\(UUID().uuidString)", isDirectory: true)
    try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }
  public func path(_ file: String) -> String { url.appendingPathComponent(file).path }
  deinit { try? FileManager.default.removeItem(at: url) }
}
