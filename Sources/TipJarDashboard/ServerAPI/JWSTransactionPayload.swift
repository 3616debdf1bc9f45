import Foundation
import TipJar

extension APIModels {
    /// A transaction as the App Store signs it: the keys and JSON types of the App Store Server API's
    /// `JWSTransactionDecodedPayload` (https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload),
    /// the payload of StoreKit's `VerificationResult.jwsRepresentation`, so that a server-side decoder written for
    /// Apple's payload reads it. The JSON API nests it as a transaction's `jwsPayload` (Public/api/openapi.json).
    ///
    /// Only the fields a consumable has are written; Apple omits a field without a value, and so does this (absent,
    /// never `null`): `revocationDate` and `revocationReason` until a refund, `appAccountToken` without the purchase
    /// option, and `bundleId`, `type`, `price` and `currency` for a transaction saved before the dashboard kept them.
    /// Never written, because no tip has them: the subscription fields (`expiresDate`, `webOrderLineItemId`,
    /// `subscriptionGroupIdentifier`, `isUpgraded`) and the offer fields (`offerType`, `offerIdentifier`,
    /// `offerDiscountType`, `offerPeriod`: Apple now allows offer codes on consumables, with `offerDiscountType`
    /// `ONE_TIME`, but none of the `.storekit` files seen defines one on a consumable and the purchase options have no
    /// offer, so a tip is never bought with one here).
    struct JWSTransactionPayload: Encodable, Equatable {
        /// `transactionId`: the transaction's identifier as a string
        /// (https://developer.apple.com/documentation/appstoreserverapi/transactionid).
        var transactionID: String
        /// `originalTransactionId`, a string; a consumable's own ID
        /// (https://developer.apple.com/documentation/appstoreserverapi/originaltransactionid).
        var originalTransactionID: String
        /// `bundleId` (https://developer.apple.com/documentation/appstoreserverapi/bundleid).
        var bundleID: String?
        /// `productId` (https://developer.apple.com/documentation/appstoreserverapi/productid).
        var productID: String
        /// `purchaseDate`, UNIX time in milliseconds (https://developer.apple.com/documentation/appstoreserverapi/purchasedate).
        var purchaseDate: Int64
        /// `originalPurchaseDate`, milliseconds; a consumable's purchase date
        /// (https://developer.apple.com/documentation/appstoreserverapi/originalpurchasedate).
        var originalPurchaseDate: Int64
        /// `signedDate`, milliseconds: when the App Store signed the JWS
        /// (https://developer.apple.com/documentation/appstoreserverapi/signeddate).
        var signedDate: Int64
        /// `quantity`: the units bought (https://developer.apple.com/documentation/appstoreserverapi/quantity).
        var quantity: Int
        /// `type`: `Consumable`, `Non-Consumable`, `Auto-Renewable Subscription` or `Non-Renewing Subscription`
        /// (https://developer.apple.com/documentation/appstoreserverapi/type), ``ProductType/storeKitName``.
        var type: String?
        /// `appAccountToken`, a UUID (https://developer.apple.com/documentation/appstoreserverapi/appaccounttoken),
        /// written in lower case as the rest of the JSON API writes UUIDs: Apple's documentation does not settle the
        /// letter case.
        var appAccountToken: String?
        /// `inAppOwnershipType`: `PURCHASED` or `FAMILY_SHARED`
        /// (https://developer.apple.com/documentation/appstoreserverapi/inappownershiptype).
        var inAppOwnershipType: String
        /// `environment`: `Xcode` for StoreKit Testing in Xcode, `LocalTesting` for a local App Store server, as the
        /// store issued it (https://developer.apple.com/documentation/appstoreserverapi/environment).
        var environment: String
        /// `transactionReason`: `PURCHASE` or `RENEWAL`
        /// (https://developer.apple.com/documentation/appstoreserverapi/transactionreason).
        var transactionReason: String
        /// `storefront`: the ISO 3166-1 alpha-3 country code
        /// (https://developer.apple.com/documentation/appstoreserverapi/storefront).
        var storefront: String
        /// `storefrontId`: Apple's storefront identifier, a string such as `"143441"`
        /// (https://developer.apple.com/documentation/appstoreserverapi/storefrontid), from ``Storefront/id``.
        var storefrontID: String?
        /// `price`: an integer in milliunits of `currency`, "One unit of the currency equals 1000 milliunits", the
        /// total for the quantity bought (https://developer.apple.com/documentation/appstoreserverapi/price).
        var price: Int64?
        /// `currency`: ISO 4217 (https://developer.apple.com/documentation/appstoreserverapi/currency).
        var currency: String?
        /// `revocationDate`, milliseconds (https://developer.apple.com/documentation/appstoreserverapi/revocationdate).
        var revocationDate: Int64?
        /// `revocationReason`: the integer `1` (an issue in the app) or `0` (another reason)
        /// (https://developer.apple.com/documentation/appstoreserverapi/revocationreason).
        var revocationReason: Int?
        /// `revocationType`: `REFUND_FULL`, `REFUND_PRORATED` or `FAMILY_REVOKE`
        /// (https://developer.apple.com/documentation/appstoreserverapi/revocationtype).
        var revocationType: String?
        /// `revocationPercentage`: the refunded share in milliunits of a percent, 100,000 for all of it
        /// (https://developer.apple.com/documentation/appstoreservernotifications/revocationpercentage).
        var revocationPercentage: Int?
        /// `appTransactionId`: "The unique identifier of the app download transaction", the same for every transaction
        /// of one Apple Account in the app (https://developer.apple.com/documentation/appstoreserverapi/apptransactionid),
        /// from ``Transaction/appTransactionID``.
        var appTransactionID: String?

