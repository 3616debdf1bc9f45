import Foundation
import Testing
import TipJar

@testable import TipJarDashboard

/// A server-side decoder written for Apple's `JWSTransactionDecodedPayload`
/// (https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload): its property names are
/// Apple's keys and its types Apple's (identifiers as strings, dates as milliseconds since 1970, price an integer in
/// milliunits, revocationReason an `int32`), and the string fields with a closed set of values decode only Apple's.
struct AppleJWSTransactionDecodedPayload: Decodable {
    /// https://developer.apple.com/documentation/appstoreserverapi/environment
    enum Environment: String, Decodable { case Sandbox, Production, Xcode, LocalTesting }
    /// https://developer.apple.com/documentation/appstoreserverapi/inappownershiptype
    enum InAppOwnershipType: String, Decodable { case PURCHASED, FAMILY_SHARED }
    /// https://developer.apple.com/documentation/appstoreserverapi/transactionreason
    enum TransactionReason: String, Decodable { case PURCHASE, RENEWAL }
    /// https://developer.apple.com/documentation/appstoreserverapi/type
    enum ProductType: String, Decodable {
        case consumable = "Consumable", nonConsumable = "Non-Consumable"
        case autoRenewable = "Auto-Renewable Subscription", nonRenewing = "Non-Renewing Subscription"
    }

    var transactionId: String
    var originalTransactionId: String
    var bundleId: String
    var productId: String
    var purchaseDate: Int64
    var originalPurchaseDate: Int64
    var signedDate: Int64
    var quantity: Int
    var type: ProductType
    var appAccountToken: UUID?
    var inAppOwnershipType: InAppOwnershipType
    var environment: Environment
    var transactionReason: TransactionReason
    var storefront: String
    var storefrontId: String
    var price: Int64
    var currency: String
    var revocationDate: Int64?
    var revocationReason: Int32?
    var revocationType: String?
    var revocationPercentage: Int32?
    var appTransactionId: String?

    /// Every key Apple's payload may hold (the page above), for checking that no other is written.
    static let applesKeys: Set<String> = [
        "appAccountToken", "appTransactionId", "bundleId", "currency", "environment", "expiresDate", "inAppOwnershipType",
        "isUpgraded", "offerDiscountType", "offerIdentifier", "offerPeriod", "offerType", "originalPurchaseDate",
        "originalTransactionId", "price", "productId", "purchaseDate", "quantity", "revocationDate", "revocationPercentage",
        "revocationReason", "revocationType",
        "signedDate", "storefront", "storefrontId", "subscriptionGroupIdentifier", "transactionId", "transactionReason",
        "type", "webOrderLineItemId",
    ]
}

/// A transaction's `jwsPayload` (`GET /api/transactions/{id}`) and the raw values and precision of its dashboard
/// fields: Apple's names, types and values, milliseconds kept.
@Suite("Apple's JWS transaction payload")
struct JWSTransactionPayloadTests {
    static let coffee = "com.example.tipjar.tip.coffee"

