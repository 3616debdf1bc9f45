import Foundation

/// The reads the App Store Server API answers from (Sources/TipJarDashboard/README.md, "App Store Server API"), each
/// one indexed query whatever the size of the account's history. The SQLite storage implements it
/// (`SQLiteTipJarStorage+ServerAPI.swift`); a storage that does not answers the App Store Server API with nothing.
public protocol ServerAPIStorage: Sendable {
    /// One page of a customer's purchased transactions in one environment and app, in `query`'s order, after its
    /// position, at most `query.limit` (Get Transaction History, Get Refund History).
    nonisolated(nonsending) func serverAPITransactions(matching query: ServerAPIHistoryQuery) async throws -> [StoredTransaction]
    /// Every Apple Account the store knows (each signed in on an install; every transaction is made on one), in no
    /// order: whoever derives their `appTransactionId`s (``Transaction/appTransactionID(accountID:appBundleID:)``).
    nonisolated(nonsending) func accountIDs() async throws -> [String]
    /// How many Apple Accounts the store knows: accounts are never forgotten, so an unchanged count means no new one.
    nonisolated(nonsending) func accountCount() async throws -> Int
    /// When the Apple Account first appears: its first install's creation or its first transaction's purchase,
    /// whichever is earlier; `nil` for an account the store does not know.
    nonisolated(nonsending) func firstSeen(accountID: String) async throws -> Date?
    /// Sets the `appAccountToken` of the purchased transaction `transactionID` (Set App Account Token), in one
    /// statement.
    /// - Returns: `false` when no purchased transaction has that ID (nothing changed).
    nonisolated(nonsending) func setAppAccountToken(_ token: UUID, transactionID: UInt64) async throws -> Bool
}

/// A read of ``ServerAPIStorage/serverAPITransactions(matching:)``: one customer (an Apple Account) in one environment
/// and one app, as Apple's servers keep them apart ("Sandbox and production environments are separate",
/// https://developer.apple.com/documentation/appstoreserverapi), with the filters of Get Transaction History
/// (https://developer.apple.com/documentation/appstoreserverapi/get-transaction-history) and keyset paging: the page
/// starts after ``after`` in ``order``, so a page costs the same whatever page it is.
public struct ServerAPIHistoryQuery: Sendable, Equatable {
    /// A transaction's place in the order: the sort key's milliseconds, then the transaction ID.
    public struct Key: Sendable, Equatable {
        /// `signedDate` or `revocationDate`, in milliseconds since 1970.
        public var milliseconds: Int64
        /// The transaction ID.
        public var id: UInt64

        /// Creates a key.
        public init(milliseconds: Int64, id: UInt64) {
            self.milliseconds = milliseconds
            self.id = id
        }
    }

    /// The key a history is sorted by.
    public enum Order: Sendable, Equatable {
        /// `signedDate`, then the transaction ID: "sorted by … recently modified date" (Get Transaction History).
        case modified
        /// `revocationDate`, then the transaction ID, refunded transactions only (Get Refund History).
        case revoked
    }

    /// The Apple Account.
    public var accountID: String
    /// Only transactions issued in this environment.
    public var environment: Transaction.Environment
    /// Only transactions of this app (a transaction saved before bundle IDs were kept counts as this app's).
    public var appBundleID: String
    /// The sort key.
    public var order: Order
    /// Newest first.
    public var descending: Bool
    /// The sort key of the previous page's last transaction; `nil` for the first page.
    public var after: Key?
    /// Purchased at or after (`startDate`, milliseconds).
    public var startDate: Int64?
    /// Purchased before (`endDate`, milliseconds).
    public var endDate: Int64?
    /// Only these products (`productId`); empty: all.
    public var productIDs: [String]
    /// Only these product types (`productType`); empty: all.
    public var productTypes: [ProductType]
    /// Only refunded (`true`) or standing (`false`) transactions (`revoked`).
    public var revoked: Bool?
    /// Get Transaction History v1's rule: no finished consumable unless it is refunded.
    public var excludesFinishedConsumables: Bool
    /// At most this many.
    public var limit: Int

    /// Creates a query; by default every transaction of the account, oldest modified first, at most 21.
    public init(
        accountID: String, environment: Transaction.Environment, appBundleID: String, order: Order = .modified, descending: Bool = false,
        after: Key? = nil, startDate: Int64? = nil, endDate: Int64? = nil, productIDs: [String] = [],
        productTypes: [ProductType] = [], revoked: Bool? = nil, excludesFinishedConsumables: Bool = false, limit: Int = 21
    ) {
        self.accountID = accountID
        self.environment = environment
        self.appBundleID = appBundleID
        self.order = order
        self.descending = descending
        self.after = after
        self.startDate = startDate
        self.endDate = endDate
        self.productIDs = productIDs
        self.productTypes = productTypes
        self.revoked = revoked
        self.excludesFinishedConsumables = excludesFinishedConsumables
        self.limit = limit
    }

}
