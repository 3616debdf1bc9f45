/// A complete, validated HTTP request as handed to an ``HTTPResponder``.
///
/// The server has already enforced framing (RFC 9112 §6), the Host rules (RFC 9112 §3.2) and the
/// request-target rules (decode once, no NUL, no encoded `/` or `\` in a segment, valid UTF-8,
/// no dot segments).
public struct HTTPRequest: Sendable, Equatable {
    /// The method token, case-sensitive (RFC 9110 §9.1), e.g. `GET`.
    public var method: String
    /// The raw request-target exactly as received (RFC 9112 §3.2).
    public var target: String
    /// The path, percent-decoded exactly once and validated; `*` for `OPTIONS *`.
    public var path: String
    /// The raw query (without `?`), or `nil` when the target has none.
    public var query: String?
    /// The protocol version of the request.
    public var version: HTTPVersion
    /// The header fields in received order (trailer fields are discarded).
    public var fields: HTTPFields
    /// The message body bytes (de-chunked), empty when there is none.
    public var body: [UInt8]
    /// The peer address, e.g. `127.0.0.1:50312` or `[::1]:50312`.
    public var remoteAddress: String
    /// A server-unique identifier for this request, used in the access log.
    public var requestID: String

    /// Creates a request (mainly for tests; the server builds requests itself).
    /// - Parameters:
    ///   - method: method token.
    ///   - target: raw request-target.
    ///   - path: decoded path (defaults to the target up to `?`).
    ///   - query: raw query (defaults to the part of `target` after `?`).
    ///   - version: protocol version.
    ///   - fields: header fields.
    ///   - body: body bytes.
    ///   - remoteAddress: peer address.
    ///   - requestID: request identifier.
    public init(
        method: String, target: String, path: String? = nil, query: String? = nil,
        version: HTTPVersion = .http1_1, fields: HTTPFields = HTTPFields(), body: [UInt8] = [],
        remoteAddress: String = "", requestID: String = ""
    ) {
        self.method = method
        self.target = target
        // The first "?" starts the query (RFC 3986 §3.4), found among the UTF-8 bytes: a `Character` search walks
        // graphemes, and this runs for every request on the event loop's thread.
        let split = path != nil && query != nil ? nil : target.utf8.firstIndex(of: UInt8(ascii: "?"))
        self.path = path ?? String(target[..<(split ?? target.endIndex)])
        self.query = query ?? split.map { String(target[target.utf8.index(after: $0)...]) }
        self.version = version
        self.fields = fields
        self.body = body
        self.remoteAddress = remoteAddress
        self.requestID = requestID
    }

    /// A request as the parser read it: its path decoded and its query (or none) already split off the target.
    init(parsed method: String, target: String, path: String, query: String?, version: HTTPVersion, fields: HTTPFields, body: [UInt8]) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.version = version
        self.fields = fields
        self.body = body
        self.remoteAddress = ""
        self.requestID = ""
    }

    /// The query decoded as `application/x-www-form-urlencoded`: split on `&`, then on the first `=`,
    /// `+` read as space, percent-decoded (invalid UTF-8 is replaced with U+FFFD). Empty pairs are skipped.
    public var queryItems: [(name: String, value: String)] {
        guard let query else { return [] }
        return FormURLEncoding.decode(query)
    }

    /// The first query value named `name`.
    /// - Parameter name: the decoded parameter name (case-sensitive).
    /// - Returns: the decoded value, or `nil` when absent.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Compares every stored property.
    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.path == rhs.path && lhs.query == rhs.query
            && lhs.version == rhs.version && lhs.fields == rhs.fields && lhs.body == rhs.body
            && lhs.remoteAddress == rhs.remoteAddress && lhs.requestID == rhs.requestID
    }
}

extension HTTPRequest {
    /// A request whose path is decoded from `target` as the server's parser decodes it (RFC 9112 §3.2: origin-form,
    /// absolute-form, or `*` for OPTIONS; each path segment percent-decoded once), for answering a request in
    /// process, without a socket, exactly as it would be answered from one.
    /// - Parameters:
    ///   - method: method token.
    ///   - target: raw request-target, e.g. `/accounts/ana%40example.com?x=1`.
    ///   - fields: header fields.
    ///   - body: body bytes.
    ///   - remoteAddress: peer address.
    ///   - requestID: request identifier.
    /// - Throws: ``HTTPParseError`` for a target the server would answer 400.
    public init(
        method: String, decoding target: String, fields: HTTPFields = HTTPFields(), body: [UInt8] = [],
        remoteAddress: String = "", requestID: String = ""
    ) throws(HTTPParseError) {
        let parsed = try RequestTarget.parse(ArraySlice(target.utf8), method: method)
        self.init(
            method: method, target: target, path: parsed.path, query: parsed.query ?? "", fields: fields, body: body,
            remoteAddress: remoteAddress, requestID: requestID)
        query = parsed.query
    }
}
