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

  /// The shard `batch` renders, from `--shard K/N`, or else from the scheduler's variables (with
  /// `--shards N` where the scheduler does not say how many tasks there are). `--shard` wins over the
  /// environment; `--shards` that disagrees with `--shard` or with the scheduler's own count is an
  /// error naming both numbers, since shards past the smaller count would silently never run.
  public static func resolve(shard: String?, shards: Int?, environment: [String: String]) throws -> BatchShard? {
    if let n = shards, n < 1 || n > 100_000 {
      throw InputError("--shards: '\(n)' is not valid; expected a whole number from 1 to 100000")
    }
    if let shard {
      let s = try parse(shard)
      if let n = shards, n != s.count {
        throw InputError(
          "--shard \(s) and --shards \(n) disagree (\(s.count) shards or \(n)); expected the same count in both, or only one of them"
        )
      }
      return s
    }
    return try fromEnvironment(environment, shards: shards)
  }

  /// The shard a scheduler asks for when `--shard` is absent, Nil when no scheduler's index is set.
  ///
  /// - Kubernetes Indexed Job: `JOB_COMPLETION_INDEX` (0-based) with `--shards N`, the Job's
  ///   `completions` (not in the pod's environment unless the manifest puts it there).
  /// - Slurm array job: `SLURM_ARRAY_TASK_ID` in the range `SLURM_ARRAY_TASK_MIN` to
  ///   `SLURM_ARRAY_TASK_MAX` by `SLURM_ARRAY_TASK_STEP`, `SLURM_ARRAY_TASK_COUNT` tasks: task
  ///   MIN + k * STEP is shard k + 1 of COUNT (so `--array=0-9:3` runs shards 1-4 of 4). An array
  ///   given as a list (`--array=1,5,7`: its COUNT is not its range over its step) cannot name shards.
  /// - AWS Batch array job: `AWS_BATCH_JOB_ARRAY_INDEX` (0-based), of `AWS_BATCH_JOB_ARRAY_SIZE`
  ///   where it is set, else `--shards N`, the array's size.
  public static func fromEnvironment(_ env: [String: String], shards: Int?) throws -> BatchShard? {
    func int(_ name: String) throws -> Int? {
      guard let v = env[name], !v.isEmpty else { return nil }
      guard v.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), v.utf8.count <= 9, let n = Int(v) else {
        throw InputError("\(name): '\(v)' is not valid; expected a whole number from 0")
      }
      return n
    }
    let present = ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "AWS_BATCH_JOB_ARRAY_INDEX"].filter {
      env[$0].map { !$0.isEmpty } ?? false
    }
    if present.count > 1 {
      throw InputError(
        "\(present.joined(separator: " and ")) are set together; expected one scheduler's index, or --shard K/N")
    }
    /// The count: the scheduler's where it has one (and --shards must agree), else --shards.
    func count(scheduler: Int?, named name: String, index: String) throws -> Int {
      switch (scheduler, shards) {
      case let (s?, n?) where s != n:
        throw InputError("--shards \(n) disagrees with \(name) \(s); expected the same count (or no --shards)")
      case let (s?, _): return s
      case let (nil, n?): return n
      case (nil, nil):
        throw InputError(
          "\(index) is set; expected --shards N, the number of shards (the Job's completions / the array's size)")
      }
    }
    if let i = try int("JOB_COMPLETION_INDEX") {
      return try shard(
        i, of: count(scheduler: nil, named: "", index: "JOB_COMPLETION_INDEX"), source: "JOB_COMPLETION_INDEX \(i)")
    }
    if let id = try int("SLURM_ARRAY_TASK_ID") {
      let min = try int("SLURM_ARRAY_TASK_MIN") ?? 0
      let max = try int("SLURM_ARRAY_TASK_MAX")
      let step = try int("SLURM_ARRAY_TASK_STEP") ?? 1
      let tasks = try int("SLURM_ARRAY_TASK_COUNT")
      guard step >= 1 else {
        throw InputError("SLURM_ARRAY_TASK_STEP: '0' is not valid; expected a whole number from 1")
      }
      let range = "from \(min)\(max.map { " to \($0)" } ?? "") by \(step)"
      if let max {
        guard max >= min else {
          throw InputError("SLURM_ARRAY_TASK_MAX \(max) is below SLURM_ARRAY_TASK_MIN \(min); expected MIN <= MAX")
        }
        if let tasks, tasks != (max - min) / step + 1 {
          throw InputError(
            "SLURM_ARRAY_TASK_COUNT \(tasks) is not the number of tasks \(range) (\((max - min) / step + 1)): an array given as a list cannot name shards; expected --array=MIN-MAX or MIN-MAX:STEP, or --shard K/N"
          )
        }
      }
      guard id >= min, (id - min) % step == 0, max.map({ id <= $0 }) ?? true else {
        throw InputError(
          "SLURM_ARRAY_TASK_ID \(id) is not a task of the array \(range); expected one of MIN, MIN + STEP, ... up to MAX"
        )
      }
      let fromRange = max.map { ($0 - min) / step + 1 }
      let n = try count(
        scheduler: tasks ?? fromRange, named: tasks != nil ? "SLURM_ARRAY_TASK_COUNT" : "the Slurm array's size",
        index: "SLURM_ARRAY_TASK_ID without SLURM_ARRAY_TASK_COUNT")
      return try shard((id - min) / step, of: n, source: "SLURM_ARRAY_TASK_ID \(id) (\(range))")
    }
    if let i = try int("AWS_BATCH_JOB_ARRAY_INDEX") {
      let size = try int("AWS_BATCH_JOB_ARRAY_SIZE")
      return try shard(
        i, of: count(scheduler: size, named: "AWS_BATCH_JOB_ARRAY_SIZE", index: "AWS_BATCH_JOB_ARRAY_INDEX"),
        source: "AWS_BATCH_JOB_ARRAY_INDEX \(i)")
    }
    if let n = shards {
      throw InputError(
        "--shards \(n): no shard index; expected JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX in the environment, or --shard K/N"
      )
    }
    return nil
  }

  private static func shard(_ zeroBased: Int, of n: Int, source: String) throws -> BatchShard {
    guard n >= 1, n <= 100_000, zeroBased >= 0, zeroBased < n else {
      throw InputError(
        "\(source) is shard \(zeroBased + 1) of \(n); expected a shard from 1 to \(n) (an index from 0 to \(n - 1))")
    }
    return try BatchShard(index: zeroBased + 1, count: n)
  }

  /// The names of `names` in this shard (as `Set<String>`, which takes canonically equivalent
  /// spellings as one; `Batch` uses `selectExact`).
  public func select(_ names: [String]) -> Set<String> { Set(selectExact(names).map(\.text)) }

  /// The names of `names` in this shard, told apart byte for byte: an NFC and an NFD spelling of
  /// one name are two presets (two files), each in exactly one shard.
  package func selectExact(_ names: [String]) -> Set<ExactName> {
    let sorted = Array(Set(names.map(ExactName.init))).sorted()
    return Set(sorted.enumerated().filter { $0.offset % count == index - 1 }.map(\.element))
  }
}
