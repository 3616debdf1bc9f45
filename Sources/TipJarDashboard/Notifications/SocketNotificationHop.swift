import Dispatch
import Foundation
import Synchronization
import TipJar

#if canImport(Glibc)
import Glibc
#endif

/// The threads a transport's hops block on: started one by one as hops need them, at most ``limit`` (the sender's four
/// lanes and its `TEST` lane), then kept until unused for 30 s, each asleep on a semaphore while it has nothing to do (no CPU, no wake-ups). Jobs beyond the
/// limit wait their turn.
final class HopThreads: Sendable {
    let limit: Int
    private let state = Mutex<(jobs: [@Sendable () -> Void], threads: Int, idle: Int)>(([], 0, 0))
    private let ready = DispatchSemaphore(value: 0)

    init(limit: Int) { self.limit = limit }

    /// Runs `job` on one of the threads.
    func run(_ job: @escaping @Sendable () -> Void) {
        let startsThread = state.withLock { state -> Bool in
            state.jobs.append(job)
            guard state.idle == 0, state.threads < limit else {
                if state.idle > 0 { state.idle -= 1 }
                return false
            }
            state.threads += 1
            return true
        }
        if startsThread {
            let thread = Thread { [self] in work() }
            thread.name = "tipjar-notification"
            thread.stackSize = 512 * 1_024
            thread.start()
        } else {
            ready.signal()
        }
    }

    private func work() {
        while true {
            let job = state.withLock { state -> (@Sendable () -> Void)? in
                guard !state.jobs.isEmpty else {
                    state.idle += 1
                    return nil
                }
                return state.jobs.removeFirst()
            }
            if let job {
                job()
            } else if ready.wait(timeout: .now() + .seconds(30)) == .timedOut {
                // Unused for 30 s: the thread ends. Unless a job came meanwhile and took an idle thread's place (`idle` is
                // 0): then its signal is on its way, and this thread takes it as if it had woken in time.
                let ends = state.withLock { state -> Bool in
                    guard state.idle > 0 else { return false }
                    state.idle -= 1
                    state.threads -= 1
                    return true
                }
                if ends { return }
                ready.wait()
            }
        }
    }
}

/// The first of several answers, handed to whoever waits for it, once; later ones are dropped.
final class FirstAnswer<Value: Sendable>: Sendable {
    private let state = Mutex<(answer: Value?, waiter: CheckedContinuation<Value, Never>?, isGiven: Bool)>((nil, nil, false))

    func wait(_ continuation: CheckedContinuation<Value, Never>) {
        let ready = state.withLock { state -> Value? in
            if let answer = state.answer {
                state.answer = nil
                return answer
            }
            state.waiter = continuation
            return nil
        }
        if let ready { continuation.resume(returning: ready) }
    }

    /// The answer given while nobody waited, taken (for a waiter that blocks its thread instead).
    var taken: Value? {
        state.withLock { state in
            defer { state.answer = nil }
            return state.answer
        }
    }

    func give(_ value: Value) {
        let waiter = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard !state.isGiven else { return nil }
            state.isGiven = true
            guard let waiter = state.waiter else {
                state.answer = value
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: value)
    }
}

/// The connections batches left open, each handed to one batch at a time (``take()``), so a lane's next batch to the same
/// server reuses its connection instead of opening one (HTTP/1.1 persistence, RFC 9112 §9.3). At most ``limit`` are kept;
/// one idle for ``maximumIdle`` or longer is closed when next taken rather than reused, since servers close idle
/// connections (RFC 9112 §9.5) and a stale one costs a failed send before the retry on a new connection.
final class KeptConnections: Sendable {
    let limit: Int
    /// Idle time after which a kept connection is not reused, in nanoseconds.
    let maximumIdle: UInt64
    private let idle = Mutex<[KeptConnection]>([])

    /// - Parameters:
    ///   - limit: connections kept at most.
    ///   - maximumIdle: seconds after which an idle connection is not reused (30 s; nginx's `keepalive_timeout` defaults to 75 s, Apache's `KeepAliveTimeout` to 5 s).
    init(limit: Int, maximumIdle: TimeInterval = 30) {
        self.limit = limit
        self.maximumIdle = UInt64(max(0, maximumIdle) * 1e9)
    }

