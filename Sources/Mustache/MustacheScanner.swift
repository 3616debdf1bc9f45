/// The kind of a Mustache tag, determined by its sigil.
enum MustacheTagKind: Sendable, Equatable {
    case variable, unescaped, section, inverted, close, comment, partial, parent, block, delimiter

    /// Whether a tag of this kind may stand alone on a line (spec: "Standalone" rules).
    var canStandAlone: Bool { self != .variable && self != .unescaped }
}

/// One lexical token of a template.
enum MustacheToken {
    /// Literal text; a text token never contains a newline except as its last byte.
    case text(ArraySlice<UInt8>)
    /// A tag with its trimmed content and the byte offset of its opening delimiter.
    case tag(kind: MustacheTagKind, name: String, offset: Int)
}

/// Splits a template into text and tag tokens, honouring Set Delimiter tags.
///
/// Rules: Mustache spec, "interpolation" (`{{ }}`, `{{{ }}}`, `{{& }}`), "comments",
/// "delimiters" (`{{=<% %>=}}`), "sections", "inverted", "partials", "~inheritance".
struct MustacheScanner {
    let bytes: [UInt8]
    let templateName: String

    /// Tokenizes the whole template.
    /// - Returns: The tokens in source order.
    /// - Throws: ``MustacheError`` for an unclosed tag, an empty tag or a bad delimiter.
    func scan() throws -> [MustacheToken] {
        var tokens: [MustacheToken] = []
        tokens.reserveCapacity(bytes.count / 16 + 4)
        var opening: [UInt8] = Array("{{".utf8)
        var close: [UInt8] = Array("}}".utf8)
        var pos = 0
        let end = bytes.count
        while pos < end {
            guard let tagStart = find(opening, from: pos) else {
                appendText(pos..<end, to: &tokens)
                break
            }
            appendText(pos..<tagStart, to: &tokens)
            var contentStart = tagStart + opening.count
            var closer = close
            var triple = false
            if contentStart < end, bytes[contentStart] == UInt8(ascii: "{") {
                triple = true
                contentStart += 1
                closer = [UInt8(ascii: "}")] + close
            }
            guard let contentEnd = find(closer, from: contentStart) else {
                throw error(.unclosedTag, at: tagStart)
            }
            pos = contentEnd + closer.count
            var content = bytes[contentStart..<contentEnd]
            var kind = MustacheTagKind.variable
            if triple {
                kind = .unescaped
            } else if let sigil = content.first {
                switch sigil {
                case UInt8(ascii: "&"): kind = .unescaped
                case UInt8(ascii: "#"): kind = .section
                case UInt8(ascii: "^"): kind = .inverted
                case UInt8(ascii: "/"): kind = .close
                case UInt8(ascii: "!"): kind = .comment
                case UInt8(ascii: ">"): kind = .partial
                case UInt8(ascii: "<"): kind = .parent
                case UInt8(ascii: "$"): kind = .block
                case UInt8(ascii: "="): kind = .delimiter
                default: kind = .variable
                }
                if kind != .variable { content = content.dropFirst() }
            }
            switch kind {
            case .comment:
                tokens.append(.tag(kind: .comment, name: "", offset: tagStart))
            case .delimiter:
                guard content.last == UInt8(ascii: "=") else {
                    throw error(.badDelimiter(String(decoding: content, as: UTF8.self)), at: tagStart)
                }
                let parts = content.dropLast().split(whereSeparator: Self.isWhitespace)
                guard parts.count == 2, !parts.contains(where: { $0.contains(UInt8(ascii: "=")) }) else {
                    throw error(.badDelimiter(String(decoding: content, as: UTF8.self)), at: tagStart)
                }
                opening = Array(parts[0])
                close = Array(parts[1])
                tokens.append(.tag(kind: .delimiter, name: "", offset: tagStart))
            default:
                let name = String(decoding: trim(content), as: UTF8.self)
                if name.isEmpty { throw error(.emptyTag, at: tagStart) }
                tokens.append(.tag(kind: kind, name: name, offset: tagStart))
            }
        }
        return tokens
    }

    /// Appends literal text, split after every newline.
    private func appendText(_ range: Range<Int>, to tokens: inout [MustacheToken]) {
        var start = range.lowerBound
        var i = start
        while i < range.upperBound {
            if bytes[i] == UInt8(ascii: "\n") {
                tokens.append(.text(bytes[start...i]))
                start = i + 1
            }
            i += 1
        }
        if start < range.upperBound { tokens.append(.text(bytes[start..<range.upperBound])) }
    }

    /// Finds `needle` in the template at or after `from`.
    private func find(_ needle: [UInt8], from: Int) -> Int? {
        let n = needle.count
        guard n > 0, from + n <= bytes.count else { return nil }
        let first = needle[0]
        var i = from
        let last = bytes.count - n
        while i <= last {
            if bytes[i] == first {
                var j = 1
                while j < n, bytes[i + j] == needle[j] { j += 1 }
                if j == n { return i }
            }
            i += 1
        }
        return nil
    }

    private func trim(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var s = s
        while let f = s.first, Self.isWhitespace(f) { s = s.dropFirst() }
        while let l = s.last, Self.isWhitespace(l) { s = s.dropLast() }
        return s
    }

    static func isWhitespace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
    }

    /// Builds an error located at byte `offset`.
    func error(_ kind: MustacheError.Kind, at offset: Int) -> MustacheError {
        var line = 1
        var lineStart = 0
        for i in 0..<min(offset, bytes.count) where bytes[i] == UInt8(ascii: "\n") {
            line += 1
            lineStart = i + 1
        }
        let column = String(decoding: bytes[lineStart..<min(offset, bytes.count)], as: UTF8.self).count + 1
        return MustacheError(kind: kind, templateName: templateName, line: line, column: column)
    }
}
