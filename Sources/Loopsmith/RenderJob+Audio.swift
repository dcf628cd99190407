import Foundation
import Video

extension RenderRequest {
  /// `--audio-fit`, checked against the table.
  func checkedAudioFit() throws -> AudioFit {
    guard let text = audioFit else { return AudioFit.defaultValue }
    return AudioFit(rawValue: try RenderSetting.audioFit.check(text).lowercased()) ?? AudioFit.defaultValue
  }

  /// The notice for a sound fitted to the loop, or none when it already lasts the loop; refuses a
  /// longer sound with `--audio-fit pad`, and one too short to repeat with `loop`
  /// (docs/ENCODING.md, Audio that loops).
  func audioNotices(_ outputs: [OutputSettings], fps: Int, frameCount: Int) throws -> [String] {
    guard let track = outputs.lazy.compactMap(\.audio).first else { return [] }
    let loop = Double(AudioFit.loopSamples(frameCount: frameCount, fps: fps, rate: 48000)) / 48000
    let sound: Double
    do {
      sound = try AudioFit.soundSeconds(path: track.path, upTo: loop + 0.05)
    } catch let e as VideoError {
      if case .interrupted = e { throw e }  // a stop signal while reading, not the sound's fault
      throw InputError("--audio: \(e)")
    }
    if track.fit == .pad && sound > loop + 0.5 / 48000 {
      throw InputError(
        "--audio: \(track.path) is longer than the \(AudioFit.seconds(loop)) s loop, and --audio-fit pad never cuts; expected --audio-fit cut or loop, or a --duration as long as the sound"
      )
    }
    if track.fit == .loop && sound < loop - 0.5 / 48000 && sound < AudioFit.shortestRepeated {
      throw InputError(
        "--audio: \(track.path) lasts \(AudioFit.seconds(sound)) s, too short to repeat with 50 ms crossfades; expected a sound of at least \(AudioFit.seconds(AudioFit.shortestRepeated)) s, or --audio-fit pad to play it once a loop"
      )
    }
    return track.fit.notice(name: track.path, soundSeconds: sound, loopSeconds: loop).map { [$0] } ?? []
  }
}
