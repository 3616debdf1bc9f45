/// A response produced by an ``HTTPResponder``.
///
/// The server adds `Date`, `Content-Length` (computed from ``body``; not sent for 1xx/204/304)
/// and `Connection` itself; values the responder sets for those three are replaced.
public struct HTTPResponse: Sendable {
    /// The status code and reason phrase.
    public var status: HTTPStatus
    /// Header fields to send, in order.
    public var fields: HTTPFields
    /// The body bytes. Dropped on the wire for HEAD requests and for 204/304 (RFC 9110 §6.4.1).
    public var body: [UInt8]
    /// The storage address of a body shared with a long-lived cache (``StaticFiles``), or 0. While
    /// ``body`` still uses that storage (it was not replaced or mutated, which would copy it), the
    /// server does not count the body toward ``HTTPServerConfiguration/maxUnsentOutputBytes``.
    var sharedBodyAddress: UInt = 0
    /// A body produced over time (``eventStream(_:)``); when set, ``body`` is ignored.
    public var stream: HTTPBodyStream?

    /// Creates a response.
    /// - Parameters:
    ///   - status: the status (default 200 OK).
    ///   - fields: header fields (default none).
    ///   - body: body bytes (default empty).
    public init(status: HTTPStatus = .ok, fields: HTTPFields = HTTPFields(), body: [UInt8] = []) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    /// Whether ``body`` is still the cached storage recorded by ``markBodyShared()``.
    var bodyIsShared: Bool {
        sharedBodyAddress != 0 && Self.storageAddress(body) == sharedBodyAddress
    }

    /// Records that ``body`` is a cache's bytes, shared instead of copied per response.
    mutating func markBodyShared() {
        sharedBodyAddress = Self.storageAddress(body)
    }

    static func storageAddress(_ bytes: [UInt8]) -> UInt {
        bytes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }

    /// A `text/plain; charset=utf-8` response.
    /// - Parameters:
    ///   - text: the body text (UTF-8 encoded).
    ///   - status: the status (default 200).
    /// - Returns: the response.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, fields: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// A `text/html; charset=utf-8` response.
    /// - Parameters:
    ///   - html: the markup (UTF-8 encoded).
    ///   - status: the status (default 200).
    /// - Returns: the response.
    public static func html(_ html: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, fields: ["Content-Type": "text/html; charset=utf-8"], body: Array(html.utf8))
    }

    /// An `application/json` response from already-encoded bytes (e.g. `JSONEncoder` output).
    /// - Parameters:
    ///   - data: the encoded JSON bytes (`[UInt8]`, `Data`, …).
    ///   - status: the status (default 200).
    /// - Returns: the response.
    public static func json(data: some Sequence<UInt8>, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, fields: ["Content-Type": "application/json"], body: Array(data))
    }

    /// A redirect with `Location` and an empty body.
    /// - Parameters:
    ///   - location: the URI reference to redirect to (sent as is; must not contain CR/LF).
    ///   - status: a 3xx status (default 303 See Other, the POST/redirect/GET answer).
    /// - Returns: the response.
    public static func redirect(to location: String, status: HTTPStatus = .seeOther) -> HTTPResponse {
        HTTPResponse(status: status, fields: ["Location": location])
    }

    /// A short plain-text error page: `code reason` as the body.
    /// - Parameter status: the status.
    /// - Returns: the response.
    public static func status(_ status: HTTPStatus) -> HTTPResponse {
        text("\(status.code) \(status.reasonPhrase)\n", status: status)
    }
}
