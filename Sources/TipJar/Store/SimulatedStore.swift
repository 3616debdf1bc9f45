import Foundation
import Synchronization

/// The simulated App Store: answers `Product.products(for:)`, `Product.purchase()`,
/// `AppStore.sync()` and `Transaction.unfinished` for every install, with the outages, outcomes
/// and latencies set in `StoreSettings`; and keeps every transaction it issued.
///
/// Transactions it issues go back to the app through `TipJarService`, which routes them into the
/// install's one transaction handler (README "Domain rules": Listener).
///
/// A `Sendable` class, not an actor: its own state (the settings in force, the last transaction ID) is in
/// `Mutex`es, and what must be atomic about its transactions is the storage's (`TipJarStorage.update(_:from:)`
/// names the state it expects), so no call waits for another's turn.
public final class SimulatedStore: Sendable {
    /// The loaded `.storekit` catalog.
    public let catalog: Catalog
    /// Every product and tile of the catalog per storefront and locale, each computed once and kept.
    public let offers: CatalogOffers
    let storage: any TipJarStorage
    private let environment: TipJarEnvironment
    /// The current outage and outcome settings, read under their lock (a purchase reads them once, on
    /// the caller's executor).
    public var settings: StoreSettings { current.withLock { $0 } }
    /// The settings in force; written only by ``update(_:)``.
    private let current: Mutex<StoreSettings>
    /// Changes of the settings, one at a time (``change(_:)``).
    private let settingsTurns = SettingsTurns()
    /// The last transaction ID issued.
    private let lastTransactionID: Mutex<UInt64>
    /// The bundle ID every transaction it issues carries (`Transaction.appBundleID`).
    public let appBundleID: String

    /// The bundle ID of the shipped app when `serve --bundle-id` gives none: the shipped catalog's product IDs
    /// (`com.example.tipjar.tip.coffee`, …) start with it, following Apple's advice to prefix product IDs with
    /// the app's reverse-DNS bundle ID; neither the shipped `.storekit` file nor the app names one.
    public static let defaultAppBundleID = "com.example.tipjar"

    /// The suffix the store's product IDs carry in `.mismatch` mode, so that none matches what the
    /// app asks for.
    public static let mismatchSuffix = ".appstoreconnect"

    /// Opens the store on saved settings (or healthy defaults on a new database).
    /// - Throws: what `storage` throws.
    public init(
        catalog: Catalog, storage: any TipJarStorage, environment: TipJarEnvironment,
        appBundleID: String = SimulatedStore.defaultAppBundleID
    ) async throws {
        self.catalog = catalog
        self.offers = CatalogOffers(catalog: catalog)
        self.appBundleID = appBundleID
        self.storage = storage
        self.environment = environment
        // SKTestSession starts from the configuration file's settings: the fields the file sets win over the
        // saved ones at every start; the others keep what was saved.
        self.current = Mutex(catalog.fileSettings.applied(to: try await storage.storeSettings() ?? .normal))
        self.lastTransactionID = Mutex(try await storage.largestTransactionID())
    }

    /// Validates and saves new settings (``change(_:)`` with settings that do not depend on the current ones).
    /// - Throws: `TipJarError.invalidValue` for a value its declaration (``StoreSettings/declarations``) does not
    ///   allow, e.g. a latency outside 0...60,000 ms; storage errors.
    public func update(_ newSettings: StoreSettings) async throws {
        _ = try await change { _ in newSettings }
    }

    /// Changes the settings with `makeNew`, given the settings in force when the change has its turn: changes run
    /// one at a time, in the order they came (``SettingsTurns``), so a change made of a patch keeps every change
    /// that came before it.
    /// - Returns: the settings before and after the change.
    /// - Throws: what `makeNew` throws, `TipJarError.invalidValue` for a value a declaration does not allow, storage
    ///   errors; the settings in force are then unchanged.
    public func change(
        _ makeNew: @Sendable (StoreSettings) throws -> StoreSettings
    ) async throws -> (previous: StoreSettings, updated: StoreSettings) {
        try await settingsTurns.run {
            let previous = settings
            let updated = try makeNew(previous)
            try await save(updated)
            return (previous, updated)
        }
    }

