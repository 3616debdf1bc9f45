/// A transaction as the simulated App Store keeps it: the StoreKit `Transaction` plus the store's
/// own bookkeeping (who bought it, Ask to Buy status, whether the app called `finish()`).
public struct StoredTransaction: Sendable, Equatable {
    /// Where a transaction stands in the store.
    public enum Status: String, Sendable, Codable, CaseIterable {
        /// Ask to Buy: waiting for a parent's approval; not yet delivered to the app.
        case pending
        /// Charged; delivered (or waiting to be delivered) to the app.
        case purchased
        /// Ask to Buy declined: never delivered, nothing recorded.
        case declined
        /// An interrupted purchase (`SKTestTransaction.hasPurchaseIssue`,
        /// https://developer.apple.com/documentation/storekittest/sktesttransaction/haspurchaseissue): the customer
        /// must act outside the app; not delivered until `resolveIssueForTransaction(identifier:)` makes it purchased.
        case interrupted
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
    /// `AppStore.sync()` (README "Domain rules" 6).
    public var isFinished: Bool
    /// Whether it was bought outside the app (another device, an offer code).
    public var isExternal: Bool

    /// Creates a stored transaction.
    public init(
        transaction: Transaction, accountID: String, installID: String, status: Status,
        isFinished: Bool = false, isExternal: Bool = false
    ) {
        self.transaction = transaction
        self.accountID = accountID
        self.installID = installID
        self.status = status
        self.isFinished = isFinished
        self.isExternal = isExternal
    }
}
