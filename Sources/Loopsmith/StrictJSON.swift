import Foundation

/// A strict pass over JSON text before `JSONSerialization` reads it: the grammar of RFC 8259, each
/// key once per object at any depth, and numbers that fit a Double.
///
/// `JSONSerialization` keeps the last of two equal keys, so `{"fps": 30, "fps": 5}` rendered at 5
/// without a word, and reads `1e999` as infinity. Errors name the file, the line and column, and
/// what was expected (for a duplicate, the key path), never the text around it: the file may be
/// anything a path points at, and the message goes to stderr, manifests and the gallery.
enum StrictJSON {
  /// Objects and arrays nested deeper than this are refused (the scan recurses).
  static let maxDepth = 256

  /// Throws `InputError` ("FILE: not valid JSON at line L, column C: expected ...", or "FILE:
  /// duplicate key 'a.b' at line L, column C; ...") at the first problem.
  static func check(_ data: Data, file: String) throws {
    var scanner = Scanner(bytes: [UInt8](data), file: file)
    // A byte order mark, as JSONSerialization allows.
    if scanner.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.i = 3 }
    try scanner.skipSpace()
    try scanner.value(path: "", depth: 0)
    try scanner.skipSpace()
    guard scanner.i == scanner.bytes.count else {
      throw scanner.error("expected the end of the file after the top-level value")
    }
  }

  private struct Scanner {
    let bytes: [UInt8]
    let file: String
    var i = 0
    /// The key path of the value being read (`parameters.colors[1]`), named in syntax errors.
    var current = ""

    init(bytes: [UInt8], file: String) { (self.bytes, self.file) = (bytes, file) }

    /// Line and column (in characters, 1-based) of byte `at`.
    func position(_ at: Int) -> (Int, Int) {
      var line = 1, column = 1
      for b in bytes[..<min(at, bytes.count)] {
        if b == UInt8(ascii: "\n") {
          (line, column) = (line + 1, 1)
        } else if b & 0xC0 != 0x80 {
          column += 1
        }
      }
      return (line, column)
    }

    func error(_ what: String, at: Int? = nil) -> InputError {
      let (line, column) = position(at ?? i)
      // The key path helps find the place in a long file; one holding control characters is left out.
      let within =
        current.isEmpty || current.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        ? "" : " (in '\(current)')"
      return InputError("\(file): not valid JSON at line \(line), column \(column): \(what)\(within)")
    }

    var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    mutating func skipSpace() throws {
      while let b = peek, b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { i += 1 }
    }

    mutating func expect(_ c: Character, _ what: String) throws {
      guard peek == c.asciiValue else { throw error("expected \(what)") }
      i += 1
    }

    mutating func value(path: String, depth: Int) throws {
      current = path
      guard depth <= StrictJSON.maxDepth else { throw error("nested deeper than \(StrictJSON.maxDepth) levels") }
      guard let b = peek else { throw error("expected a value, found the end of the file") }
      switch b {
      case UInt8(ascii: "{"): try object(path: path, depth: depth + 1)
      case UInt8(ascii: "["): try array(path: path, depth: depth + 1)
      case UInt8(ascii: "\""): _ = try string()
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
      default:
        for word in ["true", "false", "null"] where bytes[i...].starts(with: word.utf8) {
          i += word.utf8.count
          return
        }
        throw error("expected a value (an object, array, string, number, true, false or null)")
      }
    }

    mutating func object(path: String, depth: Int) throws {
      i += 1
      var seen = Set<String>()
      try skipSpace()
      if peek == UInt8(ascii: "}") { i += 1; return }
      while true {
        try skipSpace()
        let start = i
        guard peek == UInt8(ascii: "\"") else { throw error("expected a key in double quotes") }
        let key = try string()
        let keyPath = path.isEmpty ? key : "\(path).\(key)"
        guard seen.insert(key).inserted else {
          let (line, column) = position(start)
          throw InputError(
            "\(file): duplicate key '\(keyPath)' at line \(line), column \(column); expected each key once in an object"
          )
        }
        try skipSpace()
        try expect(":", "':' after the key")
        try skipSpace()
        current = keyPath
        try value(path: keyPath, depth: depth)
        current = path
        try skipSpace()
        if peek == UInt8(ascii: ",") { i += 1; continue }
        try expect("}", "',' or '}' in an object")
        return
      }
    }

    mutating func array(path: String, depth: Int) throws {
      i += 1
      try skipSpace()
      if peek == UInt8(ascii: "]") { i += 1; return }
      var index = 0
      while true {
        try skipSpace()
        try value(path: "\(path)[\(index)]", depth: depth)
        current = path
        index += 1
        try skipSpace()
        if peek == UInt8(ascii: ",") { i += 1; continue }
        try expect("]", "',' or ']' in an array")
        return
      }
    }

    /// A string's value, escapes decoded, so `"a"` and `"\u0061"` are the same key.
    mutating func string() throws -> String {
      i += 1
      var out: [UInt8] = []
      while true {
        guard let b = peek else { throw error("expected the closing '\"' of a string, found the end of the file") }
        if b == UInt8(ascii: "\"") { i += 1; break }
        guard b >= 0x20 else { throw error("a control character inside a string; expected it escaped") }
        if b != UInt8(ascii: "\\") {
          out.append(b)
          i += 1
          continue
        }
        i += 1
        guard let e = peek else { throw error("expected an escape after '\\', found the end of the file") }
        i += 1
        switch e {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          var unit = try hex4()
          if (0xD800..<0xDC00).contains(unit), bytes[i...].starts(with: "\\u".utf8) {
            i += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else {
              throw error("expected a low surrogate after a high one", at: i - 6)
            }
            unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
          }
          out.append(contentsOf: String(Unicode.Scalar(unit).map(Character.init) ?? "\u{FFFD}").utf8)
        default:
          throw error("expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX", at: i - 2)
        }
      }
      return String(decoding: out, as: UTF8.self)
    }

    mutating func hex4() throws -> UInt32 {
      guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16),
        bytes[i..<i + 4].allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) })
      else { throw error("expected four hexadecimal digits after \\u") }
      i += 4
      return v
    }

    mutating func number() throws {
      let start = i
      func digits() -> Int {
        var n = 0
        while let b = peek, b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") { i += 1; n += 1 }
        return n
      }
      if peek == UInt8(ascii: "-") { i += 1 }
      let leadingZero = peek == UInt8(ascii: "0")
      let whole = digits()
      guard whole > 0 else { throw error("expected digits in a number", at: start) }
      guard !(leadingZero && whole > 1) else {
        throw error("a number with a leading zero; expected a decimal number", at: start)
      }
      if peek == UInt8(ascii: ".") {
        i += 1
        guard digits() > 0 else { throw error("expected digits after the decimal point") }
      }
      if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
        i += 1
        if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { i += 1 }
        guard digits() > 0 else { throw error("expected digits in the exponent") }
      }
      guard let v = Double(String(decoding: bytes[start..<i], as: UTF8.self)), v.isFinite else {
        throw error("a number too large for a double; expected a finite number", at: start)
      }
    }
  }
}
