/// Serialises an ``HTTPResponse`` to HTTP/1.1 wire bytes (RFC 9112 §4, §6).
enum ResponseSerializer {
    /// A serialised response: the status line and fields, then the body as the response holds it
    /// (not copied, so a cached static file's bytes stay shared).
    struct Output {
        /// What is sent, in order: the head's parts, then the body's, each the array it was made from, so a
        /// stored head or body is sent as it is kept, not copied into one buffer (`sendmsg(2)` gathers them).
        let parts: [[UInt8]]
        /// Body bytes included, for the access log.
        let bodyBytes: Int
        /// Everything to send.
        let count: Int
        /// Memory this response holds on its own: the head, plus the body unless it is shared with a cache.
        let ownedByteCount: Int

        /// A head and the body to send after it.
        init(head: [UInt8], body: [UInt8], bodyIsShared: Bool) {
            parts = body.isEmpty ? [head] : [head, body]
            bodyBytes = body.count
            count = head.count + body.count
            ownedByteCount = head.count + (bodyIsShared ? 0 : body.count)
        }

        /// Parts already cut: the head's `headBytes` first, then the body's.
        init(parts: [[UInt8]], headBytes: Int, bodyBytes: Int, bodyIsShared: Bool) {
            self.parts = parts
            self.bodyBytes = bodyBytes
            count = headBytes + bodyBytes
            ownedByteCount = headBytes + (bodyIsShared ? 0 : bodyBytes)
        }

        /// Everything as one array (for tests and a stream's head).
        var bytes: [UInt8] { parts.count == 1 ? parts[0] : Array(parts.joined()) }
    }

    /// Builds the bytes for `response`.
    /// - Parameters:
    ///   - response: the response.
    ///   - isHead: the request was HEAD: keep Content-Length, drop the body (RFC 9110 §9.3.2).
    ///   - keepAlive: whether the connection stays open; `false` adds `Connection: close`.
    ///   - http10: the request was HTTP/1.0; with `keepAlive` adds `Connection: keep-alive`.
    ///   - dateLine: the cached `Date` field line.
    ///   - defaults: the fields added where the response has none (``ResponseDefaults``).
    /// - Returns: the head bytes and the body to send after them.
    static func serialize(
        _ response: HTTPResponse, isHead: Bool, keepAlive: Bool, http10: Bool,
        dateLine: [UInt8], defaults: ResponseDefaults = .none
    ) -> Output {
        let keepAlive = keepAlive && response.stream == nil  // a stream's body ends with the connection
        let code = response.status.code
        let bodyAllowed = !(code < 200 || code == 204 || code == 304)
        let sendBody = bodyAllowed && !isHead
        let status = statusLine(response.status)
        let fields = fieldLines(response, defaults: defaults)
        var out: [UInt8] = []
        out.reserveCapacity(status.count + dateLine.count + fields.count + 26)
        out.append(contentsOf: status)
        out.append(contentsOf: dateLine)
        out.append(contentsOf: fields)
        appendConnection(to: &out, keepAlive: keepAlive, http10: http10)
        guard sendBody, !response.body.isEmpty else { return Output(head: out, body: [], bodyIsShared: false) }
        return Output(head: out, body: response.body, bodyIsShared: response.bodyIsShared)
    }

    /// Builds the bytes for a ``PreparedResponse``: its status line, `dateLine`, its stored field lines, the
    /// defaults it lacks, the `Connection` field this request needs and the empty line, then its body (shared, not
    /// copied) unless `isHead`. The bytes equal ``serialize(_:isHead:keepAlive:http10:dateLine:defaults:)`` of the
    /// response it was made from.
    /// - Parameters: as ``serialize(_:isHead:keepAlive:http10:dateLine:defaults:)``, with `prepared` for the response.
    /// - Returns: the head bytes and the body to send after them.
    static func serialize(
        _ prepared: PreparedResponse, isHead: Bool, keepAlive: Bool, http10: Bool,
        dateLine: [UInt8], defaults: ResponseDefaults = .none
    ) -> Output {
        let end = connectionEnd(keepAlive: keepAlive, http10: http10)
        let added = defaults.lines(for: prepared)
        var parts: [[UInt8]] = []
        parts.reserveCapacity(4 + prepared.fieldLineParts.count + (isHead ? 0 : prepared.bodyParts.count))
        parts.append(prepared.statusLine)
        parts.append(dateLine)
        var headBytes = prepared.statusLine.count + dateLine.count + end.count
        for part in prepared.fieldLineParts {
            parts.append(part)
            headBytes += part.count
        }
        if !added.isEmpty {
            parts.append(added)
            headBytes += added.count
        }
        parts.append(end)
        guard !isHead, prepared.bodyByteCount > 0 else { return Output(parts: parts, headBytes: headBytes, bodyBytes: 0, bodyIsShared: false) }
        parts.append(contentsOf: prepared.bodyParts)
        return Output(parts: parts, headBytes: headBytes, bodyBytes: prepared.bodyByteCount, bodyIsShared: prepared.bodyIsShared)
    }

