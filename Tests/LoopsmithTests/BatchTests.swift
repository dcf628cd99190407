import Effects
import Foundation
import Testing

@testable import Loopsmith

@Suite struct SHA256Tests {
  @Test(arguments: [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    (
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
    ),
    (
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
    ),
  ])
  func knownVectors(message: String, digest: String) {
    #expect(SHA256.hex(message) == digest)
    // Byte by byte through the generic path gives the same digest as whole blocks.
    var s = SHA256()
    s.update(Array(message.utf8))
    #expect(s.finalize().map { String(format: "%02x", $0) }.joined() == digest)
  }

  @Test func aMillionAsAndAFileReadInPieces() throws {
    let data = Data(repeating: UInt8(ascii: "a"), count: 1_000_000)
    #expect(SHA256.hex(data) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(getpid()).bin")
    try data.write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    #expect(SHA256.hex(ofFile: url.path) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    #expect(SHA256.hex(ofFile: url.path + ".missing") == nil)
  }
}

@Suite struct PresetSchemaTests {
  static let schemaPath = packageRoot.appendingPathComponent("presets/schema.json").path

  @Test func theCheckedInSchemaIsTheGeneratedOne() throws {
    let text = try String(contentsOfFile: Self.schemaPath, encoding: .utf8)
    #expect(
      text == PresetSchema.text(),
      "presets/schema.json is stale: run 'loopsmith schema > presets/schema.json' (make schema)")
  }

  @Test func everyPresetKeyAndParameterIsInTheSchema() throws {
    let schema = PresetSchema.schema()
    let properties = try #require(schema["properties"] as? [String: Any])
    #expect(Set(properties.keys) == Set(Preset.keys))
    for key in Preset.keys {
      #expect(PresetSchema.property(key) != nil, "Preset key '\(key)' has no row in PresetSchema.property")
    }
    let defs = try #require(schema["$defs"] as? [String: Any])
    for type in EffectRegistry.all {
      let def = try #require(defs["parameters-\(type.info.name)"] as? [String: Any])
      let params = try #require(def["properties"] as? [String: Any])
      #expect(Set(params.keys) == Set(type.info.parameters.map(\.name)))
    }
  }

  @Test(arguments: PresetTests.files)
  func everyPresetValidates(file: String) throws {
    let data = try Data(contentsOf: packageRoot.appendingPathComponent("presets/\(file)"))
    let value = try JSONSerialization.jsonObject(with: data)
    let errors = SchemaValidator(root: PresetSchema.schema()).errors(value)
    #expect(errors.isEmpty, "\(file): \(errors)")
  }

  @Test(arguments: [
    ("{\"effect\": \"color-orbs\", \"sped\": 1}", "unknown key 'sped'"),
    ("{\"effect\": \"color-orbs\", \"parameters\": {\"sped\": 1}}", "unknown key 'sped'"),
    ("{\"effect\": \"weather\", \"parameters\": {\"weather\": \"hail\"}}", "$.parameters.weather: expected one of"),
    ("{\"effect\": \"color-orbs\", \"fps\": 500}", "$.fps: above the maximum"),
    ("{\"effect\": \"color-orbs\", \"fps\": \"30\"}", "$.fps: expected integer"),
    ("{\"fps\": 30}", "missing 'effect'"),
    ("{\"effect\": \"color-orbs\", \"version\": 2}", "$.version: expected 1"),
    ("{\"effect\": \"color-orbs\", \"outputs\": [\"../x.mp4\"]}", "does not match"),
    ("{\"effect\": \"color-orbs\", \"parameters\": {\"colors\": \"#ff2d55,nope\"}}", "matches none"),
    ("{\"effect\": \"color-orbs\", \"size\": [1, 2, 3]}", "matches none"),
  ])
  func badPresetsFailTheSchemaWhereTheDecoderFails(json: String, expected: String) throws {
    let value = try JSONSerialization.jsonObject(with: Data(json.utf8))
    let errors = SchemaValidator(root: PresetSchema.schema()).errors(value)
    #expect(errors.contains { $0.contains(expected) }, "\(errors)")
  }

  @Test func goodValuesInEveryAcceptedFormPass() throws {
    for json in [
      "{\"effect\": \"color-orbs\", \"parameters\": {\"colors\": \"#ff2d55, pink\"}, \"size\": \"64x64\"}",
      "{\"effect\": \"color-orbs\", \"parameters\": {\"colors\": [\"#ff2d55\", \"pink\"]}, \"size\": [64, 64]}",
      "{\"effect\": \"weather\", \"parameters\": {\"sequence\": \"rain:6,snow:6\"}}",
      "{\"effect\": \"weather\", \"parameters\": {\"sequence\": [{\"weather\": \"rain\", \"seconds\": 6}]}}",
    ] {
      let value = try JSONSerialization.jsonObject(with: Data(json.utf8))
      #expect(SchemaValidator(root: PresetSchema.schema()).errors(value).isEmpty, "\(json)")
      _ = try Preset.decode(Data(json.utf8), name: "p", path: "p.json")
    }
  }
}

@Suite struct BatchShardTests {
  static let names = (0..<23).map { "preset-\($0)" }

  @Test(arguments: [1, 2, 3, 5, 30])
  func shardsCoverEveryNameOnceWhateverTheOrder(n: Int) throws {
    var seen: [String: Int] = [:]
    for k in 1...n {
      let shard = try BatchShard(index: k, count: n)
      let a = shard.select(Self.names), b = shard.select(Self.names.reversed())
      #expect(a == b)
      #expect(a.count <= (Self.names.count + n - 1) / n)
      for name in a { seen[name, default: 0] += 1 }
    }
    #expect(seen.count == Self.names.count && seen.values.allSatisfy { $0 == 1 })
  }

  @Test func theSchedulersEnvironmentPicksTheShard() throws {
    #expect(try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "0"], shards: 3) == BatchShard(index: 1, count: 3))
    #expect(
      try BatchShard.fromEnvironment(
        ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "2", "SLURM_ARRAY_TASK_COUNT": "3"], shards: nil)
        == BatchShard(index: 3, count: 3))
    #expect(
      try BatchShard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"], shards: nil)
        == BatchShard(index: 2, count: 2))
    #expect(
      try BatchShard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "1"], shards: 2) == BatchShard(index: 2, count: 2))
    #expect(try BatchShard.fromEnvironment([:], shards: nil) == nil)
    #expect(throws: InputError.self) { try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "0"], shards: nil) }
    #expect(throws: InputError.self) { try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "3"], shards: 3) }
    #expect(throws: InputError.self) { try BatchShard.fromEnvironment([:], shards: 3) }
    #expect(throws: InputError.self) { try BatchShard.parse("0/3") }
    #expect(throws: InputError.self) { try BatchShard.parse("4/3") }
    #expect(try BatchShard.parse("2/3") == BatchShard(index: 2, count: 3))
  }

  @Test func jobsShareTheCoresWithoutOversubscribing() {
    #expect(Batch.threadsPerJob(cores: 8, jobs: 2) == 4)
    #expect(Batch.threadsPerJob(cores: 2, jobs: 4) == 1)
    #expect(Batch.threadsPerJob(cores: 6, jobs: 4) == 1)
  }
}
