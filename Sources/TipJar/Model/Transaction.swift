import Foundation

/// A purchase the store has issued, shaped like StoreKit 2's `Transaction`.
///
/// Consumable tips are the only products the dashboard sells, so `purchasedQuantity` is always 1
/// and `ownershipType` is always `.purchased`; the fields are kept so that a reader who knows
/// StoreKit recognises the value. Source: StoreKit `Transaction` documentation.
public struct Transaction: Sendable, Equatable, Codable {
    /// Why a transaction was revoked; StoreKit's `Transaction.RevocationReason`.
    public enum RevocationReason: String, Sendable, Codable, CaseIterable {
        /// The developer's app had an issue (refund granted because of a bug).
        case developerIssue
        /// Any other refund reason.
        case other
    }

    /// StoreKit's `Transaction.OwnershipType`.
    public enum OwnershipType: String, Sendable, Codable {
        /// Bought by the account itself.
        case purchased
        /// Shared through Family Sharing.
        case familyShared
    }

    /// StoreKit's `AppStore.Environment`; the simulator always answers `xcode`,
    /// like a `.storekit` configuration file in Xcode.
    public enum Environment: String, Sendable, Codable {
        /// StoreKit testing in Xcode.
        case xcode
    }

    /// StoreKit's `Transaction.Reason`.
    public enum Reason: String, Sendable, Codable {
        /// A purchase (the only reason a consumable has).
        case purchase
    }

    /// The unique transaction identifier (`Transaction.id`), from the injected ID generator.
    public var id: UInt64
    /// The identifier of the original transaction; equal to `id` for consumables.
    public var originalID: UInt64
    /// The product that was bought.
    public var productID: String
    /// When the store charged the account (UTC).
    public var purchaseDate: Date
    /// How many units were bought; always 1 for a tip.
    public var purchasedQuantity: Int
    /// The storefront's ISO 3166-1 alpha-3 country code (`Storefront.countryCode`), e.g. `USA`.
    public var storefront: String
    /// Always `.xcode` in the simulator.
    public var environment: Environment
    /// Always `.purchased` for a tip.
    public var ownershipType: OwnershipType
    /// When the App Store refunded the transaction (UTC), or `nil` while it stands.
    public var revocationDate: Date?
    /// Why it was refunded, or `nil` while it stands.
    public var revocationReason: RevocationReason?
    /// Always `.purchase`.
    public var reason: Reason

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
        self.reason = .purchase
    }

    /// Whether the App Store has refunded this transaction.
    public var isRevoked: Bool { revocationDate != nil }
}
