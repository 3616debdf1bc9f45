/// Byte-class lookup tables for HTTP syntax (RFC 9110 §5.6.2 tokens, §5.5 field values,
/// RFC 3986 §3.3 path characters). Each table has 256 entries indexed by the byte.
enum TokenTable {
    /// `tchar` (RFC 9110 §5.6.2): `!#$%&'*+-.^_`|~`, DIGIT, ALPHA.
    static let tchar: [Bool] = table { b in
        isAlpha(b) || isDigit(b) || "!#$%&'*+-.^_`|~".utf8.contains(b)
    }

    /// Bytes allowed inside a field value after trimming (RFC 9110 §5.5): VCHAR, obs-text, SP, HTAB.
    static let fieldValue: [Bool] = table { b in
        b == 0x09 || b == 0x20 || (b >= 0x21 && b <= 0x7E) || b >= 0x80
    }

    /// Bytes allowed raw in an origin-form path (RFC 3986 §3.3 `pchar` plus `/` and `%` for escapes).
    static let pathChar: [Bool] = table { b in
        isAlpha(b) || isDigit(b) || "-._~!$&'()*+,;=:@/%".utf8.contains(b)
    }

    /// Bytes allowed raw in a query. Lenient: any VCHAR except `#` (browsers send `|`, `[`, `]` raw).
    static let queryChar: [Bool] = table { b in
        b >= 0x21 && b <= 0x7E && b != UInt8(ascii: "#")
    }

    /// Bytes allowed in a `reg-name` or IPv4 host (RFC 3986 §3.2.2): unreserved, sub-delims, `%`.
    static let regName: [Bool] = table { b in
        isAlpha(b) || isDigit(b) || "-._~!$&'()*+,;=%".utf8.contains(b)
    }

    /// Bytes allowed inside an IP-literal between `[` and `]` (hex digits, `:`, `.`, and IPvFuture chars).
    static let ipLiteral: [Bool] = table { b in
        isAlpha(b) || isDigit(b) || "-._~!$&'()*+,;=:".utf8.contains(b)
    }

    /// Bytes allowed in a chunk extension (RFC 9112 §7.1.1): anything but CTLs other than HTAB.
    static let chunkExtension: [Bool] = fieldValue

    /// The value of a hexadecimal digit, or `nil`.
    @inline(__always)
    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x41...0x46: return b - 0x41 + 10
        case 0x61...0x66: return b - 0x61 + 10
        default: return nil
        }
    }

    @inline(__always) static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    @inline(__always) static func isAlpha(_ b: UInt8) -> Bool { (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }

    private static func table(_ predicate: (UInt8) -> Bool) -> [Bool] {
        (0...255).map { predicate(UInt8($0)) }
    }
}
