import Foundation
import Testing

@testable import Loopsmith

/// Every scheduler's variables as its documentation sets them, and every way they can disagree.
@Suite struct BatchShardSchedulerTests {
  /// The message of the InputError `body` throws, or nil when it throws nothing.
  static func error(_ body: () throws -> BatchShard?) -> String? {
    do {
      _ = try body()
      return nil
    } catch let e as InputError {
      return e.message
    } catch {
      return "\(error)"
    }
  }

  /// What Slurm 22.05 sets in each task of `--array=MIN-MAX:STEP` (as the cluster test saw it).
  static func slurm(_ id: Int, min: Int, max: Int, step: Int, count: Int) -> [String: String] {
    [
      "SLURM_ARRAY_JOB_ID": "41", "SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "\(min)",
      "SLURM_ARRAY_TASK_MAX": "\(max)", "SLURM_ARRAY_TASK_STEP": "\(step)", "SLURM_ARRAY_TASK_COUNT": "\(count)",
    ]
  }

  @Test func aSteppedSlurmArrayMapsEachTaskToItsShard() throws {
    // --array=0-9:3 runs tasks 0, 3, 6, 9: shards 1 to 4 of 4.
    for (k, id) in [0, 3, 6, 9].enumerated() {
      #expect(
        try BatchShard.fromEnvironment(Self.slurm(id, min: 0, max: 9, step: 3, count: 4), shards: nil)
          == BatchShard(index: k + 1, count: 4))
    }
    // --array=2-10:4 runs 2, 6, 10.
    #expect(
      try BatchShard.fromEnvironment(Self.slurm(6, min: 2, max: 10, step: 4, count: 3), shards: nil)
        == BatchShard(index: 2, count: 3))
    // --array=5-7 (no step): 5, 6, 7; and --shards that agrees is accepted.
    #expect(
      try BatchShard.fromEnvironment(Self.slurm(7, min: 5, max: 7, step: 1, count: 3), shards: 3)
        == BatchShard(index: 3, count: 3))
    // Every task of a stepped array lands on a different shard, and they cover all of them.
    let shards = try stride(from: 1, through: 97, by: 8).map {
      try #require(try BatchShard.fromEnvironment(Self.slurm($0, min: 1, max: 97, step: 8, count: 13), shards: nil))
    }
    #expect(shards.map(\.index) == Array(1...13) && shards.allSatisfy { $0.count == 13 })
  }

  @Test func aSlurmTaskOffTheArrayOrAListedArrayIsRefused() {
    // Task 4 is not a task of 0-9:3.
    let off = Self.error {
      try BatchShard.fromEnvironment(Self.slurm(4, min: 0, max: 9, step: 3, count: 4), shards: nil)
    }
    #expect(
      off
        == "SLURM_ARRAY_TASK_ID 4 is not a task of the array from 0 to 9 by 3; expected one of MIN, MIN + STEP, ... up to MAX"
    )
    // --array=1,5,7: Slurm says MIN 1, MAX 7, STEP 1, COUNT 3; task 5 cannot be told apart from a range.
    let list = Self.error {
      try BatchShard.fromEnvironment(Self.slurm(5, min: 1, max: 7, step: 1, count: 3), shards: nil)
    }
    #expect(
      list?.hasPrefix(
        "SLURM_ARRAY_TASK_COUNT 3 is not the number of tasks from 1 to 7 by 1 (7): an array given as a list cannot name shards"
      ) == true, "\(list ?? "")")
    #expect(
      Self.error { try BatchShard.fromEnvironment(Self.slurm(12, min: 0, max: 9, step: 3, count: 4), shards: nil) }
        != nil)
    #expect(
      Self.error { try BatchShard.fromEnvironment(Self.slurm(3, min: 0, max: 9, step: 0, count: 4), shards: nil) }?
        .hasPrefix("SLURM_ARRAY_TASK_STEP") == true)
    #expect(
      Self.error { try BatchShard.fromEnvironment(Self.slurm(3, min: 5, max: 2, step: 1, count: 4), shards: nil) }?
        .hasPrefix("SLURM_ARRAY_TASK_MAX 2 is below") == true)
  }

  @Test func aShardCountThatDisagreesWithTheSchedulerNamesBoth() {
    #expect(
      Self.error { try BatchShard.fromEnvironment(Self.slurm(0, min: 0, max: 3, step: 1, count: 4), shards: 3) }
        == "--shards 3 disagrees with SLURM_ARRAY_TASK_COUNT 4; expected the same count (or no --shards)")
    // More shards than tasks would leave shard 5 unrendered: refused as well.
    #expect(
      Self.error { try BatchShard.fromEnvironment(Self.slurm(0, min: 0, max: 3, step: 1, count: 4), shards: 5) }
        == "--shards 5 disagrees with SLURM_ARRAY_TASK_COUNT 4; expected the same count (or no --shards)")
    // Without COUNT, the range and step give the size.
    #expect(
      Self.error {
        try BatchShard.fromEnvironment(
          [
            "SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "9",
            "SLURM_ARRAY_TASK_STEP": "3",
          ], shards: 5)
      }
        == "--shards 5 disagrees with the Slurm array's size 4; expected the same count (or no --shards)")
    #expect(
      Self.error {
        try BatchShard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "0", "AWS_BATCH_JOB_ARRAY_SIZE": "6"], shards: 4)
      }
        == "--shards 4 disagrees with AWS_BATCH_JOB_ARRAY_SIZE 6; expected the same count (or no --shards)")
    #expect(
      Self.error { try BatchShard.resolve(shard: "1/2", shards: 3, environment: [:]) }
        == "--shard 1/2 and --shards 3 disagree (2 shards or 3); expected the same count in both, or only one of them")
  }

  @Test func kubernetesAndAWSIndicesAreZeroBased() throws {
    #expect(try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "2"], shards: 3) == BatchShard(index: 3, count: 3))
    #expect(
      Self.error { try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "3"], shards: 3) }
        == "JOB_COMPLETION_INDEX 3 is shard 4 of 3; expected a shard from 1 to 3 (an index from 0 to 2)")
    #expect(
      Self.error { try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "0"], shards: nil) }?.contains(
        "expected --shards N") == true)
    // AWS Batch: the size from the environment when it is there, else --shards.
    #expect(
      try BatchShard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "1", "AWS_BATCH_JOB_ARRAY_SIZE": "3"], shards: nil)
        == BatchShard(index: 2, count: 3))
    #expect(
      try BatchShard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "1", "AWS_BATCH_JOB_ARRAY_SIZE": "3"], shards: 3)
        == BatchShard(index: 2, count: 3))
    #expect(
      try BatchShard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "4"], shards: 5) == BatchShard(index: 5, count: 5))
    #expect(
      Self.error { try BatchShard.fromEnvironment(["AWS_BATCH_JOB_ARRAY_INDEX": "1"], shards: nil) }?.contains(
        "expected --shards N") == true)
  }

  @Test func theFlagsAndTheEnvironmentCombine() throws {
    // --shard wins over a scheduler's variables; --shards alone needs an index.
    #expect(
      try BatchShard.resolve(shard: "2/4", shards: nil, environment: Self.slurm(0, min: 0, max: 0, step: 1, count: 1))
        == BatchShard(index: 2, count: 4))
    #expect(try BatchShard.resolve(shard: "2/4", shards: 4, environment: [:]) == BatchShard(index: 2, count: 4))
    #expect(try BatchShard.resolve(shard: nil, shards: nil, environment: [:]) == nil)
    #expect(
      Self.error { try BatchShard.resolve(shard: nil, shards: 3, environment: [:]) }?.hasPrefix(
        "--shards 3: no shard index") == true)
    #expect(
      Self.error { try BatchShard.resolve(shard: nil, shards: 0, environment: [:]) }
        == "--shards: '0' is not valid; expected a whole number from 1 to 100000")
    // Two schedulers at once is ambiguous.
    #expect(
      Self.error {
        try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": "0", "SLURM_ARRAY_TASK_ID": "0"], shards: 2)
      }
        == "JOB_COMPLETION_INDEX and SLURM_ARRAY_TASK_ID are set together; expected one scheduler's index, or --shard K/N"
    )
    // Decimal digits only.
    for bad in ["-1", "1e2", " 2", "0x3", "３", "99999999999999999999"] {
      #expect(
        Self.error { try BatchShard.fromEnvironment(["JOB_COMPLETION_INDEX": bad], shards: 3) }
          == "JOB_COMPLETION_INDEX: '\(bad)' is not valid; expected a whole number from 0", "\(bad)")
    }
  }
}
