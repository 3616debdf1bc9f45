import Foundation
import TipJar

/// A value of a parsed scenario file with its JSON path, so every refusal names where it happened
/// (`steps[1].expect.hearts`), as `StoreKitJSONNode` does for `.storekit` files.
struct ScenarioNode {
    let value: JSONValue
    /// `"$"` for the root, `"steps[1].install"` below it.
    let path: String
    let file: String

    func error(_ problem: String) -> ScenarioError { ScenarioError(file: file, location: path, problem: problem) }

    func path(forKey key: String) -> String { path == "$" ? key : "\(path).\(key)" }

    /// The members of this object, refusing any key outside `allowed`.
    func object(allowing allowed: Set<String>? = nil) throws(ScenarioError) -> [String: ScenarioNode] {
        guard case .object(let object) = value else { throw mismatch("an object") }
        if let allowed, let unknown = object.keys.sorted().first(where: { !allowed.contains($0) }) {
            let known = allowed.sorted().joined(separator: ", ")
            throw ScenarioError(file: file, location: path(forKey: unknown), problem: "unknown field \"\(Self.shown(unknown))\" (known here: \(known))")
        }
        var nodes: [String: ScenarioNode] = [:]
        for (key, member) in object { nodes[key] = ScenarioNode(value: member, path: path(forKey: key), file: file) }
        return nodes
    }

    func elements() throws(ScenarioError) -> [ScenarioNode] {
        guard case .array(let array) = value else { throw mismatch("an array") }
        return array.enumerated().map { ScenarioNode(value: $0.element, path: "\(path)[\($0.offset)]", file: file) }
    }

    func string(nonEmpty: Bool = true, maximumLength: Int = 200) throws(ScenarioError) -> String {
        guard case .string(let string) = value else { throw mismatch("a string") }
        if nonEmpty, string.isEmpty { throw error("expected a non-empty string") }
        if string.count > maximumLength { throw error("expected at most \(maximumLength) characters, found \(string.count)") }
        return string
    }

    func oneOf(_ choices: [String]) throws(ScenarioError) -> String {
        guard case .string(let string) = value, choices.contains(string) else {
            throw error("expected one of \(choices.joined(separator: ", ")), found \(Self.kind(of: value))")
        }
        return string
    }

    func bool() throws(ScenarioError) -> Bool {
        guard case .bool(let flag) = value else { throw mismatch("true or false") }
        return flag
    }

    func integer(in range: ClosedRange<Int>) throws(ScenarioError) -> Int {
        guard let int = value.intValue, range.contains(int) else {
            throw error("expected a whole number from \(range.lowerBound) to \(range.upperBound), found \(Self.kind(of: value))")
        }
        return int
    }

    func mismatch(_ expected: String) -> ScenarioError { error("expected \(expected), found \(Self.kind(of: value))") }

    /// A short description of a value for messages: `"the string \"two\""`, `"an array"`, `"null"`.
    static func kind(of value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .string(let string): return "the string \(shown("\"\(string)\""))"
        case .bool(let flag): return "the boolean \(flag)"
        case .number: return "the number \(shown(value.text))"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Whether a `JSONSerialization` number came from JSON `true`/`false`.
    static func isBoolean(_ number: NSNumber) -> Bool {
        ObjectIdentifier(type(of: number)) == ObjectIdentifier(type(of: NSNumber(value: true)))
    }

    /// The text, shortened to 60 characters so hostile input cannot flood a message, and escaped as `check-storekit`
    /// escapes (``Catalog/shownInput(_:limit:)``), so a control character in the file never reaches a terminal raw.
    static func shown(_ text: String) -> String { Catalog.shownInput(text, limit: 60) }
}
