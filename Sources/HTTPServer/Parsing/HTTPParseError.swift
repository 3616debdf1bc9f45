/// Why a request could not be parsed. Every case maps to the status the server answers with
/// before closing the connection (a framing error is never resynchronised, RFC 9112 §6.3).
public enum HTTPParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Malformed syntax or a forbidden construct (400, RFC 9112 §2.2, §3, §5, §6, §7).
    case badRequest(String)
    /// The request-line exceeds ``HTTPLimits/requestLine`` (414, RFC 9112 §3).
    case uriTooLong
    /// The field section exceeds ``HTTPLimits/fieldSection`` bytes or ``HTTPLimits/maxFields`` lines (431).
    case fieldsTooLarge
    /// The body exceeds ``HTTPLimits/body`` (413, RFC 9110 §15.5.14).
    case contentTooLarge
    /// A transfer coding other than `chunked` (501, RFC 9112 §6.1).
    case notImplemented(String)
    /// A major version other than 1 (505, RFC 9110 §15.6.6).
    case versionNotSupported
    /// The Host (or absolute-form authority) is not one this server answers for (421, RFC 9110 §7.4).
    case misdirected(String)
    /// The head or body did not arrive within its deadline (408); produced by the connection, not the parser.
    case timeout

    /// The status sent for this error.
    public var status: HTTPStatus {
        switch self {
        case .badRequest: return .badRequest
        case .uriTooLong: return .uriTooLong
        case .fieldsTooLarge: return .requestHeaderFieldsTooLarge
        case .contentTooLarge: return .contentTooLarge
        case .notImplemented: return .notImplemented
        case .versionNotSupported: return .httpVersionNotSupported
        case .misdirected: return .misdirectedRequest
        case .timeout: return .requestTimeout
        }
    }

    /// A short human-readable reason (not sent to the client beyond the status line).
    public var description: String {
        switch self {
        case .badRequest(let why): return "bad request: \(why)"
        case .uriTooLong: return "request-line too long"
        case .fieldsTooLarge: return "field section too large"
        case .contentTooLarge: return "body too large"
        case .notImplemented(let why): return "not implemented: \(why)"
        case .versionNotSupported: return "HTTP version not supported"
        case .misdirected(let host): return "misdirected request for \(host)"
        case .timeout: return "request timeout"
        }
    }
}