    /// Validates and saves `newSettings`; called in a turn of ``settingsTurns``.
    private func save(_ newSettings: StoreSettings) async throws {
        for declaration in StoreSettings.declarations where !declaration.allows(declaration.value(in: newSettings)) {
            guard case .integer(let range, let unit) = declaration.kind else {
                throw TipJarError.invalidValue(field: declaration.key, reason: "has a value that is not allowed")
            }
            throw TipJarError.invalidValue(
                field: declaration.key,
                reason: "must be between \(range.lowerBound) and \(range.upperBound)\(unit.map { " " + $0 } ?? "")")
        }
        try await storage.save(newSettings)
        current.withLock { $0 = newSettings }
    }

    /// "Reset to the file's settings", as `SKTestSession.resetToDefaultState()`
    /// (https://developer.apple.com/documentation/storekittest/sktestsession/resettodefaultstate()): a healthy
    /// store with what the `.storekit` file's `settings` set, saved.
    /// - Returns: the settings now in force.
    /// - Throws: storage errors (the settings in force are then unchanged).
    @discardableResult
    public func resetToFileSettings() async throws -> StoreSettings {
        let defaults = catalog.fileSettings.defaultStoreSettings
        try await update(defaults)
        return defaults
    }

    /// The product IDs the store holds right now, as the store sees them (in `.mismatch` mode
    /// they differ from the catalog's, which is why Retry cannot fix it).
    public var storeProductIDs: [String] {
        let ids = catalog.products.map(\.productID)
        return settings.catalog == .mismatch ? ids.map { $0 + Self.mismatchSuffix } : ids
    }

    /// `Product.products(for:)`: the products among `identifiers` that the store holds, resolved
    /// for a storefront and locale, in the store's order (not tier order: sorting is the app's job).
    /// - Parameters:
    ///   - identifiers: The product IDs the app asks for.
    ///   - storefront: The install's storefront.
    ///   - locale: The install's locale.
    /// - Returns: Possibly empty; unknown IDs are left out, as StoreKit does.
    /// - Throws: `StoreKitError` when the catalog is `.failing` or Load Products failure is on.
    public func products(for identifiers: [String], storefront: Storefront, locale: AppLocale) async throws -> [Product] {
        let settings = self.settings
        if settings.catalog == .slow, settings.latencyMs > 0 {
            try await environment.sleep(.milliseconds(settings.latencyMs))
        }
        if let error = settings.failures.loadProducts { throw error }
        switch settings.catalog {
        case .failing: throw StoreKitError.networkError
        case .empty, .mismatch: return []
        case .normal, .slow: break
        }
        // The store answers in its own order: reversed file order, so that tier sorting is visible. The products
        // are resolved once per storefront and locale and kept (``offers``).
        let listing = offers.listing(storefront: storefront, locale: locale)
        if identifiers == offers.tipIDs { return listing.storeTips }
        let wanted = Set(identifiers)
        return listing.storeProducts.filter { wanted.contains($0.id) }
    }

    /// The StoreKit `Product` for a catalog entry in one storefront and locale (from ``offers``).
    public func product(for entry: CatalogProduct, storefront: Storefront, locale: AppLocale) -> Product {
        offers.product(for: entry, storefront: storefront, locale: locale)
    }

