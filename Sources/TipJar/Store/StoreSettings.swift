/// The simulated App Store's knobs: catalog outages, purchase outcomes, failure injection per API
/// and latencies. Persisted, so a restart keeps them; at start-up the fields the
/// `.storekit` file sets are applied over them (``StoreKitFileSettings/applied(to:)``).
///
/// Modelled on Xcode's StoreKit testing: the `.storekit` file's `_storeKitErrors` categories
/// (Load Products, Purchase, Verification, App Store Sync) are the `failures` here.
public struct StoreSettings: Sendable, Equatable, Codable {
    /// What `Product.products(for:)` does.
    public enum CatalogMode: String, Sendable, Codable, CaseIterable {
        /// Returns the catalog's products.
        case normal
        /// Returns an empty array (no payment method, region without the products).
        case empty
        /// Throws `failures.loadProducts`, or `networkError` when that is off.
        case failing
        /// Returns the products after `latencyMs`.
        case slow
        /// The store holds products, but not the IDs the app asks for: an empty answer that
        /// Retry cannot fix (the TipJar app's shop manual, github.com/fluhartyml/TipJar, "Known gotchas").
        case mismatch
    }

    /// What the next `Product.purchase()` does.
    public enum PurchaseOutcome: String, Sendable, Codable, CaseIterable {
        /// `.success(.verified(transaction))`.
        case success
        /// `.success(.unverified(transaction, failures.verification ?? .invalidSignature))`.
        case unverified
        /// `.userCancelled`.
        case cancelled
        /// `.pending`: Ask to Buy; the transaction arrives later through the listener.
        case pending
        /// Throws `purchaseError`.
        case failed
    }

    /// Per-API failure injection; `nil` means off.
    public struct Failures: Sendable, Equatable, Codable {
        /// Thrown by `Product.products(for:)` (Xcode's "Load Products").
        public var loadProducts: StoreKitError?
        /// Thrown by `Product.purchase()` (Xcode's "Purchase"): any `StoreKitError` or `Product.PurchaseError`.
        /// It wins over `purchaseOutcome` (``StoreSettings/PurchaseOutcome/failed`` included), as Xcode's
        /// injected error is thrown before the store looks at anything else.
        public var purchase: PurchaseFailure?
        /// Makes every delivered transaction unverified with this error (Xcode's "Verification").
        public var verification: VerificationError?
        /// Thrown by `AppStore.sync()` (Xcode's "App Store Sync").
        public var sync: StoreKitError?
        /// Thrown by `Transaction.beginRefundRequest(in:)` (Xcode's "Refund Request Sheet",
        /// https://developer.apple.com/documentation/storekittest/sktestfailures/refundrequest): a `StoreKitError` or a
        /// `Transaction.RefundRequestError`, before the store receives anything.
        public var refundRequest: RefundRequestFailure?

        /// All failures off.
        public init(
            loadProducts: StoreKitError? = nil, purchase: PurchaseFailure? = nil,
            verification: VerificationError? = nil, sync: StoreKitError? = nil, refundRequest: RefundRequestFailure? = nil
        ) {
            self.loadProducts = loadProducts
            self.purchase = purchase
            self.verification = verification
            self.sync = sync
            self.refundRequest = refundRequest
        }
    }

