import Dispatch
import Effects
import Foundation
import Video

/// What `loopsmith batch` was asked to do.
public struct BatchOptions: Sendable {
  /// Preset files and folders of presets.
  public var inputs: [String]
  public var outDir: String
  /// Presets rendered at once.
  public var jobs = 1
  /// Cores shared by the jobs (default: all); each job renders with max(1, threads / jobs).
  public var threads: Int?
  public var force = false
  public var shard: BatchShard?
  /// Applied to every preset (`--size`, `--scale`, `--fps`, `--duration`), for tests and CI.
  public var overrides = RenderRequest()
  public var gallery = false
  /// The gallery posters' format (`--poster-format`): PNG, JPEG or WebP.
  public var posterFormat = OutputFormat.png
  /// `-n`: a preset that would write over an existing file fails instead (up-to-date presets are
  /// still skipped: they write nothing).
  public var noOverwrite = false
  /// `--split N`: every preset's frames in N parts, each a segment (`segments/`), which
  /// `batch --merge` joins; the shard then takes parts of presets (`Batch.units`).
  public var split: Int?

  public init(inputs: [String], outDir: String) { (self.inputs, self.outDir) = (inputs, outDir) }
}

/// One line of `DIR/manifest.json`: one output of one preset, or one preset that failed before its
/// outputs were known (`path` nil).
public struct BatchEntry: Sendable, Equatable {
  public enum Status: String, Sendable { case rendered, skipped, failed }
  public var preset: String
  /// The preset file as given.
  public var presetFile: String
  /// Relative to the output folder.
  public var path: String?
  public var format: String?
  public var codec: String?
  /// The `codecs` parameter of the stream's MIME type, e.g. `avc1.64000a`, for the gallery.
  public var codecs: String?
  public var width = 0
  public var height = 0
  /// The layout's screen in points (`WxH`) and the pixels per point it was drawn at.
  public var points: String?
  public var scale: Double?
  public var frames = 0
  public var duration = 0.0
  public var bytes: Int64 = 0
  public var sha256: String?
  public var seconds = 0.0
  public var status: Status
  public var error: String?
  /// What `render` would say as `Note:` lines: the job's notices (alpha a format drops, a sound
  /// fitted to the loop) and the render's notes (the quality a size budget reached).
  public var notes: [String]?
  /// SHA-256 of the preset file, its effective parameters and the tool version.
  public var key: String?
  /// A segment of `--split`: part `part` of `parts` of the output `segmentOf` (a name in the
  /// folder `batch --merge` writes), at `path` (`segments/NAME.partKofN.EXT`).
  public var segmentOf: String?
  public var part: Int?
  public var parts: Int?

  public init(preset: String, presetFile: String, status: Status) {
    (self.preset, self.presetFile, self.status) = (preset, presetFile, status)
  }

  func json() -> [String: Any] {
    var o: [String: Any] = ["preset": preset, "presetFile": presetFile, "status": status.rawValue]
    o["path"] = path ?? NSNull()
    if let format { o["format"] = format }
    if let codec { o["codec"] = codec }
    if let codecs { o["codecs"] = codecs }
    if status != .failed {
      o["width"] = width
      o["height"] = height
      if let points { o["points"] = points }
      if let scale { o["scale"] = scale }
      o["frames"] = frames
      o["duration"] = duration
      o["bytes"] = bytes
    }
    if let sha256 { o["sha256"] = sha256 }
    o["seconds"] = (seconds * 1000).rounded() / 1000
    if let error { o["error"] = error }
    if let notes, !notes.isEmpty { o["notes"] = notes }
    if let key { o["key"] = key }
    if let segmentOf { o["segmentOf"] = segmentOf }
    if let part, let parts { (o["part"], o["parts"]) = (part, parts) }
    return o
  }

  init?(json o: [String: Any]) {
    guard let preset = o["preset"] as? String, let status = (o["status"] as? String).flatMap(Status.init) else {
      return nil
    }
    self.init(preset: preset, presetFile: o["presetFile"] as? String ?? "", status: status)
    path = o["path"] as? String
    format = o["format"] as? String
    codec = o["codec"] as? String
    codecs = o["codecs"] as? String
    width = o["width"] as? Int ?? 0
    height = o["height"] as? Int ?? 0
    points = o["points"] as? String
    scale = o["scale"] as? Double
    frames = o["frames"] as? Int ?? 0
    duration = o["duration"] as? Double ?? 0
    bytes = (o["bytes"] as? NSNumber)?.int64Value ?? 0
    sha256 = o["sha256"] as? String
    seconds = o["seconds"] as? Double ?? 0
    error = o["error"] as? String
    notes = o["notes"] as? [String]
    key = o["key"] as? String
    segmentOf = o["segmentOf"] as? String
    part = o["part"] as? Int
    parts = o["parts"] as? Int
  }
}

/// `DIR/manifest.json`: every output of a batch, sorted by preset and path.
public struct BatchManifest: Sendable {
  public static let fileName = "manifest.json"
  public var entries: [BatchEntry]

  public init(entries: [BatchEntry]) {
    self.entries = entries.sorted { ($0.preset, $0.path ?? "") < ($1.preset, $1.path ?? "") }
  }

  public var failed: [BatchEntry] { entries.filter { $0.status == .failed } }

