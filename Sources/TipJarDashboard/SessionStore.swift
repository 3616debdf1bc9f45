import Foundation

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
        let id = Self.randomHex(), token = Self.randomHex()
        tokens[id] = token
        return (id, token)
    }

    /// 32 bytes from the system's CSPRNG, as 64 lowercase hex digits.
    static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for _ in 0..<4 {
            let word: UInt64 = generator.next()
            for shift in stride(from: 60, through: 0, by: -4) { text.append(digits[Int((word >> UInt64(shift)) & 0xF)]) }
        }
        return String(decoding: text, as: UTF8.self)
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
