/// Storage a hot loop reuses from one call to the next: it only grows, so once a canvas has
/// drawn its largest operation, nothing allocates again. Contents are undefined after a grow.
final class Scratch<Element> {
  private(set) var pointer: UnsafeMutablePointer<Element>
  private(set) var capacity: Int

  init(_ capacity: Int = 1) {
    self.capacity = max(capacity, 1)
    pointer = .allocate(capacity: self.capacity)
  }

  deinit { pointer.deallocate() }

  /// Room for at least `count` elements.
  @discardableResult
  func reserve(_ count: Int) -> UnsafeMutablePointer<Element> {
    if count > capacity {
      pointer.deallocate()
      capacity = count
      pointer = .allocate(capacity: count)
    }
    return pointer
  }
}
