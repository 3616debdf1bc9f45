import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 client for the dashboard's JSON API: one request per connection
/// (`Connection: close`, RFC 9112 section 9.6), the body read to the end of the stream or to its
/// `Content-Length` (RFC 9112 section 6.3). Each exchange runs blocking socket calls on a thread of
/// its own, never on the cooperative pool. Plain `http://` only: the dashboard has no TLS.
public struct ScenarioHTTPClient: Sendable {
    /// An answer: its status and its body, parsed as JSON when it is JSON.
    public struct Answer: Sendable {
        /// The status code.
        public var status: Int
        /// The body parsed as JSON, `nil` when it is empty or not JSON.
        public var json: JSONValue?
        /// The raw body.
        public var body: [UInt8]

        /// Creates an answer.
        public init(status: Int, json: JSONValue?, body: [UInt8]) {
            self.status = status
            self.json = json
            self.body = body
        }
    }

    /// Why an exchange did not produce an answer.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What went wrong, e.g. `"connect to 127.0.0.1:8080: Connection refused"`.
        public var description: String

        /// Creates a failure that says what went wrong.
        public init(description: String) { self.description = description }
    }

    /// The host name or address.
    public let host: String
    /// The TCP port.
    public let port: Int
    /// Sent as `Authorization: Bearer …` when the server runs with `--admin-token`.
    public let bearerToken: String?
    /// How long a connect, send or receive may block, in seconds.
    public let timeoutSeconds: Int

    /// Creates a client for `http://host:port`.
    public init(host: String, port: Int, bearerToken: String? = nil, timeoutSeconds: Int = 90) {
        self.host = host
        self.port = port
        self.bearerToken = bearerToken
        self.timeoutSeconds = timeoutSeconds
    }

    /// A client for a base URL such as `http://127.0.0.1:8080` (any path is ignored).
    /// - Throws: `Failure` for a URL that is not `http://host[:port]`.
    public init(url: String, bearerToken: String? = nil) throws {
        guard let components = URLComponents(string: url), components.scheme == "http", let host = components.host, !host.isEmpty else {
            throw Failure(description: "--url must be http://HOST[:PORT], found \"\(url)\"")
        }
        self.init(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: components.port ?? 80, bearerToken: bearerToken)
    }

    /// Sends one request.
    /// - Parameters:
    ///   - method: `GET`, `POST`, `PUT`, …
    ///   - path: The request target, e.g. `/api/installs`.
    ///   - body: A JSON body (sent with `Content-Type: application/json`, a PATCH's with
    ///     `application/merge-patch+json`), or `nil`.
    /// - Throws: `Failure` when the server cannot be reached or the answer is not HTTP.
    public func send(_ method: String, _ path: String, body: JSONValue? = nil) async throws(Failure) -> Answer {
        try await send(method, path, body: body, authorization: nil)
    }

    /// ``send(_:_:body:)`` with `authorization` as the `Authorization` field (the admin token then goes in the
    /// `tipjar_admin` cookie, as `/inApps/…` reads it).
    public func send(_ method: String, _ path: String, body: JSONValue?, authorization: String) async throws(Failure) -> Answer {
        try await send(method, path, body: body, authorization: Optional(authorization))
    }

    private func send(_ method: String, _ path: String, body: JSONValue?, authorization: String?) async throws(Failure) -> Answer {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host.contains(":") ? "[\(host)]" : host):\(port)\r\nConnection: close\r\nAccept: application/json\r\n"
        if let authorization {
            head += "Authorization: \(authorization)\r\n"
            if let bearerToken { head += "Cookie: tipjar_admin=\(bearerToken)\r\n" }
        } else if let bearerToken {
            head += "Authorization: Bearer \(bearerToken)\r\n"
        }
        let payload = Array((body?.text ?? "").utf8)
        if body != nil { head += "Content-Type: \(ScenarioTransportMedia.contentType(for: method))\r\n" }
        if body != nil || method == "POST" || method == "PUT" { head += "Content-Length: \(payload.count)\r\n" }
        let request = Array((head + "\r\n").utf8) + payload
        let (host, port, timeout) = (host, port, timeoutSeconds)
        let result: Result<[UInt8], Failure> = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Self.exchange(host: host, port: port, request: request, timeout: timeout)) }
        }
        return try Self.parse(try result.get(), host: host, port: port)
    }

    private static func exchange(host: String, port: Int, request: [UInt8], timeout: Int) -> Result<[UInt8], Failure> {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else {
            return .failure(Failure(description: "cannot resolve \(host)"))
        }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return .failure(Failure(description: "socket(): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            return .failure(Failure(description: "connect to \(host):\(port): \(String(cString: strerror(errno)))"))
        }
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return .failure(Failure(description: "send to \(host):\(port): \(String(cString: strerror(errno)))")) }
            sent += count
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { break }
            guard count > 0 else { return .failure(Failure(description: "receive from \(host):\(port): \(String(cString: strerror(errno)))")) }
            received += buffer[0..<count]
            guard received.count <= 64 << 20 else { return .failure(Failure(description: "the answer is larger than 64 MiB")) }
        }
        return .success(received)
    }

    static func parse(_ bytes: [UInt8], host: String, port: Int) throws(Failure) -> Answer {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { bytes[$0..<($0 + 4)].elementsEqual(separator) }) else {
            throw Failure(description: "\(host):\(port) closed the connection without a complete HTTP answer")
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let words = head.first?.split(separator: " ") ?? []
        guard words.count >= 2, words[0].hasPrefix("HTTP/1."), let status = Int(words[1]) else {
            throw Failure(description: "\(host):\(port) answered something that is not HTTP/1.1")
        }
        var body = Array(bytes[(end + 4)...])
        for line in head.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length", let length = Int(parts[1].trimmingCharacters(in: .whitespaces)),
                length <= body.count
            {
                body = Array(body.prefix(length))
            }
        }
        return Answer(status: status, json: body.isEmpty ? nil : try? JSONValue(parsing: Data(body)), body: body)
    }
}
