import Foundation

/// The views of an account's transaction history that StoreKit 2 gives an app, for a tip jar's products.
public enum TransactionHistoryView: String, Sendable, CaseIterable {
    /// `Transaction.all` (https://developer.apple.com/documentation/storekit/transaction/all): the history
    /// "includes unfinished consumables, finished consumables that are refunded or revoked, non-consumables,
    /// auto-renewable subscriptions"; a finished consumable is left out unless the app's Info.plist sets
    /// `SKIncludeConsumableInAppPurchaseHistory` to true (the store setting
    /// ``StoreSettings/includeConsumableInAppPurchaseHistory``, off by default, as Apple's). Pending Ask to Buy and
    /// declined purchases have no `Transaction` yet, so they are not in it.
    case all
    /// `Transaction.unfinished` (https://developer.apple.com/documentation/storekit/transaction/unfinished):
    /// purchased transactions the app has not finished, refunded ones included until the app finishes them.
    case unfinished
    /// `Transaction.currentEntitlements`
    /// (https://developer.apple.com/documentation/storekit/transaction/currententitlements): non-consumables,
    /// active subscriptions and "the latest transaction for each non-renewing subscription, including finished
    /// ones", none revoked; consumables never are entitlements, whatever `SKIncludeConsumableInAppPurchaseHistory`
    /// says. The simulator issues no auto-renewable subscription periods, so the unrevoked non-consumables and
    /// non-renewing subscriptions of the catalog appear, newest per product.
    case currentEntitlements
    /// `Transaction.latest(for:)` (https://developer.apple.com/documentation/storekit/transaction/latest(for:)):
    /// the newest transaction for one product among those ``all`` holds (`SKIncludeConsumableInAppPurchaseHistory`
    /// says a finished consumable is left out of it too, unless the key is true); needs a product ID.
    case latest
}

extension SimulatedStore {
    /// An account's transactions as one StoreKit view would return them, newest first.
    /// - Parameters:
    ///   - accountID: the Apple Account.
    ///   - view: which StoreKit API to answer as (see ``TransactionHistoryView``).
    ///   - productID: only this product; required for ``TransactionHistoryView/latest``.
    /// - Returns: the transactions; at most one for `latest`.
    /// - Throws: `TipJarError.invalidValue` for `latest` without a product ID; storage errors.
    public func history(accountID: String, view: TransactionHistoryView, productID: String?) async throws -> [StoredTransaction] {
        if view == .latest, productID == nil {
            throw TipJarError.invalidValue(field: "productID", reason: "view=latest needs a productID, as Transaction.latest(for:) does")
        }
        let stored = try await storage.transactions(accountID: accountID, limit: 100_000)
            .filter { productID == nil || $0.transaction.productID == productID }
        return Self.history(
            stored, view: view, catalog: catalog,
            includeConsumableInAppPurchaseHistory: settings.includeConsumableInAppPurchaseHistory)
    }

    /// The rule of each view on an account's transactions (newest first), as a pure function.
    /// - Parameters:
    ///   - stored: the account's transactions, newest first.
    ///   - view: which StoreKit API to answer as.
    ///   - catalog: the products' types (a product the catalog does not hold counts as a consumable).
    ///   - includeConsumableInAppPurchaseHistory: the app's `SKIncludeConsumableInAppPurchaseHistory`: when true,
    ///     finished consumables are in ``TransactionHistoryView/all`` and ``TransactionHistoryView/latest``.
    public static func history(
        _ stored: [StoredTransaction], view: TransactionHistoryView, catalog: Catalog,
        includeConsumableInAppPurchaseHistory: Bool
    ) -> [StoredTransaction] {
        func type(_ entry: StoredTransaction) -> ProductType? { catalog.product(withID: entry.transaction.productID)?.type }
        func inHistory(_ entry: StoredTransaction) -> Bool {
            guard entry.status == .purchased else { return false }
            guard type(entry) == .consumable || type(entry) == nil else { return true }
            return includeConsumableInAppPurchaseHistory || !entry.isFinished || entry.transaction.isRevoked
        }
        switch view {
        case .all:
            return stored.filter(inHistory)
        case .unfinished:
            return stored.filter { $0.status == .purchased && !$0.isFinished }
        case .currentEntitlements:
            var seen = Set<String>()
            return stored.filter {
                $0.status == .purchased && !$0.transaction.isRevoked
                    && [.nonConsumable, .nonRenewingSubscription].contains(type($0))
                    && seen.insert($0.transaction.productID).inserted
            }
        case .latest:
            return Array(stored.filter(inHistory).prefix(1))
        }
    }

    /// `SKTestSession.clearTransactions()`
    /// (https://developer.apple.com/documentation/storekittest/sktestsession/cleartransactions()): the store
    /// forgets every transaction; installs keep their hearts and ledgers, as the app's UserDefaults would.
    /// - Returns: how many were deleted.
    @discardableResult
    public func clearTransactions() async throws -> Int {
        try await storage.deleteAllTransactions()
    }

    /// `SKTestSession.deleteTransaction(identifier:)`
    /// (https://developer.apple.com/documentation/storekittest/sktestsession/deletetransaction(identifier:)).
    /// - Throws: `TipJarError.transactionNotFound`; storage errors.
    public func deleteTransaction(id: UInt64) async throws {
        // An Ask to Buy request is no transaction (it is decided on the store's queue): not found here, as it is for
        // every other read and action by transaction ID.
        if let stored = try await storage.transaction(withID: id), !stored.isListed { throw TipJarError.transactionNotFound(id) }
        guard try await storage.deleteTransaction(withID: id) else { throw TipJarError.transactionNotFound(id) }
    }
}
