#if canImport(Glibc)
import Glibc
#endif

/// Request-line, field-line and framing rules of ``HTTPRequestParser``.
extension HTTPRequestParser {
    /// `method SP request-target SP HTTP-version` with exactly single SPs (RFC 9112 §3).
    mutating func parseRequestLine(_ line: ArraySlice<UInt8>) throws(HTTPParseError) {
        guard let sp1 = line.firstIndex(of: 0x20) else { throw .badRequest("request-line without target") }
        guard let sp2 = line[(sp1 + 1)...].firstIndex(of: 0x20) else { throw .badRequest("request-line without version") }
        let methodBytes = line[line.startIndex..<sp1]
        let targetBytes = line[(sp1 + 1)..<sp2]
        let versionBytes = line[(sp2 + 1)...]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy({ TokenTable.tchar[Int($0)] }) else {
            throw .badRequest("invalid method")
        }
        guard !targetBytes.isEmpty else { throw .badRequest("empty request-target") }
        // HTTP-version = "HTTP/" DIGIT "." DIGIT, case-sensitive (RFC 9112 §2.3).
        guard versionBytes.count == 8, versionBytes.starts(with: "HTTP/".utf8),
            TokenTable.isDigit(versionBytes[sp2 + 6]), versionBytes[sp2 + 7] == UInt8(ascii: "."),
            TokenTable.isDigit(versionBytes[sp2 + 8])
        else {
            throw .badRequest("invalid HTTP-version")
        }
        let major = Int(versionBytes[sp2 + 6] - 0x30)
        let minor = Int(versionBytes[sp2 + 8] - 0x30)
        guard major == 1 else { throw .versionNotSupported }
        version = minor == 0 ? .http1_0 : .http1_1
        method = String(decoding: methodBytes, as: UTF8.self)
        rawTarget = String(decoding: targetBytes, as: UTF8.self)
        target = try RequestTarget.parse(targetBytes, method: method)
        if let authority = target.authority, let allowedHosts, !allowedHosts.contains(authority) {
            throw .misdirected(authority)
        }
    }

    /// `field-name ":" OWS field-value OWS` (RFC 9112 §5). No whitespace before the colon,
    /// no obs-fold, name must be a token, value must not contain CTLs other than HTAB.
    mutating func parseFieldLine(_ line: ArraySlice<UInt8>, keep: Bool) throws(HTTPParseError) {
        sectionBytes += line.count + 2
        sectionLines += 1
        if sectionLines > limits.maxFields || sectionBytes > limits.fieldSection { throw .fieldsTooLarge }
        let first = line[line.startIndex]
        if first == 0x20 || first == 0x09 { throw .badRequest("obs-fold or whitespace before field line") }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .badRequest("field line without colon") }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty else { throw .badRequest("empty field name") }
        let tchar = TokenTable.tchar, fieldValue = TokenTable.fieldValue  // once per line, not per byte
        for b in name where !tchar[Int(b)] { throw .badRequest("invalid field name") }
        var valueStart = colon + 1
        var valueEnd = line.endIndex
        while valueStart < valueEnd, line[valueStart] == 0x20 || line[valueStart] == 0x09 { valueStart += 1 }
        while valueEnd > valueStart, line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09 { valueEnd -= 1 }
        let value = line[valueStart..<valueEnd]
        for b in value where !fieldValue[Int(b)] { throw .badRequest("invalid byte in field value") }
        if keep {
            fields.append(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        }
    }

