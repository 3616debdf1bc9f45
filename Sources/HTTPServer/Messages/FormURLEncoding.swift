/// `application/x-www-form-urlencoded` decoding (WHATWG URL §5), used for queries and form bodies.
public enum FormURLEncoding {
    /// Decodes `a=1&b=x+y` into ordered pairs.
    /// - Parameter string: the encoded string (a raw query or a form body).
    /// - Returns: the pairs in order; `+` becomes space, `%XX` is decoded, a malformed escape is kept
    ///   literally, invalid UTF-8 becomes U+FFFD, empty pairs are skipped.
    public static func decode(_ string: String) -> [(name: String, value: String)] {
        var result: [(name: String, value: String)] = []
        for pair in string.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let eq = pair.firstIndex(of: UInt8(ascii: "=")) {
                result.append((name: decodeComponent(pair[..<eq]), value: decodeComponent(pair[pair.index(after: eq)...])))
            } else {
                result.append((name: decodeComponent(pair[...]), value: ""))
            }
        }
        return result
    }

    /// Decodes a form body given as bytes.
    /// - Parameter bytes: the body.
    /// - Returns: the pairs in order (see ``decode(_:)-(String)``).
    public static func decode(_ bytes: [UInt8]) -> [(name: String, value: String)] {
        decode(String(decoding: bytes, as: UTF8.self))
    }

    static func decodeComponent(_ bytes: Substring.UTF8View) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let b = bytes[i]
            if b == UInt8(ascii: "+") {
                out.append(0x20)
            } else if b == UInt8(ascii: "%"), let h1 = bytes.index(i, offsetBy: 1, limitedBy: bytes.endIndex), h1 < bytes.endIndex,
                let h2 = bytes.index(i, offsetBy: 2, limitedBy: bytes.endIndex), h2 < bytes.endIndex,
                let hi = TokenTable.hexValue(bytes[h1]), let lo = TokenTable.hexValue(bytes[h2])
            {
                out.append(hi << 4 | lo)
                i = h2
            } else {
                out.append(b)
            }
            i = bytes.index(after: i)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
