/// Block reindentation helpers.
///
/// Rule: Mustache spec "~inheritance", Block reindentation / Intrinsic indentation /
/// Nested block reindentation — the indentation common to a standalone block's lines is
/// removed where the block is defined and the expansion site's indentation is added.
enum MustacheIndentation {
    /// The smallest indentation of any non-blank line in `nodes` (nil when there is none).
    static func commonIndent(_ nodes: [MustacheNode]) -> Int? {
        var result: Int?
        func note(_ n: Int) { result = min(result ?? n, n) }
        for (i, node) in nodes.enumerated() {
            switch node {
            case .line(let ws):
                if !isBlankLine(after: i, in: nodes) { note(ws.count) }
            case .section(_, let children), .inverted(_, let children):
                if let k = commonIndent(children) { note(k) }
            case .block(let block) where block.standalone:
                note(block.before.count)
                if !block.intrinsic.isEmpty { note(block.intrinsic.count) }
            case .partial(_, let indent) where !indent.isEmpty:
                note(indent.count)
            case .parent(_, let indent, _) where !indent.isEmpty:
                note(indent.count)
            default:
                break
            }
        }
        return result
    }

    /// The first `length` whitespace bytes of the first sufficiently indented line.
    static func prefix(of nodes: [MustacheNode], length: Int) -> [UInt8] {
        for node in nodes {
            if case .line(let ws) = node, ws.count >= length { return Array(ws.prefix(length)) }
        }
        return [UInt8](repeating: 0x20, count: length)
    }

    /// Removes up to `k` bytes of leading indentation from every line in `nodes`.
    static func dedent(_ nodes: [MustacheNode], by k: Int) -> [MustacheNode] {
        nodes.map { node in
            switch node {
            case .line(let ws):
                return .line(Array(ws.dropFirst(k)))
            case .section(let path, let children):
                return .section(path, dedent(children, by: k))
            case .inverted(let path, let children):
                return .inverted(path, dedent(children, by: k))
            case .block(let block):
                return .block(
                    MustacheBlock(
                        name: block.name, children: block.children, standalone: block.standalone,
                        before: Array(block.before.dropFirst(k)),
                        intrinsic: Array(block.intrinsic.dropFirst(k))))
            case .partial(let name, let indent):
                return .partial(name: name, indent: Array(indent.dropFirst(k)))
            case .parent(let name, let indent, let arguments):
                return .parent(name: name, indent: Array(indent.dropFirst(k)), arguments: arguments)
            default:
                return node
            }
        }
    }

    private static func isBlankLine(after index: Int, in nodes: [MustacheNode]) -> Bool {
        guard index + 1 < nodes.count else { return true }
        switch nodes[index + 1] {
        case .text(let t):
            return t.first == UInt8(ascii: "\n") || (t.first == UInt8(ascii: "\r") && t.count > 1 && t[1] == UInt8(ascii: "\n"))
        case .line:
            return true
        default:
            return false
        }
    }

    /// Merges runs of `.text` and `.line` nodes into single `.text` / `.lines` nodes so that
    /// rendering without indentation appends each run with one copy. Applied once, after
    /// parsing and block dedenting.
    static func compact(_ nodes: [MustacheNode]) -> [MustacheNode] {
        var result: [MustacheNode] = []
        var bytes: [UInt8] = []
        var starts: [Int] = []
        var pending = false
        func flush() {
            guard pending else { return }
            result.append(starts.isEmpty ? .text(bytes) : .lines(bytes, starts: starts))
            bytes = []
            starts = []
            pending = false
        }
        for node in nodes {
            switch node {
            case .text(let t):
                bytes.append(contentsOf: t)
                pending = true
            case .line(let ws):
                starts.append(bytes.count)
                bytes.append(contentsOf: ws)
                pending = true
            case .lines(let t, let s):
                starts.append(contentsOf: s.map { $0 + bytes.count })
                bytes.append(contentsOf: t)
                pending = true
            case .section(let path, let children):
                flush()
                result.append(.section(path, compact(children)))
            case .inverted(let path, let children):
                flush()
                result.append(.inverted(path, compact(children)))
            case .block(let block):
                flush()
                result.append(
                    .block(
                        MustacheBlock(
                            name: block.name, children: compact(block.children),
                            standalone: block.standalone, before: block.before,
                            intrinsic: block.intrinsic)))
            case .parent(let name, let indent, let arguments):
                flush()
                let table = MustacheBlockTable(arguments.blocks.mapValues { compact($0) })
                result.append(.parent(name: name, indent: indent, arguments: table))
            default:
                flush()
                result.append(node)
            }
        }
        flush()
        return result
    }
}
