import Dispatch
import Foundation
import Synchronization
import TipJar

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How one attempt to post a notification ended: Apple's `sendAttemptResult`, the cause in words, and the last URL
/// posted to.
struct NotificationAttemptOutcome: Sendable, Equatable {
    /// Apple's `sendAttemptResult`.
    var result: SendAttemptResult
    /// The cause in words ("HTTP 500", "connection refused", "no answer within 5 s").
    var detail: String
    /// The last URL posted to.
    var url: String
}

/// Posts one notification body to the developer's server.
protocol NotificationTransport: Sendable {
    /// One attempt: `body` posted to `url` as `application/json`, ended within `timeout`.
    func post(_ body: Data, to url: URL, timeout: TimeInterval) async -> NotificationAttemptOutcome
    /// One attempt for each of `bodies` in turn, each ended within `timeout` of its start, stopping after the first that
    /// is not a success (a server in trouble gets one attempt, not the batch).
    /// - Returns: the outcomes of the attempts made, in order; the bodies after them were not posted.
    func postAll(_ bodies: [Data], to url: URL, timeout: TimeInterval) async -> [NotificationAttemptOutcome]
}

extension NotificationTransport {
    /// ``post(_:to:timeout:)`` for each body in turn, stopping after the first that is not a success.
    func postAll(_ bodies: [Data], to url: URL, timeout: TimeInterval) async -> [NotificationAttemptOutcome] {
        var outcomes: [NotificationAttemptOutcome] = []
        for body in bodies {
            if Task.isCancelled, !outcomes.isEmpty { break }
            let outcome = await post(body, to: url, timeout: timeout)
            outcomes.append(outcome)
            if outcome.result != .success { break }
        }
        return outcomes
    }
}

/// The dashboard's ``NotificationTransport``: one deadline for the whole attempt, each hop over a socket of our own
/// for `http` (``SocketNotificationHop``) or `URLSession` for `https` (``URLSessionNotificationHop``: the package has
/// no TLS of its own), and redirects followed here, never inside a hop.
///
/// Redirects: Apple names a `CIRCULAR_REDIRECT` result
/// (https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult) but documents no redirect rules,
/// so these are RFC 9110's. A 307 or 308 is followed with the same `POST` and body (§15.4.8, §15.4.9), at most
/// ``maximumRedirects`` times and never to a URL already visited (either is `CIRCULAR_REDIRECT`), each target checked by
/// the same ``NotificationURLPolicy`` as the notifications URL. A 301, 302 or 303 is not followed: a client may or
/// must turn the `POST` into a `GET` without its body there (§15.4.2–§15.4.4), so the notification would not reach
/// anyone; it is `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, like any status outside 200–206
/// (https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications).
/// A notification therefore counts as delivered only when its body reached a server that answered 2xx.
struct HTTPNotificationTransport: NotificationTransport {
    /// Redirects followed before the attempt is `CIRCULAR_REDIRECT`.
    static let maximumRedirects = 5
    /// The cause of an attempt the dashboard's stop cut short.
    static let cutShort = "cut short: the dashboard stopped before this attempt ended"
    /// Which URLs and addresses are posted to.
    var policy = NotificationURLPolicy()
    /// The threads its `http` hops block on: one for each of the sender's lanes.
    let threads = HopThreads(limit: 5)
    /// Connections a batch left open for the next one (one for each lane at most).
    let connections = KeptConnections(limit: 5)

    /// Creates a transport that posts where `policy` allows.
    init(policy: NotificationURLPolicy = NotificationURLPolicy()) {
        self.policy = policy
    }

    /// One attempt: ``postAll(_:to:timeout:)`` with one body, so a single post and a batch take the same road (the hop
    /// thread, the redirect rules, the kept connections).
    func post(_ body: Data, to url: URL, timeout: TimeInterval) async -> NotificationAttemptOutcome {
        await postAll([body], to: url, timeout: timeout).first
            ?? NotificationAttemptOutcome(result: .other, detail: Self.cutShort, url: url.absoluteString)
    }
}

