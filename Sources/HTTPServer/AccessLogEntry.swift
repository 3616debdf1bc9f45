/// One line of the structured access log, delivered to the server's `accessLog` callback after
/// each response (including framing-error responses) has been handed to the socket.
public struct AccessLogEntry: Sendable, CustomStringConvertible {
    /// Request method, or `-` when the request could not be parsed.
    public let method: String
    /// Raw request-target, or `-` when unknown.
    public let target: String
    /// Response status code.
    public let status: Int
    /// Response body bytes sent (0 for HEAD, 204 and 304).
    public let bytes: Int
    /// Time from the complete request to the serialised response, in milliseconds.
    public let durationMilliseconds: Double
    /// The request ID (see ``HTTPRequest/requestID``).
    public let requestID: String
    /// Peer address.
    public let remoteAddress: String

    /// Creates an entry.
    /// - Parameters:
    ///   - method: method or `-`.
    ///   - target: raw target or `-`.
    ///   - status: status code.
    ///   - bytes: body bytes sent.
    ///   - durationMilliseconds: handling time in ms.
    ///   - requestID: request ID.
    ///   - remoteAddress: peer address.
    public init(
        method: String, target: String, status: Int, bytes: Int, durationMilliseconds: Double,
        requestID: String, remoteAddress: String
    ) {
        self.method = method
        self.target = target
        self.status = status
        self.bytes = bytes
        self.durationMilliseconds = durationMilliseconds
        self.requestID = requestID
        self.remoteAddress = remoteAddress
    }

    /// A logfmt line, e.g. `method=GET target="/" status=200 bytes=512 duration_ms=0.42 request_id=1a remote=127.0.0.1:5000`.
    public var description: String {
        let ms = (durationMilliseconds * 100).rounded() / 100
        let quoted = target.replacingControlAndQuotes()
        return "method=\(method) target=\"\(quoted)\" status=\(status) bytes=\(bytes) duration_ms=\(ms) request_id=\(requestID) remote=\(remoteAddress)"
    }
}

extension String {
    /// Escapes `"`, `\` and control characters so a log line cannot be forged.
    func replacingControlAndQuotes() -> String {
        // Most targets need no escape: check the bytes once instead of rebuilding the string.
        if !utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            return self
        }
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: out += "\\x" + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
