import Foundation

/// A JSON value as a Sendable Swift value (RFC 8259, section 3), for scenario steps whose fields
/// are passed through to the JSON API as they are written.
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number (JSON has one number type; whole numbers stay exact up to 2^53).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; member order is not significant (RFC 8259, section 4).
    case object([String: JSONValue])

    /// Converts a `JSONSerialization` tree (`NSNull`, `NSNumber`, `String`, arrays, dictionaries).
    public init(serialized value: Any) {
        switch value {
        case let string as String: self = .string(string)
        case let number as NSNumber:
            self = ScenarioNode.isBoolean(number) ? .bool(number.boolValue) : .number(number.doubleValue)
        case let array as [Any]: self = .array(array.map(JSONValue.init(serialized:)))
        case let object as [String: Any]: self = .object(object.mapValues(JSONValue.init(serialized:)))
        default: self = .null
        }
    }

    /// Parses UTF-8 JSON text (any value at the top level).
    /// - Throws: The `JSONSerialization` error for text that is not JSON.
    public init(parsing data: Data) throws {
        self.init(serialized: try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    /// The value as a `JSONSerialization` tree, for encoding.
    public var serialized: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .number(let number): return number == number.rounded() && abs(number) < 9e15 ? Int(number) as Any : number
        case .string(let string): return string
        case .array(let array): return array.map(\.serialized)
        case .object(let object): return object.mapValues(\.serialized)
        }
    }

    /// Compact JSON text with sorted keys and unescaped slashes.
    public var text: String {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: serialized,
                options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The member `key` of an object, else `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The string, else `nil`.
    public var stringValue: String? { if case .string(let string) = self { return string } else { return nil } }
    /// The whole number, else `nil`.
    public var intValue: Int? {
        if case .number(let number) = self, number == number.rounded(), abs(number) < 9e15 { return Int(number) }
        return nil
    }
    /// The boolean, else `nil`.
    public var boolValue: Bool? { if case .bool(let flag) = self { return flag } else { return nil } }
    /// The elements of an array, else `nil`.
    public var arrayValue: [JSONValue]? { if case .array(let array) = self { return array } else { return nil } }
}