    /// The catalog mode.
    public var catalog: CatalogMode
    /// Load-products latency in milliseconds, applied when `catalog` is `.slow` (0...60,000).
    public var latencyMs: Int
    /// The purchase outcome.
    public var purchaseOutcome: PurchaseOutcome
    /// The error thrown when `purchaseOutcome` is `.failed`: any `StoreKitError` or `Product.PurchaseError`.
    public var purchaseError: PurchaseFailure
    /// Per-API failures.
    public var failures: Failures
    /// Purchase latency in milliseconds, applied to every purchase (0...60,000).
    public var purchaseLatencyMs: Int
    /// Whether the app "crashes" after recording a delivery but before calling `finish()`, leaving
    /// the transaction unfinished for the next launch.
    public var crashBeforeFinish: Bool
    /// How many times the listener re-emits each transaction after it was delivered (0...3), so the
    /// same transaction arrives from the purchase result and the listener.
    public var listenerReemits: Int
    /// Ask to Buy for every purchase, as `SKTestSession.askToBuyEnabled`
    /// (https://developer.apple.com/documentation/storekittest/sktestsession/asktobuyenabled): each purchase
    /// answers `.pending` and waits for Approve or Decline, whatever `purchaseOutcome` says. The `.storekit`
    /// file's `_askToBuyEnabled` sets it.
    public var askToBuyEnabled: Bool
    // The purchase traps (Public/scenarios/README.md, "Rehearse these StoreKit traps"); every one is off by default.
    /// Interrupted purchases, as `SKTestSession.interruptedPurchasesEnabled`
    /// (https://developer.apple.com/documentation/storekittest/sktestsession/interruptedpurchasesenabled): "causes
    /// all purchases to fail until you disable it": `Product.purchase()` throws `purchaseError` (the choice where Apple is
    /// silent), and each one is kept until ``SimulatedStore/resolveIssue(transactionID:)`` issues a new transaction.
    public var interruptedPurchases: Bool
    /// "finish() is ignored": the app's `finish()` has no effect, so the transaction stays unfinished, and the next
    /// purchase of the same product returns that same transaction (``SimulatedStore/purchase(productID:for:)``).
    public var finishIgnored: Bool
    /// "Charged despite an error": `Product.purchase()` throws `purchaseError`, yet the store created the
    /// transaction, which reaches the listener ``lateDeliveryDelayMs`` later (or at the next launch).
    public var chargedDespiteError: Bool
    /// "Restore replays": `AppStore.sync()` also re-delivers the transactions the install already finished.
    public var syncReplaysFinished: Bool
    /// "Re-emit later": the `listenerReemits` re-emits reach the listener this many milliseconds after the
    /// delivery they repeat, instead of at once (0...60,000; 0 keeps them inside the delivering request).
    public var listenerReemitDelayMs: Int

    /// How long after the failed purchase answered a "charged despite an error" transaction reaches the listener.
    public static let lateDeliveryDelayMs = 3_000

    // The purchase sheet (Sources/TipJar/README.md, "The purchase sheet").
    /// "Skip the purchase sheet", as `SKTestSession.disableDialogs`
    /// (https://developer.apple.com/documentation/storekittest/sktestsession/disabledialogs): no App Store sheet
    /// is shown; every purchase is confirmed at once. The `.storekit` file's `_disableDialogs` sets it.
    public var skipPurchaseSheet: Bool

    // The app's Info.plist.
    /// The app's `SKIncludeConsumableInAppPurchaseHistory`
    /// (https://developer.apple.com/documentation/bundleresources/information-property-list/skincludeconsumableinapppurchasehistory):
    /// "By default, this value is false. When it's false, StoreKit doesn't return finished consumables (unless
    /// refunded or revoked)" from `Transaction.all` and `Transaction.latest(for:)`; when true it does
    /// (``SimulatedStore/history(_:view:catalog:includeConsumableInAppPurchaseHistory:)``). Off by default.
    public var includeConsumableInAppPurchaseHistory: Bool

    // `Transaction.updates` where Apple's documents are silent (Sources/TipJar/StoreKitFidelity.md).
    /// Whether a consumable that another device of the Apple Account bought, and finished, reaches this device's
    /// `Transaction.updates` while the app runs. Apple's `updates` "also emits transactions that customers complete in
    /// your app on another device" (https://developer.apple.com/documentation/storekit/transaction/updates) and says
    /// nothing of consumables finished there, so the unconditional sentence decides the default: on. Off, only what
    /// the other device left unfinished (and refunds) reaches this one.
    public var finishedConsumablesReachOtherDevices: Bool
    /// Whether a refund made while the app was stopped reaches it at its next launch. Apple's `updates` page names
    /// only unfinished transactions as delivered at launch ("If your app has unfinished transactions, the updates
    /// listener receives them once, immediately after the app launches"), and a refund does not make a finished
    /// transaction unfinished ("A transaction is unfinished until you call finish()",
    /// https://developer.apple.com/documentation/storekit/transaction/unfinished); a developer reports no refund
    /// arriving at launch (https://developer.apple.com/forums/thread/751340). So off by default: the app learns of it
    /// from `Transaction.all` or its server. On, the refunded transaction waits, unfinished, for the next launch.
    public var refundsDeliveredAtLaunch: Bool

