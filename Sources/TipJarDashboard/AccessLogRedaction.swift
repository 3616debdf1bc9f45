import HTTPServer

/// Keeps secrets out of the access log (issue 7): the admin token of a `?token=` sign-in link is
/// replaced before the line is written.
public enum AccessLogRedaction {
    /// The query parameters whose values never reach a log.
    public static let secretParameters: Set<String> = ["token", "csrfToken"]

    /// The entry with the value of every secret query parameter replaced by `REDACTED`.
    /// - Parameter entry: An access log entry from `HTTPServer`.
    /// - Returns: The same entry, its request-target redacted.
    public static func redact(_ entry: AccessLogEntry) -> AccessLogEntry {
        guard let question = entry.target.firstIndex(of: "?") else { return entry }
        let query = entry.target[entry.target.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            return secretParameters.contains(name) ? "\(name)=REDACTED" : String(pair)
        }
        return AccessLogEntry(method: entry.method, target: entry.target[..<question] + "?" + query.joined(separator: "&"),
                              status: entry.status, bytes: entry.bytes, durationMilliseconds: entry.durationMilliseconds,
                              requestID: entry.requestID, remoteAddress: entry.remoteAddress)
    }
}