    /// `Product.purchase(options:)` for an install: waits `purchaseLatencyMs`, then answers with the set
    /// outcome. A `.pending` purchase is an Ask to Buy request (``askToBuy(productID:for:options:)``), no transaction.
    ///
    /// The order of the checks is the precedence rule (Sources/TipJar/README.md, "Which purchase setting wins"): the Purchase
    /// failure injection first (it throws before anything else and creates nothing; it wins over every outcome,
    /// `failed` included), then a product the store does not hold (`productUnavailable`), a quantity outside 1...10
    /// (`invalidQuantity`), then the purchase traps: `interruptedPurchases` keeps an interrupted purchase and throws
    /// ``InterruptedPurchase`` (`purchaseError`); `chargedDespiteError` creates a purchased transaction and throws ``ChargedDespiteError``.
    /// Then the unfinished-transaction rule: a successful purchase of a product that has an unfinished, unrevoked
    /// transaction on the Apple Account answers with that same transaction (same ID, no new charge), whatever set the
    /// transaction unfinished (a verification failure, a crash before `finish()`, an app that forgets it, or the
    /// `finishIgnored` trap). Then Ask to Buy, and last `purchaseOutcome`. (The purchase sheet comes before all of
    /// these: a cancelled sheet never reaches the store.)
    ///
    /// Apple documents that "A transaction is unfinished until you call `finish()`"
    /// (https://developer.apple.com/documentation/storekit/transaction/unfinished) and is silent on what `purchase()`
    /// answers for a product with an unfinished transaction; StoreKit Testing was observed handing the unfinished
    /// transaction back (https://github.com/RevenueCat/purchases-ios/issues/1964, https://github.com/RevenueCat/purchases-ios/pull/1965), so the simulator does.
    /// Apple's documents do not say what an Ask to Buy or a failing purchase does then; those keep their own answers.
    ///
    /// An interrupted purchase throws: `interruptedPurchasesEnabled` "causes all purchases to fail until you disable
    /// it" (https://developer.apple.com/documentation/storekittest/sktestsession/interruptedpurchasesenabled), and
    /// "Testing an interrupted purchase" (https://developer.apple.com/documentation/storekit/testing-an-interrupted-purchase)
    /// describes a failed payment. Apple is silent on the StoreKit 2 error, so it is the `purchaseError` setting ("Error
    /// when failed"), which a rehearsal picks.
    ///
    /// It runs on the caller's executor (`nonisolated(nonsending)`, SE-0461), so a purchase does not hop
    /// to another executor.
    /// - Parameter settings: the store's settings as the caller read them for this purchase (``settings``
    ///   when `nil`); read again after `purchaseLatencyMs`, when they may have changed.
    /// - Returns: the answer, the settings it used and, for a `.success` with a new transaction, that transaction
    ///   issued but not yet saved: the app's handler saves it with its record, in one operation
    ///   (`TipJarStorage.issue(_:thenRecord:)`).
    /// - Throws: the Purchase failure or the `.failed` outcome's error (a `StoreKitError` or a
    ///   `Product.PurchaseError`); ``ChargedDespiteError``; ``InterruptedPurchase``; `Product.PurchaseError.productUnavailable` when the
    ///   store does not hold the product, `.invalidQuantity` for a quantity outside
    ///   ``Product/PurchaseOptions/allowedQuantities``.
    public nonisolated(nonsending) func purchase(
        productID: String, for install: Install,
        options: Product.PurchaseOptions = Product.PurchaseOptions(),
        settings: StoreSettings? = nil
    ) async throws -> PurchaseAnswer {
        var settings = settings ?? self.settings
        if settings.purchaseLatencyMs > 0 {
            try await environment.sleep(.milliseconds(settings.purchaseLatencyMs))
            settings = self.settings
        }
        if let failure = settings.failures.purchase { throw failure.error }
        guard catalog.product(withID: productID) != nil, settings.catalog != .mismatch else {
            throw Product.PurchaseError.productUnavailable
        }
        guard Product.PurchaseOptions.allowedQuantities.contains(options.quantity) else { throw Product.PurchaseError.invalidQuantity }
        if settings.interruptedPurchases {
            throw InterruptedPurchase(
                error: settings.purchaseError,
                record: try await issue(productID: productID, for: install, status: .interrupted, options: options))
        }
        if settings.chargedDespiteError {
            throw ChargedDespiteError(
                error: settings.purchaseError,
                transaction: try await issue(productID: productID, for: install, status: .purchased, options: options))
        }
        if let unfinished = try await unfinishedTransactionToReturn(productID: productID, accountID: install.accountID, settings: settings) {
            return PurchaseAnswer(result: .success(verify(unfinished.transaction, settings)), settings: settings, returnsUnfinished: true)
        }
        if settings.askToBuyEnabled {
            return PurchaseAnswer(result: .pending, settings: settings, request: try await askToBuy(productID: productID, for: install, options: options))
        }
        switch settings.purchaseOutcome {
        case .failed: throw settings.purchaseError.error
        case .cancelled: return PurchaseAnswer(result: .userCancelled, settings: settings)
        case .pending:
            return PurchaseAnswer(result: .pending, settings: settings, request: try await askToBuy(productID: productID, for: install, options: options))
        case .success:
            let issued = newTransaction(productID: productID, for: install, status: .purchased, options: options)
            return PurchaseAnswer(result: .success(verify(issued.transaction, settings)), settings: settings, issued: issued)
        case .unverified:
            let issued = newTransaction(productID: productID, for: install, status: .purchased, options: options)
            return PurchaseAnswer(
                result: .success(.unverified(issued.transaction, settings.failures.verification ?? .invalidSignature)),
                settings: settings, issued: issued)
        }
    }

