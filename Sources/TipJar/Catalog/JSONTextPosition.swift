import Foundation

/// Where a JSON text stops parsing, in the words `check-storekit` uses: `line L, column C`
/// (1-based; columns count characters), or `end of file (line L, column C)` for a text that stops
/// before its containers close. For other JSON file formats (scenario files) that want the same
/// locations as a `.storekit` refusal.
public enum JSONTextPosition {
    /// The location of the syntax error `error`, thrown by `JSONSerialization` while parsing `data`,
    /// and a plain description of it.
    /// - Parameters:
    ///   - error: What `JSONSerialization.jsonObject(with:)` threw.
    ///   - data: The text it was parsing.
    /// - Returns: `(location, problem)`, e.g. `("line 3, column 9", "invalid JSON: unexpected text …")`.
    public static func syntaxError(_ error: any Error, in data: Data) -> (location: String, problem: String) {
        let refusal = StoreKitJSONSyntax.catalogError(for: error, data: data, file: "")
        let problem = refusal.problem.replacingOccurrences(of: "not a StoreKit configuration file", with: "not a JSON object")
            .replacingOccurrences(of: "a StoreKit configuration file is UTF-8 JSON", with: "the file must be UTF-8 JSON")
        return (refusal.location, problem)
    }
}
