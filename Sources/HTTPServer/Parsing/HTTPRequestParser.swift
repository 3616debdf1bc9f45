/// A pure, incremental HTTP/1.1 request parser (RFC 9112). No I/O: feed it bytes as they arrive and
/// pull events. Feeding a message whole or byte by byte yields the same events.
///
/// Usage: `parse(bytes)` appends bytes and returns the next event; call ``nextEvent()`` repeatedly
/// until it returns ``Event/needsMore`` to drain pipelined requests. After an error the parser is
/// dead: every later call rethrows the same error (framing errors are never resynchronised, RFC 9112 §6.3).
public struct HTTPRequestParser: Sendable {
    /// What the parser produced.
    public enum Event: Sendable, Equatable {
        /// A complete request.
        case request(ParsedRequest)
        /// The head carried `Expect: 100-continue` and a body follows: the server should send
        /// `100 Continue` now (RFC 9110 §10.1.1). Emitted whether or not body bytes are already buffered.
        case continueExpected
        /// More bytes are needed.
        case needsMore
    }

    /// A complete request plus connection-management facts derived from its head.
    public struct ParsedRequest: Sendable, Equatable {
        /// The request (remote address and request ID empty; the server fills them in).
        public var request: HTTPRequest
        /// Whether the connection may be reused afterwards (RFC 9112 §9.3).
        public var keepAlive: Bool
    }

    /// Which part of a message the parser is in, for deadline handling.
    public enum Phase: Sendable, Equatable {
        /// No byte of the next message has been received.
        case idle
        /// Inside the request-line or field section.
        case head
        /// Inside the body (or waiting for it).
        case body
    }

    enum State: Sendable {
        case requestLine, fields, body(remaining: Int), chunkSize, chunkData(remaining: Int), chunkDataEnd, trailers
    }

    /// The limits in force.
    public let limits: HTTPLimits
    /// Normalised `host:port` authorities accepted in Host / absolute-form (`nil` = any valid host).
    public let allowedHosts: Set<String>?

    var buffer: [UInt8] = []
    var start = 0
    var scan = 0
    var state: State = .requestLine
    var failure: HTTPParseError?
    var emptyLines = 0
    // The message under construction.
    var method = ""
    var rawTarget = ""
    var target = RequestTarget(path: "/", query: nil, authority: nil)
    var version = HTTPVersion.http1_1
    var fields = HTTPFields()
    var sectionBytes = 0
    var sectionLines = 0
    var body: [UInt8] = []
    var keepAlive = true
    var pendingContinue = false
    /// The last `Host` value that passed the checks (valid, and allowed), as received.
    var acceptedHost: String?

    /// Creates a parser.
    /// - Parameters:
    ///   - limits: size limits (defaults documented on ``HTTPLimits``).
    ///   - allowedHosts: accepted `host[:port]` authorities (port defaults to 80); `nil` accepts any
    ///     syntactically valid Host. A mismatch fails with ``HTTPParseError/misdirected(_:)`` (421).
    public init(limits: HTTPLimits = HTTPLimits(), allowedHosts: [String]? = nil) {
        self.limits = limits
        self.allowedHosts = allowedHosts.map(HostValidator.normalizeAll)
    }

    init(limits: HTTPLimits, normalizedHosts: Set<String>?) {
        self.limits = limits
        self.allowedHosts = normalizedHosts
    }

    /// The current phase (see ``Phase``).
    public var phase: Phase {
        switch state {
        case .requestLine: return (start < buffer.count || emptyLines > 0) ? .head : .idle
        case .fields: return .head
        default: return .body
        }
    }

    /// Bytes received but not yet consumed (pipelined data), for back-pressure.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Body bytes still expected by a `Content-Length` body or the current chunk, if in one: how much
    /// the server may read at once without reading ahead into a pipelined request.
    var pendingBodyBytes: Int? {
        switch state {
        case .body(let remaining), .chunkData(let remaining): return remaining
        default: return nil
        }
    }

    /// The head of the request whose body is being received, with an empty body, or `nil` outside a body: what a
    /// server can answer from before it reads the body (a refusal that no body can change, RFC 9110 §15.5.2).
    public var bodyHead: HTTPRequest? {
        guard phase == .body else { return nil }
        return HTTPRequest(parsed: method, target: rawTarget, path: target.path, query: target.query, version: version, fields: fields, body: [])
    }

    /// Memory the parser holds for input: its buffer and the body under construction.
    var heldByteCount: Int { buffer.capacity + body.capacity }

    /// Appends bytes and returns the next event.
    /// - Parameter bytes: newly received bytes (may be empty).
    /// - Returns: the next event; call ``nextEvent()`` for further ones.
    /// - Throws: ``HTTPParseError`` when the input is not a valid request; the parser stays failed.
    public mutating func parse(_ bytes: some Collection<UInt8>) throws(HTTPParseError) -> Event {
        append(bytes)
        return try nextEvent()
    }

