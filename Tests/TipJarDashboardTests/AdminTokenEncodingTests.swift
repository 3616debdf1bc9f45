import HTTPServer
import TestSupport
import Testing

@testable import TipJarDashboard

/// The admin token never reaches the access log in any encoding: each of its characters as itself
/// or percent-encoded (RFC 3986 §2.1) once or twice, in upper or lower case, whatever comes right
/// before it (`%`, `%2`, `%25`: an escape that decodes together with its first digit), in a path
/// segment, a query name or value, or between `+`s (a space in a form value).
@Suite("Admin token in every encoding")
struct AdminTokenEncodingTests {
    /// Tokens starting with a letter and with a digit: `%2` merges with either.
    static let tokens = ["0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"]

    /// One character written in one of the ways a client can.
    static func encoded(_ character: UInt8, _ form: Int) -> String {
        let hex = String(character, radix: 16)
        switch form {
        case 0: return String(UnicodeScalar(character))
        case 1: return "%" + hex.uppercased()
        case 2: return "%" + hex.lowercased()
        case 3: return "%25" + hex
        case 4: return "%25%" + hex.utf8.map { String($0, radix: 16) }.joined(separator: "%")  // every byte encoded, twice
        default: return String(UnicodeScalar(character)).uppercased()
        }
    }

    /// The token in whole-token forms and mixes: all one form, alternating, only the first or last
    /// character encoded, and seeded pseudo-random mixes (a fixed linear congruential sequence).
    static func spellings(of token: String) -> [String] {
        let bytes = Array(token.utf8)
        var patterns: [[Int]] = (0...5).map { form in bytes.map { _ in form } }
        patterns.append(bytes.indices.map { $0 % 2 == 0 ? 1 : 0 })
        patterns.append(bytes.indices.map { $0 % 2 == 0 ? 0 : 3 })
        patterns.append(bytes.indices.map { $0 == 0 ? 2 : 0 })
        patterns.append(bytes.indices.map { $0 == bytes.count - 1 ? 1 : 0 })
        patterns.append(bytes.indices.map { $0 < bytes.count / 2 ? 4 : 5 })
        var seed: UInt32 = 12_345
        for _ in 0..<8 {
            patterns.append(
                bytes.map { _ in
                    seed = seed &* 1_103_515_245 &+ 12_345
                    return Int(seed >> 16) % 6
                })
        }
        return patterns.map { pattern in zip(bytes, pattern).map { encoded($0, $1) }.joined() }
    }

    static let before = ["", "%", "%2", "%25", "%252", "%%", "%2%", "x", "+", "%2B", "%3", "%6"]
    static let after = ["", "%", "+"]
    static let places = [
        "/{}", "/x/{}/y", "/installs/{}/live", "/?a={}", "/installs?q={}", "/installs?page=2&q={}&r=1",
        "/?{}", "/?{}=1", "/installs?q=a+{}+b", "/?token={}",
    ]

    /// `text` percent-decoded once (`+` as a space when `plus`); a malformed escape stays as it is.
    static func decoded(_ text: String, plus: Bool) -> String {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let value = UInt8(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                out.append(value)
                index += 3
            } else {
                out.append(plus && bytes[index] == UInt8(ascii: "+") ? UInt8(ascii: " ") : bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The logged line as a reader could decode it: raw, decoded once, twice and three times, `+`
    /// kept or a space; lowercased bytes.
    static func readings(_ line: String) -> [[UInt8]] {
        [false, true].flatMap { plus in
            let once = decoded(line, plus: plus), twice = decoded(once, plus: plus)
            return [line, once, twice, decoded(twice, plus: plus)]
        }.map { Array($0.lowercased().utf8) }
    }

    /// Every run of 8 bytes of `bytes`, each packed in a `UInt64`.
    static func eightByteRuns(_ bytes: [UInt8]) -> [UInt64] {
        var runs: [UInt64] = []
        var packed: UInt64 = 0
        for (index, byte) in bytes.enumerated() {
            packed = packed << 8 | UInt64(byte)
            if index >= 7 { runs.append(packed) }
        }
        return runs
    }

    @Test(arguments: tokens)
    func noEightCharactersOfTheTokenReachTheLogInAnyEncodingOrPlace(_ token: String) async {
        // Seconds of CPU: on a thread of its own, so the tests beside it that answer over sockets keep the
        // cooperative pool (two threads on a two-core machine).
        let (tried, leaks) = await onThread { Self.leaks(of: token) }
        #expect(tried > 5_000)
        #expect(leaks.isEmpty, "\(leaks.count) of \(tried) lines show the token, e.g. \(leaks.prefix(3))")
    }

    /// Every target of ``spellings(of:)`` × ``before`` × ``after`` × ``places``, redacted: how many, and the lines that
    /// still show eight bytes of the token in some reading.
    static func leaks(of token: String) -> (tried: Int, leaks: [String]) {
        let bytes = Array(token.utf8)
        let pieces = Set(eightByteRuns(bytes))
        var leaks: [String] = []
        var tried = 0
        for spelling in spellings(of: token) {
            for prefix in before {
                for suffix in after {
                    for place in places {
                        let target = place.replacingOccurrences(of: "{}", with: prefix + spelling + suffix)
                        let entry = AccessLogEntry(
                            method: "GET", target: target, status: 401, bytes: 0, durationMilliseconds: 1,
                            requestID: "1-1", remoteAddress: "127.0.0.1:5")
                        let line = AccessLogRedaction.redact(entry, adminToken: token).description
                        tried += 1
                        if readings(line).contains(where: { eightByteRuns($0).contains(where: pieces.contains) }) {
                            leaks.append("\(target) -> \(line)")
                        }
                    }
                }
            }
        }
        return (tried, leaks)
    }

    @Test func theTestersTargetsAreRedacted() {
        let token = Self.tokens[1]
        for target in [
            "/?a=%2\(token)", "/x/%4\(token)/y", "/installs?q=%2\(token)", "/?%2\(token)=1", "/%6\(token)",
            "/installs?q=%\(token)", "/installs/%25\(token)",
        ] {
            let entry = AccessLogEntry(
                method: "GET", target: target, status: 401, bytes: 0, durationMilliseconds: 1,
                requestID: "1-1", remoteAddress: "127.0.0.1:5")
            #expect(!AccessLogRedaction.redact(entry, adminToken: token).description.contains(token), "\(target)")
        }
    }
}
