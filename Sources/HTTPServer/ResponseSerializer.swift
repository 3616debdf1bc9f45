/// Serialises an ``HTTPResponse`` to HTTP/1.1 wire bytes (RFC 9112 §4, §6).
enum ResponseSerializer {
    /// A serialised response: the status line and fields, then the body as the response holds it
    /// (not copied, so a cached static file's bytes stay shared).
    struct Output {
        /// Status line, fields and the empty line.
        let head: [UInt8]
        /// The body bytes to send (empty for HEAD, 1xx, 204 and 304).
        let body: [UInt8]
        /// Whether ``body`` is shared with a cache rather than owned by this response.
        let bodyIsShared: Bool

        /// Body bytes included, for the access log.
        var bodyBytes: Int { body.count }
        /// Head and body as one array (for tests).
        var bytes: [UInt8] { head + body }
        /// Memory this response holds on its own: the head, plus the body unless it is shared.
        var ownedByteCount: Int { head.count + (bodyIsShared ? 0 : body.count) }
        /// Everything to send.
        var count: Int { head.count + body.count }
    }

    /// Builds the bytes for `response`.
    /// - Parameters:
    ///   - response: the response.
    ///   - isHead: the request was HEAD: keep Content-Length, drop the body (RFC 9110 §9.3.2).
    ///   - keepAlive: whether the connection stays open; `false` adds `Connection: close`.
    ///   - http10: the request was HTTP/1.0; with `keepAlive` adds `Connection: keep-alive`.
    ///   - dateLine: the cached `Date` field line.
    /// - Returns: the head bytes and the body to send after them.
    static func serialize(_ response: HTTPResponse, isHead: Bool, keepAlive: Bool, http10: Bool,
                          dateLine: [UInt8]) -> Output {
        let keepAlive = keepAlive && response.stream == nil  // a stream's body ends with the connection
        let code = response.status.code
        let bodyAllowed = !(code < 200 || code == 204 || code == 304)
        let sendBody = bodyAllowed && !isHead
        var out: [UInt8] = []
        out.reserveCapacity(160 + response.fields.count * 40)
        out.append(contentsOf: "HTTP/1.1 ".utf8)
        out.append(contentsOf: String(code).utf8)
        out.append(0x20)
        out.append(contentsOf: sanitized(response.status.reasonPhrase).utf8)
        out.append(contentsOf: "\r\n".utf8)
        out.append(contentsOf: dateLine)
        for field in response.fields {
            if asciiCaseInsensitiveEquals(field.name, "content-length") || asciiCaseInsensitiveEquals(field.name, "date")
                || asciiCaseInsensitiveEquals(field.name, "connection") || asciiCaseInsensitiveEquals(field.name, "transfer-encoding") {
                continue
            }
            // Refuse header injection: names must be tokens, values free of CR/LF/NUL.
            guard !field.name.isEmpty, field.name.utf8.allSatisfy({ TokenTable.tchar[Int($0)] }),
                  !field.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else { continue }
            out.append(contentsOf: field.name.utf8)
            out.append(contentsOf: ": ".utf8)
            out.append(contentsOf: field.value.utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
        if bodyAllowed && response.stream == nil {
            out.append(contentsOf: "Content-Length: ".utf8)
            out.append(contentsOf: String(response.body.count).utf8)
            out.append(contentsOf: "\r\n".utf8)
        }
        if !keepAlive {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if http10 {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: "\r\n".utf8)
        guard sendBody, !response.body.isEmpty else { return Output(head: out, body: [], bodyIsShared: false) }
        return Output(head: out, body: response.body, bodyIsShared: response.bodyIsShared)
    }

    private static func sanitized(_ reason: String) -> String {
        reason.utf8.contains { $0 < 0x20 || $0 == 0x7F } ? "Unknown" : reason
    }
}
