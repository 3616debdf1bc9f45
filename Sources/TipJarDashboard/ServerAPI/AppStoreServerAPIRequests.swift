import Foundation
import HTTPServer
import TipJar
import TipJarScenario

/// What the App Store Server API routes read from a request (``AppStoreServerAPIController``): the history query and
/// its revision, and the consumption request bodies, each refused with Apple's error for its field.
enum AppStoreServerAPIRequests {
    /// Get Transaction History v2's query (https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history).
    struct HistoryQuery {
        var startDate: Int64?
        var endDate: Int64?
        var productIDs: [String] = []
        var productTypes: [ProductType] = []
        var descending = false
        var revoked: Bool?
        var ownershipType: String?
        var subscriptionGroups: [String] = []
        var revision: Position?

        /// Reads the query.
        /// - Throws: ``AppStoreServerAPIError`` for a value Apple refuses, with Apple's code for that parameter.
        init(_ request: HTTPRequest) throws(AppStoreServerAPIError) {
            let items = request.queryItems
            func all(_ name: String) -> [String] { items.filter { $0.name == name }.map(\.value) }
            if let text = all("startDate").first {
                guard let value = Int64(text), value >= 0 else { throw .invalidStartDate }
                startDate = value
            }
            if let text = all("endDate").first {
                guard let value = Int64(text), value >= 0 else { throw .invalidEndDate }
                endDate = value
            }
            if let startDate, let endDate, startDate >= endDate { throw .startDateAfterEndDate }
            productIDs = all("productId")
            if productIDs.contains(where: \.isEmpty) { throw .invalidProductID }
            for text in all("productType") {
                guard let type = Self.productTypes[text] else { throw .invalidProductType }
                productTypes.append(type)
            }
            if let text = all("sort").first {
                switch text {
                case "ASCENDING": descending = false
                case "DESCENDING": descending = true
                default: throw .invalidSort
                }
            }
            // Case ignored: Apple's App Store Server Library sends Python's `str(True)`, `True`.
            if let text = all("revoked").first {
                switch text.lowercased() {
                case "true": revoked = true
                case "false": revoked = false
                default: throw .invalidRevoked
                }
            }
            if let text = all("inAppOwnershipType").first {
                guard text == "PURCHASED" || text == "FAMILY_SHARED" else { throw .invalidInAppOwnershipType }
                ownershipType = text
            }
            subscriptionGroups = all("subscriptionGroupIdentifier")
            revision = try Position(revision: request.queryValue("revision"))
        }

        /// The `productType` values (https://developer.apple.com/documentation/appstoreserverapi/producttype).
        static let productTypes: [String: ProductType] = [
            "CONSUMABLE": .consumable, "NON_CONSUMABLE": .nonConsumable, "AUTO_RENEWABLE": .autoRenewable, "NON_RENEWABLE": .nonRenewingSubscription,
        ]
    }

    /// Where a page ended: the sort key of its last transaction (milliseconds, then ID). The `revision` token is it,
    /// base64url-encoded (`<milliseconds>.<id>`): the next page starts after it (keyset paging,
    /// ``ServerAPIHistoryQuery/after``), so a transaction added meanwhile neither repeats nor skips one already
    /// answered, and a refunded one moves to its new place. Apple's revision is opaque; so should this be to a client.
    struct Position: Equatable {
        var milliseconds: Int64
        var id: UInt64

        init(milliseconds: Int64, id: UInt64) {
            self.milliseconds = milliseconds
            self.id = id
        }

        /// The position a `revision` names; `nil` without one.
        /// - Throws: `InvalidRequestRevisionError` for a token this server did not write.
        init?(revision: String?) throws(AppStoreServerAPIError) {
            guard let revision else { return nil }
            guard let data = CompactJWS.decodeBase64URL(Substring(revision)), let text = String(data: data, encoding: .utf8) else { throw .invalidRevision }
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let milliseconds = Int64(parts[0]), let id = UInt64(parts[1]) else { throw .invalidRevision }
            self.init(milliseconds: milliseconds, id: id)
        }

        var revision: String { CompactJWS.base64URL(Data("\(milliseconds).\(id)".utf8)) }
    }

    /// The body of a consumption request as a JSON object.
    /// - Throws: `GeneralBadRequestError` when it is not one.
    static func object(_ body: [UInt8]) throws(AppStoreServerAPIError) -> [String: JSONValue] {
        guard case .object(let object)? = try? JSONValue(parsing: Data(body)) else {
            throw .generalBadRequest("Invalid request. The body must be a JSON object.")
        }
        return object
    }