    /// Milliseconds since 1970 of an ISO 8601 text with exactly three fraction digits, e.g. `2026-11-30T08:01:02.345Z`.
    static func milliseconds(_ iso: String) throws -> Int64 {
        #expect(iso.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "milliseconds kept: \(iso)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let date = try #require(formatter.date(from: iso))
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    @Test func aTransactionsJWSPayloadDecodesWithApplesKeysTypesAndValues() async throws {
        try await withLiveServer { server in
            let install = try #require(await server.json("POST", "/api/installs", #"{"launch":true,"storefront":"GBR"}"#).object["id"] as? String)
            let token = "6f1c2a7e-3b5d-4c8e-9a0f-1d2e3f4a5b6c"
            let purchase = await server.json(
                "POST", "/api/installs/\(install)/purchases",
                #"{"productID":"\#(Self.coffee)","quantity":3,"appAccountToken":"\#(token)"}"#)
            let transactionID = try #require(purchase.object["transactionID"] as? Int)
            #expect(await server.json("POST", "/api/transactions/\(transactionID)/refund", #"{"reason":"developerIssue"}"#).status == 200)

            let reply = await server.json("GET", "/api/transactions/\(transactionID)")
            #expect(reply.status == 200)
            let nested = try #require(reply.object["jwsPayload"] as? [String: Any])
            #expect(Set(nested.keys).isSubset(of: AppleJWSTransactionDecodedPayload.applesKeys), "\(nested.keys.sorted())")
            let payload = try JSONDecoder().decode(
                AppleJWSTransactionDecodedPayload.self,
                from: try JSONSerialization.data(withJSONObject: nested))
            #expect(payload.transactionId == String(transactionID) && payload.originalTransactionId == String(transactionID))
            #expect(payload.bundleId == "com.example.tipjar" && payload.productId == Self.coffee)
            #expect(payload.environment == .Xcode && payload.inAppOwnershipType == .PURCHASED && payload.transactionReason == .PURCHASE)
            #expect(payload.type == .consumable && payload.quantity == 3)
            #expect(payload.storefront == "GBR" && payload.storefrontId == "143444")
            #expect(payload.price == 2970 && payload.currency == "GBP", "3 × £0.99 in milliunits")
            #expect(payload.appAccountToken == UUID(uuidString: token))
            #expect(payload.revocationReason == 1)
            #expect(payload.revocationType == "REFUND_FULL" && payload.revocationPercentage == 100_000)
            #expect(payload.appTransactionId?.allSatisfy(\.isNumber) == true)

            let body = reply.object
            let stored = try #require(try await server.storage.transaction(withID: UInt64(transactionID))).transaction
            #expect(payload.purchaseDate == Int64((stored.purchaseDate.timeIntervalSince1970 * 1000).rounded()), "the stored millisecond")
            #expect(payload.purchaseDate == (try Self.milliseconds(try #require(body["purchaseDate"] as? String))))
            #expect(payload.originalPurchaseDate == payload.purchaseDate)
            let revocationDate = try #require(payload.revocationDate)
            #expect(revocationDate == (try Self.milliseconds(try #require(body["revocationDate"] as? String))))
            #expect(payload.signedDate == revocationDate, "a refund signs the transaction again")
            #expect(payload.signedDate == (try Self.milliseconds(try #require(body["signedDate"] as? String))))
        }
    }

    @Test func aStandingTransactionsPayloadHasNoRevocationKeys() async throws {
        try await withLiveServer { server in
            let install = try #require(await server.json("POST", "/api/installs", #"{"launch":true}"#).object["id"] as? String)
            let purchase = await server.json("POST", "/api/installs/\(install)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            let transactionID = try #require(purchase.object["transactionID"] as? Int)
            let body = await server.json("GET", "/api/transactions/\(transactionID)").body
            let nested = try #require(await server.json("GET", "/api/transactions/\(transactionID)").object["jwsPayload"] as? [String: Any])
            #expect(nested["revocationDate"] == nil && nested["revocationReason"] == nil && nested["appAccountToken"] == nil)
            #expect(nested["revocationType"] == nil && nested["revocationPercentage"] == nil)
            #expect(nested["storefrontId"] as? String == "143441" && nested["price"] as? Int == 990)
            #expect(!body.contains("null"), "Apple omits a field without a value")
        }
    }

    /// The App Store prices JPY without decimals (https://developer.apple.com/documentation/advancedcommerceapi/prices):
    /// the catalog's 0.99 is charged ¥1, "JPY 300 | 300000" (https://developer.apple.com/documentation/appstoreserverapi/price).
    @Test func aYenPurchaseOfTheCatalogs099RecordsTheChargedPrice1AndJWSPrice1000() async throws {
        try await withLiveServer { server in
            let install = try #require(await server.json("POST", "/api/installs", #"{"launch":true,"storefront":"JPN"}"#).object["id"] as? String)
            let offers = try #require(await server.json("GET", "/api/installs/\(install)/offers").object["offers"] as? [[String: Any]])
            #expect(offers.first?["productID"] as? String == Self.coffee && offers.first?["displayPrice"] as? String == "¥1")
            let purchase = await server.json("POST", "/api/installs/\(install)/purchases", #"{"productID":"\#(Self.coffee)","quantity":2}"#)
            let transactionID = try #require(purchase.object["transactionID"] as? Int)
            let stored = try #require(try await server.storage.transaction(withID: UInt64(transactionID))).transaction
            #expect(stored.price == 2 && stored.currency == "JPY", "Transaction.price: ¥1 × 2")
            let reply = await server.json("GET", "/api/transactions/\(transactionID)").object
            #expect(reply["price"] as? String == "2")
            let nested = try #require(reply["jwsPayload"] as? [String: Any])
            #expect(nested["price"] as? Int == 2000 && nested["currency"] as? String == "JPY")
        }
    }

    @Test func theDashboardFieldsUseApplesRawValues() async throws {
        try await withLiveServer { server in
            let install = try #require(await server.json("POST", "/api/installs", #"{"launch":true,"storefront":"JPN"}"#).object["id"] as? String)
            let purchase = await server.json("POST", "/api/installs/\(install)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            let transactionID = try #require(purchase.object["transactionID"] as? Int)
            let refund = await server.json("POST", "/api/transactions/\(transactionID)/refund", #"{"reason":"other"}"#).object
            #expect(refund["environment"] as? String == "Xcode")
            #expect(refund["ownershipType"] as? String == "PURCHASED")
            #expect(refund["reason"] as? String == "PURCHASE")
            #expect(refund["productType"] as? String == "Consumable")
            #expect(refund["revocationReason"] as? Int == 0, "StoreKit's rawValue, the JWS payload's integer")
            #expect(refund["storefront"] as? String == "JPN" && refund["storefrontID"] as? String == "143462")
            for key in ["purchaseDate", "originalPurchaseDate", "signedDate", "revocationDate"] {
                _ = try Self.milliseconds(try #require(refund[key] as? String, "\(key)"))
            }
        }
    }

    @Test func aRefundTakesApplesRevocationTypeAndPercentageAndTheReasonAsTheIntegerTheTransactionShows() async throws {
        try await withLiveServer { server in
            let install = try #require(await server.json("POST", "/api/installs", #"{"launch":true}"#).object["id"] as? String)
            var ids: [Int] = []
            for _ in 0..<2 {
                let purchase = await server.json("POST", "/api/installs/\(install)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
                ids.append(try #require(purchase.object["transactionID"] as? Int))
            }
            for (body, message) in [
                (#"{"reason":7}"#, "reason must be"), (#"{"reason":"1"}"#, "reason must be"), (#"{"reason":true}"#, "reason must be"),
                (#"{"revocationType":"REFUND_HALF"}"#, "revocationType must be"),
                (#"{"revocationType":"REFUND_PRORATED"}"#, "REFUND_PRORATED needs"),
                (#"{"revocationType":"REFUND_PRORATED","revocationPercentage":100001}"#, "REFUND_PRORATED needs"),
                (#"{"revocationType":"REFUND_PRORATED","revocationPercentage":0}"#, "0 refunds nothing"),
                (#"{"revocationType":"REFUND_PRORATED","revocationPercentage":100000}"#, "100000 is the whole price: REFUND_FULL"),
                (#"{"revocationType":"REFUND_PRORATED","revocationPercentage":"half"}"#, "revocationPercentage must be"),
                (#"{"revocationType":"REFUND_FULL","revocationPercentage":50000}"#, "must be 100000"),
                (#"{"revocationType":"FAMILY_REVOKE"}"#, "Family Sharing"),
                (#"{"reason":1,"extra":1}"#, "Unknown field"),
            ] {
                let refused = await server.json("POST", "/api/transactions/\(ids[0])/refund", body)
                #expect(refused.status == 400, "\(body)")
                #expect((refused.object["error"] as? String)?.contains(message) == true, "\(body): \(refused.body)")
            }
            let stillStanding = await server.json("GET", "/api/transactions/\(ids[0])").object
            #expect(stillStanding["revocationDate"] == nil, "a refused refund changes nothing")
            let prorated = await server.json(
                "POST", "/api/transactions/\(ids[0])/refund", #"{"reason":1,"revocationType":"REFUND_PRORATED","revocationPercentage":33333}"#)
            #expect(prorated.status == 200)
            #expect(prorated.object["revocationReason"] as? Int == 1)
            #expect(prorated.object["revocationType"] as? String == "REFUND_PRORATED")
            #expect(prorated.object["revocationPercentage"] as? Int == 33333)
            let payload = try #require(prorated.object["jwsPayload"] as? [String: Any])
            #expect(payload["revocationType"] as? String == "REFUND_PRORATED" && payload["revocationPercentage"] as? Int == 33333)
            let full = await server.json("POST", "/api/transactions/\(ids[1])/refund", #"{"reason":0}"#).object
            #expect(full["revocationReason"] as? Int == 0 && full["revocationType"] as? String == "REFUND_FULL")
            #expect(full["revocationPercentage"] as? Int == 100_000)
            let appTransactionIDs = Set(
                [payload["appTransactionId"] as? String, (full["jwsPayload"] as? [String: Any])?["appTransactionId"] as? String])
            #expect(appTransactionIDs.count == 1 && appTransactionIDs.first! != nil, "one app download per Apple Account")
        }
    }

    @Test func theAppTransactionIDIsTheSameOnEveryDeviceOfAnAccountAndDiffersBetweenAccountsAndApps() {
        let phone = Transaction.appTransactionID(accountID: "ana", appBundleID: "com.example.tipjar")
        #expect(phone == Transaction.appTransactionID(accountID: "ana", appBundleID: "com.example.tipjar"))
        #expect(phone != Transaction.appTransactionID(accountID: "bia", appBundleID: "com.example.tipjar"))
        #expect(phone != Transaction.appTransactionID(accountID: "ana", appBundleID: "com.example.other"))
        #expect(Transaction.appTransactionID(accountID: "ana", appBundleID: nil) == nil)
    }

    @Test(arguments: [("0.99", 1, 990), ("0.99", 3, 2970), ("120", 1, 120_000), ("1234.5", 2, 2_469_000), ("0.0005", 1, 1)])
    func thePayloadsPriceIsTheTotalInMilliunits(price: String, quantity: Int, milliunits: Int64) {
        var transaction = Transaction(id: 7, productID: "p", purchaseDate: Date(timeIntervalSince1970: 0), storefront: "USA")
        transaction.price = Decimal(string: price)! * Decimal(quantity)
        transaction.purchasedQuantity = quantity
        #expect(APIModels.JWSTransactionPayload(transaction).price == milliunits)
    }

    @Test func aDateReadBackFromTheDatabaseKeepsItsMillisecond() {
        // The database stores 1080295754370 ms and reads back Double(1080295754370) / 1000, whose product by 1000 is
        // 1080295754369.9999: rounding down would say .369.
        let date = Date(timeIntervalSince1970: Double(1_080_295_754_370) / 1000)
        #expect(ViewModels.isoMilliseconds(date) == "2004-03-26T10:09:14.370Z")
        let transaction = Transaction(id: 7, productID: "p", purchaseDate: date, storefront: "USA")
        #expect(APIModels.JWSTransactionPayload(transaction).purchaseDate == 1_080_295_754_370)
    }

    @Test func transactionRawValuesAreApples() {
        let transaction = Transaction(id: 1, productID: "p", purchaseDate: Date(timeIntervalSince1970: 0), storefront: "USA")
        #expect(transaction.environment.rawValue == "Xcode")
        #expect(transaction.ownershipType.rawValue == "PURCHASED")
        #expect(Transaction.OwnershipType.familyShared.rawValue == "FAMILY_SHARED")
        #expect(transaction.reason.rawValue == "PURCHASE")
        #expect(Transaction.Reason.renewal.rawValue == "RENEWAL")
        #expect(Transaction.RevocationReason.developerIssue.storeKitRawValue == 1)
        #expect(Transaction.RevocationReason.other.storeKitRawValue == 0)
        #expect(Transaction.RevocationReason(storeKitRawValue: 1) == .developerIssue)
        #expect(Transaction.RevocationReason(storeKitRawValue: 2) == nil)
        #expect(
            ProductType.allCases.map(\.storeKitName)
                == ["Consumable", "Non-Consumable", "Non-Renewing Subscription", "Auto-Renewable Subscription"])
    }
}
