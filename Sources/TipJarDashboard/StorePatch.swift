import Foundation
import TipJar

/// `PUT /api/store`: a JSON object whose present fields replace the current settings; absent
/// fields keep their value, and `null` inside `failures` turns that failure off (Public/api/openapi.json, `StorePatch`). The fields, their
/// values and the messages come from ``StoreSettings/declarations``.
enum StorePatch {
    /// The top-level fields a patch may name: each declaration's first ``StoreSetting/path`` segment.
    static let fields: Set<String> = Set(StoreSettings.declarations.map { $0.path[0] })

    /// Applies a patch body to `settings`. Top-level settings are checked first, in declaration order, then each
    /// nested object (`failures`).
    /// - Throws: `RequestError` (400) naming the first unknown field or bad value.
    static func apply(_ body: [UInt8], to settings: StoreSettings) throws -> StoreSettings {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
            throw RequestError(message: "The message body must be a JSON object.")
        }
        if let unknown = object.keys.sorted().first(where: { !fields.contains($0) }) {
            throw RequestError(message: "Unknown field \"\(unknown)\".")
        }
        var settings = settings
        for declaration in StoreSettings.declarations(in: nil) {
            if let value = object[declaration.key] { try set(declaration, value, in: &settings) }
        }
        for parent in StoreSettings.settingObjects {
            guard let value = object[parent] else { continue }
            guard let members = value as? [String: Any] else { throw RequestError(message: "\(parent) must be an object.") }
            let nested = StoreSettings.declarations(in: parent)
            let names = Set(nested.map { $0.path[1] })
            if let unknown = members.keys.sorted().first(where: { !names.contains($0) }) {
                throw RequestError(message: "Unknown field \"\(parent).\(unknown)\".")
            }
            for declaration in nested {
                if let value = members[declaration.path[1]] { try set(declaration, value, in: &settings) }
            }
        }
        return settings
    }

    /// Reads one JSON value (`JSONSerialization`'s) into `settings`.
    /// - Throws: `RequestError` with the declaration's rule: `… must be one of …`, `… must be a whole number from … to …`,
    ///   `… must be true or false.`
    private static func set(_ declaration: StoreSetting, _ json: Any, in settings: inout StoreSettings) throws {
        let name = declaration.key
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
