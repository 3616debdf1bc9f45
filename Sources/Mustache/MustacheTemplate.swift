/// A compiled Mustache template together with its partials.
///
/// The source and every partial are parsed once, at initialization; rendering walks the
/// compiled trees. Instances are immutable and `Sendable`.
///
/// ```swift
/// let template = try MustacheTemplate(source: "Hello {{name}}!", partials: [:])
/// template.render(["name": "Ada"])   // "Hello Ada!"
/// ```
///
/// Rules: Mustache spec v1.x — comments, delimiters, interpolation, inverted, partials,
/// sections and the optional `~inheritance` module (parents `{{<name}}`, blocks `{{$name}}`).
public struct MustacheTemplate: Sendable {
    /// The name used for the root template in error messages.
    public static let rootName = "template"

    private let root: ParsedTemplate
    private let templateSet: MustacheTemplateSet

    /// Compiles a template and its partials.
    /// - Parameters:
    ///   - source: The template text.
    ///   - partials: Partial (and parent) name → source; each is parsed once here.
    /// - Throws: ``MustacheError`` (unclosed section, mismatched closing tag, bad delimiter,
    ///   unclosed tag) with the template name (`"template"` for `source`, else the partial
    ///   name) and the 1-based line and column.
    public init(source: String, partials: [String: String] = [:]) throws {
        templateSet = try MustacheTemplateSet(sources: partials)
        root = try MustacheParser.parse(source: source, name: Self.rootName)
    }

    init(root: ParsedTemplate, set: MustacheTemplateSet) {
        self.root = root
        self.templateSet = set
    }

    /// Renders the template.
    ///
    /// - Parameter data: The root context: a ``MustacheValue`` (fastest), or anything
    ///   `JSONSerialization.jsonObject(with:)` returns, or native Swift `[String: Any]`,
    ///   `[Any]`, `String`, `Bool`, `Int`, `Double`, `nil`.
    /// - Returns: The rendered text. Missing names render empty; a missing partial renders
    ///   empty and is reported once on standard error (spec "partials", Failed Lookup).
    public func render(_ data: Any) -> String {
        render(value: MustacheValue(data))
    }

    /// Renders the template with a typed context, skipping the `Any` conversion.
    /// - Parameter value: The root context.
    /// - Returns: The rendered text.
    public func render(value: MustacheValue) -> String {
        String(decoding: renderUTF8(value: value), as: UTF8.self)
    }

    /// Renders the template into UTF-8 bytes, for callers that write bytes (an HTTP message
    /// body) and need no `String`: it skips building and validating one.
    /// - Parameter value: The root context.
    /// - Returns: The rendered text as UTF-8.
    public func renderUTF8(value: MustacheValue) -> [UInt8] {
        var renderer = MustacheRenderer(set: templateSet, root: value, capacity: root.sizeHint)
        renderer.render(root.nodes)
        return renderer.output
    }
}
