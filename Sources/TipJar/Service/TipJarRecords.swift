/// What the storage holds, read-only: the listings, ledgers and transactions pages show, through the service
/// (``TipJarService/records``), so a caller outside the core reads what it needs and can change nothing except
/// through the service's own actions, which keep the domain rules (README "Domain rules").
public struct TipJarRecords: Sendable {
    let storage: any TipJarStorage

    /// The storage's change log: whatever keeps what it read keys on it (``ChangeLog``).
    public var changeLog: ChangeLog { storage.changeLog }

    /// ``TipJarStorage/install(withID:)``.
    public func install(withID id: String) async throws -> Install? { try await storage.install(withID: id) }
    /// ``TipJarStorage/installs(matching:)``.
    public func installs(matching query: InstallQuery) async throws -> InstallPage { try await storage.installs(matching: query) }
    /// ``TipJarStorage/installWithLedger(id:limit:)``: the hearts and the ledger from one snapshot.
    public func installWithLedger(id: String, limit: Int) async throws -> (install: Install, ledger: [Delivery])? {
        try await storage.installWithLedger(id: id, limit: limit)
    }
    /// ``TipJarStorage/ledger(installID:limit:)``.
    public func ledger(installID: String, limit: Int) async throws -> [Delivery] { try await storage.ledger(installID: installID, limit: limit) }
    /// ``TipJarStorage/overview()``.
    public func overview() async throws -> Overview { try await storage.overview() }
    /// ``TipJarStorage/pendingTransactions()``: Ask to Buy requests waiting for a decision, oldest first (requests, not
    /// transactions: their IDs are the requests').
    public func pendingTransactions() async throws -> [StoredTransaction] { try await storage.pendingTransactions() }
    /// ``TipJarStorage/recentTransactions(limit:)``.
    public func recentTransactions(limit: Int) async throws -> [StoredTransaction] { try await storage.recentTransactions(limit: limit) }
    /// ``TipJarStorage/transaction(withID:)``, for a row transaction lists hold (``StoredTransaction/isListed``); `nil`
    /// for an Ask to Buy request, which is no transaction, and for a resolved interrupted purchase.
    public func transaction(withID id: UInt64) async throws -> StoredTransaction? {
        try await storage.transaction(withID: id).flatMap { $0.isListed ? $0 : nil }
    }
    /// ``TipJarStorage/transactions(withIDs:)``, the ones transaction lists hold (``transaction(withID:)``).
    public func transactions(withIDs ids: [UInt64]) async throws -> [StoredTransaction] {
        try await storage.transactions(withIDs: ids).filter(\.isListed)
    }
    /// Refund requests the app sent, newest first, at most `limit`.
    public func refundRequests(limit: Int = 200) async throws -> [RefundRequest] { try await storage.refundRequests(limit: limit) }

    /// The refund request for a transaction, or `nil`.
    public func refundRequest(transactionID: UInt64) async throws -> RefundRequest? { try await storage.refundRequest(transactionID: transactionID) }

    /// An Ask to Buy request (pending or declined) by its ID, or `nil`.
    public func askToBuyRequest(withID id: UInt64) async throws -> StoredTransaction? {
        try await storage.transaction(withID: id).flatMap { $0.isAskToBuyRequest ? $0 : nil }
    }
    /// ``TipJarStorage/transactions(matching:)``: transactions only; a query for the `pending` or `declined` status
    /// (Ask to Buy requests') is empty.
    public func transactions(matching query: TransactionQuery) async throws -> TransactionPage {
        if let status = query.status, status == .pending || status == .declined { return TransactionPage(transactions: [], hasMore: false) }
        return try await storage.transactions(matching: query)
    }
    /// ``TipJarStorage/transactions(accountID:limit:)``.
    public func transactions(accountID: String, limit: Int) async throws -> [StoredTransaction] {
        try await storage.transactions(accountID: accountID, limit: limit)
    }
}

extension TipJarService {
    /// The storage's contents, read-only (``TipJarRecords``): the web layer's one road to what is stored.
    public nonisolated var records: TipJarRecords { TipJarRecords(storage: storage) }
}