    /// `HTTP/1.1 <code> <reason>\r\n` (RFC 9112 §4); a reason with control characters becomes `Unknown`.
    static func statusLine(_ status: HTTPStatus) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(48)
        out.append(contentsOf: "HTTP/1.1 ".utf8)
        out.append(contentsOf: String(status.code).utf8)
        out.append(0x20)
        out.append(contentsOf: sanitized(status.reasonPhrase).utf8)
        out.append(contentsOf: "\r\n".utf8)
        return out
    }

    /// The field lines of `response` after the `Date` line: its own fields (without the four the server
    /// owns, and without any that would inject a header), then `Content-Length` where a body is allowed (RFC 9110 §8.6),
    /// then every one of `defaults` it lacks; neither `Connection` nor the empty line.
    static func fieldLines(_ response: HTTPResponse, defaults: ResponseDefaults) -> [UInt8] {
        var out = ownFieldLines(response)
        let code = response.status.code
        let hasBody = !(code < 200 || code == 204 || code == 304) && !response.body.isEmpty
        appendContentLength(response, to: &out)
        out.append(contentsOf: defaults.lines(missingFrom: fieldNames(response), hasBody: hasBody))
        return out
    }

    /// The names of the fields of `response` the serializer sends, lower-cased (what ``ResponseDefaults`` compares).
    static func fieldNames(_ response: HTTPResponse) -> [String] {
        response.fields.compactMap { isSendable(name: $0.name, value: $0.value) ? $0.name.lowercased() : nil }
    }

    /// Whether a field may be sent: its name a token, its value free of CR, LF and NUL (no header injection).
    static func isSendable(name: String, value: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy({ TokenTable.tchar[Int($0)] })
            && !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 })
    }

    /// `Content-Length` where a body is allowed and the response is not a stream.
    static func appendContentLength(_ response: HTTPResponse, to out: inout [UInt8]) {
        let code = response.status.code
        let bodyAllowed = !(code < 200 || code == 204 || code == 304)
        if bodyAllowed && response.stream == nil {
            out.append(contentsOf: "Content-Length: ".utf8)
            out.append(contentsOf: String(response.body.count).utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
    }

    /// The response's own field lines, without the four the server owns and any that would inject a header.
    static func ownFieldLines(_ response: HTTPResponse) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(response.fields.count * 40 + 24)
        for field in response.fields {
            if asciiCaseInsensitiveEquals(field.name, "content-length") || asciiCaseInsensitiveEquals(field.name, "date")
                || asciiCaseInsensitiveEquals(field.name, "connection") || asciiCaseInsensitiveEquals(field.name, "transfer-encoding")
            {
                continue
            }
            // Refuse header injection: names must be tokens, values free of CR/LF/NUL.
            guard isSendable(name: field.name, value: field.value) else { continue }
            out.append(contentsOf: field.name.utf8)
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: field.value.utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
        return out
    }

    /// `Connection: close` when the connection closes after this answer, `Connection: keep-alive` for an
    /// HTTP/1.0 request that stays open (RFC 9112 §9.3), then the empty line that ends the head.
    static func appendConnection(to out: inout [UInt8], keepAlive: Bool, http10: Bool) {
        out.append(contentsOf: connectionEnd(keepAlive: keepAlive, http10: http10))
    }

    /// What ``appendConnection(to:keepAlive:http10:)`` appends, as one of three arrays made once.
    static func connectionEnd(keepAlive: Bool, http10: Bool) -> [UInt8] {
        !keepAlive ? closingEnd : http10 ? keepAliveEnd : plainEnd
    }

    private static let closingEnd = Array("Connection: close\r\n\r\n".utf8)
    private static let keepAliveEnd = Array("Connection: keep-alive\r\n\r\n".utf8)
    private static let plainEnd = Array("\r\n".utf8)

    private static func sanitized(_ reason: String) -> String {
        reason.utf8.contains { $0 < 0x20 || $0 == 0x7F } ? "Unknown" : reason
    }
}
