import Synchronization

/// A response whose head is serialized once: its status line and field lines (everything but `Date` and
/// `Connection`, which differ per answer) kept as bytes, and its body kept as the array it was made from,
/// so a cache that holds one answers every request with the same bytes, copying nothing.
///
/// What an ``ImmediateResponder`` returns. The bytes written for it are exactly those the server writes
/// for the ``HTTPResponse`` it was made from (`ResponseSerializer`), with the `Date` line of the current
/// second (RFC 9110 §6.6.1), the server's ``ResponseDefaults`` it lacks and the `Connection` field the request needs
/// (RFC 9112 §9.3).
public struct PreparedResponse: Sendable {
    /// The status the response was made with.
    public let status: HTTPStatus
    /// `HTTP/1.1 <code> <reason>\r\n`.
    let statusLine: [UInt8]
    /// Every field line after `Date`, `Content-Length` included; no `Connection`, no empty line. One part, or cut
    /// wherever a session's token goes (``cuttingFieldLines(at:)``, filled in by ``splicing(_:with:)``).
    let fieldLineParts: [[UInt8]]
    /// The names of those fields, lower-cased: the serializer adds each of its ``ResponseDefaults`` not among them.
    let fieldNames: [String]
    /// Which of the last ``ResponseDefaults`` it was sent with it lacks (their id, then the bit mask), shared by the answers
    /// spliced from it, so the names are compared once, not per request; 0 before the first.
    let defaultsMemo: DefaultsMemo
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
            fieldLineParts: [ResponseSerializer.fieldLines(response, defaults: .none)], fieldNames: ResponseSerializer.fieldNames(response), bodyParts: body.isEmpty ? [] : [body],
            bodyByteCount: body.count,
            bodyIsShared: !body.isEmpty && (bodyIsShared ?? response.bodyIsShared))
    }

    /// The head of `response` for a body that is kept elsewhere in parts and given with each answer by
    /// ``splicing(_:with:)`` (a stored page, cut wherever a session's token goes): `Content-Length` states
    /// `bodyByteCount`, and the answer holds no body of its own until spliced.
    /// - Parameters:
    ///   - response: the answer's status and fields; its body is not used. It must not be a stream.
    ///   - bodyByteCount: the length of the body every splice gives.
    /// - Returns: `nil` for a streamed response.
    public init?(head response: HTTPResponse, bodyByteCount: Int) {
        guard response.stream == nil else { return nil }
        var lines = ResponseSerializer.ownFieldLines(response)
        let code = response.status.code
        let bodyAllowed = !(code < 200 || code == 204 || code == 304)
        if bodyAllowed {
            lines.append(contentsOf: "Content-Length: ".utf8)
            lines.append(contentsOf: String(bodyByteCount).utf8)
            lines.append(contentsOf: "\r\n".utf8)
        }
        self.init(
            status: response.status, statusLine: ResponseSerializer.statusLine(response.status), fieldLineParts: [lines],
            fieldNames: ResponseSerializer.fieldNames(response), bodyParts: [], bodyByteCount: bodyAllowed ? bodyByteCount : 0,
            bodyIsShared: true)
    }

    /// The same head with the body `segments` joined by `token` (a stored page with a session's token spliced in),
    /// and `token` in every place ``cuttingFieldLines(at:)`` cut the field lines (a new session's `Set-Cookie`); sent
    /// as those parts: nothing is copied.
    /// - Parameters:
    ///   - segments: the body cut at every place the token goes; they are a cache's, so the body counts as shared.
    ///   - token: what goes between them; as long as the marker the field lines were cut at.
    /// - Returns: the response with that body; `nil` if its length differs from ``bodyByteCount`` (`Content-Length`).
    public func splicing(_ segments: [[UInt8]], with token: [UInt8]) -> PreparedResponse? {
        let count = segments.reduce(0) { $0 + $1.count } + token.count * max(0, segments.count - 1)
        guard count == bodyByteCount else { return nil }
        return PreparedResponse(
            status: status, statusLine: statusLine, fieldLineParts: fieldLineParts.count == 1 ? fieldLineParts : Self.interleave(fieldLineParts, token),
            fieldNames: fieldNames,
            bodyParts: Self.interleave(segments, token), bodyByteCount: count, bodyIsShared: true, defaultsMemo: defaultsMemo)
    }

    /// The same response with its field lines cut at every occurrence of `marker`, for ``splicing(_:with:)`` to put a
    /// token there (a `Set-Cookie` that hands out a new session, prepared once with a marker in the token's place).
    /// - Parameter marker: what stands where the token goes.
    /// - Returns: the response, its field lines in parts.
    public func cuttingFieldLines(at marker: [UInt8]) -> PreparedResponse {
        PreparedResponse(
            status: status, statusLine: statusLine, fieldLineParts: Self.cut(Array(fieldLineParts.joined()), at: marker), fieldNames: fieldNames,
            bodyParts: bodyParts,
            bodyByteCount: bodyByteCount, bodyIsShared: bodyIsShared, defaultsMemo: defaultsMemo)
    }

    /// `bytes` cut at every occurrence of `marker` (the marker left out); one part when it does not occur.
    /// - Parameters:
    ///   - bytes: what to cut.
    ///   - marker: where to cut it.
    /// - Returns: the parts, one more than the occurrences.
    public static func cut(_ bytes: [UInt8], at marker: [UInt8]) -> [[UInt8]] {
        guard let first = marker.first, bytes.count >= marker.count else { return [bytes] }
        var parts: [[UInt8]] = []
        var start = 0
        var index = 0
        while index <= bytes.count - marker.count {
            if bytes[index] == first, bytes[index..<(index + marker.count)].elementsEqual(marker) {
                parts.append(Array(bytes[start..<index]))
                index += marker.count
                start = index
            } else {
                index += 1
            }
        }
        parts.append(Array(bytes[start...]))
        return parts
    }

    /// `parts` with `token` between each two, empty parts left out.
    static func interleave(_ parts: [[UInt8]], _ token: [UInt8]) -> [[UInt8]] {
        var joined: [[UInt8]] = []
        joined.reserveCapacity(parts.count * 2)
        for (index, part) in parts.enumerated() {
            if index > 0 && !token.isEmpty { joined.append(token) }
            if !part.isEmpty { joined.append(part) }
        }
        return joined
    }

    private init(
        status: HTTPStatus, statusLine: [UInt8], fieldLineParts: [[UInt8]], fieldNames: [String], bodyParts: [[UInt8]], bodyByteCount: Int,
        bodyIsShared: Bool, defaultsMemo: DefaultsMemo? = nil
    ) {
        self.defaultsMemo = defaultsMemo ?? DefaultsMemo()
        self.status = status
        self.statusLine = statusLine
        self.fieldLineParts = fieldLineParts
        self.fieldNames = fieldNames
        self.bodyParts = bodyParts
        self.bodyByteCount = bodyByteCount
        self.bodyIsShared = bodyIsShared
    }
}