    /// The unfinished-transaction rule on its own: the account's unfinished, unrevoked transaction of the product when
    /// a purchase would succeed (outcome `success` or `unverified`, Ask to Buy off), else `nil`. ``purchase(productID:for:options:settings:)``
    /// applies it after the failure injection and the traps.
    func unfinishedTransactionToReturn(productID: String, accountID: String, settings: StoreSettings) async throws -> StoredTransaction? {
        guard !settings.askToBuyEnabled, settings.purchaseOutcome == .success || settings.purchaseOutcome == .unverified else { return nil }
        return try await storage.firstUnfinishedTransaction(accountID: accountID, productID: productID)
    }

    /// Whether a purchase of `productID` with these options would answer with the account's unfinished transaction
    /// (and nothing before it in the precedence rule would answer first): then StoreKit Testing was observed to show
    /// no payment sheet at all (RevenueCat purchases-ios, https://github.com/RevenueCat/purchases-ios/issues/2086: the purchase popup did not appear, with
    /// https://github.com/RevenueCat/purchases-ios/issues/1964's transaction handed back; Apple's documents are silent).
    /// - Returns: that transaction, or `nil` when the purchase would go another way.
    public func returnsUnfinishedTransaction(
        productID: String, for install: Install, options: Product.PurchaseOptions, settings: StoreSettings
    ) async throws -> StoredTransaction? {
        guard settings.failures.purchase == nil, catalog.product(withID: productID) != nil, settings.catalog != .mismatch,
            Product.PurchaseOptions.allowedQuantities.contains(options.quantity), !settings.interruptedPurchases,
            !settings.chargedDespiteError
        else { return nil }
        return try await unfinishedTransactionToReturn(productID: productID, accountID: install.accountID, settings: settings)
    }

    /// Checks a transaction's signature the way StoreKit would, honouring the Verification failure.
    public func verify(_ transaction: Transaction) -> VerificationResult<Transaction> {
        verify(transaction, settings)
    }

    /// ``verify(_:)`` under the given settings.
    func verify(_ transaction: Transaction, _ settings: StoreSettings) -> VerificationResult<Transaction> {
        if let error = settings.failures.verification { return .unverified(transaction, error) }
        return .verified(transaction)
    }

    /// `Transaction.unfinished` for an account: purchased transactions the app never finished.
    public func unfinished(accountID: String) async throws -> [VerificationResult<Transaction>] {
        try await storage.unfinishedTransactions(accountID: accountID).map { verify($0.transaction) }
    }

    /// `AppStore.sync()`: for consumables, brings back only the account's unfinished transactions.
    /// - Throws: the App Store Sync failure when it is on.
    public func sync(accountID: String) async throws -> [VerificationResult<Transaction>] {
        try await sync(accountID: accountID, installID: nil).map(\.verification)
    }

    /// `AppStore.sync()` from one install: the account's unfinished transactions and, with `syncReplaysFinished`,
    /// the unrevoked transactions this install already finished ("Restore replays"), oldest first.
    /// - Returns: each transaction and whether it is a replay of a finished one.
    /// - Throws: the App Store Sync failure when it is on.
    public func sync(accountID: String, installID: String?) async throws -> [(verification: VerificationResult<Transaction>, isReplay: Bool)] {
        if let error = settings.failures.sync { throw error }
        var delivered = try await unfinished(accountID: accountID).map { (verification: $0, isReplay: false) }
        if settings.syncReplaysFinished, let installID {
            let finished = try await storage.transactions(accountID: accountID, limit: 100_000).filter {
                $0.installID == installID && $0.status == .purchased && $0.isFinished && !$0.transaction.isRevoked
            }
            delivered += finished.reversed().map { (verification: verify($0.transaction), isReplay: true) }
        }
        return delivered
    }

