// SwiftPM links an executable with main renamed to <module>_main; each target defines that main
// and calls `runFuzzer`, which hands the command line to libFuzzer's driver (libFuzzer's own main
// stays out of the link).

/// One input's test, as libFuzzer calls it.
public typealias FuzzTest = @convention(c) (UnsafeRawPointer, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
  _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ test: FuzzTest
) -> CInt

/// Runs libFuzzer's driver over `test` with the executable's command line.
public func runFuzzer(
  _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ test: FuzzTest
)
  -> CInt
{
  var count = argc
  var arguments = argv
  return runFuzzerDriver(&count, &arguments, test)
}