    /// A kept connection (the most recently used one), or a new, unconnected one.
    func take() -> KeptConnection {
        let now = DispatchTime.now().uptimeNanoseconds
        let (taken, stale) = idle.withLock { idle -> (KeptConnection?, [KeptConnection]) in
            let stale = idle.filter { now &- $0.idleSince >= maximumIdle }
            idle.removeAll { now &- $0.idleSince >= maximumIdle }
            return (idle.popLast(), stale)
        }
        for connection in stale { connection.close() }
        return taken ?? KeptConnection()
    }

    /// Keeps `connection` for the next batch if it is still open and there is room; closes it otherwise.
    func giveBack(_ connection: KeptConnection) {
        guard connection.fd >= 0 else { return }
        connection.idleSince = DispatchTime.now().uptimeNanoseconds
        let kept = idle.withLock { idle -> Bool in
            guard idle.count < limit else { return false }
            idle.append(connection)
            return true
        }
        if !kept { connection.close() }
    }

    /// How many are kept now.
    var count: Int { idle.withLock { $0.count } }
}

/// A connection kept open between the notifications of a batch and for the next batch (``SocketNotificationHop/postBlocking(_:to:deadline:timeout:policy:keeping:)``),
/// used on one thread at a time.
final class KeptConnection: @unchecked Sendable {
    /// The socket, or -1.
    var fd: Int32 = -1
    /// The host and port it is connected to.
    var origin = ""
    /// The last URL posted to, parsed.
    var parsed: (url: URL, target: HopTarget)?
    /// When it was last given back to ``KeptConnections`` (`DispatchTime` uptime nanoseconds).
    var idleSince: UInt64 = 0

    func close() {
        if fd >= 0 { _ = Glibc.close(fd) }
        fd = -1
    }

    deinit { close() }
}

/// Where a hop posts: an `http` URL's host and port, and the start of its request (RFC 9112 §3: the request line in
/// origin form, then `Host` and `Content-Type`), parsed once for every post of a batch.
struct HopTarget: Sendable {
    /// The host to resolve (an IPv6 literal without its brackets).
    let host: String
    let port: Int
    /// The request's first lines: `POST <path and query> HTTP/1.1`, `Host` and `Content-Type`, each ended.
    let headStart: String
    /// The host and port, as ``KeptConnection/origin`` compares them.
    let origin: String

    /// `nil` when `url` has no host.
    init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true), let rawHost = components.host, !rawHost.isEmpty else {
            return nil
        }
        host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        port = components.port ?? 80
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let target = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        let hostField = (components.percentEncodedHost ?? "") + (components.port.map { ":\($0)" } ?? "")
        headStart = "POST \(target) HTTP/1.1\r\nHost: \(hostField)\r\nContent-Type: application/json\r\n"
        origin = "\(host) \(port)"
    }
}

/// What one hop of an attempt (one POST, redirects not followed) ended with.
enum NotificationHop: Sendable, Equatable {
    /// The server answered with `status`, and `location` when it sent one (a redirect's target).
    case answered(status: Int, location: String?)
    /// No usable answer: Apple's `sendAttemptResult` and the cause in words.
    case failed(SendAttemptResult, String)

    /// Whether the connection was lost before any answer (a kept connection the server had closed).
    var isLostConnection: Bool {
        guard case .failed(let result, _) = self else { return false }
        return result == .prematureClose || result == .socketIssue
    }
}

/// One `POST` of a notification over a TCP socket of our own, HTTP/1.1 (RFC 9112), for `http` URLs.
///
/// Chosen over `URLSession` because FoundationNetworking on Linux could not be driven safely by a sender that must
/// survive any receiver: a redirect loop made it stop the process ("Received callback for HTTP redirection, but we're
/// not waiting for it"), and a receiver that accepted and never answered kept a core busy for the whole wait. Here
/// every wait is `poll(2)` on the one socket with the attempt's deadline, on a thread of its own, so a silent
/// or trickling receiver costs no CPU; nothing is retried or followed inside a hop.
///
/// What is read is bounded: the status line and fields only (at most ``maximumHeadBytes``), never the body, so a
/// 1 GB answer or 100 MB of field lines cost at most that much; interim 1xx answers are skipped (RFC 9110 §15.2).
/// The names of failures follow Apple's `sendAttemptResult`
/// (https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult), which Apple documents by name
/// only; the mapping is ours: no connection (refused, unreachable, unresolved) `NO_RESPONSE`; the deadline `TIMED_OUT`;
/// a close or reset before the answer's head ended `PREMATURE_CLOSE`; an answer that is not HTTP/1.x (HTTP/0.9, another
/// protocol) or a head too large `INVALID_RESPONSE`; a failure to send with no answer after it `SOCKET_ISSUE`; an
/// address the ``NotificationURLPolicy`` refuses once resolved `OTHER`.
enum SocketNotificationHop {
    /// The most bytes of an answer's head read before it is `INVALID_RESPONSE`.
    static let maximumHeadBytes = 65_536

