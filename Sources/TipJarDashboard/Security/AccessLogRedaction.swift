import HTTPServer

/// Keeps secrets out of the access log: the value of every secret query parameter, found by its
/// decoded name (`%74oken=` is `token=`, as `HTTPRequest.queryValue(_:)` reads it), and every path
/// segment, query parameter name or value, and method that holds the admin token in any encoding
/// (``AdminTokenPattern``: each of its characters as itself or percent-encoded any number of times,
/// any case, whatever comes before it) are replaced before the line is written.
public enum AccessLogRedaction {
    /// The query parameters (decoded names) whose values never reach a log.
    public static let secretParameters: Set<String> = ["token", "csrfToken"]

    /// The entry with its secrets replaced by `REDACTED`.
    /// - Parameters:
    ///   - entry: An access log entry from `HTTPServer`.
    ///   - adminToken: The admin token, when the server has one: any path segment, query parameter
    ///     name or value, and a method that holds it in any encoding are redacted too.
    /// - Returns: The same entry, its method and request-target redacted.
    public static func redact(_ entry: AccessLogEntry, adminToken: String? = nil) -> AccessLogEntry {
        let token = adminToken.flatMap { $0.isEmpty ? nil : AdminTokenPattern($0) }
        var entry = entry
        // The method is whatever the request line held (RFC 9112 §3.1: any token), so it can be the token too.
        if let token, token.isFound(in: entry.method.utf8) { entry = entry.with(method: "REDACTED", target: entry.target) }
        let target = entry.target
        // Bytes, not graphemes, and on the contiguous bytes when there are: this runs for every answer.
        let hasQuery = target.utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: "?")) } ?? target.utf8.contains(UInt8(ascii: "?"))
        if !hasQuery, token == nil { return entry }
        let question = target.utf8.firstIndex(of: UInt8(ascii: "?"))
        let path = target[..<(question ?? target.endIndex)]
        var redacted = String(path)
        if let token, token.isFound(in: path.utf8) {
            redacted = path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                token.isFound(in: segment.utf8) ? "REDACTED" : String(segment)
            }.joined(separator: "/")
        }
        if let question {
            let query = target[target.utf8.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let rawName = parts.first.map { String($0) } ?? ""
                // Raw bytes, not the decoded text alone: `%2` before the token decodes with its first digit.
                if let token, token.isFound(in: rawName.utf8) { return "REDACTED" }
                let decodedName = FormURLEncoding.decode(String(pair)).first?.name ?? ""
                if secretParameters.contains(decodedName) { return "\(rawName)=REDACTED" }
                if let token, parts.count == 2, token.isFound(in: parts[1].utf8) { return "\(rawName)=REDACTED" }
                return String(pair)
            }
            redacted += "?" + query.joined(separator: "&")
        }
        // A token that is not hex digits alone could span a `/`, `&` or `=`: then nothing of the target is logged.
        if let token, token.isFound(in: redacted.utf8) { redacted = "REDACTED" }
        if redacted == target { return entry }
        return entry.with(method: entry.method, target: redacted)
    }
}

extension AccessLogEntry {
    /// The same entry with another method and request-target.
    func with(method: String, target: String) -> AccessLogEntry {
        AccessLogEntry(
            method: method, target: target, status: status, bytes: bytes, durationMilliseconds: durationMilliseconds,
            requestID: requestID, remoteAddress: remoteAddress)
    }
}
