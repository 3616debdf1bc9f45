import Foundation
import TipJar

/// The bodies that change the store settings, both read from ``StoreSettings/declarations`` (the fields, their values
/// and the messages), and both all-or-nothing (a bad body changes nothing):
/// - `PATCH /api/store`, `application/merge-patch+json` (RFC 7396, https://www.rfc-editor.org/rfc/rfc7396): the
///   members it names are set, the others kept; a member whose value is `null` goes back to its default (the value of
///   a healthy store, ``StoreSetting/defaultValue``; `"failures": null` turns every failure off).
/// - `PUT /api/store`, `application/json`: the same, except that `null` is a value, and only an optional one
///   (a failure inside `failures`) takes it, meaning off. Kept as it was for the scripts and scenario files that
///   send part of the settings (Public/api/openapi.json says so).
enum StorePatch {
    /// How `null` is read.
    enum Semantics {
        /// `PUT`: `null` is the value "off" of an optional setting, and an error for any other.
        case put
        /// `PATCH` with JSON Merge Patch: `null` removes the member, which for a setting is its default.
        case mergePatch
    }

    /// The media type of a JSON Merge Patch (RFC 7396 §4).
    static let mergePatchMediaType = "application/merge-patch+json"

    /// The top-level fields a patch may name: each declaration's first ``StoreSetting/path`` segment.
    static let fields: Set<String> = Set(StoreSettings.declarations.map { $0.path[0] })

    /// Applies a patch body to `settings`. Top-level settings are checked first, in declaration order, then each
    /// nested object (`failures`).
    /// - Throws: `RequestError` (400) naming every unknown field, else the first bad value.
    static func apply(_ body: [UInt8], to settings: StoreSettings, semantics: Semantics = .put) throws -> StoreSettings {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw RequestError(message: "The message body must be a JSON object.")
        }
        var unknown = object.keys.filter { !fields.contains($0) }
        for parent in StoreSettings.settingObjects {
            guard let members = object[parent] as? [String: Any] else { continue }
            let names = Set(StoreSettings.declarations(in: parent).map { $0.path[1] })
            unknown += members.keys.filter { !names.contains($0) }.map { "\(parent).\($0)" }
        }
        if !unknown.isEmpty {
            let names = unknown.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw RequestError(message: unknown.count == 1 ? "Unknown field \(names)." : "Unknown fields \(names).")
        }
        var settings = settings
        for declaration in StoreSettings.declarations(in: nil) {
            if let value = object[declaration.key] { try set(declaration, value, in: &settings, semantics) }
        }
        for parent in StoreSettings.settingObjects {
            guard let value = object[parent] else { continue }
            let nested = StoreSettings.declarations(in: parent)
            if semantics == .mergePatch, value is NSNull {
                for declaration in nested { declaration.set(declaration.defaultValue, in: &settings) }
                continue
            }
            guard let members = value as? [String: Any] else { throw RequestError(message: "\(parent) must be an object.") }
            for declaration in nested {
                if let value = members[declaration.path[1]] { try set(declaration, value, in: &settings, semantics) }
            }
        }
        return settings
    }

    /// Reads one JSON value (`JSONSerialization`'s) into `settings`.
    /// - Throws: `RequestError` with the declaration's rule: `… must be one of …`, `… must be a whole number from … to …`,
    ///   `… must be true or false.`
    private static func set(_ declaration: StoreSetting, _ json: Any, in settings: inout StoreSettings, _ semantics: Semantics) throws {
        let name = declaration.key
        if semantics == .mergePatch, json is NSNull {
            declaration.set(declaration.defaultValue, in: &settings)
            return
        }
        let value: StoreSetting.Value?
        switch declaration.kind {
        case .choice(let values, let optional):
            if optional, json is NSNull { value = .off } else { value = (json as? String).map(StoreSetting.Value.text) }
            guard let value, declaration.set(value, in: &settings) else {
                throw RequestError(message: "\(name) must be one of \(values.joined(separator: ", ")).")
            }
            return
        case .integer(let range, _):
            if !isBoolean(json), let number = json as? NSNumber, let int = Int(exactly: number.doubleValue) { value = .number(int) } else { value = nil }
            guard let value, declaration.set(value, in: &settings) else {
                throw RequestError(message: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound).")
            }
        case .flag:
            guard let flag = json as? Bool, isBoolean(json), declaration.set(.flag(flag), in: &settings) else {
                throw RequestError(message: "\(name) must be true or false.")
            }
        }
    }

    /// Whether a `JSONSerialization` value is a JSON boolean (not the numbers 0 or 1).
    private static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return type(of: number) == type(of: NSNumber(value: true))
    }
}
