import Effects
import Foundation
import Testing

@testable import Loopsmith

/// The package root, found from this file's place.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .deletingLastPathComponent()

@Suite struct PresetTests {
  static let files =
    ((try? FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("presets").path)) ?? [])
    .filter { $0.hasSuffix(".json") && $0 != "schema.json" }.sorted()

  /// Every effect in the registry has a preset; an effect with transitions has one per value of
  /// its transition parameter (`weather-rain`) and one per ordered pair (`weather-rain-to-snow`).
  @Test func thePresetsCoverEveryEffectWeatherAndVoiceState() throws {
    #expect(Self.files.count >= 14)
    for type in EffectRegistry.all {
      let info = type.info
      guard let transition = info.transition else {
        #expect(Self.files.contains(info.name + ".json"), "missing preset \(info.name)")
        continue
      }
      let spec = try #require(info.parameter(named: transition.parameter))
      guard case .choice(let values) = spec.kind else {
        Issue.record("\(info.name): the transition parameter '\(spec.name)' is not a choice")
        continue
      }
      // Every transition: each ordered pair of values (weathers, voice states).
      for a in values {
        #expect(Self.files.contains("\(info.name)-\(a).json"), "missing preset \(info.name)-\(a)")
        for b in values where a != b {
          #expect(Self.files.contains("\(info.name)-\(a)-to-\(b).json"), "missing preset \(info.name)-\(a)-to-\(b)")
        }
      }
    }
  }

  @Test(arguments: files)
  func everyPresetMakesAJob(file: String) throws {
    let preset = try Preset.load(path: packageRoot.appendingPathComponent("presets/\(file)").path)
    var request = preset.request
    request.size = (32, 32)
    request.scale = 0.1
    let job = try request.job()
    #expect(job.frameCount > 1)
    // No default preset changes a speed by more than the limit.
    let plan = try #require(job.plan)
    #expect(plan.largestSpeedChange <= plan.maxSpeedChange + 1e-12, "\(file): \(plan.largestSpeedChange)")
  }

  @Test(arguments: [
    ("{\"effect\": \"color-orbs\", \"sped\": 1}", "unknown key 'sped'."),
    (
      "{\"effect\": \"color-orbs\", \"parameters\": {\"sped\": 1}}",
      "unknown key 'parameters.sped'. Did you mean 'speed'?"
    ),
    ("{\"effect\": \"color-orbs\", \"fps\": \"30\"}", "'fps': expected a number"),
    ("{\"effect\": \"color-orbs\", \"version\": 2}", "'version': expected 1"),
    ("{\"fps\": 30}", "missing key 'effect'"),
    ("[1, 2]", "expected a JSON object"),
    ("{\"effect\": ", "not valid JSON"),
    ("{\"effect\": \"weather\", \"parameters\": {\"weather\": \"hail\"}}", "'parameters.weather': 'hail' is not valid"),
    ("{\"effect\": \"color-orbs\", \"outputs\": [\"../escape.mp4\"]}", "must be a plain file name"),
    ("{\"effect\": \"weather\", \"transition\": [\"rain\"]}", "'transition': expected \"from:to\" or [from, to]"),
  ])
  func aBadPresetNamesTheFileAndTheKey(json: String, expected: String) {
    #expect {
      _ = try Preset.decode(Data(json.utf8), name: "p", path: "p.json")
    } throws: { error in
      let text = "\(error)"
      return text.hasPrefix("p.json: ") && text.contains(expected)
    }
  }
}
