import Foundation

/// Turns a JSONSerialization failure into a ``CatalogError`` that says where the text goes wrong, as
/// `line L, column C` (1-based; columns count characters) or `end of file (…)` for truncated files
/// (Tests/TipJarTests/Fixtures/storekit/README.md: "refused: says where the JSON ends"). Internal to the importer.
enum StoreKitJSONSyntax {
    /// The refusal for `error`, thrown by JSONSerialization while parsing `data`.
    static func catalogError(for error: any Error, data: Data, file: String) -> CatalogError {
        let bytes = [UInt8](data)
        let message = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
        guard let first = firstSignificantByte(bytes) else {
            return CatalogError(file: file, location: "end of file", problem: "the file is empty: not a StoreKit configuration file (not JSON)")
        }
        let startsLikeJSON = first.byte == UInt8(ascii: "{") || first.byte == UInt8(ascii: "[")
        let unicodeMarker = first.byte == 0 || first.byte == 0xFE || first.byte == 0xFF
        if !startsLikeJSON && !unicodeMarker {
            let head = String(decoding: bytes[first.offset...].prefix(16), as: UTF8.self)
            let plist = head.hasPrefix("<?xml") || head.hasPrefix("<plist") || head.hasPrefix("<!DOCTYPE") || head.hasPrefix("bplist")
            let scalar = "\"-0123456789tfn".utf8.contains(first.byte)
            let problem =
                plist
                ? "not a StoreKit configuration file (not JSON; it looks like a property list)"
                : scalar
                    ? "not a StoreKit configuration file (the JSON is not an object)"
                    : "not a StoreKit configuration file (not JSON)"
            return CatalogError(file: file, location: position(ofByte: first.offset, in: bytes), problem: problem)
        }
        if message.contains("end of file") || message.contains("Unexpected end") {
            if let truncated = endOfFileError(bytes, file: file) { return truncated }
            return CatalogError(file: file, location: "$", problem: "invalid JSON (JSONSerialization: \(message))")
        }
        if message.contains("not representable"), let offset = unrepresentableNumberOffset(message, bytes) {
            return CatalogError(file: file, location: position(ofByte: offset, in: bytes), problem: "invalid JSON: a number too large to represent")
        }
        guard let offset = characterOffset(in: message) else {
            return CatalogError(file: file, location: "$", problem: "invalid JSON (\(message))")
        }
        let problem: String
        if message.contains("UTF-8") || message.contains("UTF8") {
            problem = "invalid UTF-8 bytes: a StoreKit configuration file is UTF-8 JSON"
        } else if message.contains("nested") {
            problem = "the JSON is nested too deeply (JSONSerialization stops at 512 levels)"
        } else if message.contains("control character") {
            problem = "invalid JSON: an unescaped control character (such as a line break) inside a string"
        } else if message.contains("not representable") {
            problem = "invalid JSON: a number too large to represent"
        } else {
            problem = "invalid JSON: unexpected text (JSONSerialization: \(message))"
        }
        return CatalogError(file: file, location: position(ofByte: offset, in: bytes), problem: problem)
    }

    /// The refusal for JSON that stops before its containers are closed: where the content ends and what is
    /// open; `nil` when every container is closed (then the parser's "end of file" is about something else).
    static func endOfFileError(_ bytes: [UInt8], file: String) -> CatalogError? {
        var end = bytes.count
        while end > 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[end - 1]) { end -= 1 }
        var stack: [(byte: UInt8, offset: Int)] = []
        var inString = false, escaped = false
        for (offset, byte) in bytes.enumerated() {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): stack.append((byte, offset))
            case UInt8(ascii: "}"), UInt8(ascii: "]"): if !stack.isEmpty { stack.removeLast() }
            default: break
            }
        }
        guard inString || !stack.isEmpty else { return nil }
        let location = "end of file (\(position(ofByte: end, in: bytes)))"
        var problem = "the JSON ends early"
        if inString {
            problem += ", inside a string"
        } else if let innermost = stack.last {
            let objects = stack.filter { $0.byte == UInt8(ascii: "{") }.count
            let kind = innermost.byte == UInt8(ascii: "{") ? "object" : "array"
            problem +=
                ", inside an unclosed \(kind) opened at \(position(ofByte: innermost.offset, in: bytes))"
                + " (\(objects) \(objects == 1 ? "object" : "objects") and \(stack.count - objects) \(stack.count - objects == 1 ? "array" : "arrays") left open)"
        }
        return CatalogError(file: file, location: location, problem: problem + ": the file looks truncated")
    }

    /// Where the number named in "Number 1e400 is not representable in Swift." first appears as a JSON value.
    static func unrepresentableNumberOffset(_ message: String, _ bytes: [UInt8]) -> Int? {
        guard let start = message.range(of: "Number ")?.upperBound else { return nil }
        let token = Array(message[start...].prefix { !$0.isWhitespace }.utf8)
        guard !token.isEmpty, token.count <= bytes.count else { return nil }
        for offset in 0...(bytes.count - token.count) where bytes[offset..<(offset + token.count)].elementsEqual(token) {
            let before = offset == 0 ? UInt8(ascii: " ") : bytes[offset - 1]
            if [UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: ","), 0x20, 0x09, 0x0A, 0x0D].contains(before) { return offset }
        }
        return nil
    }

    /// The first byte that is not whitespace or a UTF-8 byte order mark.
    static func firstSignificantByte(_ bytes: [UInt8]) -> (byte: UInt8, offset: Int)? {
        var offset = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while offset < bytes.count {
            if ![0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { return (bytes[offset], offset) }
            offset += 1
        }
        return nil
    }

    /// The byte offset JSONSerialization reports ("… around character 14." / "… starting from character 6.").
    static func characterOffset(in message: String) -> Int? {
        guard let range = message.range(of: "character ", options: .backwards) else { return nil }
        return Int(message[range.upperBound...].prefix { $0.isNumber })
    }

    /// `"line L, column C"` for a byte offset: 1-based, the column counting characters (not bytes) from the
    /// start of the line. Offsets past the end are clamped to the end.
    static func position(ofByte offset: Int, in bytes: [UInt8]) -> String {
        let offset = max(0, min(offset, bytes.count))
        let prefix = bytes[..<offset]
        let line = prefix.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        let lineStart = (prefix.lastIndex(of: 0x0A) ?? -1) + 1
        let column = String(decoding: bytes[lineStart..<offset], as: UTF8.self).count + 1
        return "line \(line), column \(column)"
    }
}
