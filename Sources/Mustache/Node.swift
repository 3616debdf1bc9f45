/// A compiled name reference such as `person.name` or the implicit iterator `.`.
///
/// Rule: Mustache spec, "interpolation" — dotted names and implicit iterators.
struct MustachePath: Sendable {
    /// The dotted components; empty for the implicit iterator.
    let components: [String]

    init(_ name: String) {
        if name == "." {
            components = []
        } else {
            components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        }
    }
}

/// A `{{$name}}` block: an overridable parameter of a template.
///
/// Rule: Mustache spec, "~inheritance" — blocks, standalone blocks and block reindentation.
///
/// A class so that tree nodes stay small and cheap to copy while rendering.
final class MustacheBlock: Sendable {
    /// The parameter name.
    let name: String
    /// The default content (already dedented when the block is standalone).
    let children: [MustacheNode]
    /// Whether the opening tag stood alone on its line.
    let standalone: Bool
    /// Whitespace preceding the opening tag on its standalone line.
    let before: [UInt8]
    /// Indentation common to every line of the default content (removed from `children`).
    let intrinsic: [UInt8]
    /// Indentation applied to every line of the content rendered at this block's site.
    let siteIndent: [UInt8]

    init(name: String, children: [MustacheNode], standalone: Bool, before: [UInt8], intrinsic: [UInt8]) {
        self.name = name
        self.children = children
        self.standalone = standalone
        self.before = before
        self.intrinsic = intrinsic
        siteIndent = standalone ? (intrinsic.isEmpty ? before : intrinsic) : []
    }
}

/// The arguments (`{{$name}}…{{/name}}` inside `{{<parent}}…{{/parent}}`) of a parent tag.
///
/// A class so that pushing it on the render-time override stack copies only a reference.
final class MustacheBlockTable: Sendable {
    /// Argument name → content (dedented when the block was standalone).
    let blocks: [String: [MustacheNode]]

    init(_ blocks: [String: [MustacheNode]]) {
        self.blocks = blocks
    }
}

/// A node of the compiled template tree. Templates are parsed once into `[MustacheNode]`
/// and rendered by walking the tree.
enum MustacheNode: Sendable {
    /// Literal template text (UTF-8).
    case text([UInt8])
    /// The start of a source line: writes the current partial/block indentation, then the
    /// line's own leading whitespace. Rule: spec "partials", standalone indentation.
    case line([UInt8])
    /// Compacted literal text spanning several lines: `starts` are the byte offsets in
    /// `bytes` where a source line begins and the current indentation must be inserted.
    case lines([UInt8], starts: [Int])
    /// `{{name}}` (escaped) or `{{{name}}}` / `{{&name}}` (raw).
    case variable(MustachePath, escaped: Bool)
    /// `{{#name}}…{{/name}}`.
    case section(MustachePath, [MustacheNode])
    /// `{{^name}}…{{/name}}`.
    case inverted(MustachePath, [MustacheNode])
    /// `{{>name}}`; `indent` is the standalone indentation (empty when inline).
    case partial(name: String, indent: [UInt8])
    /// `{{<name}}…{{/name}}` with its block arguments.
    case parent(name: String, indent: [UInt8], arguments: MustacheBlockTable)
    /// `{{$name}}…{{/name}}`.
    case block(MustacheBlock)
}

/// One parsed template: its name and compiled tree.
struct ParsedTemplate: Sendable {
    let name: String
    let nodes: [MustacheNode]
    /// Initial output capacity to reserve when rendering.
    let sizeHint: Int
}
