import Foundation

/// A named set of parsed templates that partials and parents resolve against.
///
/// Immutable after construction except for the missing-partial log, which only records which
/// missing names were already reported. Rule: Mustache spec "partials" — a missing partial
/// renders as the empty string.
final class MustacheTemplateSet: Sendable {
    /// Template name → parsed template.
    let templates: [String: ParsedTemplate]
    private let missingLog = MissingPartialLog()

    /// Parses every source once.
    /// - Parameter sources: Template name → source text.
    /// - Throws: ``MustacheError`` naming the template, line and column of a parse error.
    init(sources: [String: String]) throws {
        var templates: [String: ParsedTemplate] = [:]
        templates.reserveCapacity(sources.count)
        for name in sources.keys.sorted() {
            templates[name] = try MustacheParser.parse(source: sources[name]!, name: name)
        }
        self.templates = templates
    }

    /// Logs a missing partial to standard error, once per name for this set.
    func reportMissing(_ name: String) {
        guard missingLog.insert(name) else { return }
        // `write(contentsOf:)` throws where `write(_:)` would trap on a reader that went away (EPIPE).
        try? FileHandle.standardError.write(contentsOf: Data("Mustache: partial '\(name)' not found; rendering it as empty\n".utf8))
    }
}

/// The set of missing partial names already reported.
final class MissingPartialLog: @unchecked Sendable {
    // @unchecked: `names` is only read and written while holding `lock`.
    private let lock = NSLock()
    private var names: Set<String> = []

    /// Records `name`; returns true when it had not been recorded before.
    func insert(_ name: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return names.insert(name).inserted
    }
}
