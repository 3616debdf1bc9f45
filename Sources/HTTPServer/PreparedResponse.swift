/// A response whose head is serialized once: its status line and field lines (everything but `Date` and
/// `Connection`, which differ per answer) kept as bytes, and its body kept as the array it was made from,
/// so a cache that holds one answers every request with the same bytes, copying nothing.
///
/// What an ``ImmediateResponder`` returns. The bytes written for it are exactly those the server writes
/// for the ``HTTPResponse`` it was made from (`ResponseSerializer`), with the `Date` line of the current
/// second (RFC 9110 §6.6.1) and the `Connection` field the request needs (RFC 9112 §9.3).
public struct PreparedResponse: Sendable {
    /// The status the response was made with.
    public let status: HTTPStatus
    /// `HTTP/1.1 <code> <reason>\r\n`.
    let statusLine: [UInt8]
    /// Every field line after `Date`, `Content-Length` included; no `Connection`, no empty line.
    let fieldLines: [UInt8]
    /// The body as the parts it is sent in, in order: the array it was made from, or a stored page's segments
    /// with a session's token between them (``splicing(_:with:)``). Empty for 1xx, 204 and 304; dropped on the wire for HEAD.
    let bodyParts: [[UInt8]]
    /// Bytes of ``bodyParts``, which `Content-Length` states.
    public let bodyByteCount: Int
    /// Whether the body lives in a long-lived cache (not counted as this answer's own memory).
    let bodyIsShared: Bool

    /// The body as one array.
    public var body: [UInt8] { bodyParts.count == 1 ? bodyParts[0] : Array(bodyParts.joined()) }

    /// Serializes the head of `response` once.
    /// - Parameters:
    ///   - response: the answer; it must not be a stream (``HTTPResponse/stream``), whose head and end
    ///     depend on the connection.
    ///   - bodyIsShared: whether the body's storage is kept by a long-lived cache (its bytes are then
    ///     not counted toward ``HTTPServerConfiguration/maxUnsentOutputBytes``); default: whether the
    ///     response says so itself.
    /// - Returns: `nil` for a streamed response.
    public init?(_ response: HTTPResponse, bodyIsShared: Bool? = nil) {
        guard response.stream == nil else { return nil }
        let code = response.status.code
        let body = code < 200 || code == 204 || code == 304 ? [] : response.body
        self.init(
            status: response.status, statusLine: ResponseSerializer.statusLine(response.status),
            fieldLines: ResponseSerializer.fieldLines(response), bodyParts: body.isEmpty ? [] : [body], bodyByteCount: body.count,
            bodyIsShared: !body.isEmpty && (bodyIsShared ?? response.bodyIsShared))
    }

    /// The same head with the body `segments` joined by `token` (a stored page with a session's token spliced in),
    /// sent as those parts: nothing is copied.
    /// - Parameters:
    ///   - segments: the body cut at every place the token goes; they are a cache's, so the body counts as shared.
    ///   - token: what goes between them.
    /// - Returns: the response with that body; `nil` if its length differs from ``bodyByteCount`` (`Content-Length`).
    public func splicing(_ segments: [[UInt8]], with token: [UInt8]) -> PreparedResponse? {
        let count = segments.reduce(0) { $0 + $1.count } + token.count * max(0, segments.count - 1)
        guard count == bodyByteCount else { return nil }
        var parts: [[UInt8]] = []
        parts.reserveCapacity(segments.count * 2)
        for (index, segment) in segments.enumerated() {
            if index > 0 && !token.isEmpty { parts.append(token) }
            if !segment.isEmpty { parts.append(segment) }
        }
        return PreparedResponse(
            status: status, statusLine: statusLine, fieldLines: fieldLines, bodyParts: parts, bodyByteCount: count, bodyIsShared: true)
    }

    private init(status: HTTPStatus, statusLine: [UInt8], fieldLines: [UInt8], bodyParts: [[UInt8]], bodyByteCount: Int, bodyIsShared: Bool) {
        self.status = status
        self.statusLine = statusLine
        self.fieldLines = fieldLines
        self.bodyParts = bodyParts
        self.bodyByteCount = bodyByteCount
        self.bodyIsShared = bodyIsShared
    }
}

/// A responder that can answer some requests at once, on the server's I/O thread, before the request is
/// handed to the Swift concurrency pool: answers that need no handler (a file already in memory, a stored page).
///
/// When the ``HTTPServer``'s responder also conforms, the server asks ``immediateResponse(to:)`` first for
/// every complete request; `nil` sends the request the normal way (``HTTPResponder/respond(to:)``). The answer
/// must be the one `respond(to:)` would give, byte for byte (but `Date`).
public protocol ImmediateResponder: Sendable {
    /// The answer to `request` if it can be given now, else `nil`.
    ///
    /// Runs on the I/O thread that serves every connection: it must never block (no disk, no lock held
    /// across anything slow), never await, and take microseconds.
    /// - Parameter request: the complete request, its ``HTTPRequest/requestID`` and address set.
    /// - Returns: the prepared answer, or `nil` for the normal path.
    func immediateResponse(to request: HTTPRequest) -> PreparedResponse?
}
