import Foundation
import Synchronization
import TipJar

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Posts one notification body to the developer's server and names the outcome in Apple's `sendAttemptResult`.
protocol NotificationTransport: Sendable {
    /// One attempt: `body` posted to `url` as `application/json`, answered within `timeout`.
    func post(_ body: Data, to url: URL, timeout: TimeInterval) async -> SendAttemptResult
}

/// ``NotificationTransport`` on `URLSession` (FoundationNetworking on Linux). Chosen over a client of our own on
/// sockets because the developer's server is usually HTTPS (Apple requires it in App Store Connect,
/// https://developer.apple.com/documentation/appstoreservernotifications/app-store-server-notifications-v2) and the
/// package has no TLS of its own; `URLSession` brings TLS, redirects and name resolution, and its delegate gives the
/// control an attempt needs:
/// - **The body is never read.** The outcome is decided by the status line (200–206 is `SUCCESS`, anything else
///   `UNSUCCESSFUL_HTTP_RESPONSE_CODE`, https://developer.apple.com/documentation/appstoreservernotifications/responding-to-app-store-server-notifications),
///   and the task is cancelled as soon as the response head arrives, so a 1 GB answer costs nothing.
/// - **Redirects**: at most ``maximumRedirects`` are followed; a redirect to a URL already visited, or one too many,
///   is `CIRCULAR_REDIRECT`.
/// - **A timeout per attempt** (`timeout`, enforced by the request's own timeout and by a timer of ours, whichever
///   fires first): `TIMED_OUT`.
///
/// How a failure maps to Apple's names, which Apple does not document per error (the choice is ours): a refused or
/// unreachable host `NO_RESPONSE`; a connection lost mid-answer `PREMATURE_CLOSE`; a TLS failure `TLS_ISSUE`; an
/// answer that is not HTTP `INVALID_RESPONSE` (FoundationNetworking reports a connection closed with no answer at all
/// the same way, `badServerResponse`, so it reads `INVALID_RESPONSE` too); a send or receive failure `SOCKET_ISSUE`;
/// anything else `OTHER`. `UNSUPPORTED_CHARSET` is never given: the answer's body is never read.
struct URLSessionNotificationTransport: NotificationTransport {
    /// Redirects followed before the attempt is `CIRCULAR_REDIRECT`.
    static let maximumRedirects = 5

    func post(_ body: Data, to url: URL, timeout: TimeInterval) async -> SendAttemptResult {
        let attempt = Attempt(start: url)
        let configuration = URLSessionConfiguration.ephemeral
        // FoundationNetworking's own timeouts count whole seconds (a 0.5 s one fires at once): ours below is exact, and
        // theirs only a backstop a second later.
        configuration.timeoutIntervalForRequest = timeout.rounded(.up) + 1
        configuration.timeoutIntervalForResource = timeout.rounded(.up) + 1
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: attempt, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout.rounded(.up) + 1)
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let task = session.dataTask(with: request)
        let timer = Task {
            try? await Task.sleep(for: .seconds(timeout))
            if !Task.isCancelled, attempt.finish(.timedOut) { task.cancel() }
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            attempt.wait(continuation)
            task.resume()
        }
    }

    /// What a `URLError` means in Apple's names.
    static func result(for error: any Error) -> SendAttemptResult {
        guard let error = error as? URLError else { return .other }
        switch error.code {
        case .timedOut: return .timedOut
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet, .zeroByteResource: return .noResponse
        case .networkConnectionLost: return .prematureClose
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot, .clientCertificateRejected, .clientCertificateRequired:
            return .tlsIssue
        case .httpTooManyRedirects, .redirectToNonExistentLocation: return .circularRedirect
        // The URL's scheme is checked when it is set, so `unsupportedURL` is libcurl's answer to a reply that is not
        // HTTP/1.x ("Received HTTP/0.9 when not allowed").
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData, .unsupportedURL: return .invalidResponse
        // FoundationNetworking reports libcurl's send and receive failures ("Send failure: Broken pipe") as `unknown`.
        case .unknown, .cannotLoadFromNetwork, .callIsActive, .internationalRoamingOff, .dataNotAllowed: return .socketIssue
        default: return .other
        }
    }

    /// One attempt's state: the URLs visited and the one outcome, whichever comes first.
    final class Attempt: NSObject, URLSessionDataDelegate, Sendable {
        private let state: Mutex<(visited: Set<String>, outcome: SendAttemptResult?, continuation: CheckedContinuation<SendAttemptResult, Never>?)>

        init(start: URL) {
            state = Mutex(([start.absoluteString], nil, nil))
        }

        func wait(_ continuation: CheckedContinuation<SendAttemptResult, Never>) {
            let ready = state.withLock { state -> SendAttemptResult? in
                if let outcome = state.outcome { return outcome }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }

        /// Settles the attempt with `result` unless it is settled. - Returns: whether this call settled it.
        @discardableResult
        func finish(_ result: SendAttemptResult) -> Bool {
            let (won, continuation) = state.withLock { state -> (Bool, CheckedContinuation<SendAttemptResult, Never>?) in
                guard state.outcome == nil else { return (false, nil) }
                state.outcome = result
                defer { state.continuation = nil }
                return (true, state.continuation)
            }
            continuation?.resume(returning: result)
            return won
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            if let http = response as? HTTPURLResponse {
                finish(SendAttemptResult.forStatus(http.statusCode))
            } else {
                finish(.invalidResponse)
            }
            completionHandler(.cancel)
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            let isLoop = state.withLock { state -> Bool in
                guard let next = request.url?.absoluteString else { return true }
                let seen = !state.visited.insert(next).inserted
                return seen || state.visited.count > URLSessionNotificationTransport.maximumRedirects + 1
            }
            if isLoop {
                finish(.circularRedirect)
                completionHandler(nil)
                task.cancel()
            } else {
                completionHandler(request)
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            finish(error.map(URLSessionNotificationTransport.result(for:)) ?? .invalidResponse)
        }
    }
}
