import Foundation

/// A purchase the store has issued, shaped like StoreKit 2's `Transaction`.
///
/// Consumable tips are the only products the dashboard sells, so `ownershipType` is always `.purchased` and
/// `originalPurchaseDate` is `purchaseDate`; the fields are kept so that a reader who knows StoreKit recognises
/// the value. Source: https://developer.apple.com/documentation/storekit/transaction.
public struct Transaction: Sendable, Equatable, Codable {
    /// Why a transaction was revoked; StoreKit's `Transaction.RevocationReason`
    /// (https://developer.apple.com/documentation/storekit/transaction/revocationreason-swift.struct).
    ///
    /// The raw value is the case's name, as the refund forms and `POST /api/transactions/{id}/refund` take it and the
    /// database stores it; Apple's own raw value is the integer ``storeKitRawValue``.
    public enum RevocationReason: String, Sendable, Codable, CaseIterable {
        /// The developer's app had an issue (refund granted because of a bug).
        case developerIssue
        /// Any other refund reason.
        case other

        /// Apple's value: `1` for ``developerIssue``, `0` for ``other`` — the JWS payload's `revocationReason`
        /// (an `int32`: https://developer.apple.com/documentation/appstoreserverapi/revocationreason; Apple's
        /// App Store Server Library names 1 `REFUNDED_DUE_TO_ISSUE` and 0 `REFUNDED_FOR_OTHER_REASON`), which is
        /// also StoreKit's `Transaction.RevocationReason.rawValue` (an `Int`).
        public var storeKitRawValue: Int {
            switch self {
            case .developerIssue: 1
            case .other: 0
            }
        }

        /// The reason whose ``storeKitRawValue`` is `value`, or `nil` for another integer.
        public init?(storeKitRawValue value: Int) {
            guard let reason = Self.allCases.first(where: { $0.storeKitRawValue == value }) else { return nil }
            self = reason
        }
    }

    /// StoreKit's `Transaction.RevocationType`
    /// (https://developer.apple.com/documentation/storekit/transaction/revocationtype-swift.property: "whether the
    /// transaction has a full refund, a prorated refund, or is revoked from Family Sharing"). The raw values are the
    /// JWS payload's `revocationType` strings (https://developer.apple.com/documentation/appstoreserverapi/revocationtype;
    /// Apple's App Store Server Library names the same three).
    public enum RevocationType: String, Sendable, Codable, CaseIterable {
        /// "The transaction was fully refunded." (`REFUND_FULL`)
        case fullRefund = "REFUND_FULL"
        /// "The transaction was partially refunded based on consumption." (`REFUND_PRORATED`), with
        /// ``Transaction/revocationPercentage``.
        case proratedRefund = "REFUND_PRORATED"
        /// "The transaction was revoked due to a family sharing revocation." (`FAMILY_REVOKE`): only a transaction
        /// shared through Family Sharing can be, and a tip is always bought by the account itself.
        case familyRevocation = "FAMILY_REVOKE"
    }

    /// The whole refund of ``Transaction/revocationPercentage``: 100 % in milliunits.
    public static let fullRevocationPercentage = 100_000

    /// StoreKit's `Transaction.OwnershipType`; the raw values are Apple's, as the JWS payload's `inAppOwnershipType`
    /// writes them (https://developer.apple.com/documentation/appstoreserverapi/inappownershiptype) and StoreKit's
    /// `rawValue` returns them.
    public enum OwnershipType: String, Sendable, Codable {
        /// Bought by the account itself (`PURCHASED`).
        case purchased = "PURCHASED"
        /// Shared through Family Sharing (`FAMILY_SHARED`).
        case familyShared = "FAMILY_SHARED"
    }

    /// StoreKit's `AppStore.Environment`: ``xcode`` by default, like a `.storekit` configuration file in Xcode, or
    /// ``localTesting`` when the store setting `environment` says so (``StoreSettings/environment``), stamped on each
    /// transaction when the store issues it, as Apple stamps every signed transaction. The raw value is the JWS payload's `environment` string, one of `Sandbox`, `Production`, `Xcode`
    /// and `LocalTesting` (https://developer.apple.com/documentation/appstoreserverapi/environment; the `Environment`
    /// of Apple's App Store Server Library, https://github.com/apple/app-store-server-library-swift, has the same four).
    public enum Environment: String, Sendable, Codable, CaseIterable {
        /// StoreKit Testing in Xcode (`Xcode`,
        /// https://developer.apple.com/documentation/storekit/appstore/environment/xcode).
        case xcode = "Xcode"
        /// A local App Store server used for testing (`LocalTesting`,
        /// https://developer.apple.com/documentation/appstoreserverapi/environment): the environment the App Store
        /// Server API of this dashboard answers as (Sources/TipJarDashboard/README.md, "App Store Server API").
        case localTesting = "LocalTesting"
    }

    /// StoreKit's `Transaction.Reason`; the raw values are the JWS payload's `transactionReason`
    /// (https://developer.apple.com/documentation/appstoreserverapi/transactionreason).
    public enum Reason: String, Sendable, Codable {
        /// A purchase (`PURCHASE`): the only reason a consumable has.
        case purchase = "PURCHASE"
        /// An auto-renewable subscription's renewal (`RENEWAL`); the simulator, which sells consumables, never
        /// issues one.
        case renewal = "RENEWAL"
    }