extension HTTPNotificationTransport {
    /// The batch on one hop thread over one kept connection (HTTP/1.1 persistence, RFC 9112 §9.3), which the next batch
    /// takes over when the server keeps it open: each notification costs a request and an answer, not a connection, a
    /// thread hand-off and a task. A cancelled batch (the dashboard stopping) ends at once: what was posted keeps its
    /// outcome, the one under way is cut, the rest were not posted.
    func postAll(_ bodies: [Data], to url: URL, timeout: TimeInterval) async -> [NotificationAttemptOutcome] {
        guard !bodies.isEmpty else { return [] }
        let progress = BatchProgress()
        let answer = FirstAnswer<[NotificationAttemptOutcome]>()
        let policy = policy
        let connections = connections
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                answer.wait(continuation)
                threads.run {
                    let connection = connections.take()
                    defer { connections.giveBack(connection) }
                    for body in bodies {
                        let outcome = Self.attemptBlocking(body, to: url, timeout: timeout, policy: policy, keeping: connection)
                        guard progress.append(outcome), outcome.result == .success else { break }
                    }
                    answer.give(progress.stop())
                }
            }
        } onCancel: {
            var done = progress.stop()
            if done.count < bodies.count, done.last.map({ $0.result == .success }) ?? true {
                done.append(NotificationAttemptOutcome(result: .other, detail: Self.cutShort, url: url.absoluteString))
            }
            answer.give(done)
        }
    }

    /// One attempt on the calling thread (a hop thread), redirects followed, the first hop over `kept`. An `https` hop
    /// (a redirect's) is `URLSession`'s, waited for here: the thread is the attempt's own.
    static func attemptBlocking(
        _ body: Data, to url: URL, timeout: TimeInterval, policy: NotificationURLPolicy, keeping kept: KeptConnection
    ) -> NotificationAttemptOutcome {
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(timeout, 0) * 1e9)
        var chain = RedirectChain(start: url, policy: policy)
        while true {
            let hop: NotificationHop
            if chain.current.scheme?.lowercased() == "https" {
                let done = DispatchSemaphore(value: 0)
                let result = FirstAnswer<NotificationHop>()
                let target = chain.current
                Task {
                    result.give(await URLSessionNotificationHop.post(body, to: target, deadline: deadline, timeout: timeout, policy: policy))
                    done.signal()
                }
                done.wait()
                hop = result.taken ?? .failed(.other, "no answer")
            } else {
                hop = SocketNotificationHop.postBlocking(
                    body, to: chain.current, deadline: deadline, timeout: timeout, policy: policy, keeping: chain.isAtStart ? kept : nil)
            }
            if case .ended(let outcome) = chain.next(after: hop) { return outcome }
        }
    }
}

/// The outcomes of a batch as they come, until it is stopped.
final class BatchProgress: Sendable {
    private let state = Mutex<(outcomes: [NotificationAttemptOutcome], stopped: Bool)>(([], false))

    /// Adds `outcome`. - Returns: `false` when the batch was stopped (the outcome is not added, and no more come).
    func append(_ outcome: NotificationAttemptOutcome) -> Bool {
        state.withLock { state in
            guard !state.stopped else { return false }
            state.outcomes.append(outcome)
            return true
        }
    }

    /// Stops the batch. - Returns: the outcomes so far.
    func stop() -> [NotificationAttemptOutcome] {
        state.withLock { state in
            state.stopped = true
            return state.outcomes
        }
    }
}

/// The redirect rules of one attempt (see ``HTTPNotificationTransport``): what a hop's answer means, and where the
/// attempt goes next.
struct RedirectChain: Sendable {
    /// What comes after a hop.
    enum Step: Sendable {
        /// The attempt ended.
        case ended(NotificationAttemptOutcome)
        /// The attempt goes on at ``RedirectChain/current``.
        case follow
    }

    /// The URL the next hop posts to.
    private(set) var current: URL
    private var visited: Set<String>
    private var redirects = 0
    private let policy: NotificationURLPolicy

    /// Whether no redirect was followed yet.
    var isAtStart: Bool { redirects == 0 }

    init(start: URL, policy: NotificationURLPolicy) {
        current = start
        visited = [start.absoluteString]
        self.policy = policy
    }

    /// Decides on `hop`, the answer of a hop to ``current``, and moves ``current`` to a redirect's target.
    mutating func next(after hop: NotificationHop) -> Step {
        let here = current.absoluteString
        switch hop {
        case .failed(let result, let detail):
            return .ended(NotificationAttemptOutcome(result: result, detail: detail, url: here))
        case .answered(let status, let location):
            if (200...206).contains(status) { return .ended(NotificationAttemptOutcome(result: .success, detail: "HTTP \(status)", url: here)) }
            guard status == 307 || status == 308 else {
                let detail =
                    (300...399).contains(status)
                    ? "HTTP \(status), not followed: only a 307 or 308 redirect keeps the POST and its body (RFC 9110 §15.4)"
                    : "HTTP \(status)"
                return .ended(NotificationAttemptOutcome(result: .unsuccessfulHTTPResponseCode, detail: detail, url: here))
            }
            guard let location, let target = URL(string: location, relativeTo: current)?.absoluteURL else {
                return .ended(NotificationAttemptOutcome(result: .unsuccessfulHTTPResponseCode, detail: "HTTP \(status) without a usable Location", url: here))
            }
            let next: URL
            do {
                next = try policy.checked(target.absoluteString)
            } catch {
                let reason = (error as? TipJarError).map { "\($0)" } ?? "\(error)"
                return .ended(NotificationAttemptOutcome(result: .other, detail: "HTTP \(status) to a URL not posted to: \(reason)", url: here))
            }
            guard visited.insert(next.absoluteString).inserted else {
                return .ended(
                    NotificationAttemptOutcome(result: .circularRedirect, detail: "redirect loop: \(next.absoluteString) was visited already", url: here))
            }
            redirects += 1
            guard redirects <= HTTPNotificationTransport.maximumRedirects else {
                return .ended(
                    NotificationAttemptOutcome(result: .circularRedirect, detail: "more than \(HTTPNotificationTransport.maximumRedirects) redirects", url: here))
            }
            current = next
            return .follow
        }
    }
}

