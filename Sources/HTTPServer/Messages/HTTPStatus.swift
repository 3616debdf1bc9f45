/// An HTTP response status code with its reason phrase (RFC 9110 §15).
public struct HTTPStatus: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The three-digit status code.
    public let code: Int
    /// The reason phrase sent on the status line (informational only, RFC 9112 §4).
    public let reasonPhrase: String

    /// Creates a status.
    /// - Parameters:
    ///   - code: the three-digit status code (100–599).
    ///   - reasonPhrase: the reason phrase; must not contain CR or LF.
    public init(code: Int, reasonPhrase: String) {
        self.code = code
        self.reasonPhrase = reasonPhrase
    }

    /// Equality compares the code only; reason phrases are informational.
    public static func == (lhs: HTTPStatus, rhs: HTTPStatus) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// `code reasonPhrase`, e.g. `404 Not Found`.
    public var description: String { "\(code) \(reasonPhrase)" }

    /// 100 Continue (RFC 9110 §15.2.1).
    public static let `continue` = HTTPStatus(code: 100, reasonPhrase: "Continue")
    /// 200 OK (RFC 9110 §15.3.1).
    public static let ok = HTTPStatus(code: 200, reasonPhrase: "OK")
    /// 201 Created (RFC 9110 §15.3.2).
    public static let created = HTTPStatus(code: 201, reasonPhrase: "Created")
    /// 202 Accepted (RFC 9110 §15.3.3).
    public static let accepted = HTTPStatus(code: 202, reasonPhrase: "Accepted")
    /// 204 No Content (RFC 9110 §15.3.5); sent without a body or Content-Length.
    public static let noContent = HTTPStatus(code: 204, reasonPhrase: "No Content")
    /// 301 Moved Permanently (RFC 9110 §15.4.2).
    public static let movedPermanently = HTTPStatus(code: 301, reasonPhrase: "Moved Permanently")
    /// 302 Found (RFC 9110 §15.4.3).
    public static let found = HTTPStatus(code: 302, reasonPhrase: "Found")
    /// 303 See Other (RFC 9110 §15.4.4); the usual answer to a successful form POST.
    public static let seeOther = HTTPStatus(code: 303, reasonPhrase: "See Other")
    /// 304 Not Modified (RFC 9110 §15.4.5); sent without a body.
    public static let notModified = HTTPStatus(code: 304, reasonPhrase: "Not Modified")
    /// 307 Temporary Redirect (RFC 9110 §15.4.8).
    public static let temporaryRedirect = HTTPStatus(code: 307, reasonPhrase: "Temporary Redirect")
    /// 400 Bad Request (RFC 9110 §15.5.1).
    public static let badRequest = HTTPStatus(code: 400, reasonPhrase: "Bad Request")
    /// 401 Unauthorized (RFC 9110 §15.5.2).
    public static let unauthorized = HTTPStatus(code: 401, reasonPhrase: "Unauthorized")
    /// 403 Forbidden (RFC 9110 §15.5.4).
    public static let forbidden = HTTPStatus(code: 403, reasonPhrase: "Forbidden")
    /// 404 Not Found (RFC 9110 §15.5.5).
    public static let notFound = HTTPStatus(code: 404, reasonPhrase: "Not Found")
    /// 405 Method Not Allowed (RFC 9110 §15.5.6); must carry `Allow`.
    public static let methodNotAllowed = HTTPStatus(code: 405, reasonPhrase: "Method Not Allowed")
    /// 406 Not Acceptable (RFC 9110 §15.5.7).
    public static let notAcceptable = HTTPStatus(code: 406, reasonPhrase: "Not Acceptable")
    /// 408 Request Timeout (RFC 9110 §15.5.9); the server closes afterwards.
    public static let requestTimeout = HTTPStatus(code: 408, reasonPhrase: "Request Timeout")
    /// 409 Conflict (RFC 9110 §15.5.10).
    public static let conflict = HTTPStatus(code: 409, reasonPhrase: "Conflict")
    /// 410 Gone (RFC 9110 §15.5.11).
    public static let gone = HTTPStatus(code: 410, reasonPhrase: "Gone")
    /// 411 Length Required (RFC 9110 §15.5.12).
    public static let lengthRequired = HTTPStatus(code: 411, reasonPhrase: "Length Required")
    /// 412 Precondition Failed (RFC 9110 §15.5.13).
    public static let preconditionFailed = HTTPStatus(code: 412, reasonPhrase: "Precondition Failed")
    /// 413 Content Too Large (RFC 9110 §15.5.14).
    public static let contentTooLarge = HTTPStatus(code: 413, reasonPhrase: "Content Too Large")
    /// 414 URI Too Long (RFC 9110 §15.5.15).
    public static let uriTooLong = HTTPStatus(code: 414, reasonPhrase: "URI Too Long")
    /// 415 Unsupported Media Type (RFC 9110 §15.5.16).
    public static let unsupportedMediaType = HTTPStatus(code: 415, reasonPhrase: "Unsupported Media Type")
    /// 417 Expectation Failed (RFC 9110 §15.5.18).
    public static let expectationFailed = HTTPStatus(code: 417, reasonPhrase: "Expectation Failed")
    /// 421 Misdirected Request (RFC 9110 §15.5.20); used for a Host outside the allow-list.
    public static let misdirectedRequest = HTTPStatus(code: 421, reasonPhrase: "Misdirected Request")
    /// 422 Unprocessable Content (RFC 9110 §15.5.21).
    public static let unprocessableContent = HTTPStatus(code: 422, reasonPhrase: "Unprocessable Content")
    /// 429 Too Many Requests (RFC 6585 §4).
    public static let tooManyRequests = HTTPStatus(code: 429, reasonPhrase: "Too Many Requests")
    /// 431 Request Header Fields Too Large (RFC 6585 §5).
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431, reasonPhrase: "Request Header Fields Too Large")
    /// 500 Internal Server Error (RFC 9110 §15.6.1).
    public static let internalServerError = HTTPStatus(code: 500, reasonPhrase: "Internal Server Error")
    /// 501 Not Implemented (RFC 9110 §15.6.2); e.g. an unknown transfer coding.
    public static let notImplemented = HTTPStatus(code: 501, reasonPhrase: "Not Implemented")
    /// 503 Service Unavailable (RFC 9110 §15.6.4); sent when the connection cap sheds load.
    public static let serviceUnavailable = HTTPStatus(code: 503, reasonPhrase: "Service Unavailable")
    /// 505 HTTP Version Not Supported (RFC 9110 §15.6.6).
    public static let httpVersionNotSupported = HTTPStatus(code: 505, reasonPhrase: "HTTP Version Not Supported")
}
