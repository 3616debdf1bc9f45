/// The admin token as ``AccessLogRedaction`` looks for it in raw request bytes: every character of
/// the token written as itself or percent-encoded (RFC 3986 §2.1), any number of times over
/// (`a`, `%61`, `%2561`, `%25%36%31`), hex digits and letters in any case, and the characters
/// around it anything at all.
///
/// Matching the raw bytes this way, instead of the decoded text, finds the token when what comes
/// before it would decode together with its first digit: in `%2` followed by `abc…`, decoding reads
/// `%2a` as `*` and the decoded text no longer holds the token, while the log would show it whole.
struct AdminTokenPattern {
    /// One character that the bytes from some position stand for, and where those bytes end.
    struct Unit: Equatable {
        var value: UInt8
        var end: Int
    }

    /// The token's bytes, ASCII letters lowercased.
    let token: [UInt8]
    /// The characters a unit is worth keeping for: the token's, the hex digits an escape is built
    /// of, and `%`, which starts one.
    private let kept: Set<UInt8>
    /// At most this many units start at one position, which bounds the work on a hostile target.
    private static let unitsPerPosition = 8

    init(_ token: String) {
        self.token = token.utf8.map(Self.folded)
        kept = Set(self.token).union("0123456789abcdef%".utf8)
    }

    /// Whether `text` holds the token in any of the forms above.
    /// - Parameter text: Raw bytes: a method, a path, a segment, a query name or value.
    func isFound<Bytes: Collection<UInt8>>(in text: Bytes) -> Bool {
        let bytes = text.map(Self.folded)
        guard let first = token.first, bytes.count >= token.count else { return false }
        guard bytes.contains(UInt8(ascii: "%")) else {
            // Only the literal form can be there.
            for start in 0...(bytes.count - token.count) where bytes[start] == first {
                if bytes[start..<(start + token.count)].elementsEqual(token) { return true }
            }
            return false
        }
        let units = units(of: bytes)
        // The positions where a match of the token's first `i` characters can end, from any start.
        var reachable = [Bool](repeating: true, count: bytes.count + 1)
        for character in token {
            var next = [Bool](repeating: false, count: bytes.count + 1)
            var any = false
            for position in 0..<bytes.count where reachable[position] {
                for unit in units[position] where unit.value == character {
                    next[unit.end] = true
                    any = true
                }
            }
            guard any else { return false }
            reachable = next
        }
        return true
    }

    /// For each position of `bytes`, the kept characters the bytes from there can stand for: the
    /// byte itself, and `%` (itself or encoded) followed by two hex digits (each itself or encoded).
    /// Built from the end, since an escape's parts start after it.
    private func units(of bytes: [UInt8]) -> [[Unit]] {
        var units = [[Unit]](repeating: [], count: bytes.count + 1)
        for position in stride(from: bytes.count - 1, through: 0, by: -1) {
            var found: [Unit] = kept.contains(bytes[position]) ? [Unit(value: bytes[position], end: position + 1)] : []
            var percent = 0
            while percent < found.count, found.count < Self.unitsPerPosition {
                defer { percent += 1 }
                guard found[percent].value == UInt8(ascii: "%") else { continue }
                for high in units[found[percent].end] {
                    guard let highValue = Self.hexValue(high.value) else { continue }
                    for low in units[high.end] {
                        guard let lowValue = Self.hexValue(low.value) else { continue }
                        let unit = Unit(value: Self.folded(highValue << 4 | lowValue), end: low.end)
                        if kept.contains(unit.value), !found.contains(unit), found.count < Self.unitsPerPosition { found.append(unit) }
                    }
                }
            }
            units[position] = found
        }
        return units
    }

    /// `byte` with an ASCII capital letter lowercased.
    static func folded(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// The value of a lowercase hex digit, or `nil`.
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