/// One `POST` hop over `URLSession` (FoundationNetworking on Linux), for `https` URLs: the package has no TLS of its
/// own, and Apple requires HTTPS in App Store Connect
/// (https://developer.apple.com/documentation/appstoreservernotifications/enabling-app-store-server-notifications).
///
/// Driven so that FoundationNetworking's own state is never raced: a redirect is refused inside its callback (the 3xx
/// becomes the answer, and ``HTTPNotificationTransport`` decides), the task is never cancelled from outside (the
/// attempt stops waiting at its deadline and the task ends by its own timeout a second later), and the session is
/// invalidated only after its task ends. The answer's head decides; its body is never read. The host's addresses are
/// checked against the ``NotificationURLPolicy`` before `URLSession` connects (it resolves the name again itself).
/// FoundationNetworking keeps a core busy while it waits on a silent server; the deadline bounds that to one attempt.
enum URLSessionNotificationHop {
    static func post(_ body: Data, to url: URL, deadline: UInt64, timeout: TimeInterval, policy: NotificationURLPolicy) async -> NotificationHop {
        if !policy.allowsLinkLocal, let host = url.host, Self.resolvesToLinkLocal(host) {
            return .failed(.other, "\(host) resolves to a link-local or cloud metadata address, which the dashboard does not post to")
        }
        let waiting = Waiting()
        let configuration = URLSessionConfiguration.ephemeral
        // FoundationNetworking's own timeouts count whole seconds: ours is exact, theirs ends the task a second later.
        configuration.timeoutIntervalForRequest = timeout.rounded(.up) + 1
        configuration.timeoutIntervalForResource = timeout.rounded(.up) + 1
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: waiting, delegateQueue: nil)
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout.rounded(.up) + 1)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let task = session.dataTask(with: request)
        let remaining = Double(deadline &- min(deadline, DispatchTime.now().uptimeNanoseconds)) / 1e9
        let timer = Task {
            try? await Task.sleep(for: .seconds(remaining))
            if !Task.isCancelled { waiting.finish(.failed(.timedOut, "no answer within \(SocketNotificationHop.seconds(timeout))")) }
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiting.wait(continuation)
                task.resume()
                session.finishTasksAndInvalidate()
            }
        } onCancel: {
            // The task itself is left to end by its own timeout: cancelling it from outside races FoundationNetworking.
            waiting.finish(.failed(.other, HTTPNotificationTransport.cutShort))
        }
    }

    /// Whether any address of `host` is link-local or a metadata service.
    static func resolvesToLinkLocal(_ host: String) -> Bool {
        if NotificationURLPolicy.isLinkLocalOrMetadata(host: host) { return true }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let list else { return false }
        defer { freeaddrinfo(list) }
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let info = cursor {
            cursor = info.pointee.ai_next
            if let address = info.pointee.ai_addr, NotificationURLPolicy.isLinkLocalOrMetadata(address: SocketNotificationHop.bytes(of: address)) {
                return true
            }
        }
        return false
    }

    /// What a `URLError` means in Apple's names (the mapping is ours; Apple documents the names only).
    static func result(for error: any Error) -> SendAttemptResult {
        guard let error = error as? URLError else { return .other }
        switch error.code {
        case .timedOut: return .timedOut
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet: return .noResponse
        case .networkConnectionLost, .zeroByteResource: return .prematureClose
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot, .clientCertificateRejected, .clientCertificateRequired:
            return .tlsIssue
        case .httpTooManyRedirects, .redirectToNonExistentLocation: return .circularRedirect
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData, .unsupportedURL: return .invalidResponse
        // FoundationNetworking reports libcurl's send and receive failures ("Send failure: Broken pipe") as `unknown`.
        case .unknown, .cannotLoadFromNetwork, .callIsActive, .internationalRoamingOff, .dataNotAllowed: return .socketIssue
        default: return .other
        }
    }

    /// One hop's delegate: the one outcome, whichever comes first.
    final class Waiting: NSObject, URLSessionDataDelegate, Sendable {
        private let state = Mutex<(outcome: NotificationHop?, continuation: CheckedContinuation<NotificationHop, Never>?)>((nil, nil))

        func wait(_ continuation: CheckedContinuation<NotificationHop, Never>) {
            let ready = state.withLock { state -> NotificationHop? in
                if let outcome = state.outcome { return outcome }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }

        func finish(_ outcome: NotificationHop) {
            let continuation = state.withLock { state -> CheckedContinuation<NotificationHop, Never>? in
                guard state.outcome == nil else { return nil }
                state.outcome = outcome
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(returning: outcome)
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            if let http = response as? HTTPURLResponse {
                finish(.answered(status: http.statusCode, location: http.value(forHTTPHeaderField: "Location")))
            } else {
                finish(.failed(.invalidResponse, "the answer is not HTTP"))
            }
            completionHandler(.cancel)
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let error else { return finish(.failed(.invalidResponse, "the connection ended without an answer")) }
            finish(.failed(URLSessionNotificationHop.result(for: error), error.localizedDescription))
        }
    }
}
