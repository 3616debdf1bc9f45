import Foundation

/// What the pages, the JSON API and the App Store Server API ask of the simulated App Store, through the service: the
/// store is the service's own, so every change of it goes where the service can note it on the timeline.
extension TipJarService {
    /// The store's settings in force (``SimulatedStore/settings``).
    public nonisolated var settings: StoreSettings { store.settings }

    /// The app's bundle ID every transaction and signed payload carries (`--bundle-id`).
    public nonisolated var appBundleID: String { store.appBundleID }

    /// The product IDs the store holds right now (``SimulatedStore/storeProductIDs``).
    public nonisolated var storeProductIDs: [String] { store.storeProductIDs }

    /// A catalog entry as StoreKit's `Product` for a storefront and locale (``SimulatedStore/product(for:storefront:locale:)``).
    public nonisolated func product(for entry: CatalogProduct, storefront: Storefront, locale: AppLocale) -> Product {
        store.product(for: entry, storefront: storefront, locale: locale)
    }

    /// The tiles the app shows for a storefront and locale, in tier order, with the names in the install's language
    /// (the store's listing, ``CatalogOffers``).
    public nonisolated func tipOffers(storefront: Storefront, locale: AppLocale) -> [TipOffer] {
        store.offers.listing(storefront: storefront, locale: locale).tipOffers
    }

    /// "Reset to the file's settings" (`SKTestSession.resetToDefaultState()`,
    /// https://developer.apple.com/documentation/storekittest/sktestsession/resettodefaultstate()), noted on the timeline
    /// as a `store.settings` event as ``updateStore(_:)`` notes any other change, whichever page or API asked.
    /// - Returns: the settings now in force.
    @discardableResult
    public func resetStore() async throws -> StoreSettings {
        let defaults = catalog.fileSettings.defaultStoreSettings
        try await updateStore(defaults)
        return defaults
    }

    /// `SKTestSession.clearTransactions()` (``SimulatedStore/clearTransactions()``).
    /// - Returns: how many were deleted.
    @discardableResult
    public func clearTransactions() async throws -> Int { try await store.clearTransactions() }

    /// `SKTestSession.deleteTransaction(identifier:)` (``SimulatedStore/deleteTransaction(id:)``).
    public func deleteTransaction(id: UInt64) async throws { try await store.deleteTransaction(id: id) }

    /// An account's transaction history in one of StoreKit's views (``SimulatedStore/history(accountID:view:productID:)``).
    public func history(accountID: String, view: TransactionHistoryView, productID: String?) async throws -> [StoredTransaction] {
        try await store.history(accountID: accountID, view: view, productID: productID)
    }

    /// Undoes a refund (``SimulatedStore/reverseRefund(transactionID:)``), queuing `REFUND_REVERSED`.
    @discardableResult
    public func reverseRefund(transactionID: UInt64) async throws -> StoredTransaction {
        try await store.reverseRefund(transactionID: transactionID)
    }

    /// Interrupted purchases waiting to be resolved (``SimulatedStore/interruptedTransactions()``).
    public func interruptedTransactions() async throws -> [StoredTransaction] { try await store.interruptedTransactions() }

    /// Saves a server's Send Consumption Information body (``SimulatedStore/recordConsumption(_:transactionID:)``).
    @discardableResult
    public func recordConsumption(_ json: String, transactionID: UInt64) async throws -> StoredTransaction {
        try await store.recordConsumption(json, transactionID: transactionID)
    }

    /// A developer's server finishes a transaction (``SimulatedStore/finishTransaction(transactionID:)``, Finish
    /// Transaction); the timeline says so on the install that bought it.
    @discardableResult
    public func finishTransaction(transactionID: UInt64) async throws -> StoredTransaction {
        let (finished, finishedNow) = try await store.finishTransaction(transactionID: transactionID)
        if finishedNow {
            event(
                finished.installID, "transaction.finishedByServer", "Transaction \(transactionID) finished by the developer's server (Finish Transaction).",
                ["transactionID": "\(transactionID)"])
        }
        return finished
    }

    /// A developer's server sets a purchase's app account token (``SimulatedStore/setAppAccountToken(_:transactionID:)``,
    /// Set App Account Token); the timeline says so on the install that bought it.
    @discardableResult
    public func setAppAccountToken(_ token: UUID, transactionID: UInt64) async throws -> StoredTransaction {
        let stored = try await store.setAppAccountToken(token, transactionID: transactionID)
        event(
            stored.installID, "transaction.appAccountTokenSet",
            "Transaction \(transactionID)'s appAccountToken set by the developer's server (Set App Account Token).",
            ["transactionID": "\(transactionID)", "appAccountToken": token.uuidString.lowercased()])
        return stored
    }
}
