import Foundation
import FuzzDriver
import Loopsmith

@testable import LoopsmithCLI

/// One command line, a word per line: parsed as `render` parses it and made into a job the way
/// `render` and `plan` make it, without rendering. The first word is the effect.
///
/// Any thrown error is a fine answer; a trap (overflow, unwrap, bounds) is the bug libFuzzer finds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
  let words = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  guard let parsed = try? ParsedArguments(words, specs: RenderCommand.options) else { return 0 }
  var base = RenderRequest()
  base.effect = parsed.positionals.first
  guard var request = try? base.merged(with: RenderCommand.requestFromFlags(parsed, effect: base.effect)) else {
    return 0
  }
  request.audio = nil  // files are the table test's business: a fuzzer must not decode /dev/zero
  request.levels = nil
  _ = try? request.job(defaultOutputs: ["fuzz.mp4"])
  return 0
}

// The executable's main (see FuzzDriver).
@_cdecl("fuzz_arguments_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
  runFuzzer(argc, argv, fuzzArguments)
}