    /// Send Consumption Information v1's body (`ConsumptionRequestV1`,
    /// https://developer.apple.com/documentation/appstoreserverapi/consumptionrequestv1): every field Apple lists as
    /// required, each of its type and range, `customerConsented` true; `refundPreference` optional.
    /// - Throws: ``AppStoreServerAPIError`` with the field's code.
    static func checkConsumptionV1(_ body: [String: JSONValue]) throws(AppStoreServerAPIError) {
        try checkMembers(body, of: "ConsumptionRequestV1", in: consumptionV1Fields)
        guard body["customerConsented"] == .bool(true) else { throw .invalidField(4_000_035, "customerConsented", "true (the customer consented)") }
        let ranges: [(String, Int, ClosedRange<Int>)] = [
            ("consumptionStatus", 4_000_034, 0...3), ("platform", 4_000_039, 0...2), ("deliveryStatus", 4_000_036, 0...5),
            ("accountTenure", 4_000_032, 0...7), ("playTime", 4_000_040, 0...7), ("lifetimeDollarsRefunded", 4_000_038, 0...7),
            ("lifetimeDollarsPurchased", 4_000_037, 0...7), ("userStatus", 4_000_042, 0...4),
        ]
        for (field, code, range) in ranges where !isInteger(body[field], in: range) {
            throw .invalidField(code, field, "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        guard case .bool? = body["sampleContentProvided"] else { throw .invalidField(4_000_041, "sampleContentProvided", "true or false") }
        guard case .string(let token)? = body["appAccountToken"], token.isEmpty || UUID(uuidString: token) != nil else {
            throw .invalidField(4_000_033, "appAccountToken", "a UUID, or an empty string")
        }
        if let preference = body["refundPreference"], preference != .null, !isInteger(preference, in: 0...3) {
            throw .invalidField(4_000_000, "refundPreference", "an integer from 0 to 3")
        }
    }

    /// Send Consumption Information's body (`ConsumptionRequest`,
    /// https://developer.apple.com/documentation/appstoreserverapi/consumptionrequest): `customerConsented` true,
    /// `sampleContentProvided` and `deliveryStatus` required; `consumptionPercentage` (milliunits, 0 to 100000) and
    /// `refundPreference` optional.
    /// - Throws: ``AppStoreServerAPIError`` with the field's code.
    static func checkConsumption(_ body: [String: JSONValue]) throws(AppStoreServerAPIError) {
        try checkMembers(body, of: "ConsumptionRequest", in: consumptionFields)
        guard body["customerConsented"] == .bool(true) else { throw .invalidField(4_000_035, "customerConsented", "true (the customer consented)") }
        guard case .bool? = body["sampleContentProvided"] else { throw .invalidField(4_000_041, "sampleContentProvided", "true or false") }
        let deliveryStatuses = ["DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM", "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER"]
        guard case .string(let delivery)? = body["deliveryStatus"], deliveryStatuses.contains(delivery) else {
            throw .invalidField(4_000_036, "deliveryStatus", "one of " + deliveryStatuses.joined(separator: ", "))
        }
        if let percentage = body["consumptionPercentage"], percentage != .null, !isInteger(percentage, in: 0...100_000) {
            throw .invalidField(4_000_000, "consumptionPercentage", "an integer from 0 to 100000 (milliunits of a percent)")
        }
        let preferences = ["DECLINE", "GRANT_FULL", "GRANT_PRORATED"]
        if let preference = body["refundPreference"], preference != .null {
            guard case .string(let text) = preference, preferences.contains(text) else {
                throw .invalidField(4_000_000, "refundPreference", "one of " + preferences.joined(separator: ", "))
            }
        }
    }

    /// The members of `ConsumptionRequestV1` (https://developer.apple.com/documentation/appstoreserverapi/consumptionrequestv1).
    static let consumptionV1Fields: Set<String> = [
        "customerConsented", "consumptionStatus", "platform", "sampleContentProvided", "deliveryStatus", "appAccountToken",
        "accountTenure", "playTime", "lifetimeDollarsRefunded", "lifetimeDollarsPurchased", "userStatus", "refundPreference",
    ]
    /// The members of `ConsumptionRequest` (https://developer.apple.com/documentation/appstoreserverapi/consumptionrequest).
    static let consumptionFields: Set<String> = [
        "customerConsented", "sampleContentProvided", "deliveryStatus", "consumptionPercentage", "refundPreference",
    ]

    /// Refuses a body with a member `type` does not define, so that what is stored is Apple's fields and nothing else,
    /// each bounded by its own check (a UUID, an enumeration, a small integer, a boolean): a consumption body stored
    /// with a transaction is at most a few hundred bytes.
    /// - Throws: `GeneralBadRequestError` naming the unknown members.
    static func checkMembers(_ body: [String: JSONValue], of type: String, in fields: Set<String>) throws(AppStoreServerAPIError) {
        let unknown = body.keys.filter { !fields.contains($0) }
        guard unknown.isEmpty else { throw .unknownFields(unknown, of: type) }
    }

    /// Whether `value` is a JSON integer in `range`.
    static func isInteger(_ value: JSONValue?, in range: ClosedRange<Int>) -> Bool {
        guard case .number(let number)? = value, number == number.rounded() else { return false }
        return Double(range.lowerBound) <= number && number <= Double(range.upperBound)
    }
}
