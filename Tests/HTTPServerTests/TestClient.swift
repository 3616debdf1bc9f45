import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import HTTPServer

/// A raw blocking TCP client for integration tests. Blocking I/O runs on its own thread so the
/// Swift concurrency pool stays free for the server's responders.
enum TestClient {
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    /// Connects to 127.0.0.1:port (or `host`) with a receive timeout; returns the fd. The default
    /// timeout is generous (10 s): under the whole suite the responders' thread pool can be busy with
    /// other tests for seconds, and a test that waits for a close must not mistake that for a hang.
    /// - Parameters:
    ///   - source: an IPv4 address to bind the client end to first (any of 127.0.0.0/8 is loopback),
    ///     so tests can be several clients.
    ///   - receiveBuffer: a fixed `SO_RCVBUF` in bytes (set before connecting, so the TCP window
    ///     stays small), for clients that do not read.
    static func connect(port: Int, host: String = "127.0.0.1", timeoutMs: Int = 10_000, source: String? = nil,
                        receiveBuffer: Int32? = nil) -> Int32 {
        let v6 = host.contains(":")
        let fd = socket(v6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var tv = timeval(tv_sec: timeoutMs / 1000, tv_usec: Int((timeoutMs % 1000) * 1000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
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
        var result: Int32
        if v6 {
            var addr = sockaddr_in6()
            addr.sin6_family = sa_family_t(AF_INET6)
            addr.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &addr.sin6_addr)
            result = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        } else {
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &addr.sin_addr)
            result = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        }
        if result != 0 { close(fd); return -1 }
        return fd
    }

    static func send(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until the peer closes or the receive timeout passes; `closed` tells which.
    static func readAll(_ fd: Int32) -> (text: String, closed: Bool) {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { data += buffer[0..<n]; continue }
            return (String(decoding: data, as: UTF8.self), n == 0)
        }
    }

    /// Reads one response with a `Content-Length` body (or none); `nil` on close or timeout first.
    /// Use it only when no second response can follow before the next request: bytes read beyond
    /// the first response are returned with it.
    static func readResponse(_ fd: Int32) -> String? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let blank: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = (0..<max(0, data.count - 3)).first(where: { Array(data[$0..<($0 + 4)]) == blank }) {
                let head = String(decoding: data[..<end], as: UTF8.self).lowercased()
                let length = head.components(separatedBy: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                if data.count - (end + 4) >= length { return String(decoding: data, as: UTF8.self) }
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            data += buffer[0..<n]
        }
    }

    /// One exchange on a fresh connection: send `text`, read until close or timeout.
    static func exchange(port: Int, _ text: String, timeoutMs: Int = 10_000) async -> (text: String, closed: Bool) {
        await onThread {
            let fd = connect(port: port, timeoutMs: timeoutMs)
            guard fd >= 0 else { return ("", true) }
            defer { close(fd) }
            send(fd, text)
            return readAll(fd)
        }
    }

    /// Status codes of every response in `text`, in order.
    static func statuses(_ text: String) -> [Int] {
        text.components(separatedBy: "HTTP/1.1 ").dropFirst().compactMap { Int($0.prefix(3)) }
    }
}
