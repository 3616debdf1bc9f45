import Foundation

extension InMemoryTipJarStorage {
    // MARK: Transactions

    /// `TipJarStorage.insert(_:)` for a transaction. - Throws: ``Refusal/duplicateTransactionID(_:)``.
    public func insert(_ stored: StoredTransaction) throws {
        try write { try Self.insert(stored, into: &$0) }
    }

    static func insert(_ stored: StoredTransaction, into state: inout State) throws {
        let id = stored.transaction.id
        guard state.transactions[id] == nil else { throw Refusal.duplicateTransactionID(id) }
        state.transactions[id] = stored
    }

    /// `TipJarStorage.transaction(withID:)`.
    public func transaction(withID id: UInt64) -> StoredTransaction? {
        state.withLock { $0.transactions[id] }
    }

    /// `TipJarStorage.update(_:from:)`: the fields the SQLite `UPDATE` writes (purchase and signed dates, status,
    /// finished flag, revocation), under the lock only while the saved status and revocation are `expected`'s; the
    /// others stay as inserted.
    /// - Returns: `false` for an unknown ID or a transaction no longer in `expected`'s state (nothing changed).
    public func update(_ stored: StoredTransaction, from expected: StoredTransaction) -> Bool {
        write { state in
            guard var saved = state.transactions[stored.transaction.id], Self.isUnchanged(saved, from: expected) else { return false }
            saved.transaction.purchaseDate = stored.transaction.purchaseDate
            saved.transaction.signedDate = stored.transaction.signedDate
            saved.transaction.revocationDate = stored.transaction.revocationDate
            saved.transaction.revocationReason = stored.transaction.revocationReason
            saved.transaction.revocationType = stored.transaction.revocationType
            saved.transaction.revocationPercentage = stored.transaction.revocationPercentage
            saved.status = stored.status
            saved.isFinished = stored.isFinished
            saved.requestedAgain = stored.requestedAgain
            saved.settledAs = stored.settledAs
            saved.consumptionInfo = stored.consumptionInfo
            state.transactions[stored.transaction.id] = saved
            return true
        }
    }

    /// Whether `saved` is still in the state `expected` was read in (status, revocation, `requestedAgain`).
    static func isUnchanged(_ saved: StoredTransaction, from expected: StoredTransaction) -> Bool {
        saved.status == expected.status && saved.transaction.isRevoked == expected.transaction.isRevoked
            && saved.requestedAgain == expected.requestedAgain
    }

    /// `TipJarStorage.settle(_:as:issuing:)`: under one lock, the record moved to `settled`'s status and `settledAs`
    /// while unchanged, and `issued` inserted.
    /// - Throws: ``Refusal/duplicateTransactionID(_:)`` (nothing changed).
    public func settle(_ expected: StoredTransaction, as settled: StoredTransaction, issuing issued: StoredTransaction) throws -> Bool {
        try write { state in
            guard var saved = state.transactions[expected.transaction.id], Self.isUnchanged(saved, from: expected) else { return false }
            guard state.transactions[issued.transaction.id] == nil else { throw Refusal.duplicateTransactionID(issued.transaction.id) }
            saved.status = settled.status
            saved.settledAs = settled.settledAs
            state.transactions[expected.transaction.id] = saved
            state.transactions[issued.transaction.id] = issued
            return true
        }
    }

    /// Every saved transaction, by ascending ID.
    func transactionsByID() -> [StoredTransaction] {
        state.withLock { $0.transactions.values.sorted { $0.transaction.id < $1.transaction.id } }
    }

    /// `TipJarStorage.pendingTransactions()`: the Ask to Buy requests waiting, without the interrupted purchases, oldest first.
    public func pendingTransactions() -> [StoredTransaction] {
        transactionsByID().filter { $0.status == .pending }
    }

    /// `TipJarStorage.firstUnfinishedTransaction(accountID:productID:)`.
    public func firstUnfinishedTransaction(accountID: String, productID: String) -> StoredTransaction? {
        unfinishedTransactions(accountID: accountID).first { $0.transaction.productID == productID && !$0.transaction.isRevoked }
    }

    /// `TipJarStorage.unfinishedTransactions(accountID:)`: purchased and unfinished, oldest first.
    public func unfinishedTransactions(accountID: String) -> [StoredTransaction] {
        transactionsByID().filter { $0.accountID == accountID && $0.status == .purchased && !$0.isFinished }
    }

    /// `TipJarStorage.recentTransactions(limit:)`: newest first.
    public func recentTransactions(limit: Int) -> [StoredTransaction] {
        Self.prefix(transactionsByID().reversed().filter(\.isListed), limit: limit)
    }

    /// `TipJarStorage.largestTransactionID()`: the largest ID of the store's transactions and of the IDs installs
    /// counted; 0 when there is none.
    public func largestTransactionID() -> UInt64 {
        state.withLock { state in
            max(state.transactions.keys.max() ?? 0, state.counted.values.compactMap { $0.max() }.max() ?? 0)
        }
    }

