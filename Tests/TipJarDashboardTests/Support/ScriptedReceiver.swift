import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A developer's server for the notification tests: a blocking TCP listener on an ephemeral loopback port, on a
/// thread of its own (and a thread for each connection), that reads each request (head and `Content-Length` body), records its body, and answers as
/// `script` says for the request's number (0 first). Raw bytes, so it can answer what no framework would: a head
/// announcing a 1 GB body it never sends, a redirect to itself, silence.
final class ScriptedReceiver: Sendable {
    enum Answer: Sendable {
        /// These bytes, then the connection closes.
        case bytes(String)
        /// These bytes, then nothing: the connection stays open until the receiver stops.
        case bytesThenSilence(String)
        /// Nothing: the connection stays open, unanswered, until the receiver stops.
        case silence
        /// The connection closes at once, unanswered.
        case close
        /// These bytes, then the next request is read on the same connection (HTTP/1.1 persistence).
        case bytesThenNextRequest(String)
    }

    let port: Int
    private let listener: Int32
    private let state = Mutex<(bodies: [Data], held: [Int32], stopped: Bool, connections: Int)>(([], [], false, 0))

    var url: String { "http://127.0.0.1:\(port)/notifications" }
    /// The bodies received so far.
    var bodies: [Data] { state.withLock { $0.bodies } }
    /// The connections that carried a request so far.
    var connections: Int { state.withLock { $0.connections } }

    static func status(_ code: Int, _ extra: String = "") -> Answer {
        .bytes("HTTP/1.1 \(code) Status\r\nContent-Length: 0\r\nConnection: close\r\n\(extra)\r\n")
    }

    /// An answer with `code` that keeps the connection for the next request, with a body of `body`.
    static func kept(_ code: Int, body: String = "") -> Answer {
        .bytesThenNextRequest("HTTP/1.1 \(code) Status\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
    }

    init(_ script: @escaping @Sendable (Int) -> Answer) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop(script) }
        thread.start()
    }

    private func acceptLoop(_ script: @escaping @Sendable (Int) -> Answer) {
        // The thread alone closes the listener, once it is done with it: a descriptor closed under a blocked
        // `accept` could be reused by another socket of the test process and accepted on.
        defer { close(listener) }
        while !state.withLock({ $0.stopped }) {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                // A signal, or a client that reset before it was accepted, ends nothing; `stop()`'s shutdown does.
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            if state.withLock({ $0.stopped }) {
                close(connection)
                return
            }
            // A thread a connection, so one that sends nothing (another process probing a reused port) holds up no other.
            Thread { [self] in answer(connection, script) }.start()
        }
    }

    /// Reads one request on `connection` and answers it as `script` says for its number (in the order requests end).
    private func answer(_ connection: Int32, _ script: @Sendable (Int) -> Answer, isFirst: Bool = true) {
        // A connection that sends nothing is recorded as an empty request; a kept one the client closes is not.
        guard let body = Self.readRequest(connection) ?? (isFirst ? Data() : nil) else {
            close(connection)
            return
        }
        let number = state.withLock { state -> Int in
            state.bodies.append(body)
            if isFirst { state.connections += 1 }
            return state.bodies.count - 1
        }
        switch script(number) {
        case .bytesThenNextRequest(let text):
            _ = text.utf8CString.withUnsafeBufferPointer { send(connection, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
            answer(connection, script, isFirst: false)
        case .bytes(let text):
            _ = text.utf8CString.withUnsafeBufferPointer { send(connection, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
            close(connection)
        case .bytesThenSilence(let text):
            _ = text.utf8CString.withUnsafeBufferPointer { send(connection, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
            hold(connection)
        case .silence: hold(connection)
        case .close: close(connection)
        }
    }

    /// Keeps `connection` open until the receiver stops (closed at once if it already has).
    private func hold(_ connection: Int32) {
        let stopped = state.withLock { state -> Bool in
            if !state.stopped { state.held.append(connection) }
            return state.stopped
        }
        if stopped { close(connection) }
    }

    /// The request's body (as far as `Content-Length` says); `nil` when the connection ended before any byte.
    private static func readRequest(_ fd: Int32) -> Data? {
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var expected: Int?
        while expected.map({ received.count < $0 }) ?? true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
            if expected == nil, let end = Data(received).range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                let length =
                    head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                expected = end.upperBound + length
            }
        }
        if received.isEmpty { return nil }
        guard let end = Data(received).range(of: Data("\r\n\r\n".utf8)) else { return Data() }
        return Data(received[end.upperBound...])
    }

    func stop() {
        let held = state.withLock { state -> [Int32] in
            state.stopped = true
            defer { state.held = [] }
            return state.held
        }
        for fd in held { close(fd) }
        // shutdown(2) ends the listening (new connections are refused) and wakes the blocked `accept`.
        shutdown(listener, Int32(SHUT_RDWR))
    }
}
