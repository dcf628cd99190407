import Foundation
import Testing
import _TestSupport

/// The schedulers' variables through the real binary: which presets each task of an array renders,
/// and the exit 2 when the counts disagree.
@Suite struct ShardSchedulerCLITests {
  /// Every scheduler variable, unset: the tests add the ones they mean, whatever runs the suite.
  static let clean = Dictionary(
    uniqueKeysWithValues: [
      "JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX",
      "SLURM_ARRAY_TASK_STEP",
      "SLURM_ARRAY_TASK_COUNT", "AWS_BATCH_JOB_ARRAY_INDEX", "AWS_BATCH_JOB_ARRAY_SIZE",
    ].map { ($0, "") })

  static func presets(_ dir: TemporaryDirectory) throws -> String {
    let path = dir.path("presets")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    for name in ["a", "b", "c", "d", "e", "f", "g"] {
      try #"{"version": 1, "effect": "aurora-mesh"}"#.write(
        toFile: "\(path)/\(name).json", atomically: true, encoding: .utf8)
    }
    return path
  }

  /// The preset names `batch --dry-run` would render with `args` and `env`.
  static func names(
    _ presets: String, _ args: [String], env: [String: String], dir: TemporaryDirectory
  ) throws -> [String] {
    let r = try runLoopsmith(
      ["batch", presets, "--out", dir.path("out"), "--dry-run", "--json"] + args, environment: clean.merging(env) { $1 }
    )
    #expect(r.status == 0, "\(r.stderr)")
    let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
    return rows.map { $0["name"] as! String }
  }

  @Test func aSteppedSlurmArrayRendersEveryPresetOnce() throws {
    let dir = TemporaryDirectory()
    let presets = try Self.presets(dir)
    // sbatch --array=1-10:3 runs tasks 1, 4, 7, 10: four shards of seven presets.
    var seen: [[String]] = []
    for id in [1, 4, 7, 10] {
      let env = [
        "SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "10",
        "SLURM_ARRAY_TASK_STEP": "3", "SLURM_ARRAY_TASK_COUNT": "4",
      ]
      let share = try Self.names(presets, [], env: env, dir: dir)
      #expect(share == (try Self.names(presets, ["--shard", "\((id - 1) / 3 + 1)/4"], env: [:], dir: dir)))
      seen.append(share)
    }
    #expect(seen == [["a", "e"], ["b", "f"], ["c", "g"], ["d"]])
  }

  @Test func disagreeingCountsExitTwoNamingBoth() throws {
    let dir = TemporaryDirectory()
    let presets = try Self.presets(dir)
    let cases: [([String], [String: String], String)] = [
      (
        ["--shard", "1/2", "--shards", "3"], [:],
        "--shard 1/2 and --shards 3 disagree (2 shards or 3); expected the same count in both, or only one of them"
      ),
      (
        ["--shards", "3"],
        [
          "SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "3",
          "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "4",
        ],
        "--shards 3 disagrees with SLURM_ARRAY_TASK_COUNT 4; expected the same count (or no --shards)"
      ),
      (
        ["--shards", "2"], ["AWS_BATCH_JOB_ARRAY_INDEX": "0", "AWS_BATCH_JOB_ARRAY_SIZE": "3"],
        "--shards 2 disagrees with AWS_BATCH_JOB_ARRAY_SIZE 3; expected the same count (or no --shards)"
      ),
      (
        ["--shards", "3"], ["JOB_COMPLETION_INDEX": "3"],
        "JOB_COMPLETION_INDEX 3 is shard 4 of 3; expected a shard from 1 to 3 (an index from 0 to 2)"
      ),
      (
        [],
        [
          "SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7",
          "SLURM_ARRAY_TASK_STEP": "1", "SLURM_ARRAY_TASK_COUNT": "3",
        ],
        "SLURM_ARRAY_TASK_COUNT 3 is not the number of tasks from 1 to 7 by 1 (7): an array given as a list cannot name shards; expected --array=MIN-MAX or MIN-MAX:STEP, or --shard K/N"
      ),
    ]
    for (args, env, message) in cases {
      // Both with --dry-run and for real: nothing is rendered, no folder is made.
      for dry in [true, false] {
        let out = dir.path("out-\(dry)")
        let r = try runLoopsmith(
          ["batch", presets, "--out", out] + (dry ? ["--dry-run"] : []) + args,
          environment: Self.clean.merging(env) { $1 })
        #expect(r.status == 2 && r.stderr == "Error: \(message)\n", "\(args) \(env): \(r.status) \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
      }
    }
  }

  @Test func kubernetesAndAWSPickTheSameSharesAsTheFlag() throws {
    let dir = TemporaryDirectory()
    let presets = try Self.presets(dir)
    for k in 1...3 {
      let expected = try Self.names(presets, ["--shard", "\(k)/3"], env: [:], dir: dir)
      #expect(
        try Self.names(presets, ["--shards", "3"], env: ["JOB_COMPLETION_INDEX": "\(k - 1)"], dir: dir) == expected)
      #expect(
        try Self.names(
          presets, [], env: ["AWS_BATCH_JOB_ARRAY_INDEX": "\(k - 1)", "AWS_BATCH_JOB_ARRAY_SIZE": "3"], dir: dir)
          == expected)
      #expect(
        try Self.names(presets, ["--shards", "3"], env: ["AWS_BATCH_JOB_ARRAY_INDEX": "\(k - 1)"], dir: dir) == expected
      )
    }
  }
}
