import Effects

/// A number of bytes as users write one (`--max-bytes`, `--memory-limit`, a preset's `maxBytes`).
public enum ByteSize {
  /// Bytes from a decimal number with an optional K, M, G or T (powers of 1024), itself optionally
  /// followed by `B` or `iB` (`300000`, `256K`, `1.5M`, `8GiB`; any case), rounded down; nil when
  /// the text is none of those or is under one byte or 2^53 bytes or more.
  public static func parse(_ text: String) -> UInt64? {
    var t = Substring(text.trimmingCharacters(in: .whitespaces).uppercased())
    for suffix in ["IB", "B"] where t.hasSuffix(suffix) && t.count > suffix.count {
      t = t.dropLast(suffix.count)
      break
    }
    var unit = 1.0
    if let last = t.last, let power = "KMGT".firstIndex(of: last) {
      unit = Double(1 << (10 * ("KMGT".distance(from: "KMGT".startIndex, to: power) + 1)))
      t = t.dropLast()
    }
    guard let number = DecimalText.double(t), number > 0 else { return nil }
    let bytes = (number * unit).rounded(.down)
    guard bytes >= 1, bytes < 0x1p53 else { return nil }
    return UInt64(bytes)
  }
}
