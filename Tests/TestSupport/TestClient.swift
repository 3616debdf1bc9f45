import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The tests' one raw HTTP/1.1 client: blocking TCP sockets, each used on a thread of its own (``onThread(_:)``),
/// so the cooperative pool stays free for the server under test. Bytes go out exactly as written, so a test can send
/// what no well-behaved client would (RFC 9112 framing attacks, absolute-form targets, unknown methods).
public enum TestClient {
    /// Runs blocking socket work on a thread of its own; the same as the free function ``onThread(_:)``.
    /// - Parameter body: the blocking work.
    /// - Returns: What `body` returns.
    public static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await TestSupport.onThread(body)
    }

    /// Connects a blocking socket to `host`:`port` with a receive timeout (`SO_RCVTIMEO`, socket(7)).
    ///
    /// The default timeout is generous (10 s): under the whole suite the server's threads can be busy with other
    /// tests for seconds, and a test that waits for a close must not mistake that for a hang.
    /// - Parameters:
    ///   - port: the server's port.
    ///   - host: an IPv4 or IPv6 literal; 127.0.0.1 unless told.
    ///   - timeoutMs: the receive timeout in milliseconds.
    ///   - source: an IPv4 address to bind the client end to first (any of 127.0.0.0/8 is loopback), so a test can
    ///     be several clients.
    ///   - receiveBuffer: a fixed `SO_RCVBUF` in bytes (set before connecting, so the TCP window stays small), for
    ///     clients that do not read.
    /// - Returns: The connected descriptor (the caller closes it), or -1 when binding or connecting failed.
    public static func connect(
        port: Int, host: String = "127.0.0.1", timeoutMs: Int = 10_000, source: String? = nil,
        receiveBuffer: Int32? = nil
    ) -> Int32 {
        let isIPv6 = host.contains(":")
        let fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: timeoutMs / 1000, tv_usec: Int((timeoutMs % 1000) * 1000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound != 0 { close(fd); return -1 }
        }
        let result: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        if result != 0 { close(fd); return -1 }
        return fd
    }

    /// Sends `text` as UTF-8 (`MSG_NOSIGNAL`: a closed peer is an error, never a `SIGPIPE`).
    /// - Parameters:
    ///   - fd: a connected descriptor.
    ///   - text: the bytes to send, exactly.
    public static func send(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until the peer closes or the receive timeout passes.
    /// - Parameter fd: a connected descriptor.
    /// - Returns: Everything read, and whether the peer closed (false: the timeout passed first).
    public static func readAll(_ fd: Int32) -> (text: String, closed: Bool) {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { data += buffer[0..<count]; continue }
            return (String(decoding: data, as: UTF8.self), count == 0)
        }
    }

    /// Reads one response with a `Content-Length` body (or none). Use it only when no second response can follow
    /// before the next request: bytes read beyond the first response are returned with it.
    /// - Parameter fd: a connected descriptor.
    /// - Returns: The response's text, or `nil` when the peer closed or the timeout passed first.
    public static func readResponse(_ fd: Int32) -> String? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let blank: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = (0..<max(0, data.count - 3)).first(where: { Array(data[$0..<($0 + 4)]) == blank }) {
                let head = String(decoding: data[..<end], as: UTF8.self).lowercased()
                let length =
                    head.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if data.count - (end + 4) >= length { return String(decoding: data, as: UTF8.self) }
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            data += buffer[0..<count]
        }
    }

    /// One exchange on a fresh connection, on a thread of its own: sends `text`, reads until close or timeout.
    /// - Parameters:
    ///   - port: the server's port on 127.0.0.1.
    ///   - text: the request bytes, exactly.
    ///   - timeoutMs: the receive timeout in milliseconds.
    /// - Returns: What came back, and whether the server closed (an empty text and `true` when connecting failed).
    public static func exchange(port: Int, _ text: String, timeoutMs: Int = 10_000) async -> (text: String, closed: Bool) {
        await onThread {
            let fd = connect(port: port, timeoutMs: timeoutMs)
            guard fd >= 0 else { return ("", true) }
            defer { close(fd) }
            send(fd, text)
            return readAll(fd)
        }
    }

    /// ``exchange(port:_:timeoutMs:)``, parsed: the first response's status, fields and body.
    /// - Parameters:
    ///   - port: the server's port on 127.0.0.1.
    ///   - text: the request bytes, exactly (ask for `Connection: close`, or the read lasts until the timeout).
    /// - Returns: The parsed reply (status 0 when nothing parsable came back).
    public static func reply(port: Int, _ text: String) async -> HTTPReply {
        HTTPReply(parsing: await exchange(port: port, text).text)
    }

    /// The status codes of every response in `text`, in order.
    /// - Parameter text: responses as read from a connection.
    /// - Returns: Each status line's code.
    public static func statuses(_ text: String) -> [Int] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
    }
}
