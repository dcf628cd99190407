import CHints

/// Asks the CPU to start loading `count` pixels from `row`, which a blend will read and write back
/// soon. Blends over a 1080x1920 canvas (33 MB of float pixels) miss the cache on the destination
/// far more than the hardware prefetcher hides; asking two rows ahead takes most of that wait away.
@inline(__always) func prefetchForBlend(_ row: UnsafeMutablePointer<Pixel>, count: Int) {
  var i = 0
  while i < count {
    chints_prefetch_write(row + i)
    i += 4  // a 64-byte line holds four pixels
  }
}