  public func text() -> String {
    let value: [String: Any] = [
      "version": 1, "tool": "loopsmith \(loopsmithVersion)", "outputs": entries.map { $0.json() },
    ]
    let data =
      (try? JSONSerialization.data(
        withJSONObject: value, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])) ?? Data()
    return String(decoding: data, as: UTF8.self) + "\n"
  }

  /// The manifest in `dir`, or nil when there is none; a manifest that cannot be read is an error.
  ///
  /// A manifest may come from elsewhere (a shard's folder, an artifact): its `path`s must stay in
  /// `dir` and its preset names be plain file names, or it is refused (exit 2) before anything
  /// reads, copies or removes a file it names.
  public static func read(dir: String) throws -> BatchManifest? {
    let path = (dir as NSString).appendingPathComponent(fileName)
    guard FileManager.default.fileExists(atPath: path) else { return nil }
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size <= 64 << 20 else {
      throw InputError("\(path): not a regular file under 64 MiB; expected a batch manifest")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw InputError("\(path): cannot read the file")
    }
    try StrictJSON.check(data, file: path)
    guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
      let rows = object["outputs"] as? [[String: Any]]
    else { throw InputError("\(path): not a batch manifest; expected a JSON object with 'outputs'") }
    var entries: [BatchEntry] = []
    for (i, row) in rows.enumerated() {
      guard var e = BatchEntry(json: row) else {
        throw InputError(
          "\(path): 'outputs[\(i)]': expected an object with 'preset' and 'status' (rendered, skipped or failed)")
      }
      guard Batch.isPlainName(e.preset) else {
        throw InputError(
          "\(path): 'outputs[\(i)].preset': not a plain file name; expected a preset name without '/', '\\' or a leading '.'"
        )
      }
      if let p = e.path {
        _ = try Confinement.path(p, in: dir, field: "outputs[\(i)].path", file: path)
        // One spelling per file: "./a.mp4" and "a.mp4" must meet in every clash check.
        e.path = ExactName.normalized(p)
      }
      if row["part"] != nil || row["parts"] != nil || row["segmentOf"] != nil {
        guard let part = e.part, let parts = e.parts, part >= 1, part <= parts, parts <= Batch.maxSplit else {
          throw InputError(
            "\(path): 'outputs[\(i)]': 'part' and 'parts' must be whole numbers with 1 <= part <= parts <= \(Batch.maxSplit); expected a segment of batch --split"
          )
        }
        if let of = e.segmentOf, !Batch.isPlainName(of) {
          throw InputError(
            "\(path): 'outputs[\(i)].segmentOf': not a plain file name; expected the output name the segment joins into"
          )
        }
        if e.status != .failed && (e.segmentOf == nil || e.path == nil) {
          throw InputError(
            "\(path): 'outputs[\(i)]': a segment without 'path' and 'segmentOf'; expected both for a rendered segment")
        }
      }
      entries.append(e)
    }
    return BatchManifest(entries: entries)
  }

  /// Writes `DIR/manifest.json` through a temporary file and a rename, so readers never see half.
  public func write(dir: String) throws {
    try writeAtomically(text(), to: (dir as NSString).appendingPathComponent(Self.fileName))
  }
}

/// Writes text to `path` through a temporary file in the same folder and a rename.
///
/// The temporary is `.NAME.PID-wRANDOM.loopsmith-tmp`, created exclusively, never through a link,
/// and `flock`ed until after its rename (`TemporaryFile`); a run after a SIGKILL finds it unlocked
/// and removes it.
func writeAtomically(_ text: String, to path: String) throws {
  let tmp = temporaryPath(for: path, tag: "w")
  let fd = TemporaryFile.create(tmp, access: O_WRONLY)
  guard fd >= 0 else { throw RenderFailure("\(path): cannot write the file: \(String(cString: strerror(errno)))") }
  let bytes = Array(text.utf8)
  var written = 0
  while written < bytes.count {
    let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    if n < 0 && errno == EINTR { continue }
    guard n > 0 else {
      let reason = String(cString: strerror(errno))
      close(fd)
      unlink(tmp)
      throw RenderFailure("\(path): cannot write the file: \(reason)")
    }
    written += n
  }
  // Renamed before it is closed: the lock marks it alive until it has its name.
  defer { close(fd) }
  guard fsync(fd) == 0 else {
    unlink(tmp)
    throw RenderFailure("\(path): cannot write the file: \(String(cString: strerror(errno)))")
  }
  guard rename(tmp, path) == 0 else {
    unlink(tmp)
    throw RenderFailure("\(path): cannot rename the temporary file into place (\(String(cString: strerror(errno))))")
  }
}

/// `.NAME.PID-TAGRANDOM.loopsmith-tmp` beside `path`: hidden, and unguessable. The random part
/// keeps apart two processes of one process id in different PID namespaces sharing the folder.
func temporaryPath(for path: String, tag: String) -> String {
  let folder = (path as NSString).deletingLastPathComponent
  let random = String(UInt64.random(in: .min ... .max), radix: 36)
  return (folder as NSString).appendingPathComponent(
    ".\((path as NSString).lastPathComponent).\(getpid())-\(tag)\(random)\(BatchFolder.temporarySuffix)")
}

/// What `--dry-run` reports for one preset.
public struct BatchPlanLine: Sendable, Equatable {
  public enum Status: String, Sendable { case render, upToDate = "up-to-date", invalid, leftOut = "left-out" }
  public var name: String
  public var status: Status
  public var outputs: [String]
  public var error: String?
}

/// The result of a batch run.
public struct BatchReport: Sendable {
  public var manifest: BatchManifest
  public var seconds: Double
  /// Presets the batch's overrides left out, each with the platform limit they break.
  public var leftOut: [(name: String, reason: String)] = []
  public var failedPresets: [(name: String, error: String)] {
    var seen = Set<String>()
    return manifest.failed.compactMap { e in seen.insert(e.preset).inserted ? (e.preset, e.error ?? "failed") : nil }
  }
}

/// Renders folders of presets: every preset's frames once into all its outputs, several presets
/// at once, skipping what is up to date, a shard of them on each machine.
public enum Batch {
  /// A preset file found among the inputs.
  public struct Source: Sendable, Equatable {
    public var name: String
    public var path: String
  }

  /// The preset files among `inputs` (files, and `*.json` in folders except `schema.json`), sorted by
  /// name. Errors (exit 2): a missing input, a folder without presets, the same name twice, a name that
  /// is not a plain file name.
  public static func discover(_ inputs: [String]) throws -> [Source] {
    guard !inputs.isEmpty else {
      throw InputError(
        "batch needs preset files or folders; expected loopsmith batch <preset.json | folder>... --out DIR")
    }
    // Keyed by the name's bytes: "é" as U+00E9 and as e + U+0301 are two files, two presets.
    var byName: [ExactName: Source] = [:]
    let fm = FileManager.default
    for input in inputs {
      var isDir: ObjCBool = false
      guard fm.fileExists(atPath: input, isDirectory: &isDir) else {
        throw InputError("\(input): no such preset file or folder")
      }
      var files: [String] = []
      if isDir.boolValue {
        let names = try folderNames(input)
        files = names.filter {
          $0.hasSuffix(".json") && $0 != "schema.json" && $0 != BatchManifest.fileName && !$0.hasPrefix(".")
        }
        .sorted().map { (input as NSString).appendingPathComponent($0) }
        guard !files.isEmpty else {
          throw InputError("\(input): a folder with no presets; expected *.json preset files in it")
        }
      } else {
        guard input.hasSuffix(".json") else {
          throw InputError("\(input): not a preset; expected a .json file or a folder of them")
        }
        files = [input]
      }
      for file in files {
        let name = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        guard isPlainName(name) else {
          throw InputError(
            "\(file): the preset name '\(name)' would escape the output folder; expected a plain file name")
        }
        let standard = URL(fileURLWithPath: file).standardizedFileURL.path
        if let other = byName[ExactName(name)] {
          if URL(fileURLWithPath: other.path).standardizedFileURL.path == standard { continue }
          throw InputError(
            "two presets are named '\(name)': \(other.path) and \(file); expected each name once (it names the outputs)"
          )
        }
        byName[ExactName(name)] = Source(name: name, path: file)
      }
    }
    return byName.values.sorted { ExactName($0.name) < ExactName($1.name) }
  }

