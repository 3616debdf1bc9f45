/// A JSON object (RFC 8259 §4) of strings and integers written straight into its bytes, its members added in the order
/// of their names' UTF-8 bytes: the text `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` writes for the
/// same members, without building its tree of values first. ``CompactJWS`` writes the payloads it makes for every
/// transaction and notification with it (two `JSONEncoder` passes were about a sixth of a notification's cost to send);
/// `SortedJSONObjectTests` holds each payload's bytes equal to `JSONEncoder`'s.
///
/// A member without a value (`nil`) is left out, as a synthesized `Encodable` conformance leaves out an absent optional.
struct SortedJSONObject {
    private(set) var bytes: [UInt8] = [UInt8(ascii: "{")]
    #if DEBUG
    private var lastName: StaticString?
    #endif

    init(capacity: Int = 512) { bytes.reserveCapacity(capacity) }

    /// The object, closed.
    var json: [UInt8] { bytes + [UInt8(ascii: "}")] }

    /// Adds the member `name` with a string value (escaped as RFC 8259 §7 requires: `"`, `\` and the controls).
    mutating func add(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        begin(name)
        Self.appendString(value, to: &bytes)
    }

    /// Adds the member `name` with an integer value.
    mutating func add(_ name: StaticString, _ value: Int64?) {
        guard let value else { return }
        begin(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Adds the member `name` with an integer value.
    mutating func add(_ name: StaticString, _ value: Int?) { add(name, value.map(Int64.init)) }

    /// Adds the member `name` with an unsigned integer value (a transaction ID: every digit, past `Int64.max` too).
    mutating func add(_ name: StaticString, _ value: UInt64?) {
        guard let value else { return }
        begin(name)
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Adds the member `name` with a nested object's bytes (a ``json`` of another object).
    mutating func add(_ name: StaticString, object: [UInt8]) {
        begin(name)
        bytes.append(contentsOf: object)
    }

    private mutating func begin(_ name: StaticString) {
        #if DEBUG
        if let lastName {
            precondition(
                lastName.withUTF8Buffer { last in name.withUTF8Buffer { last.lexicographicallyPrecedes($0) } },
                "members are added in the order of their names: \(name) after \(lastName)")
        }
        lastName = name
        #endif
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: "\":".utf8)
    }

    /// `value` as a JSON string: `"` and `\` escaped, the control characters as `\b`, `\f`, `\n`, `\r`, `\t` or `\u00XX`
    /// (lower-case hex digits), everything else as its UTF-8 bytes.
    static func appendString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        // Most values (identifiers, dates, a nested JWS) need no escape: their bytes go in at once.
        let plain = value.utf8.withContiguousStorageIfAvailable { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if plain == true {
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
            case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
            case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
            case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
            case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
            case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
            case 0x00..<0x20:
                bytes.append(contentsOf: #"\u00"#.utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The digits of `\u00XX`, lower case as `JSONEncoder` writes them.
    private static let hex = Array("0123456789abcdef".utf8)
}
