import HTTPServer

/// Keeps secrets out of the access log: the value of every secret query parameter, found by its
/// decoded name (`%74oken=` is `token=`, as `HTTPRequest.queryValue(_:)` reads it), and every path
/// segment or query parameter that holds the admin token, whatever its name or encoding, and a method
/// that holds it, are replaced before the line is written.
public enum AccessLogRedaction {
    /// The query parameters (decoded names) whose values never reach a log.
    public static let secretParameters: Set<String> = ["token", "csrfToken"]

    /// The entry with its secrets replaced by `REDACTED`.
    /// - Parameters:
    ///   - entry: An access log entry from `HTTPServer`.
    ///   - adminToken: The admin token, when the server has one: any path segment or query
    ///     parameter whose decoded text contains it, and a method that contains it (ASCII case ignored),
    ///     are redacted too.
    /// - Returns: The same entry, its method and request-target redacted.
    public static func redact(_ entry: AccessLogEntry, adminToken: String? = nil) -> AccessLogEntry {
        let token = adminToken.flatMap { $0.isEmpty ? nil : Array($0.lowercased().utf8) }
        var entry = entry
        // The method is whatever the request line held (RFC 9112 §3.1: any token), so it can be the token too.
        if let token, contains(entry.method, token: token) { entry = entry.with(method: "REDACTED", target: entry.target) }
        let target = entry.target
        let question = target.utf8.firstIndex(of: UInt8(ascii: "?"))  // bytes, not graphemes: this runs for every answer
        if question == nil, token == nil { return entry }
        let path = target[..<(question ?? target.endIndex)]
        var redacted = String(path)
        if let token, path.utf8.contains(UInt8(ascii: "%")) || contains(redacted, token: token) {
            redacted = path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                contains(percentDecoded(segment), token: token) ? "REDACTED" : String(segment)
            }.joined(separator: "/")
        }
        if let question {
            let query = target[target.utf8.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { pair in
                let decoded = FormURLEncoding.decode(String(pair)).first ?? (name: "", value: "")
                let rawName = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                if let token, contains(decoded.name, token: token) { return "REDACTED" }
                if secretParameters.contains(decoded.name) { return "\(rawName)=REDACTED" }
                if let token, contains(decoded.value, token: token) { return "\(rawName)=REDACTED" }
                return String(pair)
            }
            redacted += "?" + query.joined(separator: "&")
        }
        if redacted == target { return entry }
        return entry.with(method: entry.method, target: redacted)
    }

    /// Whether `text` contains `token` (lowercased ASCII bytes), ignoring ASCII case.
    static func contains(_ text: String, token: [UInt8]) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= token.count, let first = token.first else { return false }
        func lower(_ byte: UInt8) -> UInt8 { byte >= 65 && byte <= 90 ? byte | 0x20 : byte }
        for start in 0...(bytes.count - token.count) where lower(bytes[start]) == first {
            var index = 1
            while index < token.count, lower(bytes[start + index]) == token[index] { index += 1 }
            if index == token.count { return true }
        }
        return false
    }

    /// A path segment with its `%XX` escapes decoded (RFC 3986 §2.1); a malformed escape stays as
    /// it is, invalid UTF-8 becomes U+FFFD.
    static func percentDecoded(_ segment: Substring) -> String {
        guard segment.utf8.contains(UInt8(ascii: "%")) else { return String(segment) }
        let bytes = Array(segment.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                out.append(value)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension AccessLogEntry {
    /// The same entry with another method and request-target.
    func with(method: String, target: String) -> AccessLogEntry {
        AccessLogEntry(method: method, target: target, status: status, bytes: bytes, durationMilliseconds: durationMilliseconds,
                       requestID: requestID, remoteAddress: remoteAddress)
    }
}
