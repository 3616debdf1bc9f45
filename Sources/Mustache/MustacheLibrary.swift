import Foundation

/// An immutable collection of named templates that reference each other as partials and
/// parents, each parsed exactly once when the library is built.
///
/// Names are plain strings such as `layout` or `pages/install`; `{{>partials/tile}}` and
/// `{{<layout}}` resolve to other templates of the same library. Rule: Mustache spec
/// "partials" and "~inheritance" — partials and parents share one namespace.
public struct MustacheLibrary: Sendable {
    private let templateSet: MustacheTemplateSet

    /// Builds a library from sources.
    /// - Parameter templates: Template name → Mustache source.
    /// - Throws: ``MustacheError`` with the template name, line and column of the first
    ///   parse error (templates are parsed in name order).
    public init(templates: [String: String]) throws {
        templateSet = try MustacheTemplateSet(sources: templates)
    }

    /// Loads every `*.mustache` file below `directory`, recursively.
    ///
    /// A file's template name is its path relative to `directory` without the extension,
    /// using `/` as separator: `pages/install.mustache` → `pages/install`.
    /// - Parameter directory: The root folder of the templates.
    /// - Throws: ``MustacheError`` with kind `.unreadableFile` when a file cannot be read as
    ///   UTF-8, or a parse error with the template name, line and column.
    public init(directory: URL) throws {
        let root = directory.standardizedFileURL.resolvingSymlinksInPath()
        let rootComponents = root.pathComponents
        var sources: [String: String] = [:]
        let keys: [URLResourceKey] = [.isRegularFileKey]
        if let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: keys) {
            for case let url as URL in enumerator where url.pathExtension == "mustache" {
                let file = url.standardizedFileURL.resolvingSymlinksInPath()
                guard (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
                let relative = file.deletingPathExtension().pathComponents.dropFirst(rootComponents.count)
                let name = relative.joined(separator: "/")
                guard let data = FileManager.default.contents(atPath: file.path),
                    let source = String(data: data, encoding: .utf8)
                else {
                    throw MustacheError(kind: .unreadableFile(file.path), templateName: name, line: 0, column: 0)
                }
                sources[name] = source
            }
        }
        templateSet = try MustacheTemplateSet(sources: sources)
    }

    /// The names of all templates, sorted.
    public var templateNames: [String] { templateSet.templates.keys.sorted() }

    /// Returns the named template as a standalone ``MustacheTemplate`` sharing this
    /// library's partials, or nil when absent.
    /// - Parameter name: The template name, e.g. `pages/install`.
    /// - Returns: The template, or nil.
    public func template(named name: String) -> MustacheTemplate? {
        templateSet.templates[name].map { MustacheTemplate(root: $0, set: templateSet) }
    }

    /// Renders the named template.
    /// - Parameters:
    ///   - name: The template name, e.g. `pages/install`.
    ///   - data: The root context (see ``MustacheTemplate/render(_:)``).
    /// - Returns: The rendered text.
    /// - Throws: ``MustacheError`` with kind `.templateNotFound` when `name` is not in the library.
    public func render(_ name: String, _ data: Any) throws -> String {
        try template(required: name).render(data)
    }

    /// Renders the named template into UTF-8 bytes (see ``MustacheTemplate/renderUTF8(value:)``).
    /// - Parameters:
    ///   - name: The template name.
    ///   - value: The root context.
    /// - Returns: The rendered text as UTF-8.
    /// - Throws: ``MustacheError`` with kind `.templateNotFound` when `name` is not in the library.
    public func renderUTF8(_ name: String, _ value: MustacheValue) throws -> [UInt8] {
        try template(required: name).renderUTF8(value: value)
    }

    private func template(required name: String) throws -> MustacheTemplate {
        guard let template = template(named: name) else {
            throw MustacheError(kind: .templateNotFound(name), templateName: name, line: 0, column: 0)
        }
        return template
    }
}