    /// Saves `changed` only while the stored transaction is still in `read`'s state (`TipJarStorage.update(_:from:)`).
    /// - Throws: `lost` when another action changed it first; `.transactionNotFound` when it is gone.
    func move(_ read: StoredTransaction, to changed: StoredTransaction, orThrow lost: TipJarError) async throws -> StoredTransaction {
        guard try await storage.update(changed, from: read) else {
            let id = read.transaction.id
            guard try await storage.transaction(withID: id) != nil else { throw TipJarError.transactionNotFound(id) }
            throw lost
        }
        return changed
    }

    /// A refund: sets `revocationDate` and `revocationReason`; the revoked transaction, with the
    /// same ID, is then delivered through the listener of every running install of the account. A refund does not make
    /// a finished transaction unfinished ("A transaction is unfinished until you call finish()",
    /// https://developer.apple.com/documentation/storekit/transaction/unfinished), so an app that is not running does
    /// not receive it at its next launch, unless the store setting ``StoreSettings/refundsDeliveredAtLaunch`` says so
    /// (Apple is silent; Sources/TipJar/StoreKitFidelity.md). Of concurrent refunds of one transaction, one wins.
    /// - Throws: `TipJarError.transactionNotFound`; `.invalidValue` if it is not purchased;
    ///   `.alreadyRefunded` for a second refund.
    /// - Parameters:
    ///   - type: the kind of refund (`Transaction.RevocationType`): a full refund by default; a prorated one with
    ///   - percentage: how much, in milliunits of a percent (Apple's `revocationPercentage`): 1...99,999 for a prorated
    ///     refund; a full refund is 100,000 (given or not).
    public func refund(
        transactionID: UInt64, reason: Transaction.RevocationReason, type: Transaction.RevocationType = .fullRefund,
        percentage: Int? = nil
    ) async throws -> StoredTransaction {
        let revokedShare: Int
        switch type {
        case .fullRefund:
            guard percentage == nil || percentage == Transaction.fullRevocationPercentage else {
                throw TipJarError.invalidValue(
                    field: "revocationPercentage", reason: "must be 100000 (100 %) or absent for REFUND_FULL; a partial refund is REFUND_PRORATED")
            }
            revokedShare = Transaction.fullRevocationPercentage
        case .proratedRefund:
            // A prorated refund refunds part of the price: 1 to 99,999 milliunits of a percent. 0 refunds nothing, and
            // 100,000, the whole price, is a full refund (`REFUND_FULL`, "fully refunded"); Apple's
            // `revocationPercentage` (https://developer.apple.com/documentation/appstoreservernotifications/revocationpercentage)
            // allows both numbers, its `REFUND_PRORATED` ("partially refunded",
            // https://developer.apple.com/documentation/appstoreserverapi/revocationtype) neither.
            guard let percentage, (1..<Transaction.fullRevocationPercentage).contains(percentage) else {
                throw TipJarError.invalidValue(
                    field: "revocationPercentage",
                    reason: "REFUND_PRORATED needs the refunded share, in milliunits of a percent from 1 to 99999 (0 refunds nothing; 100000 is the whole price: REFUND_FULL)")
            }
            revokedShare = percentage
        case .familyRevocation:
            throw TipJarError.invalidValue(
                field: "revocationType",
                reason: "FAMILY_REVOKE applies only to a transaction shared through Family Sharing; a tip is bought by the account itself (ownershipType PURCHASED)")
        }
        // An Ask to Buy request is no transaction: not found, as for every other action by transaction ID.
        guard let stored = try await storage.transaction(withID: transactionID), stored.isListed else {
            throw TipJarError.transactionNotFound(transactionID)
        }
        guard stored.status == .purchased else {
            throw TipJarError.invalidValue(field: "transactionID", reason: "only a purchased transaction can be refunded")
        }
        guard !stored.transaction.isRevoked else { throw TipJarError.alreadyRefunded(transactionID) }
        var refunded = stored
        refunded.transaction.revocationDate = environment.now()
        refunded.transaction.signedDate = environment.now()
        refunded.transaction.revocationReason = reason
        refunded.transaction.revocationType = type
        refunded.transaction.revocationPercentage = revokedShare
        if settings.refundsDeliveredAtLaunch { refunded.isFinished = false }
        return try await move(stored, to: refunded, orThrow: .alreadyRefunded(transactionID))
    }

