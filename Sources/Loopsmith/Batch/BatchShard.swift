import Foundation

/// A stable, disjoint share of the presets: shard K of N takes the presets whose place in the
/// sorted list of names is K - 1 modulo N, so the shards cover every preset exactly once whatever
/// order files are listed in, and are as even as they can be.
public struct BatchShard: Equatable, Sendable, CustomStringConvertible {
  /// 1-based.
  public var index: Int
  public var count: Int

  public init(index: Int, count: Int) throws {
    guard count >= 1, count <= 100_000, index >= 1, index <= count else {
      throw InputError("--shard: '\(index)/\(count)' is not valid; expected K/N with 1 <= K <= N")
    }
    (self.index, self.count) = (index, count)
  }

  public var description: String { "\(index)/\(count)" }

  /// `K/N`, as `--shard` takes it.
  public static func parse(_ text: String) throws -> BatchShard {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
      throw InputError("--shard: '\(text)' is not valid; expected K/N, like 2/3 (the second of three shards)")
    }
    return try BatchShard(index: k, count: n)
  }

  /// The shard a scheduler asks for when `--shard` is absent: a Kubernetes Indexed Job
  /// (`JOB_COMPLETION_INDEX`, 0-based, with `--shards N`), a Slurm array job
  /// (`SLURM_ARRAY_TASK_ID` from `SLURM_ARRAY_TASK_MIN`, default 0, of `SLURM_ARRAY_TASK_COUNT`), or an
  /// AWS Batch array job (`AWS_BATCH_JOB_ARRAY_INDEX`, 0-based, with `--shards N`). Nil when none is set.
  public static func fromEnvironment(_ env: [String: String], shards: Int?) throws -> BatchShard? {
    func int(_ name: String) throws -> Int? {
      guard let v = env[name], !v.isEmpty else { return nil }
      guard let n = Int(v.trimmingCharacters(in: .whitespaces)), n >= 0 else {
        throw InputError("\(name): '\(v)' is not valid; expected a whole number from 0")
      }
      return n
    }
    func count(_ source: String) throws -> Int {
      guard let shards else { throw InputError("\(source) is set; expected --shards N, the number of shards (the Job's completions / the array's size)") }
      return shards
    }
    if let i = try int("JOB_COMPLETION_INDEX") {
      return try shard(i, of: count("JOB_COMPLETION_INDEX"), source: "JOB_COMPLETION_INDEX")
    }
    if let id = try int("SLURM_ARRAY_TASK_ID") {
      let n = try shards ?? int("SLURM_ARRAY_TASK_COUNT") ?? count("SLURM_ARRAY_TASK_ID without SLURM_ARRAY_TASK_COUNT")
      let min = try int("SLURM_ARRAY_TASK_MIN") ?? 0
      return try shard(id - min, of: n, source: "SLURM_ARRAY_TASK_ID")
    }
    if let i = try int("AWS_BATCH_JOB_ARRAY_INDEX") {
      return try shard(i, of: count("AWS_BATCH_JOB_ARRAY_INDEX"), source: "AWS_BATCH_JOB_ARRAY_INDEX")
    }
    if shards != nil {
      throw InputError("--shards: no shard index; expected JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX in the environment, or --shard K/N")
    }
    return nil
  }

  private static func shard(_ zeroBased: Int, of n: Int, source: String) throws -> BatchShard {
    guard n >= 1, zeroBased >= 0, zeroBased < n else {
      throw InputError("\(source): index \(zeroBased) is not valid for \(n) shards; expected 0 to \(n - 1)")
    }
    return try BatchShard(index: zeroBased + 1, count: n)
  }

  /// The names of `names` in this shard.
  public func select(_ names: [String]) -> Set<String> {
    let sorted = Array(Set(names)).sorted()
    return Set(sorted.enumerated().filter { $0.offset % count == index - 1 }.map(\.element))
  }
}