    /// `TipJarStorage.transactions(matching:)`: every filter at once, newest first by ID; without a status, only the
    /// rows that are listed (``StoredTransaction/isListed``).
    public func transactions(matching query: TransactionQuery) -> TransactionPage {
        let rows = transactionsByID().reversed().filter { stored in
            (query.status != nil || stored.isListed) && query.accountID.map { stored.accountID == $0 } != false && query.installID.map { stored.installID == $0 } != false
                && query.productID.map { stored.transaction.productID == $0 } != false && query.status.map { stored.status == $0 } != false
        }
        let page = Self.page(rows, page: query.page, pageSize: query.pageSize)
        return TransactionPage(transactions: page.rows, hasMore: page.hasMore)
    }

    /// `TipJarStorage.transactions(accountID:limit:)`: newest first.
    public func transactions(accountID: String, limit: Int) -> [StoredTransaction] {
        Self.prefix(transactionsByID().reversed().filter { $0.accountID == accountID && $0.isListed }, limit: limit)
    }

    /// `TipJarStorage.deleteAllTransactions()`: the counted keys, hearts and ledgers stay.
    public func deleteAllTransactions() -> Int {
        write { state in
            defer {
                state.transactions.removeAll()
                state.refundRequests.removeAll()
            }
            return state.transactions.count
        }
    }

    /// `TipJarStorage.deleteTransaction(withID:)`.
    public func deleteTransaction(withID id: UInt64) -> Bool {
        write { state in
            state.refundRequests[id] = nil
            return state.transactions.removeValue(forKey: id) != nil
        }
    }

    /// `TipJarStorage.deleteInstall(withID:)`: the install, its ledger and its counted keys; its transactions stay.
    public func deleteInstall(withID id: String) -> Bool {
        write { state in
            state.ledgers[id] = nil
            state.counted[id] = nil
            return state.installs.removeValue(forKey: id) != nil
        }
    }

    // MARK: Ledger

    /// `TipJarStorage.record(_:)`: under one lock, a `.counted` delivery of a transaction this install already
    /// counted becomes `.duplicate`, a new one adds a heart up to ``Install/maximumHearts``; the ledger row is
    /// appended and, when `delivery.finished`, the transaction marked finished.
    /// - Throws: ``Refusal/unknownInstall(_:)``; nothing is changed then.
    public func record(_ delivery: Delivery) throws -> (outcome: RecordOutcome, hearts: Int) {
        try write { try Self.record(delivery, in: &$0) }
    }

    /// `TipJarStorage.issue(_:thenRecord:)`: under one lock, the store's insert, then ``record(_:)``'s work. A
    /// refused insert keeps and records nothing; a refused record keeps the issued transaction (charged,
    /// unfinished, unrecorded: the account's next launch delivers it).
    /// - Throws: ``Refusal/duplicateTransactionID(_:)`` (nothing kept), or the record's refusal (the transaction kept).
    public func issue(_ stored: StoredTransaction, thenRecord delivery: Delivery) throws -> (outcome: RecordOutcome, hearts: Int) {
        try write { state in
            try Self.insert(stored, into: &state)
            return try Self.record(delivery, in: &state)
        }
    }

    /// The record's work on `state`: checked first, so a refused record changes nothing.
    static func record(_ delivery: Delivery, in state: inout State) throws -> (outcome: RecordOutcome, hearts: Int) {
        guard var install = state.installs[delivery.installID] else { throw Refusal.unknownInstall(delivery.installID) }
        var outcome = delivery.outcome
        if outcome == .counted {
            if state.counted[install.id, default: []].insert(delivery.transactionID).inserted {
                install.hearts = min(Install.maximumHearts, install.hearts + 1)
                state.installs[install.id] = install
            } else {
                outcome = .duplicate
            }
        }
        var row = delivery
        row.outcome = outcome
        state.ledgers[install.id, default: []].append(row)
        if delivery.finished { state.transactions[delivery.transactionID]?.isFinished = true }
        return (outcome, install.hearts)
    }

    /// `TipJarStorage.ledger(installID:limit:)`: the last `limit` rows, oldest first.
    public func ledger(installID: String, limit: Int) -> [Delivery] {
        state.withLock { Self.ledger($0, installID: installID, limit: limit) }
    }

    /// `TipJarStorage.installWithLedger(id:limit:)`: both under one lock.
    public func installWithLedger(id: String, limit: Int) -> (install: Install, ledger: [Delivery])? {
        state.withLock { state in
            state.install(withID: id).map { ($0, Self.ledger(state, installID: id, limit: limit)) }
        }
    }

    /// The rows with the quantity and token of their transaction, or 1 and none when the store forgot it.
    static func ledger(_ state: State, installID: String, limit: Int) -> [Delivery] {
        let rows = state.ledgers[installID] ?? []
        return (limit < 0 ? rows[...] : rows.suffix(limit)).map { row in
            var delivery = row
            let transaction = state.transactions[row.transactionID]?.transaction
            delivery.purchasedQuantity = transaction?.purchasedQuantity ?? 1
            delivery.appAccountToken = transaction?.appAccountToken
            return delivery
        }
    }

    /// `TipJarStorage.overview()`.
    public func overview() -> Overview {
        state.withLock { state in
            Overview(
                installs: state.installs.count, tips: state.counted.values.reduce(0) { $0 + $1.count },
                hearts: state.installs.values.reduce(0) { $0 + $1.hearts })
        }
    }
}
