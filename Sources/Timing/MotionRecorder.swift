import Foundation

/// Collects the motions an effect reads while it draws one frame, so that a plan can be made
/// from the drawing code itself and can never drift from it.
public final class MotionRecorder: @unchecked Sendable {  // every access holds `lock`
  private let lock = NSLock()
  private var seen: [Motion] = []
  private var keys: Set<Motion> = []

  public init() {}

  func record(_ motion: Motion) {
    lock.lock()
    defer { lock.unlock() }
    if keys.insert(motion).inserted { seen.append(motion) }
  }

  /// The motions in the order they were first read.
  public var motions: [Motion] {
    lock.lock()
    defer { lock.unlock() }
    return seen
  }
}
