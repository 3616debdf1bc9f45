/// Walks a compiled template tree against a context stack, writing UTF-8 into a buffer.
///
/// Rules: Mustache spec — "interpolation" (context-stack lookup, dotted names, implicit
/// iterator, HTML escaping), "sections", "inverted", "partials" (standalone indentation),
/// "~inheritance" (parent arguments override blocks; the outermost argument wins).
struct MustacheRenderer {
    private(set) var output: [UInt8]
    private var stack: [MustacheValue]
    private var indents: [[UInt8]] = []
    private var overrides: [MustacheBlockTable] = []
    private var depth = 0
    private let templateSet: MustacheTemplateSet

    /// Maximum nesting of partials and parents; deeper recursion renders nothing.
    private static let maxDepth = 256

    /// Creates a renderer.
    /// - Parameters:
    ///   - set: The templates partials and parents resolve against.
    ///   - root: The initial context.
    ///   - capacity: Bytes to reserve for the output.
    init(set: MustacheTemplateSet, root: MustacheValue, capacity: Int) {
        self.templateSet = set
        output = []
        output.reserveCapacity(capacity)
        stack = [root]
        stack.reserveCapacity(16)
    }

    /// Renders `nodes` into ``output``.
    mutating func render(_ nodes: [MustacheNode]) {
        for node in nodes {
            switch node {
            case .text(let bytes):
                output.append(contentsOf: bytes)
            case .lines(let bytes, let starts):
                if indents.isEmpty {
                    output.append(contentsOf: bytes)
                } else {
                    var previous = 0
                    for start in starts {
                        output.append(contentsOf: bytes[previous..<start])
                        for indent in indents { output.append(contentsOf: indent) }
                        previous = start
                    }
                    output.append(contentsOf: bytes[previous...])
                }
            case .line(let ws):
                for indent in indents { output.append(contentsOf: indent) }
                output.append(contentsOf: ws)
            case .variable(let path, let escaped):
                if let value = lookup(path) { write(value, escaped: escaped) }
            case .section(let path, let children):
                guard let value = lookup(path) else { continue }
                switch value {
                case .array(let items):
                    for item in items {
                        stack.append(item)
                        render(children)
                        stack.removeLast()
                    }
                case .null, .bool(false):
                    continue
                default:
                    stack.append(value)
                    render(children)
                    stack.removeLast()
                }
            case .inverted(let path, let children):
                if !(lookup(path)?.isTruthy ?? false) { render(children) }
            case .partial(let name, let indent):
                include(name, indent: indent)
            case .parent(let name, let indent, let arguments):
                overrides.append(arguments)
                include(name, indent: indent)
                overrides.removeLast()
            case .block(let block):
                let content = argument(named: block.name) ?? block.children
                let indent = block.siteIndent
                if indent.isEmpty {
                    render(content)
                } else {
                    indents.append(indent)
                    render(content)
                    indents.removeLast()
                }
            }
        }
    }

    /// Renders the named template in place (partial or parent), indented when standalone.
    private mutating func include(_ name: String, indent: [UInt8]) {
        guard let template = templateSet.templates[name] else {
            templateSet.reportMissing(name)
            return
        }
        guard depth < Self.maxDepth else { return }
        depth += 1
        if indent.isEmpty {
            render(template.nodes)
        } else {
            indents.append(indent)
            render(template.nodes)
            indents.removeLast()
        }
        depth -= 1
    }

    /// The outermost parent argument for block `name`, if any.
    private func argument(named name: String) -> [MustacheNode]? {
        for table in overrides {
            if let content = table.blocks[name] { return content }
        }
        return nil
    }

    /// Resolves a name against the context stack (spec "interpolation", dotted names: the
    /// first component is searched up the stack, the rest only inside what it found).
    private func lookup(_ path: MustachePath) -> MustacheValue? {
        let components = path.components
        guard let first = components.first else { return stack.last }
        var found: MustacheValue?
        var i = stack.count - 1
        while i >= 0 {
            if case .object(let object) = stack[i], let value = object[first] {
                found = value
                break
            }
            i -= 1
        }
        guard var current = found else { return nil }
        var index = 1
        while index < components.count {
            guard case .object(let object) = current, let value = object[components[index]] else { return nil }
            current = value
            index += 1
        }
        return current
    }

    private mutating func write(_ value: MustacheValue, escaped: Bool) {
        switch value {
        case .null, .object, .array:
            return
        case .string(let string):
            if escaped { MustacheEscaping.appendEscaped(string, to: &output) } else { output.append(contentsOf: string.utf8) }
        case .text(let string):
            if escaped { MustacheEscaping.appendEscaped(string, apostrophe: false, to: &output) } else { output.append(contentsOf: string.utf8) }
        case .int(let int):
            MustacheEscaping.appendInt(int, to: &output)
        case .double(let double):
            if double.rounded() == double, abs(double) < 1e15 {
                MustacheEscaping.appendInt(Int(double), to: &output)
            } else {
                output.append(contentsOf: double.description.utf8)
            }
        case .bool(let bool):
            output.append(contentsOf: (bool ? "true" : "false").utf8)
        }
    }
}

/// HTML escaping and number formatting into UTF-8 buffers.
///
/// Rule: Mustache spec "interpolation" — `{{name}}` HTML-escapes `&`, `<`, `>` and `"`;
/// this library also escapes `'` as `&#39;`.
enum MustacheEscaping {
    /// Appends `string` with `& < > " '` replaced by their HTML entities (`'` only when `apostrophe`).
    /// - Parameters:
    ///   - string: The text to escape.
    ///   - apostrophe: Whether `'` is escaped too (``MustacheValue/text(_:)`` leaves it).
    ///   - output: The buffer to append to.
    static func appendEscaped(_ string: String, apostrophe: Bool = true, to output: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in
            var start = 0
            for i in 0..<bytes.count {
                let entity: StaticString
                switch bytes[i] {
                case UInt8(ascii: "&"): entity = "&amp;"
                case UInt8(ascii: "<"): entity = "&lt;"
                case UInt8(ascii: ">"): entity = "&gt;"
                case UInt8(ascii: "\""): entity = "&quot;"
                case UInt8(ascii: "'") where apostrophe: entity = "&#39;"
                default: continue
                }
                if start < i { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i])) }
                output.append(contentsOf: UnsafeBufferPointer(start: entity.utf8Start, count: entity.utf8CodeUnitCount))
                start = i + 1
            }
            if start < bytes.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<bytes.count])) }
        }
    }

    /// Appends the decimal digits of `value`.
    /// - Parameters:
    ///   - value: The integer.
    ///   - output: The buffer to append to.
    static func appendInt(_ value: Int, to output: inout [UInt8]) {
        if value == Int.min {
            output.append(contentsOf: String(value).utf8)
            return
        }
        var magnitude = value < 0 ? -value : value
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[23 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(24 - count)...]))
        }
    }
}