    /// Appends bytes without parsing.
    /// - Parameter bytes: newly received bytes.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        compactIfUseful()
        buffer.append(contentsOf: bytes)
    }

    /// Appends raw bytes without parsing (socket fast path).
    /// - Parameter bytes: newly received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compactIfUseful()
        buffer.append(contentsOf: bytes)
    }

    /// Returns the next event from already-buffered bytes.
    /// - Returns: a request, a 100-continue cue, or ``Event/needsMore``.
    /// - Throws: ``HTTPParseError`` (and keeps throwing it) once the input is invalid.
    public mutating func nextEvent() throws(HTTPParseError) -> Event {
        if let failure { throw failure }
        do {
            return try step()
        } catch {
            failure = error
            throw error
        }
    }

    /// Drops consumed bytes once they are at least as many as the unconsumed ones (moving the rest
    /// then costs no more than what was consumed), so a connection's buffer stays about the size of
    /// one request head instead of growing with every pipelined request. An emptied buffer keeps its
    /// storage only up to 8 KiB.
    private mutating func compactIfUseful() {
        guard start > 0, start == buffer.count || start * 2 >= buffer.count else { return }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 8 * 1024)
        } else {
            buffer.removeSubrange(0..<start)
        }
        scan = max(0, scan - start)
        start = 0
    }

    private mutating func step() throws(HTTPParseError) -> Event {
        while true {
            switch state {
            case .requestLine:
                // RFC 9112 §2.2: a bare LF may end an empty line preceding the request-line; skip it
                // (only here, between messages, where it cannot smuggle anything).
                while start < buffer.count, buffer[start] == 0x0A {
                    start += 1
                    emptyLines += 1
                    if emptyLines > 4 { throw .badRequest("too many empty lines") }
                }
                guard let line = try readLine(limit: limits.requestLine, tooLong: .uriTooLong) else { return .needsMore }
                if line.isEmpty {
                    // RFC 9112 §2.2: ignore a few empty lines before the request-line.
                    emptyLines += 1
                    if emptyLines > 4 { throw .badRequest("too many empty lines") }
                    continue
                }
                try parseRequestLine(buffer[line])
                state = .fields
            case .fields:
                guard let line = try readLine(limit: max(0, limits.fieldSection - sectionBytes - 2), tooLong: .fieldsTooLarge) else {
                    return .needsMore
                }
                if line.isEmpty {
                    if let event = try finishHead() { return event }
                    continue
                }
                try parseFieldLine(buffer[line], keep: true)
            case .body(let remaining):
                let take = min(remaining, buffer.count - start)
                if take > 0 {
                    body.append(contentsOf: buffer[start..<(start + take)])
                    start += take
                }
                if remaining - take == 0 { return .request(completeRequest()) }
                state = .body(remaining: remaining - take)
                return .needsMore
            case .chunkSize:
                guard let line = try readLine(limit: 32 + limits.chunkExtension, tooLong: .badRequest("chunk extension too long")) else {
                    return .needsMore
                }
                let size = try parseChunkSize(buffer[line])
                if size == 0 {
                    sectionBytes = 0
                    sectionLines = 0
                    state = .trailers
                } else {
                    state = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let take = min(remaining, buffer.count - start)
                if take > 0 {
                    body.append(contentsOf: buffer[start..<(start + take)])
                    start += take
                }
                if remaining - take > 0 {
                    state = .chunkData(remaining: remaining - take)
                    return .needsMore
                }
                state = .chunkDataEnd
            case .chunkDataEnd:
                if buffer.count - start >= 1 && buffer[start] != 0x0D { throw .badRequest("missing CRLF after chunk data") }
                guard buffer.count - start >= 2 else { return .needsMore }
                guard buffer[start + 1] == 0x0A else { throw .badRequest("missing CRLF after chunk data") }
                start += 2
                scan = start
                state = .chunkSize
            case .trailers:
                guard let line = try readLine(limit: max(0, limits.fieldSection - sectionBytes - 2), tooLong: .fieldsTooLarge) else {
                    return .needsMore
                }
                if line.isEmpty { return .request(completeRequest()) }
                try parseFieldLine(buffer[line], keep: false)  // trailer fields are parsed and discarded (RFC 9112 §7.1.2)
            }
        }
    }

    /// Finds the next CRLF-terminated line; returns its range without CRLF and consumes it.
    /// A bare LF anywhere is rejected (RFC 9112 §2.2 allows us to, and it blocks smuggling).
    private mutating func readLine(limit: Int, tooLong: HTTPParseError) throws(HTTPParseError) -> Range<Int>? {
        var i = max(scan, start)
        let end = buffer.count
        let found: Int? = buffer.withUnsafeBufferPointer { p in
            while i < end {
                if p[i] == 0x0A { return i }
                i += 1
            }
            return nil
        }
        guard let lf = found else {
            scan = end
            // An unterminated line may still end in CR: allow one byte of slack.
            if end - start > limit + 1 { throw tooLong }
            return nil
        }
        guard lf > start, buffer[lf - 1] == 0x0D else { throw .badRequest("bare LF") }
        let line = start..<(lf - 1)
        if line.count > limit { throw tooLong }
        start = lf + 1
        scan = start
        return line
    }

    mutating func completeRequest() -> ParsedRequest {
        let request = HTTPRequest(
            parsed: method, target: rawTarget, path: target.path, query: target.query, version: version, fields: fields, body: body)
        let parsed = ParsedRequest(request: request, keepAlive: keepAlive)
        fields = HTTPFields()
        body = []
        rawTarget = ""
        sectionBytes = 0
        sectionLines = 0
        emptyLines = 0
        state = .requestLine
        return parsed
    }
}