  /// The names in folder `dir`, read as bytes (`readdir`): a preset's name that is not UTF-8
  /// (`*.json`, not hidden) is refused (exit 2), where Foundation's listing would hand over
  /// another name, with U+FFFD, that opens no file.
  static func folderNames(_ dir: String) throws -> [String] {
    guard let stream = opendir(dir) else { return [] }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
      guard let name = String(validating: bytes, as: UTF8.self) else {
        let json = Array(".json".utf8)
        if bytes.first != UInt8(ascii: "."), bytes.count > json.count, Array(bytes.suffix(json.count)) == json {
          throw InputError(
            "\(dir): the preset file name '\(escapedBytes(bytes))' is not valid UTF-8; expected UTF-8 file names (rename it, e.g. with convmv)"
          )
        }
        continue
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// Printable ASCII as it is, every other byte as `\xHH`.
  static func escapedBytes(_ bytes: [UInt8]) -> String {
    bytes.map { $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }
      .joined()
  }

  /// Whether `name` can name files in the output folder: not empty, no `/`, `\`, NUL, and no
  /// leading `.` (hidden, `..`).
  static func isPlainName(_ name: String) -> Bool {
    !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") && !name.contains("\\") && !name.contains("\0")
  }

  /// A preset made ready: its job, its outputs in the folder and its up-to-date key, or its error.
  struct Prepared {
    var source: Source
    var job: RenderJob?
    /// The request the job came from, outputs in the folder.
    var request: RenderRequest?
    /// Output file names, relative to the folder.
    var outputs: [String]
    var key: String?
    var error: String?
    /// Why the batch's overrides leave this preset out (its platform's limits refuse them), or nil.
    var leftOut: String?
    /// With `--split`: this is part `part` of `parts` of the preset, and `outputs` are its segments,
    /// which join into `finals` (the preset's own output names, in the same order).
    var part: Int? = nil
    var parts: Int? = nil
    var finals: [String] = []
    /// The name in logs and `--dry-run`: the preset's, and its part with `--split`.
    var label: String { part.map { "\(source.name) part \($0)/\(parts ?? 0)" } ?? source.name }
  }

  /// The most parts `--split` takes.
  static let maxSplit = 10_000

  /// The segment of part K of N of output `name` (a plain name), relative to the folder:
  /// `segments/NAME.partKofN.EXT`, so that parts of one output sort together and keep its format.
  public static func segmentName(_ name: String, part: Int, of parts: Int) -> String {
    let ext = (name as NSString).pathExtension
    return "segments/\((name as NSString).deletingPathExtension).part\(part)of\(parts).\(ext)"
  }

  static func prepare(_ source: Source, part: Int? = nil, options: BatchOptions, threads: Int) -> Prepared {
    var prepared = Prepared(source: source, job: nil, request: nil, outputs: [], key: nil, error: nil)
    prepared.part = part
    prepared.parts = part == nil ? nil : options.split
    do {
      let preset = try Preset.load(path: source.path)
      var request = preset.request.merged(with: options.overrides)
      let names = request.outputs.isEmpty ? [source.name + ".mp4"] : request.outputs
      if let part, let n = options.split {
        // The whole job, then its part: the key is the whole render's and the split's, the same
        // for every part, so that the merge can tell segments of one render.
        for name in names where !(OutputFormat(path: name).map(SegmentJoin.formats.contains) ?? false) {
          throw InputError(
            "--split: '\(name)' cannot be joined; expected .mp4, .mov, .webm or .y4m outputs (render this preset without --split)"
          )
        }
        let segments = names.map { segmentName($0, part: part, of: n) }
        prepared.finals = names
        prepared.outputs = segments
        request.outputs = segments.map { (options.outDir as NSString).appendingPathComponent($0) }
        request.threads = threads
        // The parts write segments only; the gallery's poster comes from the part holding frame 0.
        request.poster = nil
        let whole = try request.job()
        guard whole.frameCount >= n else {
          throw InputError(
            "--split \(n): \(source.name) has \(whole.frameCount) frames; expected at most one part per frame")
        }
        let job: RenderJob
        do {
          job = try whole.segment("\(part)/\(n)")
        } catch {
          throw InputError(message(for: error).replacingOccurrences(of: "--frames:", with: "--split \(n):"))
        }
        prepared.job = job
        prepared.request = request
        prepared.key = try key(source: source, request: request, job: whole, names: names, split: n)
        return prepared
      }
      prepared.outputs = names
      request.outputs = names.map { (options.outDir as NSString).appendingPathComponent($0) }
      // A preset's poster, like its outputs, is a plain name in the folder.
      request.poster = request.poster.map { $0.isEmpty ? $0 : (options.outDir as NSString).appendingPathComponent($0) }
      request.threads = threads
      let job = try request.job()
      prepared.job = job
      prepared.request = request
      prepared.key = try key(source: source, request: request, job: job, names: names)
    } catch let e as InputError where e.breaksPlatformLimit && options.overrides.overridesFrame {
      // The Makefile's `make renders RENDERS_FLAGS='--size 32x56 --fps 4'` previews every preset
      // small, and a Telegram preset cannot be made at that size: it is left out, named with its
      // limit, not failed, and its files and manifest entries stay as they were.
      prepared.job = nil
      prepared.leftOut = e.message
    } catch {
      prepared.error = message(for: error).replacingOccurrences(of: "\n", with: " ")
    }
    return prepared
  }

  /// SHA-256 of the tool version, the preset file's bytes, and the effective values of everything
  /// that shapes the pixels or the encoding (the job after defaults and overrides, and `--split`).
  static func key(
    source: Source, request: RenderRequest, job: RenderJob, names: [String], split: Int? = nil
  ) throws -> String {
    guard let bytes = FileManager.default.contents(atPath: source.path) else {
      throw RenderFailure("\(source.path): cannot read the file")
    }
    var lines = [
      "tool loopsmith \(loopsmithVersion)", "preset \(SHA256.hex(bytes))", "effect \(job.effectType.info.name)",
    ]
    for (name, value) in job.values.values.sorted(by: { $0.key < $1.key }) { lines.append("param \(name)=\(value)") }
    let env = job.environment
    lines.append(
      "size \(job.width)x\(job.height) scale \(job.scale) fps \(job.fps) frames \(job.frameCount) time \(job.fixedTime.map { "\($0)" } ?? "-")"
    )
    lines.append(
      "env \(env.appearance.rawValue) \(env.palette.rawValue) rtl \(env.rightToLeft) still \(env.reduceMotion)")
    if let plan = job.plan {
      lines.append("plan \(plan.length) \(plan.rows.map { "\($0.layer):\($0.plannedRate)" }.joined(separator: ","))")
    }
    for (name, s) in zip(names, job.outputs) {
      lines.append(
        "output \(name) \(s.format.rawValue) \(s.codec.rawValue) crf \(s.crf.map(String.init) ?? "-") depth \(s.bitDepth) alpha \(s.keepAlpha) bg \(s.background) x264 \(s.x264Preset)"
      )
    }
    for file in [request.audio, request.levels].compactMap({ $0 }) {
      lines.append("input \(file) \(SHA256.hex(ofFile: file) ?? "unreadable")")
    }
    if let split { lines.append("split \(split)") }
    return SHA256.hex(lines.joined(separator: "\n"))
  }

  /// Whether `previous` records every output of `p` made with the same key, and the files are there
  /// with the recorded SHA-256 (a file of the same size holding other frames, left by a killed
  /// batch or edited by hand, is rendered again).
  static func isUpToDate(_ p: Prepared, previous: [ExactName: [BatchEntry]], dir: String) -> [BatchEntry]? {
    guard let key = p.key, let old = previous[ExactName(p.source.name)] else { return nil }
    var out: [BatchEntry] = []
    for name in p.outputs {
      guard let e = old.first(where: { $0.path.map(ExactName.path) == ExactName.path(name) }), e.status != .failed,
        e.key == key
      else { return nil }
      let path = (dir as NSString).appendingPathComponent(name)
      guard let attrs = try? FileManager.default.attributesOfItem(atPath: path),
        attrs[.type] as? FileAttributeType == .typeRegular, (attrs[.size] as? NSNumber)?.int64Value == e.bytes,
        let recorded = e.sha256, SHA256.hex(ofFile: path) == recorded
      else { return nil }
      out.append(e)
    }
    return out
  }

  /// Render threads per job: the cores shared by the jobs, never fewer than one.
  public static func threadsPerJob(cores: Int, jobs: Int) -> Int { max(1, cores / max(1, jobs)) }

  /// The presets `options` selects (its shard), with the others' names left out.
  static func selected(_ options: BatchOptions) throws -> [Source] {
    let all = try discover(options.inputs)
    guard let shard = options.shard else { return all }
    let keep = shard.selectExact(all.map(\.name))
    return all.filter { keep.contains(ExactName($0.name)) }
  }

  /// What this machine renders: its shard of the presets, or with `--split N` its shard of the
  /// parts. The parts are listed preset by preset in name order, part 1 to N of each, and shard K
  /// of M takes every M-th from the K-th: with M = N (an array of N tasks), shard K renders part K
  /// of every preset; with M = 1 (or no shard) one machine renders every part; any M covers each
  /// part once.
  static func units(_ options: BatchOptions) throws -> [(source: Source, part: Int?)] {
    guard let n = options.split else { return try selected(options).map { ($0, nil) } }
    guard n >= 1, n <= maxSplit else {
      throw InputError("--split: '\(n)' is not valid; expected a whole number of parts from 1 to \(maxSplit)")
    }
    let all = try discover(options.inputs).flatMap { s in (1...n).map { (source: s, part: Optional($0)) } }
    guard let shard = options.shard else { return all }
    return all.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
  }

  /// Which entries already in the folder the prepared units replace: every entry of a preset
  /// rendered whole; of a preset split, its entries for the parts rendered now, any of another
  /// split count (the other parts are other machines'), and its whole outputs, which the merge of
  /// the new parts will write over.
  static func replaces(_ prepared: [Prepared]) -> (BatchEntry) -> Bool {
    let whole = Set(prepared.filter { $0.part == nil }.map { ExactName($0.source.name) })
    var parts: [ExactName: (count: Int, done: Set<Int>, finals: Set<ExactName>)] = [:]
    for p in prepared {
      guard let k = p.part, let n = p.parts else { continue }
      parts[ExactName(p.source.name), default: (n, [], [])].done.insert(k)
      parts[ExactName(p.source.name)]?.finals.formUnion(p.finals.map(ExactName.path))
    }
    return { e in
      if whole.contains(ExactName(e.preset)) { return true }
      guard let split = parts[ExactName(e.preset)] else { return false }
      guard let k = e.part, let n = e.parts else { return e.path.map { split.finals.contains(.path($0)) } ?? true }
      return n != split.count || split.done.contains(k)
    }
  }

  /// Refuses two presets writing one file: names compared normalized (`./a.mp4` is `a.mp4`) and
  /// byte for byte (`ExactName`).
  static func checkOutputCollisions(_ prepared: [Prepared]) throws {
    var owner: [ExactName: String] = [:]
    for p in prepared {
      for name in p.outputs {
        if let other = owner[.path(name)], !other.isExactly(p.source.name) {
          throw InputError(
            "presets '\(other)' and '\(p.source.name)' both write '\(name)'; expected each output name once in the folder"
          )
        }
        owner[.path(name)] = p.source.name
      }
    }
  }

  /// `--dry-run`: what would render and what is up to date, rendering nothing.
  public static func plan(_ options: BatchOptions) throws -> [BatchPlanLine] {
    let units = try units(options)
    let previous = try previousEntries(options.outDir)
    let prepared = units.map { prepare($0.source, part: $0.part, options: options, threads: 1) }
    try checkOutputCollisions(prepared)
    return prepared.map { p in
      let status: BatchPlanLine.Status =
        p.leftOut != nil
        ? .leftOut
        : p.error != nil
          ? .invalid
          : (!options.force && isUpToDate(p, previous: previous, dir: options.outDir) != nil ? .upToDate : .render)
      return BatchPlanLine(name: p.label, status: status, outputs: p.outputs, error: p.error ?? p.leftOut)
    }
  }

  static func previousEntries(_ dir: String) throws -> [ExactName: [BatchEntry]] {
    let manifest = try BatchManifest.read(dir: dir)
    return Dictionary(grouping: manifest?.entries ?? [], by: { ExactName($0.preset) })
  }

  /// Renders the selected presets into `options.outDir`, `jobs` at a time, and writes the manifest
  /// (and the gallery). Failures are recorded per preset; only bad arguments throw.
  public static func run(_ options: BatchOptions, log: (@Sendable (String) -> Void)? = nil) throws -> BatchReport {
    let start = Date()
    let jobs = options.jobs
    guard jobs >= 1, jobs <= 64 else {
      throw InputError("--jobs: '\(jobs)' is not valid; expected a whole number from 1 to 64")
    }
    let cores = options.threads ?? ProcessInfo.processInfo.activeProcessorCount
    guard cores >= 1, cores <= 256 else {
      throw InputError("--threads: '\(cores)' is not valid; expected a whole number from 1 to 256")
    }
    let units = try units(options)
    let dir = options.outDir
    do {
      try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    } catch {
      throw RenderFailure("\(dir): cannot create the output folder")
    }
    if options.split != nil {
      let segments = (dir as NSString).appendingPathComponent("segments")
      try? FileManager.default.createDirectory(atPath: segments, withIntermediateDirectories: true)
      guard Confinement.isInside(segments, folder: dir), isFolder(segments) else {
        throw RenderFailure("\(segments): cannot create the folder, or it leaves \(dir) through a symbolic link")
      }
    }
    _ = try BatchFolder.withLock(dir) { BatchFolder.removeStaleTemporaries(in: dir) }
    let previous = try previousEntries(dir)
    let perJob = threadsPerJob(cores: cores, jobs: jobs)
    let all = units.map { prepare($0.source, part: $0.part, options: options, threads: perJob) }
    let prepared = all.filter { $0.leftOut == nil }
    let leftOut = all.compactMap { p in p.leftOut.map { (name: p.label, reason: $0) } }
    try checkOutputCollisions(prepared)

    let results = ResultBox(count: prepared.count)
    let next = ResultBox.Counter()
    let workers = min(jobs, max(1, prepared.count))
    let group = DispatchGroup()
    // Plain threads, one job at a time each: each job's pipeline starts its own render threads over
    // its share of the cores.
    for _ in 0..<workers {
      group.enter()
      let thread = Thread {
        defer { group.leave() }
        while let i = next.take(below: prepared.count) {
          if Cancellation.signal != nil { break }
          log?("\(prepared[i].label): started (\(i + 1) of \(prepared.count))")
          let entries = renderOne(prepared[i], options: options, previous: previous)
          results.set(i, entries)
          for e in entries where e.path != nil || e.status == .failed {
            log?(
              "\(e.preset)\(e.path.map { " -> \($0)" } ?? ""): \(e.status.rawValue)\(e.error.map { ": \($0)" } ?? "")\(e.status == .rendered ? String(format: " in %.2f s", e.seconds) : "")"
            )
          }
        }
      }
      thread.stackSize = 8 << 20
      thread.start()
    }
    group.wait()
    if let signal = Cancellation.signal {
      // Stopped: the manifest still tells the truth. Presets that finished are listed as they
      // ended (the one cut short as failed, so the next run renders it), presets never reached
      // keep what the manifest said of them, and no file is listed that is not there.
      let done = zip(prepared, results.all).filter { !$0.1.isEmpty }
      try BatchFolder.mergeManifest(
        dir, presets: [], entries: done.flatMap(\.1), replacing: replaces(done.map(\.0)))
      throw Interrupted(signal: signal)
    }
    // Merged, never replaced: presets of other batches (run at once into this folder, or a subset
    // run before) keep their entries, and so do the other parts of a split preset.
    let entries = results.all.flatMap { $0 }
    try BatchFolder.mergeManifest(
      dir, presets: [], entries: entries, replacing: replaces(prepared), gallery: options.gallery)
    return BatchReport(
      manifest: BatchManifest(entries: entries), seconds: Date().timeIntervalSince(start), leftOut: leftOut)
  }

  static func renderOne(_ p: Prepared, options: BatchOptions, previous: [ExactName: [BatchEntry]]) -> [BatchEntry] {
    let start = Date()
    let dir = options.outDir
    func failed(_ error: String) -> [BatchEntry] {
      let paths: [String?] = p.outputs.isEmpty ? [nil] : p.outputs.map { $0 }
      return paths.enumerated().map { i, path in
        var e = BatchEntry(preset: p.source.name, presetFile: p.source.path, status: .failed)
        e.path = path
        e.format = path.flatMap { OutputFormat(path: $0)?.rawValue }
        e.error = error
        e.key = p.key
        e.seconds = Date().timeIntervalSince(start)
        e.marked(as: p, output: i)
        return e
      }
    }
    // A preset's poster is its frame 0: with --split, the part that holds it draws it.
    let drawsPoster = options.gallery && (p.part ?? 1) == 1
    guard let job = p.job, p.error == nil else { return failed(p.error ?? "failed") }
    if !options.force, var kept = isUpToDate(p, previous: previous, dir: dir) {
      for i in kept.indices {
        kept[i].status = .skipped
        kept[i].presetFile = p.source.path
        kept[i].seconds = Date().timeIntervalSince(start)
        kept[i].error = nil
        if options.gallery && kept[i].codecs == nil {
          kept[i].codecs = Gallery.codecs(path: (dir as NSString).appendingPathComponent(kept[i].path ?? ""))
        }
      }
      if drawsPoster,
        !FileManager.default.fileExists(
          atPath: (dir as NSString).appendingPathComponent(
            Gallery.posterName(p.source.name, format: options.posterFormat)))
      {
        Gallery.tryPoster(p, dir: dir, format: options.posterFormat)
      }
      return kept
    }
    if options.noOverwrite, let existing = job.outputs.first(where: { FileManager.default.fileExists(atPath: $0.path) })
    {
      return failed(RenderRequest.existsMessage(existing.path))
    }
    do {
      // The gallery's poster is frame 0 of this very render, written beside its outputs; with
      // --split, the part that holds frame 0 draws it.
      let withPoster =
        drawsPoster
        ? Gallery.addingPoster(to: job, preset: p.source.name, dir: dir, format: options.posterFormat) : nil
      let result = try RenderPipeline.run(withPoster ?? job)
      if drawsPoster && withPoster == nil { Gallery.tryPoster(p, dir: dir, format: options.posterFormat) }
      let seconds = Date().timeIntervalSince(start)
      return zip(p.outputs, zip(job.outputs, result.files)).map { name, pair in
        let (settings, file) = pair
        var e = BatchEntry(preset: p.source.name, presetFile: p.source.path, status: .rendered)
        e.path = name
        e.format = settings.format.rawValue
        e.codec = file.codec.rawValue
        e.width = settings.width
        e.height = settings.height
        e.points = "\(job.points.width.roundedText)x\(job.points.height.roundedText)"
        e.scale = job.scale
        e.frames = file.frames
        e.duration = file.duration
        e.bytes = file.bytes
        e.sha256 = SHA256.hex(ofFile: file.path)
        e.notes = job.notices + result.notes
        e.seconds = seconds
        e.key = p.key
        if options.gallery { e.codecs = Gallery.codecs(path: file.path) }
        e.marked(as: p, output: p.outputs.firstIndex(where: { $0.isExactly(name) }) ?? 0)
        return e
      }
    } catch {
      return failed(message(for: error).replacingOccurrences(of: "\n", with: " "))
    }
  }

  /// `--merge`: the shards' manifests as one, their files copied into `out` (when it is another
  /// folder), and the segments of `--split` joined (`SegmentJoin`, without re-encoding) into
  /// their outputs. All or nothing: every manifest is read and checked (its paths confined to its
  /// folder, each whole preset and each path in one shard only, each file there, every part of
  /// every split output listed, there and with the sha256 its manifest recorded) before anything
  /// is written; the files are copied and joined to temporaries beside their places and renamed
  /// only when all succeeded. A preset or path in two shards is an error (exit 2); a missing or
  /// corrupt segment is an error naming it (exit 1). The segments of a joined output are removed
  /// (with their manifests' entries) only once the joined files and the manifest are in place.
  /// `keyFrames` `.first` encodes each joined loop again (`SegmentJoin.KeyFrames`) at the quality
  /// its segments' preset tag names; outputs whose every frame is a key frame (Y4M, ProRes) already
  /// have a whole render's key frames and are joined by copying, so a preset may mix them.
  public static func merge(
    _ dirs: [String], into out: String, gallery: Bool, keyFrames: SegmentJoin.KeyFrames = .segments
  ) throws -> BatchReport {
    let start = Date()
    guard !dirs.isEmpty else {
      throw InputError("--merge needs the shards' output folders; expected loopsmith batch --merge DIR... --out DIR")
    }
    let fm = FileManager.default
    do {
      try fm.createDirectory(atPath: out, withIntermediateDirectories: true)
    } catch {
      throw RenderFailure("\(out): cannot create the output folder")
    }
    _ = try BatchFolder.withLock(out) { BatchFolder.removeStaleTemporaries(in: out) }
    let outPath = URL(fileURLWithPath: out).standardizedFileURL.resolvingSymlinksInPath().path
    // Byte for byte (ExactName): an NFC and an NFD name are two presets, two files.
    var from: [ExactName: String] = [:]
    var pathFrom: [ExactName: String] = [:]
    var entries: [BatchEntry] = []
    var copies: [(src: String, dst: String)] = []
    var pieces: [Piece] = []
    for dir in dirs {
      guard let manifest = try BatchManifest.read(dir: dir) else {
        throw InputError("\(dir): no \(BatchManifest.fileName); expected the output folder of a batch shard")
      }
      for preset in Set(manifest.entries.filter { $0.parts == nil }.map { ExactName($0.preset) }).sorted() {
        if let other = from[preset] {
          throw InputError("preset '\(preset)' is in both \(other) and \(dir); expected disjoint shards")
        }
        from[preset] = dir
      }
      for e in manifest.entries {
        guard let path = e.path else { continue }  // normalized by BatchManifest.read
        if let other = pathFrom[.path(path)] {
          throw InputError("'\(path)' is written by both \(other) and \(dir); expected disjoint shards")
        }
        pathFrom[.path(path)] = dir
      }
      let same = URL(fileURLWithPath: dir).standardizedFileURL.resolvingSymlinksInPath().path == outPath
      let manifestFile = (dir as NSString).appendingPathComponent(BatchManifest.fileName)
      for (i, e) in manifest.entries.enumerated() {
        if e.parts != nil {
          let src = try e.path.map {
            try Confinement.path($0, in: dir, field: "outputs[\(i)].path", file: manifestFile)
          }
          pieces.append(Piece(entry: e, dir: dir, manifest: manifestFile, file: src))
        } else {
          entries.append(e)
        }
        guard !same else { continue }
        if let path = e.path, e.status != .failed, e.parts == nil {
          let src = try Confinement.path(path, in: dir, field: "outputs[\(i)].path", file: manifestFile)
          guard isRegularFile(src) else {
            throw InputError(
              "\(src): listed in \(manifestFile) but not a regular file there; expected the shard's output")
          }
          copies.append((src, try Confinement.path(path, in: out, field: "outputs[\(i)].path", file: manifestFile)))
        }
        for poster in Gallery.posterNames(e.preset) {
          let src = (dir as NSString).appendingPathComponent(poster)
          if isRegularFile(src), Confinement.isInside(src, folder: dir),
            !copies.contains(where: { $0.src.isExactly(src) })
          {
            copies.append((src, (out as NSString).appendingPathComponent(poster)))
          }
        }
      }
    }
    let (joins, failed) = try planJoins(pieces, wholeFrom: from, dirs: dirs, out: out)
    entries += failed
    if copies.contains(where: { $0.dst.hasPrefix((out as NSString).appendingPathComponent("posters/")) }) {
      try? fm.createDirectory(
        atPath: (out as NSString).appendingPathComponent("posters"), withIntermediateDirectories: true)
      guard Confinement.isInside((out as NSString).appendingPathComponent("posters"), folder: out) else {
        throw InputError("\(out)/posters: leaves the output folder through a symbolic link; expected a folder")
      }
    }
    // Every destination is checked before anything is copied: a folder (or anything but a file or
    // a link) at an output's path would fail its rename after others were already in place.
    for dst in copies.map(\.dst) + joins.map(\.dst) {
      var info = stat()
      if lstat(dst, &info) == 0, info.st_mode & S_IFMT != S_IFREG, info.st_mode & S_IFMT != S_IFLNK {
        throw RenderFailure("\(dst): is not a file and cannot be replaced; expected a file path (nothing was merged)")
      }
    }
    // Copy and join everything to temporaries first; only when every one is whole are they renamed.
    // Each is held open and flock'ed (TemporaryFile) until renamed, so no sweep takes it.
    var staged: [(tmp: String, dst: String, fd: Int32)] = []
    defer { for s in staged { close(s.fd) } }
    do {
      for c in copies {
        try Cancellation.check()
        let tmp = temporaryPath(for: c.dst, tag: "m")
        staged.append((tmp, c.dst, try copyFile(c.src, to: tmp)))
      }
      for j in joins {
        try Cancellation.check()
        let tmp = temporaryPath(for: j.dst, tag: "j")
        staged.append((tmp, j.dst, -1))
        entries.append(try join(j, staging: tmp, gallery: gallery, keyFrames: keyFrames))
        staged[staged.count - 1].fd = lockStaged(tmp)
      }
      try Cancellation.check()
    } catch {
      for s in staged { unlink(s.tmp) }
      throw error
    }
    try BatchFolder.withLock(out) { try placeStaged(staged.map { ($0.tmp, $0.dst) }) }
    let shards = Set(entries.map { ExactName($0.preset) })
    try BatchFolder.mergeManifest(out, presets: shards, entries: entries, gallery: gallery)
    removeSegments(joins.flatMap(\.pieces), out: out)
    return BatchReport(manifest: BatchManifest(entries: entries), seconds: Date().timeIntervalSince(start))
  }

  /// A segment's entry in a shard's manifest, its folder, and its file (nil for a part that
  /// failed before its outputs were known).
  struct Piece {
    var entry: BatchEntry
    var dir: String
    var manifest: String
    var file: String?
  }

  /// One output of a split preset: its segments in part order, and where it goes.
  struct Join {
    var preset: String
    var output: String
    var dst: String
    var pieces: [Piece]
  }

  /// Groups the segments by preset and output and checks that every part is there, whole: the
  /// joins to make, and the failed entries of split presets a part of which failed (their
  /// segments stay, for the re-run).
  static func planJoins(
    _ pieces: [Piece], wholeFrom: [ExactName: String], dirs: [String], out: String
  ) throws -> (joins: [Join], failed: [BatchEntry]) {
    var joins: [Join] = []
    var failed: [BatchEntry] = []
    for (name, pieces) in Dictionary(grouping: pieces, by: { ExactName($0.entry.preset) }).sorted(by: {
      $0.key < $1.key
    }) {
      let preset = name.text
      let first = pieces[0]
      if let other = wholeFrom[name] {
        throw InputError(
          "preset '\(preset)' is rendered whole in \(other) and split into segments in \(first.dir); expected one or the other"
        )
      }
      let counts = Set(pieces.compactMap(\.entry.parts)).sorted()
      guard counts.count == 1, let n = counts.first else {
        throw InputError(
          "preset '\(preset)': segments of --split \(counts.map(String.init).joined(separator: " and --split ")); expected one split count for every shard"
        )
      }
      if let bad = pieces.first(where: { $0.entry.status == .failed }) {
        let error = "part \(bad.entry.part ?? 0) of \(n) failed in \(bad.dir): \(bad.entry.error ?? "failed")"
        let outputs = Set(pieces.compactMap { $0.entry.segmentOf.map(ExactName.init) }).sorted().map(\.text)
        for output in outputs.isEmpty ? [nil] : outputs.map(Optional.some) {
          var e = BatchEntry(preset: preset, presetFile: bad.entry.presetFile, status: .failed)
          e.path = output
          e.format = output.flatMap { OutputFormat(path: $0)?.rawValue }
          e.error = error
          e.key = bad.entry.key
          failed.append(e)
        }
        continue
      }
      let keys = Set(pieces.compactMap(\.entry.key))
      guard keys.count <= 1 else {
        throw InputError(
          "preset '\(preset)': its segments come from different renders (the preset or the batch options changed between shards); expected every shard run with the same presets and options"
        )
      }
      for (key, parts) in Dictionary(grouping: pieces, by: { ExactName($0.entry.segmentOf ?? "") }).sorted(by: {
        $0.key < $1.key
      }) {
        let output = key.text
        var ordered: [Piece] = []
        for k in 1...n {
          let name = segmentName(output, part: k, of: n)
          let these = parts.filter { $0.entry.part == k }
          guard these.count <= 1 else {
            throw InputError(
              "\(output) (preset \(preset)): part \(k) of \(n) is listed twice (\(these.compactMap(\.entry.path).joined(separator: ", "))); expected each part once"
            )
          }
          guard let piece = these.first, let file = piece.file else {
            throw RenderFailure(
              "\(name): part \(k) of \(n) of \(output) (preset \(preset)) is missing: no manifest of \(dirs.joined(separator: ", ")) lists it; re-run the task that renders it, then merge again"
            )
          }
          guard isRegularFile(file) else {
            throw RenderFailure(
              "\(file): part \(k) of \(n) of \(output) (preset \(preset)) is missing: \(piece.manifest) lists it but the file is not there; re-run the task that renders it, then merge again"
            )
          }
          guard let recorded = piece.entry.sha256, SHA256.hex(ofFile: file) == recorded else {
            throw RenderFailure(
              "\(file): part \(k) of \(n) of \(output) (preset \(preset)) is corrupt: its sha256 is not the one \(piece.manifest) records; re-run the task that renders it, then merge again"
            )
          }
          ordered.append(piece)
        }
        let dst = try Confinement.path(output, in: out, field: "segmentOf", file: ordered[0].manifest)
        joins.append(Join(preset: preset, output: output, dst: dst, pieces: ordered))
      }
    }
    return (joins, failed)
  }

  /// Joins `j`'s segments into `staging` (renamed to `j.dst` by the caller): its manifest entry.
  static func join(
    _ j: Join, staging: String, gallery: Bool, keyFrames: SegmentJoin.KeyFrames = .segments
  ) throws -> BatchEntry {
    let start = Date()
    let joined: JoinedFile
    let format = OutputFormat(path: j.output)
    // Nothing but key frames already (Y4M, ProRes): copied, like a whole render's.
    let intraOnly = format.map { SegmentJoin.keyFramesFirstProblem(format: $0, codec: j.pieces[0].entry.codec) != nil }
    let keyFrames = intraOnly == true ? .segments : keyFrames
    do {
      joined = try SegmentJoin.join(
        j.pieces.compactMap(\.file), into: staging, format: format, keyFrames: keyFrames,
        encoding: JoinEncoding.choice(crf: nil, quality: nil))
    } catch {
      throw RenderFailure(
        "\(j.output) (preset \(j.preset)): its segments cannot be joined: \(message(for: error).replacingOccurrences(of: "\n", with: " "))"
      )
    }
    let part = j.pieces[0].entry
    var e = BatchEntry(preset: j.preset, presetFile: part.presetFile, status: .rendered)
    e.path = j.output
    e.format = OutputFormat(path: j.output)?.rawValue
    e.codec = part.codec
    e.width = part.width
    e.height = part.height
    e.points = part.points
    e.scale = part.scale
    e.frames = joined.frames
    e.duration = joined.duration
    e.bytes = joined.bytes
    e.sha256 = SHA256.hex(ofFile: staging)
    // The machines' time and the join's.
    e.seconds = j.pieces.reduce(Date().timeIntervalSince(start)) { $0 + $1.entry.seconds }
    e.key = part.key
    if gallery { e.codecs = Gallery.codecs(path: staging) }
    return e
  }

  /// Removes joined segments and their entries in the shards' manifests (the output folder's own
  /// entries were replaced by the merge), and `segments/` folders left empty. A segment that
  /// cannot be removed is left: the output is already whole.
  static func removeSegments(_ pieces: [Piece], out: String) {
    for piece in pieces { if let file = piece.file { unlink(file) } }
    let outPath = URL(fileURLWithPath: out).standardizedFileURL.resolvingSymlinksInPath().path
    for (dir, ps) in Dictionary(grouping: pieces, by: \.dir) {
      let gone = Set(ps.compactMap { $0.entry.path.map(ExactName.path) })
      if URL(fileURLWithPath: dir).standardizedFileURL.resolvingSymlinksInPath().path != outPath {
        try? BatchFolder.withLock(dir) {
          guard let manifest = try BatchManifest.read(dir: dir) else { return }
          let kept = BatchManifest(entries: manifest.entries.filter { !gone.contains(.path($0.path ?? "")) })
          try kept.write(dir: dir)
          // The shard's page no longer shows the segments.
          if isRegularFile((dir as NSString).appendingPathComponent(Gallery.fileName)) {
            try Gallery.write(kept, dir: dir)
          }
        }
      }
      rmdir((dir as NSString).appendingPathComponent("segments"))
    }
  }

  static func isFolder(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
  }

  static func isRegularFile(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
  }

  /// Copies `src` (a regular file) to `dst`, a new file (never through a link, `flock`ed as a
  /// temporary), and syncs it. Returns `dst`'s descriptor, still locked, for the caller to close
  /// once `dst` is renamed into place.
  static func copyFile(_ src: String, to dst: String) throws -> Int32 {
    let input = open(src, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard input >= 0 else { throw RenderFailure("\(src): cannot open the file: \(String(cString: strerror(errno)))") }
    defer { close(input) }
    var info = stat()
    guard fstat(input, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      throw InputError("\(src): not a regular file; expected a shard's output")
    }
    let output = TemporaryFile.create(dst, access: O_WRONLY)
    guard output >= 0 else {
      throw RenderFailure("\(dst): cannot create the file: \(String(cString: strerror(errno)))")
    }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    func fail(_ what: String) -> RenderFailure {
      let e = RenderFailure("\(dst): \(what): \(String(cString: strerror(errno)))")
      close(output)
      unlink(dst)
      return e
    }
    while true {
      let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n < 0 { throw fail("cannot read \(src)") }
      if n == 0 { break }
      var done = 0
      while done < n {
        let w = buffer[done..<n].withUnsafeBytes { write(output, $0.baseAddress, $0.count) }
        if w < 0 && errno == EINTR { continue }
        guard w > 0 else { throw fail("cannot write the copy") }
        done += w
      }
    }
    guard fsync(output) == 0 else { throw fail("fsync failed") }
    return output
  }

  /// `path` (a joined file just renamed there) open and `flock`ed as a temporary, or -1.
  static func lockStaged(_ path: String) -> Int32 {
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    if fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0 {
      close(fd)
      return -1
    }
    return fd
  }

  /// Renames every staged file onto its destination, or none: a file already at a destination
  /// is first linked to a temporary name, and when a later rename fails the renamed ones are put
  /// back (the old file, or nothing where there was none) and the rest of the staged files
  /// removed. Called under the output folder's lock, so no sweep meets the old files' links.
  static func placeStaged(_ staged: [(tmp: String, dst: String)]) throws {
    var placed: [(dst: String, old: String?)] = []
    func undo() {
      for p in placed.reversed() {
        if let old = p.old { rename(old, p.dst) } else { unlink(p.dst) }
      }
    }
    for (i, s) in staged.enumerated() {
      var old: String? = nil
      var info = stat()
      if lstat(s.dst, &info) == 0 {
        let keep = temporaryPath(for: s.dst, tag: "o")
        guard link(s.dst, keep) == 0 || rename(s.dst, keep) == 0 else {
          let reason = String(cString: strerror(errno))
          undo()
          for rest in staged[i...] { unlink(rest.tmp) }
          throw RenderFailure("\(s.dst): cannot keep the file there while merging: \(reason); nothing was merged")
        }
        old = keep
      }
      guard rename(s.tmp, s.dst) == 0 else {
        let reason = String(cString: strerror(errno))
        if let old { rename(old, s.dst) }
        undo()
        for rest in staged[i...] { unlink(rest.tmp) }
        throw RenderFailure("\(s.dst): cannot rename the copy into place: \(reason); nothing was merged")
      }
      placed.append((s.dst, old))
    }
    for p in placed { if let old = p.old { unlink(old) } }
  }
}

extension BatchEntry {
  /// Marks the entry of output `i` of `p` as a segment when `p` is a part of `--split`.
  mutating func marked(as p: Batch.Prepared, output i: Int) {
    guard let k = p.part, let n = p.parts else { return }
    (part, parts) = (k, n)
    segmentOf = p.finals.indices.contains(i) ? p.finals[i] : nil
  }
}

/// Results by preset index, filled by the worker threads.
private final class ResultBox: @unchecked Sendable {
  private let lock = NSLock()
  private var slots: [[BatchEntry]]
  init(count: Int) { slots = Array(repeating: [], count: count) }
  func set(_ i: Int, _ e: [BatchEntry]) { lock.withLock { slots[i] = e } }
  var all: [[BatchEntry]] { lock.withLock { slots } }

  /// Hands out indices 0, 1, 2, ... to the workers.
  final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func take(below n: Int) -> Int? {
      lock.withLock {
        guard value < n else { return nil }
        defer { value += 1 }
        return value
      }
    }
  }
}