/// What a ``PreparedResponse`` remembers of the ``ResponseDefaults`` it was last sent with (their id in the high 32 bits,
/// the mask of those it lacks in the low), shared by every answer spliced from it.
final class DefaultsMemo: Sendable {
    private let value = Atomic<Int>(0)

    /// The memo, 0 before the first answer.
    func load() -> Int { value.load(ordering: .relaxed) }

    /// Remembers `memo` (a race between two threads stores the same value).
    func store(_ memo: Int) { value.store(memo, ordering: .relaxed) }
}

/// A responder that can answer some requests at once, on the server's I/O thread, before the request starts
/// a task for the responder: answers that need no handler (a file already in memory, a stored page).
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

    /// The answer a request with this head gets before its body is read, or `nil` to read the body (see the default).
    /// - Parameter head: the request's head, its body empty.
    /// - Returns: the prepared answer, or `nil`.
    func answerBeforeBody(_ head: HTTPRequest) -> PreparedResponse?
}

extension ImmediateResponder {
    /// The answer that a request with this head gets whatever its body holds, given as soon as the head is in and
    /// before any byte of the body is read; the connection then closes, its unread body discarded (RFC 9112 §9.6).
    /// A refusal that no body can change (a missing credential, RFC 9110 §15.5.2) answered this way costs a client
    /// who lacks it one head, not a connection slot held for as long as it takes to send the body. `nil` (the
    /// default) reads the body and answers the complete request as usual.
    ///
    /// Runs on the I/O thread, under the same rules as ``immediateResponse(to:)``.
    /// - Parameter head: the request's head, its body empty, its ``HTTPRequest/requestID`` and address set.
    /// - Returns: the prepared answer, or `nil` to read the body.
    public func answerBeforeBody(_ head: HTTPRequest) -> PreparedResponse? { nil }
}