    /// A purchase made outside the app (another device of the account, an offer code). Any
    /// product ID is accepted, so a product removed from the catalog can be simulated.
    public func externalPurchase(productID: String, for install: Install) async throws -> StoredTransaction {
        try await issue(productID: productID, for: install, status: .purchased, isExternal: true)
    }

    /// Issues and saves a transaction.
    nonisolated(nonsending) func issue(
        productID: String, for install: Install, status: StoredTransaction.Status,
        options: Product.PurchaseOptions = Product.PurchaseOptions(),
        isExternal: Bool = false
    ) async throws -> StoredTransaction {
        let stored = newTransaction(productID: productID, for: install, status: status, options: options, isExternal: isExternal)
        try await storage.insert(stored)
        return stored
    }

    /// The next transaction (or Ask to Buy request) ID.
    func nextTransactionID() -> UInt64 {
        lastTransactionID.withLock { last in
            last = environment.nextTransactionID(last)
            return last
        }
    }

    /// The current time of the store's environment.
    func now() -> Date { environment.now() }

    /// Issues a transaction with the next ID, not saved yet.
    func newTransaction(
        productID: String, for install: Install, status: StoredTransaction.Status,
        options: Product.PurchaseOptions = Product.PurchaseOptions(),
        isExternal: Bool = false
    ) -> StoredTransaction {
        var transaction = Transaction(
            id: nextTransactionID(), productID: productID,
            purchaseDate: environment.now(), storefront: install.storefront)
        let entry = catalog.product(withID: productID)
        transaction.purchasedQuantity = options.quantity
        transaction.appAccountToken = options.appAccountToken
        // Apple stamps the environment on every signed transaction; a later change of the setting leaves it alone.
        transaction.environment = settings.environment
        // Apple's `Transaction.price` counts the quantity (https://developer.apple.com/documentation/storekit/transaction/price),
        // of the amount the storefront charges, the `Product.price` the install was shown (``Storefront/chargedPrice(_:)``).
        let storefront = Storefront.named(install.storefront)
        transaction.price = entry.map { (storefront?.chargedPrice($0.price) ?? $0.price) * Decimal(options.quantity) }
        transaction.currency = storefront?.currencyCode
        transaction.productType = entry?.type
        transaction.appBundleID = appBundleID
        transaction.appTransactionID = Transaction.appTransactionID(accountID: install.accountID, appBundleID: appBundleID)
        return StoredTransaction(
            transaction: transaction, accountID: install.accountID, installID: install.id,
            status: status, isExternal: isExternal)
    }
}

/// What ``SimulatedStore/purchase(productID:for:options:)`` answered, and the transaction it issued for a
/// `.success` the app's handler is to record, which is saved with that record (`TipJarStorage.issue(_:thenRecord:)`).
public struct PurchaseAnswer: Sendable {
    /// `Product.PurchaseResult`, as `Product.purchase(options:)` returns it.
    public var result: Product.PurchaseResult
    /// The store's settings the answer followed, for the handler that records it.
    public var settings: StoreSettings
    /// The new transaction of a `.success`, issued and not yet saved; `nil` when there is none, or it is saved already.
    public var issued: StoredTransaction?
    /// Whether the `.success` carries the account's unfinished transaction of the product, not a new charge.
    public var returnsUnfinished: Bool
    /// The Ask to Buy request of a `.pending` (a new one, or the one waiting that it was consolidated into).
    public var request: StoredTransaction?

    /// Creates an answer.
    public init(
        result: Product.PurchaseResult, settings: StoreSettings, issued: StoredTransaction? = nil, returnsUnfinished: Bool = false,
        request: StoredTransaction? = nil
    ) {
        self.result = result
        self.settings = settings
        self.issued = issued
        self.returnsUnfinished = returnsUnfinished
        self.request = request
    }
}

/// "Charged despite an error" (`StoreSettings/chargedDespiteError`): what `Product.purchase()` throws is ``error``,
/// but the store created ``transaction``, which reaches the app later through `Transaction.updates`.
public struct ChargedDespiteError: Error, Sendable {
    /// The error the app sees (the `purchaseError` setting: a `StoreKitError` or a `Product.PurchaseError`).
    public var error: PurchaseFailure
    /// The transaction the store created and keeps, purchased and unfinished.
    public var transaction: StoredTransaction
}
