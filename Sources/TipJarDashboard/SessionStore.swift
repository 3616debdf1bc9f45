import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Browser sessions and their synchronizer CSRF tokens (OWASP's synchronizer token pattern):
/// a random session ID in an `HttpOnly; SameSite=Strict` cookie, and a random token bound to it
/// that every form and fragment request must send back. Kept in memory: a restart asks the
/// browser to reload its page.
actor SessionStore {
    /// The session cookie's name.
    static let cookieName = "tipjar_session"
    private var tokens: [String: String] = [:]
    private let maximumSessions = 10_000

    /// The CSRF token of an existing session, or `nil` for an unknown session ID.
    func token(forSession id: String) -> String? { tokens[id] }

    /// Starts a session. - Returns: its ID and CSRF token (each 256 random bits, hex).
    func start() -> (id: String, token: String) {
        if tokens.count >= maximumSessions { tokens.removeAll(keepingCapacity: true) }
        let (id, token) = Self.randomHexPair()
        tokens[id] = token
        return (id, token)
    }

    /// Two independent 32-byte secrets (a session ID and its CSRF token) from one read of the
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

    /// Reads the session ID from a `Cookie` field value (RFC 6265 §5.4 `name=value; …` pairs).
    static func sessionID(fromCookie header: String?) -> String? {
        cookie(named: cookieName, in: header)
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
