import Foundation

/// The command line as the kernel handed it over, before Swift decodes it.
///
/// `CommandLine.arguments` decodes each argument as UTF-8 and turns invalid bytes into U+FFFD, so a
/// file named with byte 0xFF would be "not found" as input and written under another name as
/// output. Loopsmith handles names as UTF-8 text, so such an argument is refused before anything
/// runs (exit 2) with one line saying which argument it is and what its bytes are.
public enum RawArguments {
  /// The error line for the first argument after the program name that is not valid UTF-8, or nil.
  public static func problem(
    count: Int32 = CommandLine.argc,
    argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = CommandLine.unsafeArgv
  ) -> String? {
    guard count > 1 else { return nil }
    for i in 1..<Int(count) {
      guard let raw = argv[i] else { continue }
      let bytes = Array(UnsafeBufferPointer(start: raw, count: strlen(raw))).map { UInt8(bitPattern: $0) }
      if String(validating: bytes, as: UTF8.self) == nil {
        return
          "Error: argument \(i) ('\(escaped(bytes))') is not valid UTF-8; expected file names and values in UTF-8 (rename the file, e.g. with convmv)\n"
      }
    }
    return nil
  }

  /// Writes `problem()` to stderr and exits with status 2 when there is one.
  public static func refuseInvalidUTF8() {
    guard let line = problem() else { return }
    FileHandle.standardError.write(Data(line.utf8))
    exit(2)
  }

  /// Printable ASCII as it is, every other byte as `\xHH`.
  public static func escaped(_ bytes: [UInt8]) -> String {
    bytes.map { $0 >= 0x20 && $0 < 0x7F && $0 != 0x5C ? String(UnicodeScalar($0)) : String(format: "\\x%02X", $0) }
      .joined()
  }
}
