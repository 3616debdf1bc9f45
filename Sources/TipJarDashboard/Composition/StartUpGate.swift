import HTTPServer
import Synchronization

/// The server's responder while the dashboard is not ready yet: `tipjar serve` listens at once, checks a database
/// that was not closed cleanly (`PRAGMA integrity_check` reads every page: seconds on a large file), and meanwhile
/// answers every request with `503 Service Unavailable` and `Retry-After` (RFC 9110 §15.6.4, §10.2.3), in the error
/// format of the request's area (``DashboardArea``: a page, `{"error": …}`, Apple's error body) saying what is happening. Nothing is read or written for a request before
/// ``open(_:)``; from then on every request goes to the dashboard.
public final class StartUpGate: HTTPResponder {
    let responder = Mutex<(any HTTPResponder)?>(nil)
    /// The dashboard's answers given at once (``HTTPServer/ImmediateResponder``), set before ``responder``.
    let immediate = Mutex<(any ImmediateResponder)?>(nil)
    private let reason: String

    /// The seconds `Retry-After` asks a client to wait.
    public static let retryAfterSeconds = 2

    /// Creates a closed gate.
    /// - Parameter reason: what the server is doing, one sentence shown on the 503 page and in the JSON error.
    public init(reason: String = "The dashboard is starting.") {
        self.reason = reason
    }

    /// Sends every request from now on to `stack`'s dashboard: its routes' own steps walked at once on the I/O thread
    /// (`Dashboard+Immediate.swift`) first, then, in a task, the same middlewares and routes. The server's serializer adds
    /// the security headers to both (``SecurityHeaders/defaults``).
    public func open(_ stack: DashboardStack) {
        immediate.withLock { $0 = stack.dashboard }
        responder.withLock { $0 = stack.dashboard }
    }

    /// Whether ``open(_:)`` was called.
    public var isOpen: Bool { responder.withLock { $0 != nil } }

    /// The dashboard's answer once the gate is open; before, the 503.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        if let dashboard = responder.withLock({ $0 }) { return await dashboard.respond(to: request) }
        return unavailable(request)
    }

    func unavailable(_ request: HTTPRequest) -> HTTPResponse {
        var response: HTTPResponse
        switch DashboardArea.of(path: request.path).errorFormat {
        case .json:
            response = JSONBody.response(["error": reason], status: .serviceUnavailable)
        case .appStoreServerAPI:
            // The App Store Server API's shape: `GeneralInternalRetryableError` (5000001), "you can try again".
            response = AppStoreServerAPIError(status: .serviceUnavailable, code: AppStoreServerAPIError.code(forStatus: .serviceUnavailable), message: reason).response
        case .page:
            // A refresh in the page's head reloads it by itself (no script: the Content-Security-Policy allows none).
            let escaped = reason.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            response = .html(
                """
                <!doctype html>
                <html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="\(Self.retryAfterSeconds)">
                <meta name="viewport" content="width=device-width, initial-scale=1"><title>Starting · Tip Jar Dashboard</title></head>
                <body><main><h1>Starting</h1><p>\(escaped)</p><p>This page reloads by itself.</p></main></body></html>
                """, status: .serviceUnavailable)
        }
        response.fields["Retry-After"] = String(Self.retryAfterSeconds)
        return response
    }
}