    /// Who decides a refund request the app sent (`Transaction.beginRefundRequest(in:)`). "The App Store takes up to
    /// 48 hours to either approve or deny a refund"
    /// (https://developer.apple.com/documentation/storekit/transaction/beginrefundrequest(in:)-4w6kn).
    public enum RefundRequestDecision: String, Sendable, Codable, CaseIterable {
        /// The request waits on `/store` for Approve or Decline.
        case manual
        /// Approved as soon as it is received: the refund reaches the app through `Transaction.updates`.
        case approve
        /// Declined as soon as it is received: nothing reaches the app.
        case decline
        /// Decided when the developer's server answers the `CONSUMPTION_REQUEST` notification with Send Consumption
        /// Information: declined when its `refundPreference` asks for a decline (`DECLINE`, or `2` in v1), approved
        /// otherwise; Approve or Decline on `/store` overrides it until then. Apple weighs consumption information
        /// with other data it does not document ("the App Store … determines the refund outcome",
        /// https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information); here the
        /// preference decides.
        case consumptionInformation
    }
    /// Who decides a received refund request (``RefundRequestDecision``); `manual` by default.
    public var refundRequestDecision: RefundRequestDecision

    // The App Store's environment (Sources/TipJarDashboard/README.md, "App Store Server API").
    /// The environment every transaction is issued in and the App Store Server API answers as: `Xcode` (StoreKit
    /// Testing in Xcode, the default) or `LocalTesting` (a local App Store server,
    /// https://developer.apple.com/documentation/appstoreserverapi/environment). Stamped on each transaction when it
    /// is issued, as Apple's `environment` is part of every signed transaction; a change applies to new transactions.
    public var environment: Transaction.Environment

    /// The largest latency accepted, in milliseconds.
    public static let maximumLatencyMs = 60_000

    /// A healthy store: normal catalog, successful verified purchases, no latency.
    public static let normal = StoreSettings()

    /// Creates settings; defaults are a healthy store.
    public init(
        catalog: CatalogMode = .normal, latencyMs: Int = 0, purchaseOutcome: PurchaseOutcome = .success,
        purchaseError: PurchaseFailure = .networkError, failures: Failures = Failures(),
        purchaseLatencyMs: Int = 0, crashBeforeFinish: Bool = false, listenerReemits: Int = 0,
        askToBuyEnabled: Bool = false, interruptedPurchases: Bool = false, finishIgnored: Bool = false,
        chargedDespiteError: Bool = false, syncReplaysFinished: Bool = false, listenerReemitDelayMs: Int = 0,
        skipPurchaseSheet: Bool = false, includeConsumableInAppPurchaseHistory: Bool = false,
        finishedConsumablesReachOtherDevices: Bool = true, refundsDeliveredAtLaunch: Bool = false,
        refundRequestDecision: RefundRequestDecision = .manual, environment: Transaction.Environment = .xcode
    ) {
        self.refundRequestDecision = refundRequestDecision
        self.environment = environment
        self.finishedConsumablesReachOtherDevices = finishedConsumablesReachOtherDevices
        self.refundsDeliveredAtLaunch = refundsDeliveredAtLaunch
        self.catalog = catalog
        self.latencyMs = latencyMs
        self.purchaseOutcome = purchaseOutcome
        self.purchaseError = purchaseError
        self.failures = failures
        self.purchaseLatencyMs = purchaseLatencyMs
        self.crashBeforeFinish = crashBeforeFinish
        self.listenerReemits = listenerReemits
        self.askToBuyEnabled = askToBuyEnabled
        self.interruptedPurchases = interruptedPurchases
        self.finishIgnored = finishIgnored
        self.chargedDespiteError = chargedDespiteError
        self.syncReplaysFinished = syncReplaysFinished
        self.listenerReemitDelayMs = listenerReemitDelayMs
        self.skipPurchaseSheet = skipPurchaseSheet
        self.includeConsumableInAppPurchaseHistory = includeConsumableInAppPurchaseHistory
    }

    /// Decodes saved settings, field by field as ``declarations`` name them; a field missing from an older save
    /// (or `null`) takes its default.
    /// - Throws: `DecodingError` when a present field has the wrong type or an unknown value.
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: StoreSettingCodingKey.self)
        for declaration in Self.declarations { try declaration.decode(into: &self, from: container) }
    }
}
