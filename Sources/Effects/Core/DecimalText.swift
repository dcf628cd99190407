/// Numbers written as decimal text, the one way every flag, `--set` value and level file reads them.
///
/// Swift's `Double("0x10")` is 16 and `Double("inf")` infinity: a typo became a 16 s loop. Only
/// `[+-]digits[.digits][e[+-]digits]` (or `.5`, `5.`) is read; hexadecimal, `inf`, `nan`, spaces,
/// and values that overflow to infinity (`1e999`) are not numbers here.
public enum DecimalText {
  /// The finite value of `text`, or nil when it is not a plain decimal number.
  public static func double<S: StringProtocol>(_ text: S) -> Double? {
    guard isDecimal(text.utf8, fraction: true), let v = Double(String(text)), v.isFinite else { return nil }
    return v
  }

  /// The whole number `text` (an optional sign, then digits), or nil; no fraction, exponent or hex.
  public static func int<S: StringProtocol>(_ text: S) -> Int? {
    guard isDecimal(text.utf8, fraction: false) else { return nil }
    return Int(String(text))
  }

  /// Whether `bytes` is `[+-]?` digits with, when `fraction`, an optional `.digits` and `e[+-]?digits`.
  static func isDecimal<C: Collection>(_ bytes: C, fraction: Bool) -> Bool where C.Element == UInt8 {
    var i = bytes.startIndex
    func digits() -> Int {
      var n = 0
      while i != bytes.endIndex, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
        n += 1
        i = bytes.index(after: i)
      }
      return n
    }
    if i != bytes.endIndex, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i = bytes.index(after: i) }
    var mantissa = digits()
    if fraction, i != bytes.endIndex, bytes[i] == UInt8(ascii: ".") {
      i = bytes.index(after: i)
      mantissa += digits()
    }
    guard mantissa > 0 else { return false }
    if fraction, i != bytes.endIndex, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
      i = bytes.index(after: i)
      if i != bytes.endIndex, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
        i = bytes.index(after: i)
      }
      guard digits() > 0 else { return false }
    }
    return i == bytes.endIndex
  }
}
