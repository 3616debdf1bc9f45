import Foundation

/// Compiles template source into a ``MustacheNode`` tree, applying the standalone-line rules.
///
/// Rules: Mustache spec — "Standalone" lines for sections, inverted sections, comments,
/// partials, Set Delimiter, parent and block tags (whitespace-only lines holding only such
/// tags are removed from the output); "partials" and "~inheritance" standalone indentation.
struct MustacheParser {
    private let scanner: MustacheScanner
    private var frames: [Frame]

    private struct Frame {
        var kind: MustacheTagKind
        var name: String
        var offset: Int
        var standalone: Bool
        var before: [UInt8]
        var nodes: [MustacheNode] = []
    }

    /// Parses one template.
    /// - Parameters:
    ///   - source: The template text.
    ///   - name: The template name used in error messages.
    /// - Returns: The compiled template.
    /// - Throws: ``MustacheError`` with the template name, line and column of the bad tag.
    static func parse(source: String, name: String) throws -> ParsedTemplate {
        ParseInstrumentation.counter?.increment()
        var parser = MustacheParser(scanner: MustacheScanner(bytes: Array(source.utf8), templateName: name))
        let nodes = try parser.run()
        return ParsedTemplate(name: name, nodes: nodes, sizeHint: source.utf8.count + 256)
    }

    private init(scanner: MustacheScanner) {
        self.scanner = scanner
        frames = [Frame(kind: .section, name: "", offset: 0, standalone: false, before: [])]
    }

    private mutating func run() throws -> [MustacheNode] {
        let tokens = try scanner.scan()
        var line: [MustacheToken] = []
        for token in tokens {
            line.append(token)
            if case .text(let t) = token, t.last == UInt8(ascii: "\n") {
                try processLine(line)
                line.removeAll(keepingCapacity: true)
            }
        }
        if !line.isEmpty { try processLine(line) }
        if frames.count > 1, let top = frames.last {
            throw scanner.error(.unclosedSection(top.name), at: top.offset)
        }
        return MustacheIndentation.compact(frames[0].nodes)
    }

    /// Handles one source line: either a standalone line (tags only, whitespace dropped) or
    /// an ordinary line preceded by a `.line` marker carrying its leading whitespace.
    private mutating func processLine(_ line: [MustacheToken]) throws {
        var tagKinds: [MustacheTagKind] = []
        var onlyWhitespace = true
        for token in line {
            switch token {
            case .text(let t):
                if !t.allSatisfy(MustacheScanner.isWhitespace) { onlyWhitespace = false }
            case .tag(let kind, _, _):
                tagKinds.append(kind)
                if !kind.canStandAlone { onlyWhitespace = false }
            }
        }
        let standalone =
            onlyWhitespace && !tagKinds.isEmpty
            && (tagKinds.count == 1 || !tagKinds.contains(.partial))
        if standalone {
            var before: [UInt8] = []
            for token in line {
                guard case .text(let t) = token else { break }
                before.append(contentsOf: t.filter { $0 == 0x20 || $0 == 0x09 })
            }
            for token in line {
                if case .tag(let kind, let name, let offset) = token {
                    try handle(kind: kind, name: name, offset: offset, standalone: true, before: before)
                }
            }
            // Spec "~inheritance", Standalone block: `{{$b}}{{/b}}` alone on a line keeps its newline.
            if tagKinds == [.block, .close], case .text(let t)? = line.last, t.last == UInt8(ascii: "\n") {
                let hasCR = t.count >= 2 && t[t.endIndex - 2] == UInt8(ascii: "\r")
                appendText(hasCR ? [0x0D, 0x0A] : [0x0A])
            }
            return
        }
        var first = true
        for token in line {
            switch token {
            case .text(let t):
                if first {
                    let ws = t.prefix { $0 == 0x20 || $0 == 0x09 }
                    current.append(.line(Array(ws)))
                    let rest = t.dropFirst(ws.count)
                    if !rest.isEmpty { appendText(rest) }
                } else {
                    appendText(t)
                }
            case .tag(let kind, let name, let offset):
                if first { current.append(.line([])) }
                try handle(kind: kind, name: name, offset: offset, standalone: false, before: [])
            }
            first = false
        }
    }

    private var current: [MustacheNode] {
        get { frames[frames.count - 1].nodes }
        _modify { yield &frames[frames.count - 1].nodes }
    }

    private mutating func appendText<C: Collection>(_ t: C) where C.Element == UInt8 {
        if case .text(var previous)? = current.last {
            current.removeLast()
            previous.append(contentsOf: t)
            current.append(.text(previous))
        } else {
            current.append(.text(Array(t)))
        }
    }

    private mutating func handle(
        kind: MustacheTagKind, name: String, offset: Int,
        standalone: Bool, before: [UInt8]
    ) throws {
        switch kind {
        case .variable, .unescaped:
            current.append(.variable(MustachePath(name), escaped: kind == .variable))
        case .section, .inverted, .parent, .block:
            frames.append(Frame(kind: kind, name: name, offset: offset, standalone: standalone, before: before))
        case .partial:
            current.append(.partial(name: name, indent: standalone ? before : []))
        case .comment, .delimiter:
            break
        case .close:
            guard frames.count > 1, let top = frames.last else {
                throw scanner.error(.mismatchedClosingTag(expected: nil, found: name), at: offset)
            }
            guard top.name == name else {
                throw scanner.error(.mismatchedClosingTag(expected: top.name, found: name), at: offset)
            }
            frames.removeLast()
            current.append(Self.close(top))
        }
    }

    /// Builds the node for a closed frame.
    private static func close(_ frame: Frame) -> MustacheNode {
        switch frame.kind {
        case .inverted:
            return .inverted(MustachePath(frame.name), frame.nodes)
        case .parent:
            var arguments: [String: [MustacheNode]] = [:]
            for case .block(let block) in frame.nodes where arguments[block.name] == nil {
                arguments[block.name] = block.children
            }
            return .parent(
                name: frame.name, indent: frame.standalone ? frame.before : [],
                arguments: MustacheBlockTable(arguments))
        case .block:
            var children = frame.nodes
            var intrinsic: [UInt8] = []
            if frame.standalone, let k = MustacheIndentation.commonIndent(children), k > 0 {
                intrinsic = MustacheIndentation.prefix(of: children, length: k)
                children = MustacheIndentation.dedent(children, by: k)
            }
            return .block(
                MustacheBlock(
                    name: frame.name, children: children, standalone: frame.standalone,
                    before: frame.before, intrinsic: intrinsic))
        default:
            return .section(MustachePath(frame.name), frame.nodes)
        }
    }
}

/// Counts template parses; installed as a task-local by tests to prove parse-once behaviour.
final class ParseCounter: @unchecked Sendable {
    // @unchecked: the only mutable state, `value`, is guarded by `lock`.
    private let lock = NSLock()
    private var value = 0

    func increment() {
        lock.lock()
        value += 1
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// Task-local parse instrumentation (nil outside tests).
enum ParseInstrumentation {
    @TaskLocal static var counter: ParseCounter?
}
