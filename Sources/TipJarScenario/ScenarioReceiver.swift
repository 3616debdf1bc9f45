import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The developer's server a scenario stands up (the `failingServer` step): a listener on an ephemeral loopback port, in
/// the process that runs the scenario, that answers the first ``failures`` requests with ``status`` and every later one
/// with `200`, so a scenario can rehearse "a server that is down for three attempts" and watch Apple's retries reach it
/// (https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications).
/// It reads each request's head and `Content-Length` body (at most 1 MiB), counts the request, answers and closes.
/// It stops when the run ends (``stop()``).
final class ScenarioReceiver: Sendable {
    /// Requests answered with ``status`` before the first `200`.
    let failures: Int
    /// The failing answer's status.
    let status: Int
    /// The port it listens on.
    let port: Int
    private let listener: Int32
    private let state = Mutex<(requests: Int, stopped: Bool)>((0, false))

    /// The URL to set as the notifications URL.
    var url: String { "http://127.0.0.1:\(port)/notifications" }
    /// Requests received so far.
    var requests: Int { state.withLock { $0.requests } }

    /// Starts listening.
    /// - Throws: `StepFailure` when no port can be had.
    init(failures: Int, status: Int) throws {
        self.failures = failures
        self.status = status
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound, listen(fd, 64) == 0 else {
            if fd >= 0 { close(fd) }
            throw StepFailure(description: "the scenario's server could not listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "tipjar-scenario-receiver"
        thread.start()
    }

    private func acceptLoop() {
        defer { close(listener) }
        while !state.withLock({ $0.stopped }) {
            let connection = accept(listener, nil, nil)
            if connection < 0 { return }
            Thread { [self] in answer(connection) }.start()
        }
    }

    private func answer(_ connection: Int32) {
        defer { close(connection) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard Self.readRequest(connection) else { return }
        let number = state.withLock { state -> Int in
            state.requests += 1
            return state.requests
        }
        let code = number <= failures ? status : 200
        let reply = "HTTP/1.1 \(code) \(code == 200 ? "OK" : "Failing on purpose")\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        _ = reply.utf8CString.withUnsafeBufferPointer { send(connection, $0.baseAddress, $0.count - 1, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads a request's head and its `Content-Length` body. - Returns: whether a whole request came.
    private static func readRequest(_ fd: Int32) -> Bool {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        var expected: Int?
        while expected.map({ received.count < $0 }) ?? true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { return false }
            received += buffer[0..<count]
            guard received.count <= 1 << 20 else { return false }
            if expected == nil, let end = Data(received).range(of: Data("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self).lowercased()
                let length =
                    head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                expected = end.upperBound + length
            }
        }
        return true
    }

    /// Stops listening (a connection being answered finishes).
    func stop() {
        state.withLock { $0.stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
    }
}
