import Effects
import Foundation

/// Renders an effect into video files or a still: the library's front door.
///
/// A `RenderRequest` says what to render; every field is optional and takes the command line's
/// default. Errors are `InputError` for a request that cannot be rendered (naming the setting and
/// what was expected), and `RenderFailure`, `VideoError` or `Interrupted` for a render that failed.
///
/// ```swift
/// import Loopsmith
///
/// var request = RenderRequest()
/// request.effect = "aurora-mesh"
/// request.size = (180, 320)
/// request.fps = 10
/// request.duration = 1
/// try request.setParameter("speed", to: "0.6")
/// let result = try Renderer.render(request, to: ["aurora.mp4", "aurora.webm"]) { done, total in
///   print("\(done)/\(total) frames")
/// }
/// print(result.files.map(\.path))  // ["aurora.mp4", "aurora.webm"]
/// ```
public enum Renderer {
  /// Renders `request` into each of `paths`, whose extensions pick the formats (`-` is Y4M on
  /// stdout); `progress(done, total)` is called from the encoder's thread after each batch of frames.
  @discardableResult
  public static func render(
    _ request: RenderRequest, to paths: [String], progress: (@Sendable (Int, Int) -> Void)? = nil
  ) throws -> RenderResult {
    var request = request
    request.outputs = paths
    return try RenderPipeline.run(try request.job(), progress: progress)
  }

  /// Renders `request` into one file.
  @discardableResult
  public static func render(
    _ request: RenderRequest, to path: String, progress: (@Sendable (Int, Int) -> Void)? = nil
  ) throws -> RenderResult {
    try render(request, to: [path], progress: progress)
  }
}

extension RenderRequest {
  /// Sets the effect's parameter `name` from its text form (`"0.6"`, `"#ff2d55,#af52de"`, `"rain"`),
  /// checked against the effect's table; `effect` must be set first.
  public mutating func setParameter(_ name: String, to text: String) throws {
    guard let effect else { throw InputError("\(name): set the effect before its parameters") }
    let spec = try RenderRequest.parameter(name, of: try RenderRequest.effectType(effect))
    do {
      parameters[name] = try spec.parse(text)
    } catch let e as ParameterError {
      throw InputError("\(name): '\(text)' is not valid; expected \(e.expected)")
    }
  }
}
