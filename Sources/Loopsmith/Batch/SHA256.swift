import Foundation

/// SHA-256 (FIPS 180-4), for manifests and up-to-date keys: no outside package needed.
public struct SHA256: Sendable {
  private static let k: [UInt32] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]

  private var h: [UInt32] = [
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  ]
  private var block = [UInt8]()
  private var length: UInt64 = 0
  private var w = [UInt32](repeating: 0, count: 64)

  public init() { block.reserveCapacity(64) }

  /// Adds bytes to the message.
  public mutating func update<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
    for byte in bytes {
      block.append(byte)
      if block.count == 64 {
        compress()
        block.removeAll(keepingCapacity: true)
      }
    }
  }

  /// Adds a buffer of bytes, compressing whole blocks straight from it.
  public mutating func update(_ data: Data) {
    data.withUnsafeBytes { raw in
      var i = 0
      let n = raw.count
      while i < n {
        if block.isEmpty && n - i >= 64 {
          block.append(contentsOf: raw[i..<(i + 64)])
          compress()
          block.removeAll(keepingCapacity: true)
          i += 64
        } else {
          block.append(raw[i])
          i += 1
          if block.count == 64 {
            compress()
            block.removeAll(keepingCapacity: true)
          }
        }
      }
    }
  }

  /// The 32-byte digest; the hasher is spent afterwards.
  public mutating func finalize() -> [UInt8] {
    let bits = (length &+ UInt64(block.count)) &* 8
    block.append(0x80)
    if block.count > 56 {
      while block.count < 64 { block.append(0) }
      compress()
      block.removeAll(keepingCapacity: true)
    }
    while block.count < 56 { block.append(0) }
    for shift in stride(from: 56, through: 0, by: -8) { block.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    compress()
    block.removeAll()
    return h.flatMap { v in [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
  }

  private mutating func compress() {
    length &+= 64
    func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }
    for t in 0..<16 {
      w[t] =
        UInt32(block[4 * t]) << 24 | UInt32(block[4 * t + 1]) << 16 | UInt32(block[4 * t + 2]) << 8
        | UInt32(block[4 * t + 3])
    }
    for t in 16..<64 {
      let s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
      let s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
      w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
    }
    var (a, b, c, d, e, f, g, hh) = (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7])
    for t in 0..<64 {
      let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
      let ch = (e & f) ^ (~e & g)
      let t1 = hh &+ s1 &+ ch &+ SHA256.k[t] &+ w[t]
      let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
      let maj = (a & b) ^ (a & c) ^ (b & c)
      let t2 = s0 &+ maj
      (hh, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
    }
    h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d
    h[4] &+= e; h[5] &+= f; h[6] &+= g; h[7] &+= hh
  }

  /// The digest of `data` as lowercase hex.
  public static func hex(_ data: Data) -> String {
    var s = SHA256()
    s.update(data)
    return s.finalize().map { String(format: "%02x", $0) }.joined()
  }

  public static func hex(_ text: String) -> String { hex(Data(text.utf8)) }

  /// The digest of a file's contents, read in 1 MiB pieces; nil when it cannot be read.
  public static func hex(ofFile path: String) -> String? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    var s = SHA256()
    while true {
      let chunk: Data
      do { chunk = try handle.read(upToCount: 1 << 20) ?? Data() } catch { return nil }  // nil at the end
      if chunk.isEmpty { break }
      s.update(chunk)
    }
    return s.finalize().map { String(format: "%02x", $0) }.joined()
  }
}