    /// Posts `body` to `url` (http) and reads the answer's head, on the calling thread, within `deadline`
    /// (`DispatchTime` uptime nanoseconds). `timeout` only words a `TIMED_OUT`.
    ///
    /// Called on a ``HopThreads`` thread, not Dispatch's pool: on Linux Swift's cooperative executor runs on Dispatch's
    /// global threads, as many as there are cores, so a hop blocked in `poll(2)` there would stall every task of the server.
    ///
    /// With `kept`, the connection is kept open after an answer that allows it (HTTP/1.1 persistence, RFC 9112 §9.3)
    /// for the next notification of the same attempt batch to the same host and port, and a kept one is used first. A
    /// kept connection the server closed meanwhile (RFC 9112 §9.3.1: "a client … MUST be able to recover") fails before
    /// any byte of an answer; the post is then sent once more on a new connection. Apple documents that a server may
    /// receive a notification more than once
    /// (https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications),
    /// which is all a second send can cause.
    static func postBlocking(
        _ body: Data, to url: URL, deadline: UInt64, timeout: TimeInterval, policy: NotificationURLPolicy, keeping kept: KeptConnection? = nil
    ) -> NotificationHop {
        let timedOut = NotificationHop.failed(.timedOut, "no answer within \(Self.seconds(timeout))")
        let target: HopTarget
        if let parsed = kept?.parsed, parsed.url == url {
            target = parsed.target  // the batch's URL, parsed once
        } else {
            guard let parsed = HopTarget(url) else { return .failed(.other, "the URL has no host") }
            target = parsed
            kept?.parsed = (url, parsed)
        }
        let (host, port) = (target.host, target.port)
        if let kept, kept.fd >= 0 {
            if kept.origin == target.origin {
                let exchanged = exchange(kept.fd, body: body, target: target, deadline: deadline, timedOut: timedOut, keepAlive: true)
                if exchanged.reusable { return exchanged.hop }
                kept.close()
                if exchanged.heardAnything || !exchanged.hop.isLostConnection { return exchanged.hop }
            } else {
                kept.close()
            }
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let list else {
            return .failed(.noResponse, "the host name \(host) did not resolve")
        }
        defer { freeaddrinfo(list) }
        var failure = NotificationHop.failed(.noResponse, "no address of \(host) took the connection")
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let info = cursor {
            cursor = info.pointee.ai_next
            guard let address = info.pointee.ai_addr else { continue }
            // A hop that starts after the deadline (the redirect of an attempt that used it up) connects to no one.
            guard DispatchTime.now().uptimeNanoseconds < deadline else { return timedOut }
            if !policy.allowsLinkLocal, NotificationURLPolicy.isLinkLocalOrMetadata(address: Self.bytes(of: address)) {
                failure = .failed(.other, "\(host) resolves to a link-local or cloud metadata address, which the dashboard does not post to")
                continue
            }
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return .failed(.socketIssue, "no socket: \(Self.describe(errno))") }
            var handedOver = false
            defer { if !handedOver { close(fd) } }
            if connect(fd, address, info.pointee.ai_addrlen) != 0 {
                guard errno == EINPROGRESS else {
                    failure = .failed(.noResponse, "connecting to \(host) port \(port) failed: \(Self.describe(errno))")
                    continue
                }
                guard wait(fd, for: Int16(POLLOUT), until: deadline) else { return timedOut }
                var problem: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &problem, &length)
                guard problem == 0 else {
                    failure = .failed(.noResponse, "connecting to \(host) port \(port) failed: \(Self.describe(problem))")
                    continue
                }
            }
            let exchanged = exchange(fd, body: body, target: target, deadline: deadline, timedOut: timedOut, keepAlive: kept != nil)
            if let kept, exchanged.reusable {
                kept.fd = fd
                kept.origin = target.origin
                handedOver = true
            }
            return exchanged.hop
        }
        return failure
    }

    /// Sends the request on a connected socket and reads the answer's head; with `keepAlive`, also an answer's small
    /// body, so the connection can carry the next request.
    /// - Returns: the hop, whether the connection may carry another request, and whether any byte of an answer came.
    static func exchange(
        _ fd: Int32, body: Data, target: HopTarget, deadline: UInt64, timedOut: NotificationHop, keepAlive: Bool = false
    ) -> (hop: NotificationHop, reusable: Bool, heardAnything: Bool) {
        let head =
            "\(target.headStart)Content-Length: \(body.count)\r\n" + (keepAlive ? "" : "Connection: close\r\n")
            + "User-Agent: TipJarDashboard (App Store Server Notifications V2)\r\n\r\n"
        var request: [UInt8] = []
        request.reserveCapacity(head.utf8.count + body.count)
        request += head.utf8
        request += body
        var sent = 0
        var sendProblem: String?
        while sent < request.count {
            let count = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                guard wait(fd, for: Int16(POLLOUT), until: deadline) else { return (timedOut, false, false) }
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                // A server may answer (413, say) and close before it reads the whole body: its answer still counts.
                sendProblem = "sending the notification failed: \(Self.describe(errno))"
                break
            }
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += chunk[0..<count]
                switch Self.head(in: &received) {
                case .answer(let hop):
                    let reusable = keepAlive && sendProblem == nil && Self.drainsForReuse(&received, hop: hop, fd: fd, deadline: deadline)
                    return (hop, reusable, true)
                case .needMore: continue
                }
            }
            if count == 0 {
                if received.isEmpty, let sendProblem { return (.failed(.socketIssue, sendProblem), false, false) }
                return (
                    .failed(
                        .prematureClose,
                        received.isEmpty ? "the server closed the connection without answering" : "the server closed the connection in the middle of its answer's head"),
                    false, !received.isEmpty
                )
            }
            switch errno {
            case EAGAIN, EWOULDBLOCK: guard wait(fd, for: Int16(POLLIN), until: deadline) else { return (timedOut, false, !received.isEmpty) }
            case EINTR: continue
            case ECONNRESET:
                if received.isEmpty, let sendProblem { return (.failed(.socketIssue, sendProblem), false, false) }
                return (.failed(.prematureClose, "the server reset the connection before its answer's head ended"), false, !received.isEmpty)
            default: return (.failed(.socketIssue, "reading the answer failed: \(Self.describe(errno))"), false, !received.isEmpty)
            }
        }
    }

    /// Whether the connection can carry another request after the answer at the start of `received` (interim answers
    /// already dropped): an HTTP/1.1 answer without `Connection: close` (RFC 9112 §9.3) whose body is framed by a
    /// `Content-Length` of at most 64 KiB, read here to its end, or that has none (204, 304; RFC 9110 §6.4.1).
    static func drainsForReuse(_ received: inout [UInt8], hop: NotificationHop, fd: Int32, deadline: UInt64) -> Bool {
        guard case .answered(let status, _) = hop, received.starts(with: Array("HTTP/1.1 ".utf8)), let end = endOfHead(received) else { return false }
        var length: Int?
        var lineStart = 0
        // The field lines, read as bytes (RFC 9110 §5.1: names are case-insensitive).
        for index in 0..<end where received[index] == 0x0A {
            let line = received[lineStart..<index]
            lineStart = index + 1
            guard let colon = line.firstIndex(of: 0x3A) else { continue }
            let name = line[line.startIndex..<colon]
            let value = line[(colon + 1)...].filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }
            if Self.equalsIgnoringCase(name, "connection") {
                if Self.equalsIgnoringCase(value[...], "close") || value.split(separator: 0x2C).contains(where: { Self.equalsIgnoringCase($0, "close") }) {
                    return false
                }
            } else if Self.equalsIgnoringCase(name, "transfer-encoding") {
                return false
            } else if Self.equalsIgnoringCase(name, "content-length") {
                guard length == nil, !value.isEmpty, value.count <= 9, value.allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
                length = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            }
        }
        if status == 204 || status == 304 { return received.count == end }
        guard let length, length <= maximumHeadBytes else { return false }
        var missing = end + length - received.count
        guard missing >= 0 else { return false }  // more than the body: not a clean end
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while missing > 0 {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min($0.count, missing), 0) }
            if count > 0 {
                missing -= count
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                guard wait(fd, for: Int16(POLLIN), until: deadline) else { return false }
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// What the bytes read so far say.
    enum HeadReading: Equatable {
        case answer(NotificationHop)
        case needMore
    }

    /// Reads an answer's head from `received`: the status and `Location` of a final answer, an interim 1xx
    /// answer dropped from `received`, or a verdict on bytes that cannot be HTTP/1.x.
    static func head(in received: inout [UInt8]) -> HeadReading {
        while true {
            let prefix = Array("HTTP/1.".utf8)
            let compared = min(received.count, prefix.count)
            guard received[0..<compared].elementsEqual(prefix[0..<compared]) else {
                let shown = String(decoding: received.prefix(24), as: UTF8.self).unicodeScalars
                    .map { $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "·" }.joined()
                return .answer(.failed(.invalidResponse, "the answer is not HTTP/1.x (it began \"\(shown)\")"))
            }
            guard let end = Self.endOfHead(received) else {
                if received.count > maximumHeadBytes {
                    return .answer(.failed(.invalidResponse, "the answer's head passed \(maximumHeadBytes / 1_024) KiB without ending"))
                }
                return .needMore
            }
            // Lines on the bytes (a CR, an LF or both end one, as before), not on `Character`s: this runs for every answer.
            let lines = received[0..<end].split(omittingEmptySubsequences: true) { $0 == 0x0A || $0 == 0x0D }
            let status = lines.first.flatMap { line -> Int? in
                let parts = line.split(separator: 0x20, maxSplits: 2, omittingEmptySubsequences: false)
                guard parts.count >= 2, parts[1].count == 3, parts[1].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
                return parts[1].reduce(0) { $0 * 10 + Int($1 - 0x30) }
            }
            guard let status, (100...599).contains(status) else {
                let first = lines.first.map { String(String(decoding: $0, as: UTF8.self).prefix(60)) } ?? ""
                return .answer(.failed(.invalidResponse, "the answer's status line is not HTTP/1.x's: \"\(first)\""))
            }
            if (100...199).contains(status) && status != 101 {
                received.removeFirst(end)
                if received.isEmpty { return .needMore }
                continue
            }
            if status == 101 { return .answer(.failed(.invalidResponse, "the server switched protocols (101), which a notification never asks for")) }
            let name = "location:".utf8.count
            let location = lines.dropFirst().first { $0.count >= name && equalsIgnoringCase($0.prefix(name), "location:") }
                .map { String(decoding: $0.dropFirst(name), as: UTF8.self).trimmingCharacters(in: .whitespaces) }
            return .answer(.answered(status: status, location: location))
        }
    }

    /// The index just past the empty line ending a head (CRLF CRLF, or LF LF as RFC 9112 §2.2 lets a recipient accept).
    static func endOfHead(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0x0A {
                if bytes[index + 1] == 0x0A { return index + 2 }
                if bytes[index + 1] == 0x0D, index + 2 < bytes.count, bytes[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }

    /// Whether `bytes` spell `word` (lower-case ASCII) in any case.
    static func equalsIgnoringCase(_ bytes: some Collection<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        return word.withUTF8Buffer { expected in
            zip(bytes, expected).allSatisfy { byte, lower in byte == lower || (byte >= 0x41 && byte <= 0x5A && byte + 0x20 == lower) }
        }
    }

    /// Waits in `poll(2)` until `fd` is ready for `events` or `deadline` passes. - Returns: `false` at the deadline.
    static func wait(_ fd: Int32, for events: Int16, until deadline: UInt64) -> Bool {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { return false }
            let milliseconds = Int32(min((deadline - now + 999_999) / 1_000_000, UInt64(Int32.max)))
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return true }  // the next call on the socket names the problem
        }
    }

    /// The address bytes of a socket address (4 for IPv4, 16 for IPv6), network order.
    static func bytes(of address: UnsafeMutablePointer<sockaddr>) -> [UInt8] {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
        default: return []
        }
    }

    /// `strerror(3)`'s words for `code`.
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)).lowercased() }

    /// "5 s", "0.5 s".
    static func seconds(_ interval: TimeInterval) -> String {
        interval == interval.rounded() ? "\(Int(interval)) s" : "\(interval) s"
    }
}
