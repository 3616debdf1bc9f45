/// A parsed and decoded request-target (RFC 9112 §3.2).
struct RequestTarget: Equatable, Sendable {
    /// Decoded path (`*` for asterisk-form).
    var path: String
    /// Raw query without `?`.
    var query: String?
    /// The authority of an absolute-form target, lower-cased.
    var authority: String?

    /// Parses `raw` for `method`.
    ///
    /// Rules: origin-form, absolute-form (`http`/`https`), asterisk-form for OPTIONS only; no fragment;
    /// path bytes must be `pchar`/`/`; each segment is percent-decoded once and must not decode to
    /// NUL or another control, `/` or `\`, invalid or overlong UTF-8, or be `.`/`..`.
    /// - Throws: ``HTTPParseError/badRequest(_:)`` on any violation.
    static func parse(_ raw: ArraySlice<UInt8>, method: String) throws(HTTPParseError) -> RequestTarget {
        guard let first = raw.first else { throw .badRequest("empty request-target") }
        if first == UInt8(ascii: "*") {
            guard raw.count == 1, method == "OPTIONS" else { throw .badRequest("asterisk-form only with OPTIONS") }
            return RequestTarget(path: "*", query: nil, authority: nil)
        }
        if first == UInt8(ascii: "/") {
            let (path, query) = try parsePathAndQuery(raw)
            return RequestTarget(path: path, query: query, authority: nil)
        }
        // absolute-form: scheme "://" authority path-abempty [ "?" query ]
        var schemeEnd: Int?
        for i in raw.indices {
            if raw[i] == UInt8(ascii: ":") { schemeEnd = i; break }
            if !TokenTable.isAlpha(raw[i]) { break }
        }
        guard let colon = schemeEnd else { throw .badRequest("unsupported request-target form") }
        let scheme = String(decoding: raw[raw.startIndex..<colon], as: UTF8.self).lowercased()
        guard scheme == "http" || scheme == "https" else { throw .badRequest("unsupported scheme") }
        let rest = raw[(colon + 1)...]
        guard rest.starts(with: "//".utf8) else { throw .badRequest("absolute-form without authority") }
        let authorityStart = rest.startIndex + 2
        var authorityEnd = rest.endIndex
        for i in authorityStart..<rest.endIndex where raw[i] == UInt8(ascii: "/") || raw[i] == UInt8(ascii: "?") {
            authorityEnd = i
            break
        }
        let authority = try HostValidator.normalize(raw[authorityStart..<authorityEnd])
        let remainder = raw[authorityEnd...]
        if remainder.isEmpty { return RequestTarget(path: "/", query: nil, authority: authority) }
        if remainder.first == UInt8(ascii: "?") {
            let (_, query) = try parsePathAndQuery(ArraySlice("/".utf8) + remainder)
            return RequestTarget(path: "/", query: query, authority: authority)
        }
        let (path, query) = try parsePathAndQuery(remainder)
        return RequestTarget(path: path, query: query, authority: authority)
    }

    private static func parsePathAndQuery(_ raw: ArraySlice<UInt8>) throws(HTTPParseError) -> (String, String?) {
        var pathEnd = raw.endIndex
        let pathChar = TokenTable.pathChar, queryChar = TokenTable.queryChar  // once per target, not per byte
        for i in raw.indices {
            let b = raw[i]
            if b == UInt8(ascii: "?") { pathEnd = i; break }
            guard pathChar[Int(b)] else {
                throw .badRequest(b == UInt8(ascii: "#") ? "fragment in request-target" : "invalid byte in path")
            }
        }
        var query: String?
        if pathEnd < raw.endIndex {
            let q = raw[(pathEnd + 1)...]
            for b in q where !queryChar[Int(b)] {
                throw .badRequest(b == UInt8(ascii: "#") ? "fragment in request-target" : "invalid byte in query")
            }
            query = String(decoding: q, as: UTF8.self)
        }
        return (try decodePath(raw[raw.startIndex..<pathEnd]), query)
    }

    /// Decodes an absolute path segment by segment (RFC 3986 §2.1, decoded exactly once).
    static func decodePath(_ raw: ArraySlice<UInt8>) throws(HTTPParseError) -> String {
        // Without a percent-encoding the path decodes to itself (the pathChar table guarantees ASCII): only a dot
        // segment ("." or "..", RFC 3986 §3.3) is refused. A dot inside a segment, as in `/app.css`, is neither.
        if !raw.contains(UInt8(ascii: "%")) {
            if hasDotSegment(raw) { throw .badRequest("dot segment in path") }
            return String(decoding: raw, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var segment: [UInt8] = []
        var i = raw.startIndex + 1  // skip the leading "/"
        out.append(UInt8(ascii: "/"))
        func finishSegment(_ segment: [UInt8], into out: inout [UInt8]) throws(HTTPParseError) {
            if segment == [0x2E] || segment == [0x2E, 0x2E] { throw .badRequest("dot segment in path") }
            if String(validating: segment, as: UTF8.self) == nil { throw .badRequest("invalid UTF-8 in path") }
            out.append(contentsOf: segment)
        }
        while i < raw.endIndex {
            let b = raw[i]
            if b == UInt8(ascii: "/") {
                try finishSegment(segment, into: &out)
                out.append(b)
                segment.removeAll(keepingCapacity: true)
                i += 1
                continue
            }
            if b == UInt8(ascii: "%") {
                guard i + 2 < raw.endIndex, let hi = TokenTable.hexValue(raw[i + 1]), let lo = TokenTable.hexValue(raw[i + 2]) else {
                    throw .badRequest("invalid percent-encoding")
                }
                let decoded = hi << 4 | lo
                if decoded < 0x20 || decoded == 0x7F { throw .badRequest("encoded control character in path") }
                if decoded == UInt8(ascii: "/") || decoded == UInt8(ascii: "\\") { throw .badRequest("encoded separator in path segment") }
                segment.append(decoded)
                i += 3
                continue
            }
            segment.append(b)
            i += 1
        }
        try finishSegment(segment, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether a segment of `raw` (an absolute path: segments follow each "/") is exactly "." or "..".
    static func hasDotSegment(_ raw: ArraySlice<UInt8>) -> Bool {
        var dots = 0  // dots since the last "/", or -1 once the segment holds anything else
        for b in raw {
            if b == UInt8(ascii: "/") {
                if dots == 1 || dots == 2 { return true }
                dots = 0
            } else if b == UInt8(ascii: "."), dots >= 0 {
                dots += 1
            } else {
                dots = -1
            }
        }
        return dots == 1 || dots == 2
    }
}
