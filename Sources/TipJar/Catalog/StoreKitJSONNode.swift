import Foundation

/// A value of a parsed JSONSerialization tree together with its JSON path, so that every refusal can name
/// where it happened (`products[1].displayPrice`; Tests/TipJarTests/Fixtures/storekit/README.md). Internal to the importer.
struct StoreKitJSONNode {
    /// The JSONSerialization value: `[String: Any]`, `[Any]`, `String`, `NSNumber`, or `NSNull`.
    let value: Any
    /// The JSON path: `"$"` for the root, `"products"`, `"products[1].displayPrice"`.
    let path: String
    /// The file name used in errors.
    let file: String

    /// An error at this node.
    func error(_ problem: String) -> CatalogError {
        CatalogError(file: file, location: path, problem: problem)
    }

    /// The path of a member of this object.
    func path(forKey key: String) -> String { path == "$" ? key : "\(path).\(key)" }

    /// The member `key` of this object; `nil` when absent or JSON `null` (optional keys Xcode may omit).
    func optionalMember(_ key: String) throws(CatalogError) -> StoreKitJSONNode? {
        let object = try self.object()
        guard let member = object[key], !(member is NSNull) else { return nil }
        return StoreKitJSONNode(value: member, path: path(forKey: key), file: file)
    }

    /// The member `key` of this object; refused when absent. A `null` member is returned (and then refused
    /// by the typed accessor with "found null").
    func requiredMember(_ key: String, why: String = "") throws(CatalogError) -> StoreKitJSONNode {
        let object = try self.object()
        guard let member = object[key] else {
            throw CatalogError(file: file, location: path(forKey: key), problem: "missing key \"\(key)\"\(why)")
        }
        return StoreKitJSONNode(value: member, path: path(forKey: key), file: file)
    }

    /// The value as an object, else refused naming the JSON type found.
    func object() throws(CatalogError) -> [String: Any] {
        guard let object = value as? [String: Any] else { throw mismatch("an object") }
        return object
    }

    /// The elements of this array as nodes (`path[0]`, `path[1]`…), else refused.
    func elements() throws(CatalogError) -> [StoreKitJSONNode] {
        guard let array = value as? [Any] else { throw mismatch("an array") }
        return array.enumerated().map { StoreKitJSONNode(value: $0.element, path: "\(path)[\($0.offset)]", file: file) }
    }

    /// The value as a string, else refused.
    func string() throws(CatalogError) -> String {
        guard let string = value as? String else { throw mismatch("a string") }
        return string
    }

    /// The value as a JSON boolean (not a number), else refused.
    func bool() throws(CatalogError) -> Bool {
        guard let number = value as? NSNumber, Self.isBoolean(number) else { throw mismatch("true or false") }
        return number.boolValue
    }

    /// The value as a whole number in -1_000_000...1_000_000 (format version numbers), else refused.
    func smallInt() throws(CatalogError) -> Int {
        guard let number = value as? NSNumber, !Self.isBoolean(number) else { throw mismatch("a whole number") }
        let double = number.doubleValue
        guard double.isFinite, double == double.rounded(), abs(double) <= 1_000_000 else {
            throw error("expected a small whole number, found \(Self.shown(number.description))")
        }
        return Int(double)
    }

    /// A "expected X, found Y" refusal.
    func mismatch(_ expected: String) -> CatalogError {
        error("expected \(expected), found \(Self.kind(of: value))")
    }

    /// A short description of a JSON value's type for messages: `"an array"`, `"the number 42"`, `"null"`.
    static func kind(of value: Any) -> String {
        switch value {
        case is NSNull: return "null"
        case let string as String: return "the string \(shown("\"\(string)\""))"
        case let number as NSNumber: return isBoolean(number) ? "the boolean \(number.boolValue)" : "the number \(shown(number.description))"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        default: return "an unsupported value"
        }
    }

    /// Whether a JSONSerialization number came from JSON `true`/`false` (its class is the boolean class).
    static func isBoolean(_ number: NSNumber) -> Bool {
        ObjectIdentifier(type(of: number)) == ObjectIdentifier(type(of: NSNumber(value: true)))
    }

    /// The text for a message that quotes input (``Catalog/shownInput(_:limit:)``).
    static func shown(_ text: String) -> String { Catalog.shownInput(text) }
}
