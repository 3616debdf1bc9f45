import Foundation
import Mustache

/// The dashboard's templates: parsed once at start-up and cached, or re-read from `Templates/`
/// on every render when `--reload-templates` is on.
final class TemplateSource: Sendable {
    private let directory: URL
    private let cached: MustacheLibrary?

    /// Loads and parses every template under `directory`.
    /// - Throws: `MustacheError` naming the template, line and column of a parse error.
    init(directory: URL, reload: Bool) throws {
        self.directory = directory
        let library = try MustacheLibrary(directory: directory)
        cached = reload ? nil : library
    }

    /// Renders the template `name` with `data`.
    /// - Throws: `MustacheError` when the template is missing or (reload mode) does not parse.
    func render(_ name: String, _ data: TemplateData) throws -> String {
        String(decoding: try renderUTF8(name, data), as: UTF8.self)
    }

    /// Renders the template `name` with `data` straight into UTF-8 bytes, for a message body.
    /// - Throws: `MustacheError` when the template is missing or (reload mode) does not parse.
    func renderUTF8(_ name: String, _ data: TemplateData) throws -> [UInt8] {
        let library = try cached ?? MustacheLibrary(directory: directory)
        return try library.renderUTF8(name, .object(Self.withPresenceFlags(data)))
    }

    /// Adds `hasX` = "the list `x` is not empty" for every top-level list, so templates can say
    /// `{{#hasLedger}}<table>…{{/hasLedger}}{{^hasLedger}}empty{{/hasLedger}}` (Mustache has no
    /// emptiness test other than iterating).
    static func withPresenceFlags(_ data: TemplateData) -> TemplateData {
        var data = data
        for (key, value) in data {
            guard case .array(let list) = value, let first = key.first else { continue }
            data["has" + first.uppercased() + key.dropFirst()] = .bool(!list.isEmpty)
        }
        return data
    }
}
