/// An error thrown while compiling or looking up Mustache templates.
///
/// Every parse error carries the name of the template in which it occurred and the
/// 1-based line and column of the offending tag, so that a broken template can be fixed
/// without guessing. Rules: Mustache spec, "sections" (every section tag must be closed by
/// a matching End Section tag) and "delimiters" (Set Delimiter tags must hold two
/// non-empty delimiters without whitespace or `=`).
public struct MustacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The category of a ``MustacheError``.
    public enum Kind: Sendable, Equatable {
        /// A section, inverted section, parent or block was opened and never closed.
        /// The associated value is the name of the open tag.
        case unclosedSection(String)
        /// A closing tag `{{/name}}` did not match the innermost open tag.
        /// `expected` is the open tag name (nil when nothing is open), `found` the closing name.
        case mismatchedClosingTag(expected: String?, found: String)
        /// A Set Delimiter tag was malformed; the associated value is the tag content.
        case badDelimiter(String)
        /// An opening delimiter was found without its closing delimiter.
        case unclosedTag
        /// A tag that requires a name (variable, section, partial, ...) had none.
        case emptyTag
        /// ``MustacheLibrary/render(_:_:)`` was asked for a template that is not in the library.
        case templateNotFound(String)
        /// A template file could not be read while loading a library from a directory.
        case unreadableFile(String)
    }

    /// What went wrong.
    public let kind: Kind
    /// The name of the template in which the error occurred (`"template"` for the root
    /// template of a ``MustacheTemplate``; the partial or library name otherwise).
    public let templateName: String
    /// The 1-based line of the offending tag (0 when the error has no source position).
    public let line: Int
    /// The 1-based column, counted in characters, of the offending tag's opening delimiter
    /// (0 when the error has no source position).
    public let column: Int

    /// Creates an error.
    /// - Parameters:
    ///   - kind: What went wrong.
    ///   - templateName: The template in which it went wrong.
    ///   - line: 1-based line, or 0 when not applicable.
    ///   - column: 1-based column, or 0 when not applicable.
    public init(kind: Kind, templateName: String, line: Int, column: Int) {
        self.kind = kind
        self.templateName = templateName
        self.line = line
        self.column = column
    }

    /// A human-readable description such as
    /// `layout:12:5: unclosed section 'items' (missing {{/items}})`.
    public var description: String {
        let location = line > 0 ? "\(templateName):\(line):\(column)" : templateName
        switch kind {
        case .unclosedSection(let name):
            return "\(location): unclosed section '\(name)' (missing closing tag for '\(name)')"
        case .mismatchedClosingTag(let expected?, let found):
            return "\(location): mismatched closing tag '\(found)', expected closing tag for '\(expected)'"
        case .mismatchedClosingTag(nil, let found):
            return "\(location): closing tag '\(found)' has no matching opening tag"
        case .badDelimiter(let content):
            return "\(location): bad Set Delimiter tag '\(content)' (expected two delimiters without whitespace or '=')"
        case .unclosedTag:
            return "\(location): tag opened but never closed"
        case .emptyTag:
            return "\(location): tag has no name"
        case .templateNotFound(let name):
            return "template '\(name)' not found"
        case .unreadableFile(let path):
            return "\(location): cannot read template file '\(path)'"
        }
    }
}