        /// Apple's key for each field.
        enum CodingKeys: String, CodingKey {
            case transactionID = "transactionId", originalTransactionID = "originalTransactionId", bundleID = "bundleId"
            case productID = "productId", purchaseDate, originalPurchaseDate, signedDate, quantity, type, appAccountToken
            case inAppOwnershipType, environment, transactionReason, storefront, storefrontID = "storefrontId", price
            case currency, revocationDate, revocationReason, revocationType, revocationPercentage
            case appTransactionID = "appTransactionId"
        }

        /// The payload of `transaction`.
        init(_ transaction: Transaction) {
            let t = transaction
            transactionID = String(t.id)
            originalTransactionID = String(t.originalID)
            bundleID = t.appBundleID
            productID = t.productID
            purchaseDate = UTCTimestamp.milliseconds(since1970: t.purchaseDate)
            originalPurchaseDate = UTCTimestamp.milliseconds(since1970: t.originalPurchaseDate)
            signedDate = UTCTimestamp.milliseconds(since1970: t.signedDate)
            quantity = t.purchasedQuantity
            type = t.productType?.storeKitName
            appAccountToken = t.appAccountToken?.uuidString.lowercased()
            inAppOwnershipType = t.ownershipType.rawValue
            environment = t.environment.rawValue
            transactionReason = t.reason.rawValue
            storefront = t.storefront
            storefrontID = t.storefrontID
            price = t.price.map(Self.milliunits)
            currency = t.currency
            revocationDate = t.revocationDate.map(UTCTimestamp.milliseconds(since1970:))
            revocationReason = t.revocationReason?.storeKitRawValue
            revocationType = t.revocationType?.rawValue
            revocationPercentage = t.revocationPercentage
            appTransactionID = t.appTransactionID
        }

        /// The payload as StoreKit's `VerificationResult.jwsRepresentation` carries it: an unsecured compact JWS
        /// (``CompactJWS``), the same text the App Store Server API's `signedTransactionInfo` and
        /// `signedTransactions` hold.
        var jwsRepresentation: String { CompactJWS.unsecured(json: json) }

        /// The payload's JSON, keys sorted: the bytes `CompactJWS.unsecured(_:)` would write through `JSONEncoder`
        /// (``SortedJSONObject``), each member under its ``CodingKeys`` name.
        var json: [UInt8] {
            var object = SortedJSONObject()
            object.add("appAccountToken", appAccountToken)
            object.add("appTransactionId", appTransactionID)
            object.add("bundleId", bundleID)
            object.add("currency", currency)
            object.add("environment", environment)
            object.add("inAppOwnershipType", inAppOwnershipType)
            object.add("originalPurchaseDate", originalPurchaseDate)
            object.add("originalTransactionId", originalTransactionID)
            object.add("price", price)
            object.add("productId", productID)
            object.add("purchaseDate", purchaseDate)
            object.add("quantity", quantity)
            object.add("revocationDate", revocationDate)
            object.add("revocationPercentage", revocationPercentage)
            object.add("revocationReason", revocationReason)
            object.add("revocationType", revocationType)
            object.add("signedDate", signedDate)
            object.add("storefront", storefront)
            object.add("storefrontId", storefrontID)
            object.add("transactionId", transactionID)
            object.add("transactionReason", transactionReason)
            object.add("type", type)
            return object.json
        }

        /// `price` in milliunits (× 1000), exactly for every App Store price (none has more than three decimals);
        /// a finer one is rounded to the nearest milliunit, halves away from zero.
        static func milliunits(_ price: Decimal) -> Int64 {
            var scaled = price * 1000
            var rounded = Decimal()
            NSDecimalRound(&rounded, &scaled, 0, .plain)
            return NSDecimalNumber(decimal: rounded).int64Value
        }
    }
}