    /// The unique transaction identifier (`Transaction.id`), from the injected ID generator.
    public var id: UInt64
    /// The identifier of the original transaction; equal to `id` for consumables.
    public var originalID: UInt64
    /// The product that was bought.
    public var productID: String
    /// When the store charged the account (UTC).
    public var purchaseDate: Date
    /// How many units were bought: the purchase's `quantity(_:)` option, 1 to 10 (one transaction still
    /// adds one heart: the tip jar counts tips, not units).
    public var purchasedQuantity: Int
    /// The storefront's ISO 3166-1 alpha-3 country code (`Storefront.countryCode`), e.g. `USA`; its Apple
    /// storefront identifier is ``storefrontID``.
    public var storefront: String
    /// The environment the store issued it in: the store setting `environment` at that moment (`.xcode` by default).
    public var environment: Environment
    /// Always `.purchased` for a tip.
    public var ownershipType: OwnershipType
    /// When the App Store refunded the transaction (UTC), or `nil` while it stands.
    public var revocationDate: Date?
    /// Why it was refunded, or `nil` while it stands.
    public var revocationReason: RevocationReason?
    /// What kind of refund it was, or `nil` while it stands.
    public var revocationType: RevocationType?
    /// How much of the transaction was refunded, in milliunits of a percent (100 % is 100,000), as the JWS payload's
    /// `revocationPercentage` writes it ("The percentage, in milliunits, of the transaction that the App Store has
    /// refunded or revoked", https://developer.apple.com/documentation/appstoreservernotifications/revocationpercentage;
    /// StoreKit's `Transaction.revocationPercentage` is the same value as a decimal percent, 0.0 to 100.0), or `nil`
    /// while it stands.
    public var revocationPercentage: Int?
    /// `Transaction.appTransactionID`: the identifier of the app's download by the Apple Account, "The unique
    /// identifier of the app download transaction", the same on every device of the account
    /// (https://developer.apple.com/documentation/appstoreserverapi/apptransactionid); ``appTransactionID(accountID:appBundleID:)``.
    /// `nil` for a transaction saved before the dashboard kept the bundle ID.
    public var appTransactionID: String?
    /// Always `.purchase`.
    public var reason: Reason
    /// The price the store charged, in `currency` units (`Transaction.price`): the product's `Product.price` in the
    /// storefront (``Storefront/chargedPrice(_:)``, `1` for the catalog's 0.99 in JPY); `nil` for a transaction saved
    /// before the dashboard kept it, or for a product the catalog does not hold. For a quantity above 1 it is the
    /// total: Apple's `Transaction.price` "reflects … the `purchasedQuantity` of a consumable in-app purchase"
    /// (https://developer.apple.com/documentation/storekit/transaction/price).
    public var price: Decimal?
    /// The ISO 4217 code of the storefront's currency (`Transaction.currency`), e.g. `USD`; `nil` when unknown.
    public var currency: String?
    /// The product's type (`Transaction.productType`); `nil` for a product the catalog does not hold.
    public var productType: ProductType?
    /// The bundle ID of the app that bought it (`Transaction.appBundleID`, from `serve --bundle-id`); `nil` for
    /// a transaction saved before the dashboard kept it.
    public var appBundleID: String?
    /// When the App Store signed this transaction's JWS (`Transaction.signedDate`): when it was issued, and
    /// again when Ask to Buy approved it or a refund revoked it.
    public var signedDate: Date
    /// `Transaction.originalPurchaseDate`: for a consumable, the purchase date itself.
    public var originalPurchaseDate: Date
    /// The purchase's `appAccountToken(_:)` option (`Transaction.appAccountToken`), or `nil`.
    public var appAccountToken: UUID?

    /// Creates a transaction for one unit of `productID`.
    /// - Parameters:
    ///   - id: The transaction identifier; also used as `originalID`.
    ///   - productID: The product bought.
    ///   - purchaseDate: When it was bought (UTC).
    ///   - storefront: ISO 3166-1 alpha-3 country code of the storefront.
    public init(id: UInt64, productID: String, purchaseDate: Date, storefront: String) {
        self.id = id
        self.originalID = id
        self.productID = productID
        self.purchaseDate = purchaseDate
        self.purchasedQuantity = 1
        self.storefront = storefront
        self.environment = .xcode
        self.ownershipType = .purchased
        self.revocationDate = nil
        self.revocationReason = nil
        self.appTransactionID = nil
        self.revocationType = nil
        self.revocationPercentage = nil
        self.reason = .purchase
        self.price = nil
        self.currency = nil
        self.productType = nil
        self.appBundleID = nil
        self.signedDate = purchaseDate
        self.originalPurchaseDate = purchaseDate
        self.appAccountToken = nil
    }

    /// The storefront's Apple identifier (`Transaction.storefront.id`, the JWS payload's `storefrontId`:
    /// https://developer.apple.com/documentation/appstoreserverapi/storefrontid), e.g. `"143441"` for `USA`, from
    /// ``Storefront/id``; `nil` for a country code that names no App Store storefront.
    public var storefrontID: String? { Storefront.named(storefront)?.id }

    /// The simulated app download's identifier for an Apple Account and an app: the simulator issues no
    /// `AppTransaction`, so it is derived, the same for every transaction of the account in the app and on every
    /// device (as Apple's is), different for another account or app: FNV-1a (64-bit) of the bundle ID and the account
    /// ID, written in decimal as Apple's identifiers are.
    /// - Returns: the identifier, or `nil` without a bundle ID.
    public static func appTransactionID(accountID: String, appBundleID: String?) -> String? {
        guard let appBundleID else { return nil }
        // The bytes of the bundle ID, a 0 and the account ID, hashed in place: no array is built per call (it is
        // derived for every transaction read, and for every account by the App Store Server API's index).
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ byte: UInt8) {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        for byte in appBundleID.utf8 { mix(byte) }
        mix(0)
        for byte in accountID.utf8 { mix(byte) }
        return String(hash & 0x7fff_ffff_ffff_ffff)
    }

    /// Whether the App Store has refunded this transaction.
    public var isRevoked: Bool { revocationDate != nil }
}
