import Foundation
import FuzzDriver

@testable import Loopsmith

/// One preset file's bytes: decoded, and when valid made into a job (never rendered).
///
/// Any thrown error is a fine answer; a trap (overflow, unwrap, bounds) is the bug libFuzzer finds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPreset(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let data = Data(bytes: start, count: count)
  guard var preset = try? Preset.decode(data, name: "fuzz", path: "fuzz.json") else { return 0 }
  // Files named inside are the table test's business: a fuzzer must not decode /dev/zero.
  preset.request.audio = nil
  preset.request.levels = nil
  _ = try? preset.request.job(defaultOutputs: ["fuzz.mp4"])
  return 0
}

// The executable's main (see FuzzDriver).
@_cdecl("fuzz_preset_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  runFuzzer(argc, argv, fuzzPreset)
}
