import CLibAV
import Dispatch
import Foundation

/// Encoders of whole stills side by side: an animated WebP's frames are independent pictures
/// (docs/ENCODING.md, WebP frames), and one libwebp encode of a 1080x1920 frame takes about a
/// quarter of a second on one core. Each frame is encoded by whichever of the opened encoders is
/// free; the packets are handed back in frame order. An encoder keeps nothing from one still to
/// the next, so the bytes are the same whichever encoder took a frame, and for any number of them.
final class StillEncoders: @unchecked Sendable {
  private let encoders: [CodecContext]
  private let path: String
  private let queue = DispatchQueue(label: "loopsmith.still-encoders", attributes: .concurrent)
  private let group = DispatchGroup()
  /// One a free encoder: a frame waits for one before it is taken.
  private let slots: DispatchSemaphore
  private let lock = NSLock()
  // Guarded by `lock`:
  private var idle: [Int]
  private var finished: [Int64: Packet] = [:]
  private var failure: Error?

  /// `encoders` opened alike, each used by one frame at a time.
  init(encoders: [CodecContext], path: String) {
    precondition(!encoders.isEmpty)
    self.encoders = encoders
    self.path = path
    slots = DispatchSemaphore(value: encoders.count)
    idle = Array(encoders.indices)
  }

  deinit {
    group.wait()  // no encode may outlive its encoder
  }

  /// Encodes a reference to `frame`'s pixels as frame `index`, once an encoder is free; throws
  /// the first failure of an earlier frame's encode.
  func submit(_ frame: UnsafeMutablePointer<AVFrame>, index: Int64) throws {
    slots.wait()
    if let failure = lock.withLock({ failure }) {
      slots.signal()
      throw failure
    }
    let held: Frame
    do {
      held = try Frame(path: path)
      try check(av_frame_ref(held.pointer, frame), "av_frame_ref", path: path)
    } catch {
      slots.signal()
      throw error
    }
    held.pointer.pointee.pts = index
    let e = lock.withLock { idle.removeLast() }
    group.enter()
    queue.async { [self] in
      defer {
        lock.withLock { idle.append(e) }
        slots.signal()
        group.leave()
      }
      do {
        let context = encoders[e].pointer
        try check(avcodec_send_frame(context, held.pointer), "avcodec_send_frame", path: path)
        let packet = try Packet(path: path)
        try check(avcodec_receive_packet(context, packet.pointer), "avcodec_receive_packet", path: path)
        packet.pointer.pointee.pts = index
        packet.pointer.pointee.dts = index
        lock.withLock { finished[index] = packet }
      } catch {
        lock.withLock { failure = failure ?? error }
      }
    }
  }

  /// Frame `index`'s packet when its encode has finished (and forgets it), else nil.
  func take(_ index: Int64) -> Packet? {
    lock.withLock { finished.removeValue(forKey: index) }
  }

  /// Waits for every encode; throws the first failure.
  func finish() throws {
    group.wait()
    if let failure = lock.withLock({ failure }) { throw failure }
  }
}
