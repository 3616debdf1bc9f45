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

    /// Runs `body` on one of the threads and returns what it returns, or `cancelled` as soon as the calling task is
    /// cancelled (`body` then runs to its end unheard: a blocked system call cannot be taken back).
    func perform<Value: Sendable>(cancelled: Value, _ body: @escaping @Sendable () -> Value) async -> Value {
        let answer = FirstAnswer<Value>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                answer.wait(continuation)
                run { answer.give(body()) }
            }
        } onCancel: {
            answer.give(cancelled)
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

/// What one hop of an attempt (one POST, redirects not followed) ended with.
enum NotificationHop: Sendable, Equatable {
    /// The server answered with `status`, and `location` when it sent one (a redirect's target).
    case answered(status: Int, location: String?)
    /// No usable answer: Apple's `sendAttemptResult` and the cause in words.
    case failed(SendAttemptResult, String)
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
    static func postBlocking(_ body: Data, to url: URL, deadline: UInt64, timeout: TimeInterval, policy: NotificationURLPolicy) -> NotificationHop {
        let timedOut = NotificationHop.failed(.timedOut, "no answer within \(Self.seconds(timeout))")
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true), let rawHost = components.host, !rawHost.isEmpty
        else { return .failed(.other, "the URL has no host") }
        let host = rawHost.hasPrefix("[") ? String(rawHost.dropFirst().dropLast()) : rawHost
        let port = components.port ?? 80
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
            defer { close(fd) }
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
            return exchange(fd, body: body, components: components, deadline: deadline, timedOut: timedOut)
        }
        return failure
    }

    /// Sends the request on a connected socket and reads the answer's head.
    static func exchange(_ fd: Int32, body: Data, components: URLComponents, deadline: UInt64, timedOut: NotificationHop) -> NotificationHop {
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let target = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        let hostField = (components.percentEncodedHost ?? "") + (components.port.map { ":\($0)" } ?? "")
        let head =
            "POST \(target) HTTP/1.1\r\nHost: \(hostField)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
            + "Connection: close\r\nUser-Agent: TipJarDashboard (App Store Server Notifications V2)\r\n\r\n"
        let request = Array(head.utf8) + Array(body)
        var sent = 0
        var sendProblem: String?
        while sent < request.count {
            let count = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                sent += count
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                guard wait(fd, for: Int16(POLLOUT), until: deadline) else { return timedOut }
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
                case .answer(let hop): return hop
                case .needMore: continue
                }
            }
            if count == 0 {
                if received.isEmpty, let sendProblem { return .failed(.socketIssue, sendProblem) }
                return .failed(
                    .prematureClose,
                    received.isEmpty ? "the server closed the connection without answering" : "the server closed the connection in the middle of its answer's head")
            }
            switch errno {
            case EAGAIN, EWOULDBLOCK: guard wait(fd, for: Int16(POLLIN), until: deadline) else { return timedOut }
            case EINTR: continue
            case ECONNRESET:
                if received.isEmpty, let sendProblem { return .failed(.socketIssue, sendProblem) }
                return .failed(.prematureClose, "the server reset the connection before its answer's head ended")
            default: return .failed(.socketIssue, "reading the answer failed: \(Self.describe(errno))")
            }
        }
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
            let text = String(decoding: received[0..<end], as: UTF8.self)
            let lines = text.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
            let status = lines.first.flatMap { line -> Int? in
                let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
                guard parts.count >= 2, parts[1].count == 3 else { return nil }
                return Int(parts[1])
            }
            guard let status, (100...599).contains(status) else {
                return .answer(.failed(.invalidResponse, "the answer's status line is not HTTP/1.x's: \"\(lines.first.map { String($0.prefix(60)) } ?? "")\""))
            }
            if (100...199).contains(status) && status != 101 {
                received.removeFirst(end)
                if received.isEmpty { return .needMore }
                continue
            }
            if status == 101 { return .answer(.failed(.invalidResponse, "the server switched protocols (101), which a notification never asks for")) }
            let location = lines.dropFirst().first { $0.lowercased().hasPrefix("location:") }
                .map { String($0.dropFirst("location:".count)).trimmingCharacters(in: .whitespaces) }
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
