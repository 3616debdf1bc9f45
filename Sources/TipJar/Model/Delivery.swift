import Foundation

/// How a transaction reached the install's handler.
public enum DeliveryPath: String, Sendable, Codable, CaseIterable {
    /// The result of `Product.purchase()`.
    case purchase
    /// `Transaction.updates` while the app runs (Ask to Buy approval, out-of-app purchase, refund,
    /// redelivery).
    case listener
    /// Unfinished transactions delivered when the app launches.
    case launch
    /// What `AppStore.sync()` brought back.
    case restore
    /// `Transaction.updates` while the app runs, for a transaction the Apple Account made (or had refunded) on another
    /// of its devices: Apple's `updates` "also emits transactions that customers complete in your app on another
    /// device" (https://developer.apple.com/documentation/storekit/transaction/updates).
    case otherDevice
}

/// What the handler decided about one delivery.
public enum RecordOutcome: String, Sendable, Codable, CaseIterable {
    /// A verified, unrevoked tip seen for the first time: one heart (up to five).
    case counted
    /// The same transaction ID was already counted for this install.
    case duplicate
    /// The transaction was refunded; nothing is added and nothing is taken back.
    case revoked
    /// The product is not one of the catalog's tips (a subscription, a non-consumable, or an ID the catalog
    /// does not hold); ignored and logged, no heart.
    case unknownProduct
    /// Verification failed; not recorded, not finished.
    case unverified
}

/// One row of an install's ledger: every delivery, with its outcome, so a person can see why a
/// heart did or did not appear (README "Domain rules": Recording).
public struct Delivery: Sendable, Equatable {
    /// The install that received it.
    public var installID: String
    /// The transaction delivered.
    public var transactionID: UInt64
    /// Its product.
    public var productID: String
    /// How it arrived.
    public var path: DeliveryPath
    /// What the handler decided.
    public var outcome: RecordOutcome
    /// Whether the handler called `finish()`.
    public var finished: Bool
    /// When it was handled (UTC).
    public var at: Date
    /// A short reason a store trap put on the row (``DeliveryNote``), or `nil` for an ordinary delivery.
    public var note: DeliveryNote?
    /// The transaction's `purchasedQuantity` (the purchase's `quantity(_:)` option), as the ledger shows it; 1
    /// when the store no longer holds the transaction. One counted delivery is one heart whatever the quantity.
    public var purchasedQuantity: Int = 1
    /// The transaction's `appAccountToken`, when the purchase passed one.
    public var appAccountToken: UUID?

    /// Creates a ledger row.
    public init(
        installID: String, transactionID: UInt64, productID: String, path: DeliveryPath,
        outcome: RecordOutcome, finished: Bool, at: Date, note: DeliveryNote? = nil
    ) {
        self.note = note
        self.installID = installID
        self.transactionID = transactionID
        self.productID = productID
        self.path = path
        self.outcome = outcome
        self.finished = finished
        self.at = at
    }
}

/// Why a ledger row looks the way it does when a store trap (Public/scenarios/README.md, "Rehearse these StoreKit traps") made it:
/// stored with the row, so the ledger explains itself after a restart too.
public enum DeliveryNote: String, Sendable, Codable, CaseIterable {
    /// The store ignored the handler's `finish()`: the transaction stays unfinished and comes back.
    case finishIgnored
    /// `Product.purchase()` threw, but the store had charged: the transaction arrived later through the listener.
    case chargedDespiteError
    /// `AppStore.sync()` re-delivered a transaction the app had already finished.
    case syncReplay
    /// A listener re-emit delivered after the purchase (or listener delivery) it repeats had answered.
    case reemittedLater
    /// An interrupted purchase, delivered through the listener once its issue was resolved.
    case interruptionResolved
    /// `Product.purchase()` answered with the account's unfinished transaction of the product instead of a new
    /// charge: the app never called `finish()` on it.
    case unfinishedReturned

    /// The short English reason the install page and the JSON ledger show.
    public var text: String {
        switch self {
        case .finishIgnored: "finish() was ignored"
        case .chargedDespiteError: "charged although purchase() threw"
        case .syncReplay: "AppStore.sync() replayed a finished transaction"
        case .reemittedLater: "re-emitted after the purchase answered"
        case .interruptionResolved: "interrupted purchase resolved"
        case .unfinishedReturned: "purchase() returned the unfinished transaction: no new charge"
        }
    }
}
