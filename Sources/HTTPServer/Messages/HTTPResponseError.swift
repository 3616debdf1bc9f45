/// An error that knows the HTTP status it answers with (the shape of Hummingbird's `HTTPResponseError`): a
/// handler or middleware throws it, and ``MiddlewareChain`` has the request's ``RequestContext`` render it
/// (``RequestContext/response(for:to:)``). Any other error is answered with one 500
/// (``InternalServerError``) that carries the request ID, and is logged with that ID.
public protocol HTTPResponseError: Error {
    /// The status of the answer (RFC 9110 §15).
    var status: HTTPStatus { get }
    /// A short title, safe to show to anyone (e.g. `Not found`).
    var title: String { get }
    /// What went wrong, safe to show to anyone; never a secret or an internal detail.
    var message: String { get }
    /// Fields the answer carries besides the rendered body (e.g. `WWW-Authenticate` on a 401); empty by default.
    var fields: HTTPFields { get }
    /// Whether ``MiddlewareChain`` logs the error with the request ID; by default when the status is 5xx.
    var isLogged: Bool { get }
}

extension HTTPResponseError {
    /// No extra fields.
    public var fields: HTTPFields { HTTPFields() }
    /// Logged when the status is 5xx (RFC 9110 §15.6: the server failed).
    public var isLogged: Bool { status.code >= 500 }
}

/// An ``HTTPResponseError`` built from its parts.
public struct HTTPError: HTTPResponseError, Sendable {
    /// The status of the answer.
    public var status: HTTPStatus
    /// A short title.
    public var title: String
    /// What went wrong.
    public var message: String
    /// Extra fields of the answer.
    public var fields: HTTPFields
    /// Whether it is logged with the request ID.
    public var isLogged: Bool

    /// Creates an error.
    /// - Parameters:
    ///   - status: the answer's status.
    ///   - title: a short title.
    ///   - message: what went wrong, safe to show.
    ///   - fields: extra fields of the answer (default none).
    ///   - isLogged: whether to log it with the request ID (default: when `status` is 5xx).
    public init(_ status: HTTPStatus, title: String, message: String, fields: HTTPFields = HTTPFields(), isLogged: Bool? = nil) {
        self.status = status
        self.title = title
        self.message = message
        self.fields = fields
        self.isLogged = isLogged ?? (status.code >= 500)
    }
}

/// The one answer to an error that knows no status: 500 with the request ID, so a person can find the
/// log line ``MiddlewareChain`` wrote for it.
public struct InternalServerError: HTTPResponseError, Sendable {
    /// The ID of the request that failed (``HTTPRequest/requestID``).
    public let requestID: String
    /// What the client is told (never the error itself).
    public let message: String
    /// Always 500 (RFC 9110 §15.6.1).
    public var status: HTTPStatus { .internalServerError }
    /// `Something went wrong`.
    public var title: String { "Something went wrong" }
    /// Already logged by the chain, with the error that caused it.
    public var isLogged: Bool { false }

    /// Creates the answer for request `requestID`.
    /// - Parameters:
    ///   - requestID: the failed request's ID.
    ///   - message: what the client is told.
    public init(requestID: String, message: String) {
        self.requestID = requestID
        self.message = message
    }
}

extension HTTPError {
    /// 404: no route and no file has this path (RFC 9110 §15.5.5).
    public static let notFound = HTTPError(.notFound, title: "Not found", message: "Nothing is at this address.")

    /// 405 with `Allow` listing what the path takes (RFC 9110 §15.5.6: "The origin server MUST generate an Allow
    /// header field in a 405 response containing a list of the target resource's currently supported methods").
    /// - Parameters:
    ///   - method: the method that was refused.
    ///   - allow: the `Allow` value, e.g. `GET, HEAD, OPTIONS`.
    public static func methodNotAllowed(_ method: String, allow: String) -> HTTPError {
        HTTPError(
            .methodNotAllowed, title: "Method not allowed", message: "\(method) is not allowed here; this address takes \(allow).",
            fields: ["Allow": allow])
    }

    /// 501 for a method the server does not recognize (RFC 9110 §15.6.2).
    /// - Parameter method: the method token.
    public static func notImplemented(_ method: String) -> HTTPError {
        HTTPError(.notImplemented, title: "Not implemented", message: "This server does not implement the method \(method).", isLogged: false)
    }
}
