import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A web server on 127.0.0.1 for one test: it serves the files of one folder (with byte ranges,
/// which media elements ask for) and keeps what pages POST, by path. Every engine gets its page
/// and sends its results the same way, where `file://` pages cannot `fetch` and a DOM dump is
/// Chromium's alone. Each connection is answered once and closed.
final class LocalHTTPServer: @unchecked Sendable {  // the posts are behind `lock`; the socket is the accept thread's
  let root: URL
  let port: Int
  private let socket: Int32
  private let lock = NSLock()
  private var posts: [String: Data] = [:]
  private var asked: Set<String> = []
  private var closed = false

  init(root: URL) throws {
    self.root = root
    let s = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard s >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0  // any free port: tests run side by side
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(s, 64) == 0 else {
      close(s)
      throw POSIXError(.init(rawValue: errno) ?? .EIO)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(s, $0, &length) }
    }
    socket = s
    port = Int(UInt16(bigEndian: address.sin_port))
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  deinit { stop() }

  func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

  /// Stops accepting; connections being answered finish on their own threads.
  func stop() {
    lock.lock()
    let was = closed
    closed = true
    lock.unlock()
    if !was {
      shutdown(socket, Int32(SHUT_RDWR))
      close(socket)
    }
  }

  /// The body POSTed to `path`, waiting up to `seconds` for it; nil if none came. It waits by
  /// sleeping its task, never a thread: Swift Testing runs tests on as many threads as cores, and
  /// the engines' tests wait minutes side by side.
  func waitForPost(_ path: String, seconds: Double) async -> Data? {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if let data = post(path) { return data }
      try? await Task.sleep(nanoseconds: 100_000_000)
    }
    return post(path)
  }

  /// The paths pages have asked for with GET or HEAD so far.
  var requested: Set<String> {
    lock.lock()
    defer { lock.unlock() }
    return asked
  }

  /// The body POSTed to `path` so far, without waiting.
  func post(_ path: String) -> Data? {
    lock.lock()
    defer { lock.unlock() }
    return posts[path]
  }

  private func acceptLoop() {
    while true {
      let client = accept(socket, nil, nil)
      if client < 0 {
        if errno == EINTR { continue }
        return  // closed
      }
      let thread = Thread { [self] in
        answer(client)
        close(client)
      }
      thread.start()
    }
  }

  private func readRequest(_ client: Int32) -> (head: String, body: Data)? {
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    var timeout = timeval(tv_sec: 30, tv_usec: 0)
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    while true {
      if let end = data.range(of: Data("\r\n\r\n".utf8)) {
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self)
        let length = header("content-length", in: head).flatMap { Int($0) } ?? 0
        guard length <= 64 << 20 else { return nil }
        while data.count - end.upperBound < length {
          let n = recv(client, &buffer, buffer.count, 0)
          if n <= 0 { return nil }
          data.append(buffer, count: n)
        }
        return (head, Data(data[end.upperBound..<(end.upperBound + length)]))
      }
      guard data.count < 1 << 20 else { return nil }
      let n = recv(client, &buffer, buffer.count, 0)
      if n <= 0 { return nil }
      data.append(buffer, count: n)
    }
  }

  private func header(_ name: String, in head: String) -> String? {
    for line in head.split(separator: "\r\n").dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      if line[..<colon].lowercased() == name {
        return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      }
    }
    return nil
  }

  private func answer(_ client: Int32) {
    guard let (head, body) = readRequest(client) else { return }
    let words = head.split(separator: "\r\n").first?.split(separator: " ") ?? []
    guard words.count >= 2 else { return }
    let method = String(words[0])
    var path = String(words[1])
    if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
    path = path.removingPercentEncoding ?? path
    let name = String(path.drop(while: { $0 == "/" }))
    if method == "POST" {
      lock.lock()
      posts[name] = body
      lock.unlock()
      send(client, status: "204 No Content", headers: [], body: Data())
      return
    }
    lock.lock()
    asked.insert(name)
    lock.unlock()
    // Only plain names in the folder: no "..", no subfolders a test did not make.
    guard method == "GET" || method == "HEAD", !name.contains(".."), !name.isEmpty,
      let data = FileManager.default.contents(atPath: root.appendingPathComponent(name).path)
    else {
      send(client, status: "404 Not Found", headers: [], body: Data())
      return
    }
    let type = Self.types[(name as NSString).pathExtension] ?? "application/octet-stream"
    var headers = ["Content-Type: \(type)", "Accept-Ranges: bytes", "Cache-Control: no-store"]
    var status = "200 OK"
    var part = data
    if let range = header("range", in: head), range.hasPrefix("bytes="), !data.isEmpty {
      let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
      let first = bounds.first.flatMap { Int($0) }
      let last = bounds.count > 1 ? Int(bounds[1]) : nil
      var (from, to) = (first ?? 0, min(last ?? data.count - 1, data.count - 1))
      if first == nil, let suffix = last { (from, to) = (max(0, data.count - suffix), data.count - 1) }
      if from <= to, from < data.count {
        part = data.subdata(in: from..<(to + 1))
        status = "206 Partial Content"
        headers.append("Content-Range: bytes \(from)-\(to)/\(data.count)")
      }
    }
    send(client, status: status, headers: headers, body: method == "HEAD" ? Data() : part, length: part.count)
  }

  private func send(_ client: Int32, status: String, headers: [String], body: Data, length: Int? = nil) {
    let head =
      "HTTP/1.1 \(status)\r\n"
      + (headers + ["Content-Length: \(length ?? body.count)", "Connection: close"])
      .joined(separator: "\r\n") + "\r\n\r\n"
    var all = Data(head.utf8)
    all.append(body)
    all.withUnsafeBytes { raw in
      var sent = 0
      while sent < raw.count {
        let n = Glibc.send(client, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
        if n <= 0 { return }
        sent += n
      }
    }
  }

  static let types = [
    "html": "text/html; charset=utf-8", "js": "text/javascript", "mjs": "text/javascript", "mp4": "video/mp4",
    "webm": "video/webm", "png": "image/png", "json": "application/json",
  ]
}
