import Foundation
import TipJar

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

    /// A 32-byte secret from the system's CSPRNG, as 64 lowercase hex digits.
    static func randomToken() -> String {
        String(decoding: randomTokenBytes(), as: UTF8.self)
    }

    /// ``randomToken()``'s 64 hex digits as bytes, for a response that splices them in.
    static func randomTokenBytes() -> [UInt8] {
        var secret = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        withUnsafeMutableBytes(of: &secret) { SystemRandom.fill($0) }
        return withUnsafeBytes(of: &secret) { random in
            [UInt8](unsafeUninitializedCapacity: 64) { digits, count in
                for (index, byte) in random.enumerated() {
                    digits[2 * index] = hexDigit(byte >> 4)
                    digits[2 * index + 1] = hexDigit(byte & 0xF)
                }
                count = 64
            }
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x61 - 10 + nibble }

    /// The token in a `Cookie` field value (RFC 6265 §5.4 `name=value; …` pairs), or `nil` when the cookie is
    /// absent or is not 64 lowercase hex digits (one ``randomToken()`` makes).
    static func token(fromCookie header: String?) -> String? {
        tokenBytes(fromCookie: header).map { String(decoding: $0, as: UTF8.self) }
    }

    /// ``token(fromCookie:)``'s token as bytes, for a response that splices it in.
    static func tokenBytes(fromCookie header: String?) -> [UInt8]? {
        guard var header else { return nil }
        // On the UTF-8 bytes, with no array of pairs: this runs on the server's I/O thread for every stored page.
        return header.withUTF8 { bytes -> [UInt8]? in
            guard let range = valueRange(named: cookieName, in: bytes) else { return nil }
            // RFC 6265 §5.2: whitespace around a cookie's value is not part of it.
            var first = range.lowerBound, end = range.upperBound
            while first < end, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
            while end > first, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            let value = UnsafeBufferPointer(rebasing: bytes[first..<end])
            guard value.count == 64, value.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
            return Array(value)
        }
    }

    /// The value of the cookie `name` in a `Cookie` field value (RFC 6265 §5.4), or `nil`.
    static func cookie(named name: String, in header: String?) -> String? {
        guard var header else { return nil }
        return header.withUTF8 { bytes in
            valueRange(named: name, in: bytes).map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
        }
    }

    /// Where the value of the first pair named `name` is in `bytes` (`;`-separated `name=value` pairs, spaces before
    /// the name and the value skipped), or `nil` when there is none or its value is empty.
    private static func valueRange(named name: String, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != UInt8(ascii: ";") { end += 1 }
            var key = start
            while key < end, bytes[key] == UInt8(ascii: " ") { key += 1 }
            if let equals = bytes[key..<end].firstIndex(of: UInt8(ascii: "=")), bytes[key..<equals].elementsEqual(name.utf8) {
                var value = equals + 1
                while value < end, bytes[value] == UInt8(ascii: " ") { value += 1 }
                return value < end ? value..<end : nil
            }
            start = end + 1
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
