/// A transaction as the simulated App Store keeps it: the StoreKit `Transaction` plus the store's
/// own bookkeeping (who bought it, Ask to Buy status, whether the app called `finish()`).
public struct StoredTransaction: Sendable, Equatable {
    /// Where a transaction stands in the store.
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// The statuses a transaction list can be filtered by (`GET /api/transactions?status=`, `/transactions`):
        /// ``approved`` and ``resolved`` are settled records that no list holds, so they are not among them.
        public static let allCases: [Status] = [.pending, .purchased, .declined, .interrupted]

        /// An Ask to Buy request waiting for a parent's approval: no `Transaction` yet (Apple issues none until the
        /// approval), so it is in no transaction list; its ID is the request's (``isAskToBuyRequest``).
        case pending
        /// Charged; delivered (or waiting to be delivered) to the app.
        case purchased
        /// An Ask to Buy request declined: never delivered, nothing recorded, never a `Transaction`.
        case declined
        /// An Ask to Buy request approved: its transaction was issued then, under its own ID (``settledAs``); the
        /// request stays, so a second approve or a decline is told it is no longer pending.
        case approved
        /// An interrupted purchase (`SKTestTransaction.hasPurchaseIssue`,
        /// https://developer.apple.com/documentation/storekittest/sktesttransaction/haspurchaseissue): the customer
        /// must act outside the app; nothing is delivered until `resolveIssueForTransaction(identifier:)` issues a new
        /// transaction for it.
        case interrupted
        /// An interrupted purchase whose issue was resolved: a new transaction was issued (``settledAs``); the record
        /// stays, under its own identifier, so a second resolve is told it is no longer interrupted.
        case resolved
    }

    /// The StoreKit transaction.
    public var transaction: Transaction
    /// The Apple Account that owns it.
    public var accountID: String
    /// The install it was bought from (or delivered to, for an out-of-app purchase).
    public var installID: String
    /// Ask to Buy status.
    public var status: Status
    /// Whether the app called `finish()`; unfinished transactions are redelivered at launch and by
    /// `AppStore.sync()` (README "Domain rules": Recording).
    public var isFinished: Bool
    /// Whether it was bought outside the app (another device, an offer code).
    public var isExternal: Bool
    /// For an Ask to Buy request: how many times the same product was asked for again on the account while it
    /// waited; each is consolidated into this request and resets its timer (`transaction.purchaseDate`, the
    /// request's "requested at"), as Apple answers on https://developer.apple.com/forums/thread/706277. 0 otherwise.
    public var requestedAgain: Int

    /// The transaction an approval (of an Ask to Buy request) or a resolution (of an interrupted purchase) issued for
    /// this record; `nil` otherwise.
    public var settledAs: UInt64?

    /// How the transaction was issued, when the store knows something a ledger cannot tell: confirmed on the purchase
    /// sheet, or issued by an Ask to Buy approval. Saved with the transaction when it is issued, so its sequence
    /// diagram (`Sources/TipJarDashboard/TransactionLife.swift`) reads the same after a restart; `nil` for any other
    /// beginning and for a transaction saved before the store kept it.
    public var origin: Origin?

    /// What ``origin`` can say.
    public enum Origin: String, Sendable, Codable, CaseIterable {
        /// `Product.purchase()` showed the purchase sheet and the person confirmed it.
        case purchaseSheet
        /// A parent approved an Ask to Buy request, which issued this transaction (``settledAs`` of the request).
        case askToBuyApproval
    }

    /// The consumption information a server last sent for this transaction through Send Consumption Information
    /// (https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information): the checked
    /// request body, as JSON; `nil` until one is sent.
    public var consumptionInfo: String?

    /// Whether this is an Ask to Buy request (pending, declined or approved), not a transaction: its `transaction.id`
    /// is the request's identifier (as `SKTestTransaction.identifier` is the test session's, not `Transaction.id`),
    /// and no transaction view, list or export holds it; an approval issues the transaction, with a new ID.
    public var isAskToBuyRequest: Bool { status == .pending || status == .declined || status == .approved }

    /// Whether transaction lists, pages and exports hold it: a purchased transaction, or an interrupted purchase still
    /// waiting; never an Ask to Buy request nor a resolved interrupted purchase (its new transaction is listed).
    public var isListed: Bool { status == .purchased || status == .interrupted }

    /// Creates a stored transaction.
    public init(
        transaction: Transaction, accountID: String, installID: String, status: Status,
        isFinished: Bool = false, isExternal: Bool = false, requestedAgain: Int = 0, settledAs: UInt64? = nil
    ) {
        self.transaction = transaction
        self.accountID = accountID
        self.installID = installID
        self.status = status
        self.isFinished = isFinished
        self.isExternal = isExternal
        self.requestedAgain = requestedAgain
        self.settledAs = settledAs
        self.consumptionInfo = nil
        self.origin = nil
    }
}
