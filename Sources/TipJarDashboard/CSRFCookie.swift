import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The CSRF token, as OWASP's double-submit cookie pattern
/// (https://cheatsheetseries.owasp.org/cheatsheets/Cross-Site_Request_Forgery_Prevention_Cheat_Sheet.html#alternative-using-a-double-submit-cookie-pattern):
/// a random 256-bit token in an `HttpOnly; SameSite=Strict` cookie, which every form and fragment request must
/// also send in its body or `X-CSRF-Token` field; the two must be equal. It stands beside the same-origin check
/// (`Sec-Fetch-Site` / `Origin`, ``OriginCheck``), which another site cannot pass.
///
/// The server keeps no table of tokens, so nothing can evict one: a flood of cookie-less page views (another
/// site's `<img>` tags; a `SameSite=Strict` cookie is never sent cross-site, RFC 6265bis §5.6.7.1) costs a browser
/// nothing, and a restart keeps every open page's forms working.
enum CSRFCookie {
    /// The cookie's name.
    static let cookieName = "tipjar_session"

    /// The `Set-Cookie` field value that hands a browser `token`.
    static func setCookie(token: String) -> String { "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict" }

    /// Two independent 32-byte secrets from one read of the
    /// system's CSPRNG (glibc's `arc4random_buf`, seeded from `getrandom(2)`), as 64 hex
    /// digits each.
    static func randomHexPair() -> (first: String, second: String) {
        var bytes = [UInt8](repeating: 0, count: 64)
        bytes.withUnsafeMutableBytes { buffer in arc4random_buf(buffer.baseAddress!, buffer.count) }
        let digits = Array("0123456789abcdef".utf8)
        func hex(_ slice: ArraySlice<UInt8>) -> String {
            var text = [UInt8]()
            text.reserveCapacity(slice.count * 2)
            for byte in slice {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0xF)])
            }
            return String(decoding: text, as: UTF8.self)
        }
        return (hex(bytes[0..<32]), hex(bytes[32..<64]))
    }

    /// The token in a `Cookie` field value (RFC 6265 §5.4 `name=value; …` pairs), or `nil` when the cookie is
    /// absent or is not 64 lowercase hex digits (one ``randomHexPair()`` makes).
    static func token(fromCookie header: String?) -> String? {
        // RFC 6265 §5.2: whitespace around a cookie's value is not part of it (trimmed on the UTF-8 bytes: this runs on
        // the server's I/O thread for every stored page, where Foundation's trimming costs a trip through UTF-16).
        let isWhitespace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let untrimmed = cookie(named: cookieName, in: header)?.utf8,
            let first = untrimmed.firstIndex(where: { !isWhitespace($0) }), let last = untrimmed.lastIndex(where: { !isWhitespace($0) })
        else { return nil }
        let value = String(Substring(untrimmed[first...last]))
        guard value.utf8.count == 64,
            value.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        return value
    }

    /// The value of the cookie `name` in a `Cookie` field value (RFC 6265 §5.4), or `nil`.
    static func cookie(named name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.utf8.split(separator: UInt8(ascii: ";")) {
            guard let equals = pair.firstIndex(of: UInt8(ascii: "=")) else { continue }
            let key = pair[..<equals].drop { $0 == UInt8(ascii: " ") }
            guard key.elementsEqual(name.utf8) else { continue }
            let value = pair[pair.index(after: equals)...].drop { $0 == UInt8(ascii: " ") }
            return value.isEmpty ? nil : String(decoding: value, as: UTF8.self)
        }
        return nil
    }

    /// Compares two secrets in time that depends only on their lengths.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
