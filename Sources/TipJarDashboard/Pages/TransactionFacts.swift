import Foundation
import Mustache
import TipJar

/// What `/transactions/{id}` shows of one transaction, under StoreKit's property names
/// (https://developer.apple.com/documentation/storekit/transaction): each row is a `Transaction` property (or the JWS
/// payload's key, https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload, where
/// StoreKit has none), its value as Swift would print it, and what it means here. A field without a value says so in
/// words rather than leaving the row out, since "absent" is itself what a developer checks for (`appAccountToken`
/// without the purchase option, `revocationDate` while the transaction stands).
enum TransactionFacts {
    /// The status a page and the JSON API name (`Transaction` has none; the store's own bookkeeping, with `revoked`
    /// for a purchased transaction that has a `revocationDate`: StoreKit's word for a refunded transaction,
    /// https://developer.apple.com/documentation/storekit/transaction/revocationdate).
    static func status(_ stored: StoredTransaction) -> String {
        stored.status == .purchased && stored.transaction.isRevoked ? "revoked" : stored.status.rawValue
    }

    /// `Transaction.RevocationReason`'s Swift name (`.developerIssue`, `.other`).
    static func reasonName(_ reason: Transaction.RevocationReason?) -> String? { reason.map { ".\($0.rawValue)" } }

    /// The facts as rows of `name`, `value` (code), `note` (plain words).
    static func rows(_ stored: StoredTransaction, displayPrice: String?) -> MustacheValue {
        let t = stored.transaction
        var rows: [MustacheValue] = []
        func add(_ name: String, _ value: String?, _ note: String = "") {
            rows.append(["name": .string(name), "value": .string(value ?? ""), "hasValue": .bool(value != nil), "note": .string(note)])
        }
        add("id", String(t.id))
        add("originalID", String(t.originalID), t.originalID == t.id ? "a consumable's own ID" : "")
        add("productID", t.productID)
        add("productType", t.productType.map { ".\($0 == .consumable ? "consumable" : $0.rawValue)" }, t.productType == nil ? "not kept for this transaction" : "")
        add("purchaseDate", UTCTimestamp(t.purchaseDate).isoWithMilliseconds)
        add("purchasedQuantity", String(t.purchasedQuantity))
        add("price", t.price.map { "\($0)" }, displayPrice.map { "charged \($0), the total for the quantity" } ?? "not kept for this transaction")
        add("currency", t.currency, t.currency == nil ? "not kept for this transaction" : "")
        add("storefront", t.storefront, t.storefrontID.map { "storefront.id \($0)" } ?? "")
        add("ownershipType", t.ownershipType == .purchased ? ".purchased" : ".familyShared")
        add("environment", t.environment == .xcode ? ".xcode" : ".localTesting", "stamped when the store issued it")
        add("reason", t.reason == .purchase ? ".purchase" : ".renewal")
        add("signedDate", UTCTimestamp(t.signedDate).isoWithMilliseconds, "when the App Store signed the JWS")
        add("appAccountToken", t.appAccountToken?.uuidString.lowercased(), t.appAccountToken == nil ? "nil: the purchase passed no appAccountToken(_:)" : "")
        if let revoked = t.revocationDate {
            add("revocationDate", UTCTimestamp(revoked).isoWithMilliseconds, "the App Store refunded it then")
            add("revocationReason", reasonName(t.revocationReason), t.revocationReason == .developerIssue ? "an issue in the app" : "another reason")
            add("revocationType", t.revocationType?.rawValue, t.revocationType.map(kindOfRefund) ?? "")
            add("revocationPercentage", t.revocationPercentage.map { "\($0)" }, t.revocationPercentage.map { "\(percent($0)) % refunded (milliunits of a percent)" } ?? "")
        } else {
            add("revocationDate", nil, "nil: not revoked")
            add("revocationReason", nil, "nil: not revoked")
        }
        add("appTransactionID", t.appTransactionID, t.appTransactionID == nil ? "no bundle ID kept" : "the same for every transaction of the account")
        return .array(rows)
    }

    /// The page's status line: StoreKit's words, and for a revoked transaction when and why.
    static func statusLine(_ stored: StoredTransaction) -> String {
        let t = stored.transaction
        guard let revoked = t.revocationDate, stored.status == .purchased else {
            var line = stored.status.rawValue
            if stored.isExternal { line += ", bought outside the app" }
            return line
        }
        var line = "revoked \(UTCTimestamp(revoked).short) UTC"
        if let reason = reasonName(t.revocationReason) { line += ", reason \(reason)" }
        if let type = t.revocationType { line += ", \(kindOfRefund(type))" }
        if stored.isExternal { line += "; bought outside the app" }
        return line
    }

    /// The kind of refund in words, after `Transaction.RevocationType`.
    static func kindOfRefund(_ type: Transaction.RevocationType) -> String {
        switch type {
        case .fullRefund: "a full refund"
        case .proratedRefund: "a prorated refund"
        case .familyRevocation: "revoked from Family Sharing"
        }
    }

    /// Milliunits of a percent as a percentage with up to three decimals (`50000` → `50`).
    static func percent(_ milliunits: Int) -> String {
        let whole = milliunits / 1000, rest = milliunits % 1000
        guard rest != 0 else { return String(whole) }
        var decimals = String(format: "%03d", rest)
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return "\(whole).\(decimals)"
    }

    /// The decoded JWS payload, pretty-printed with sorted keys (the JWS's own order).
    static func payloadJSON(_ transaction: Transaction) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        guard let data = try? encoder.encode(APIModels.JWSTransactionPayload(transaction)) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
