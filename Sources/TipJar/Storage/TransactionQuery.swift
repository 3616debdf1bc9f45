/// Which of the store's transactions to list (`GET /api/transactions`, `/transactions`): any combination of
/// account, install, product and status, newest first, a page at a time.
public struct TransactionQuery: Sendable, Equatable {
    /// Only this Apple Account's transactions, or `nil` for every account.
    public var accountID: String?
    /// Only transactions bought from (or delivered to) this install, or `nil`.
    public var installID: String?
    /// Only this product ID, or `nil`.
    public var productID: String?
    /// Only this status, or `nil`.
    public var status: StoredTransaction.Status?
    /// 1-based page number, 1...`InstallQuery.maximumPage`.
    public var page: Int
    /// Rows per page, 1...200.
    public var pageSize: Int

    /// Creates a query; `page` is clamped to 1...`InstallQuery.maximumPage` and `pageSize` to 1...200
    /// (the dashboard refuses values outside them with a 400 before building a query).
    public init(
        accountID: String? = nil, installID: String? = nil, productID: String? = nil,
        status: StoredTransaction.Status? = nil, page: Int = 1, pageSize: Int = 50
    ) {
        self.accountID = accountID
        self.installID = installID
        self.productID = productID
        self.status = status
        self.page = min(InstallQuery.maximumPage, max(1, page))
        self.pageSize = min(200, max(1, pageSize))
    }
}

/// One page of transactions, newest first, and whether another follows.
public struct TransactionPage: Sendable, Equatable {
    /// The transactions on this page.
    public var transactions: [StoredTransaction]
    /// Whether there is a next page.
    public var hasMore: Bool

    /// Creates a page.
    public init(transactions: [StoredTransaction], hasMore: Bool) {
        self.transactions = transactions
        self.hasMore = hasMore
    }
}
