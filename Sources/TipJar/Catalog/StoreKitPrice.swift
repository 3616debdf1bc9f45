import Foundation

/// Exact parsing of a product's `displayPrice` into `Decimal` (Tests/TipJarTests/Fixtures/storekit/README.md: prices are "the
/// file's number"). Xcode writes a string of a plain decimal number (`"0.99"`, `"29"`, `"9.90"`); a JSON number
/// is also accepted. Internal to the importer.
enum StoreKitPrice {
    /// Most digits accepted before the decimal point (App Store prices stay far below 10^12 in any currency).
    static let maxIntegerDigits = 12
    /// Most digits accepted after the decimal point.
    static let maxFractionDigits = 6

    /// Parses the `displayPrice` node: a string or a non-boolean JSON number.
    /// - Throws: ``CatalogError`` at the node's path when it is another JSON type, not a plain non-negative
    ///   decimal number, or has too many digits to be exact.
    static func parse(_ node: StoreKitJSONNode) throws(CatalogError) -> Decimal {
        switch node.value {
        case let text as String:
            return try parse(text: text, shown: StoreKitJSONNode.shown("\"\(text)\""), at: node)
        case let number as NSNumber where !StoreKitJSONNode.isBoolean(number):
            if let decimal = number as? NSDecimalNumber {
                return try parse(text: decimal.description(withLocale: nil), shown: StoreKitJSONNode.shown(decimal.description), at: node)
            }
            let text = number.description
            return try parse(text: text, shown: StoreKitJSONNode.shown(text), at: node)
        default:
            throw node.mismatch("a price such as \"0.99\"")
        }
    }

    /// Parses `digits[.digits]` exactly.
    static func parse(text: String, shown: String, at node: StoreKitJSONNode) throws(CatalogError) -> Decimal {
        if text.hasPrefix("-") {
            throw node.error("displayPrice \(shown) is negative; a price is zero or more")
        }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integer = parts[0]
        let fraction = parts.count > 1 ? parts[1] : ""
        func isDigits(_ s: Substring) -> Bool { !s.isEmpty && s.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        guard isDigits(integer), parts.count == 1 || isDigits(fraction) else {
            throw node.error("displayPrice \(shown) is not a decimal number (expected digits with an optional fraction, like \"0.99\" or \"29\")")
        }
        let significantInteger = integer.drop { $0 == "0" }
        guard significantInteger.count <= maxIntegerDigits, fraction.count <= maxFractionDigits else {
            throw node.error("displayPrice \(shown) has too many digits (at most \(maxIntegerDigits) before and \(maxFractionDigits) after the decimal point)")
        }
        guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !decimal.isNaN else {
            throw node.error("displayPrice \(shown) is not a decimal number")
        }
        return decimal
    }
}
