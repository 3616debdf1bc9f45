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

    /// About the bytes ``description`` takes (escapes aside), without making it: for a log that formats the line later
    /// (``LogWriter/write(formatting:estimatedBytes:)``).
    public var estimatedLineBytes: Int {
        // The keys, quotes, spaces and numbers come to under 80 bytes.
        80 + method.utf8.count + target.utf8.count + requestID.utf8.count + remoteAddress.utf8.count
    }

    /// A logfmt line, e.g. `method=GET target="/" status=200 bytes=512 duration_ms=0.42 request_id=1a remote=127.0.0.1:5000`.
    public var description: String {
        var line: [UInt8] = []
        append(to: &line)
        return String(decoding: line, as: UTF8.self)
    }

    /// Appends ``description``'s bytes to `line`, with no `String` made on the way (a log's thread writes thousands a
    /// second). The duration is in milliseconds rounded to hundredths, written as Swift writes that `Double`
    /// (`0.42`, `1.0`, `12.5`).
    /// - Parameter line: Where the line goes.
    public func append(to line: inout [UInt8]) {
        line.append(contentsOf: "method=".utf8)
        line.append(contentsOf: method.utf8)
        line.append(contentsOf: " target=\"".utf8)
        line.append(contentsOf: target.replacingControlAndQuotes().utf8)
        line.append(contentsOf: "\" status=".utf8)
        Self.appendDecimal(status, to: &line)
        line.append(contentsOf: " bytes=".utf8)
        Self.appendDecimal(bytes, to: &line)
        line.append(contentsOf: " duration_ms=".utf8)
        let hundredths = (durationMilliseconds * 100).rounded()
        if hundredths.isFinite, abs(hundredths) < 1e15 {
            let value = Int(hundredths), whole = abs(value) / 100, fraction = abs(value) % 100
            if value < 0 { line.append(UInt8(ascii: "-")) }
            Self.appendDecimal(whole, to: &line)
            line.append(UInt8(ascii: "."))
            if fraction < 10 && fraction > 0 { line.append(UInt8(ascii: "0")) }
            Self.appendDecimal(fraction % 10 == 0 && fraction > 0 ? fraction / 10 : fraction, to: &line)
        } else {
            line.append(contentsOf: "\(hundredths / 100)".utf8)
        }
        line.append(contentsOf: " request_id=".utf8)
        line.append(contentsOf: requestID.utf8)
        line.append(contentsOf: " remote=".utf8)
        line.append(contentsOf: remoteAddress.utf8)
    }

    /// `value`'s decimal digits, appended.
    static func appendDecimal(_ value: Int, to line: inout [UInt8]) {
        if value < 0 { line.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 24 digits, more than a UInt64 has
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            line.append(contentsOf: buffer[index...])
        }
    }
}

extension String {
    /// Escapes `"`, `\` and control characters so a log line cannot be forged.
    func replacingControlAndQuotes() -> String {
        // Most targets need no escape: check the bytes once instead of rebuilding the string.
        let needsEscape: (UInt8) -> Bool = { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        // On the contiguous bytes when there are (a native string's): a log's thread checks every target.
        if !(utf8.withContiguousStorageIfAvailable { $0.contains(where: needsEscape) } ?? utf8.contains(where: needsEscape)) {
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
