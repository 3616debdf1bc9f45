#if canImport(Glibc)
import Glibc
#endif

/// Errors from ``HTTPServer/start()``.
public enum HTTPServerError: Error, Sendable, CustomStringConvertible {
    /// The host could not be resolved.
    case cannotResolve(String)
    /// A system call failed; `errno` is given.
    case system(call: String, errno: Int32)
    /// `start()` was called twice.
    case alreadyStarted

    /// A readable message.
    public var description: String {
        switch self {
        case .cannotResolve(let host): return "cannot resolve host \(host)"
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        case .alreadyStarted: return "server already started"
        }
    }
}

/// Thin wrappers around Glibc socket calls.
enum Socket {
    /// Creates a non-blocking listening socket with SO_REUSEADDR.
    /// - Returns: the descriptor and the bound port.
    static func listen(host: String, port: Int, backlog: Int) throws(HTTPServerError) -> (fd: Int32, port: Int) {
        var storage = sockaddr_storage()
        var length: socklen_t = 0
        let name = host == "localhost" ? "127.0.0.1" : host
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            withUnsafeMutableBytes(of: &storage) { raw in
                let sin = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                sin.pointee.sin_family = sa_family_t(AF_INET)
                sin.pointee.sin_port = in_port_t(UInt16(port).bigEndian)
                sin.pointee.sin_addr = v4
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else if inet_pton(AF_INET6, name, &v6) == 1 {
            withUnsafeMutableBytes(of: &storage) { raw in
                let sin6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                sin6.pointee.sin6_family = sa_family_t(AF_INET6)
                sin6.pointee.sin6_port = in_port_t(UInt16(port).bigEndian)
                sin6.pointee.sin6_addr = v6
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            hints.ai_flags = AI_PASSIVE
            var result: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(name, String(port), &hints, &result) == 0, let info = result else { throw .cannotResolve(host) }
            defer { freeaddrinfo(result) }
            withUnsafeMutableBytes(of: &storage) { raw in
                raw.copyMemory(from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
            }
            length = info.pointee.ai_addrlen
        }
        let family = Int32(storage.ss_family)
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(call: "socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .system(call: "bind", errno: code)
        }
        guard Glibc.listen(fd, Int32(backlog)) == 0 else {
            let code = errno
            close(fd)
            throw .system(call: "listen", errno: code)
        }
        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        return (fd, addressAndPort(actual).port)
    }

    /// The printable address and port of a socket address.
    static func addressAndPort(_ storage: sockaddr_storage) -> (address: String, port: Int) {
        var storage = storage
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        if Int32(storage.ss_family) == AF_INET6 {
            return withUnsafeBytes(of: &storage) { raw in
                let sin6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                var addr = sin6.pointee.sin6_addr
                inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count))
                return ("[" + Self.string(buffer) + "]", Int(UInt16(bigEndian: sin6.pointee.sin6_port)))
            }
        }
        return withUnsafeBytes(of: &storage) { raw in
            let sin = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
            var addr = sin.pointee.sin_addr
            inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count))
            return (Self.string(buffer), Int(UInt16(bigEndian: sin.pointee.sin_port)))
        }
    }

    /// The key a client's connections are counted by: its IPv4 address (also when it arrives
    /// IPv4-mapped, `::ffff:a.b.c.d`), or the /64 prefix of an IPv6 address, since one IPv6 host is
    /// usually given a whole /64 (RFC 4291 §2.5.4, RFC 7421).
    /// - Parameters:
    ///   - storage: the peer address from `accept4`.
    ///   - address: its printable form from ``addressAndPort(_:)``.
    static func peerKey(_ storage: sockaddr_storage, address: String) -> String {
        guard Int32(storage.ss_family) == AF_INET6 else { return address }
        var storage = storage
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return withUnsafeBytes(of: &storage) { raw in
            let sin6 = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
            var bytes = withUnsafeBytes(of: sin6.pointee.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return bytes[12..<16].map { String($0) }.joined(separator: ".")
            }
            for i in 8..<16 { bytes[i] = 0 }
            var prefix = in6_addr()
            withUnsafeMutableBytes(of: &prefix) { $0.copyBytes(from: bytes) }
            inet_ntop(AF_INET6, &prefix, &buffer, socklen_t(buffer.count))
            return "[" + Self.string(buffer) + "]/64"
        }
    }

    static func string(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Monotonic time in nanoseconds.
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