    /// Applies the message-level rules once the head is complete and picks the body framing
    /// (RFC 9112 §6.3). Returns an event to emit, or `nil` to continue parsing.
    mutating func finishHead() throws(HTTPParseError) -> Event? {
        // One pass over the field lines for the five that frame the message (names compared by length first).
        var hosts = 0, host: String?
        var close = false, keep = false, expectsContinue = false
        var transferEncodings: [String] = [], contentLengths: [String] = []
        for (name, value) in fields {
            switch name.utf8.count {
            case 4 where asciiCaseInsensitiveEquals(name, "host"):
                hosts += 1
                if host == nil { host = value }
            case 10 where asciiCaseInsensitiveEquals(name, "connection"):
                // Connection (RFC 9112 §9.3).
                for token in Self.listElements(value) {
                    if token == "close" { close = true } else if token == "keep-alive" { keep = true }
                }
            case 6 where asciiCaseInsensitiveEquals(name, "expect"):
                if value.lowercased() == "100-continue" { expectsContinue = true }
            case 17 where asciiCaseInsensitiveEquals(name, "transfer-encoding"):
                transferEncodings.append(value)
            case 14 where asciiCaseInsensitiveEquals(name, "content-length"):
                contentLengths.append(value)
            default:
                break
            }
        }
        // Host (RFC 9112 §3.2): exactly one in HTTP/1.1, at most one otherwise.
        if hosts > 1 || (version == .http1_1 && hosts == 0) { throw .badRequest("Host must appear exactly once") }
        // A connection sends the same Host on every request: the bytes last accepted are not checked again (bytes, not
        // `String` equality, which is canonical equivalence: U+212A KELVIN SIGN equals "K").
        if let host, !(acceptedHost.map { Self.sameBytes(host, $0) } ?? false) {
            let normalized = try HostValidator.normalize(ArraySlice(host.utf8))
            if let allowedHosts, !allowedHosts.contains(normalized) { throw .misdirected(normalized) }
            acceptedHost = host
        }
        keepAlive = !close && (version == .http1_1 || keep)
        pendingContinue = version == .http1_1 && expectsContinue

        if !transferEncodings.isEmpty {
            if version == .http1_0 { throw .badRequest("Transfer-Encoding in HTTP/1.0") }
            if !contentLengths.isEmpty { throw .badRequest("both Content-Length and Transfer-Encoding") }
            let codings = transferEncodings.flatMap(Self.listElements)
            if codings.isEmpty { throw .badRequest("empty Transfer-Encoding") }
            if let unknown = codings.first(where: { $0 != "chunked" }) { throw .notImplemented("transfer coding \(unknown)") }
            if codings.count != 1 { throw .badRequest("chunked applied more than once") }
            state = .chunkSize
            return takeContinue()
        }
        if !contentLengths.isEmpty {
            let length = try Self.contentLength(contentLengths)
            if length > limits.body { throw .contentTooLarge }
            if length > 0 {
                state = .body(remaining: length)
                return takeContinue()
            }
        }
        return .request(completeRequest())
    }

    private mutating func takeContinue() -> Event? {
        guard pendingContinue else { return nil }
        pendingContinue = false
        return .continueExpected
    }

    /// `Content-Length = 1*DIGIT` (RFC 9112 §6.2); a list of identical values is accepted,
    /// differing values are an error (RFC 9110 §8.6). Overflow → 413.
    static func contentLength(_ values: [String]) throws(HTTPParseError) -> Int {
        var result: Int?
        for value in values {
            for element in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                let trimmed = element.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
                guard !trimmed.isEmpty, trimmed.allSatisfy(TokenTable.isDigit) else { throw .badRequest("invalid Content-Length") }
                var n = 0
                for b in trimmed.reversed() {
                    let (m, o1) = n.multipliedReportingOverflow(by: 10)
                    let (s, o2) = m.addingReportingOverflow(Int(b - 0x30))
                    if o1 || o2 { throw .contentTooLarge }
                    n = s
                }
                if let result, result != n { throw .badRequest("conflicting Content-Length") }
                result = n
            }
        }
        guard let result else { throw .badRequest("empty Content-Length") }
        return result
    }

    /// `chunk-size [ chunk-ext ]` (RFC 9112 §7.1); extensions are validated, bounded and ignored.
    mutating func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        var i = line.startIndex
        var size = 0
        while i < line.endIndex, let digit = TokenTable.hexValue(line[i]) {
            if size > (Int.max >> 4) { throw .contentTooLarge }
            size = size << 4 | Int(digit)
            i += 1
        }
        guard i > line.startIndex else { throw .badRequest("invalid chunk-size") }
        if size > limits.body - body.count { throw .contentTooLarge }
        var ext = line[i...]
        while let b = ext.first, b == 0x20 || b == 0x09 { ext = ext.dropFirst() }
        if !ext.isEmpty {
            guard ext.first == UInt8(ascii: ";") else { throw .badRequest("invalid chunk-size") }
            guard ext.count <= limits.chunkExtension else { throw .badRequest("chunk extension too long") }
            for b in ext where !TokenTable.chunkExtension[Int(b)] { throw .badRequest("invalid chunk extension") }
        }
        return size
    }

    /// Splits a comma-separated list (RFC 9110 §5.6.1), trims OWS, lower-cases, drops empty elements.
    /// Whether two strings hold the same UTF-8 bytes.
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }

    static func listElements(_ value: String) -> [String] {
        value.split(separator: ",").compactMap { element in
            let trimmed = element.trimmingCharacters(in: " \t")
            return trimmed.isEmpty ? nil : trimmed.lowercased()
        }
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> Substring {
        var s = self[...]
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return s
    }
}
