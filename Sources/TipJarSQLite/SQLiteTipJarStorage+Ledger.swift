import SQLiteDatabase
import Foundation
import Synchronization
import TipJar

extension SQLiteTipJarStorage {
    // MARK: Transactions

    /// The `transactions` columns ``storedTransaction(_:)`` reads by name (their order is free) and
    /// ``insertTransactionSQL`` writes, in the order of ``insertArguments(_:)``.
    static let transactionColumns = """
        id, product_id, purchase_date_ms, storefront, account_id, install_id, status, is_finished, is_external,
        revocation_date_ms, revocation_reason, purchased_quantity, app_account_token, price, currency, product_type,
        app_bundle_id, signed_date_ms, has_purchase_issue, requested_again, settled_as, revocation_type, revocation_percentage,
        environment, consumption_info, origin
        """

    /// A stored transaction from a row of ``transactionColumns``, read by column name.
    static func storedTransaction(_ row: Row) throws -> StoredTransaction {
        var transaction = Transaction(
            id: UInt64(bitPattern: try row.value(named: "id")), productID: try row.value(named: "product_id"),
            purchaseDate: date(try row.value(named: "purchase_date_ms")), storefront: try row.value(named: "storefront"))
        transaction.revocationDate = (try row.value(named: "revocation_date_ms", as: Int64?.self)).map(date)
        transaction.revocationReason = (try row.value(named: "revocation_reason", as: String?.self)).flatMap(Transaction.RevocationReason.init(rawValue:))
        transaction.revocationType = (try row.value(named: "revocation_type", as: String?.self)).flatMap(Transaction.RevocationType.init(rawValue:))
        transaction.revocationPercentage = try row.value(named: "revocation_percentage", as: Int?.self)
        transaction.purchasedQuantity = try row.value(named: "purchased_quantity")
        transaction.appAccountToken = (try row.value(named: "app_account_token", as: String?.self)).flatMap(UUID.init(uuidString:))
        transaction.price = (try row.value(named: "price", as: String?.self)).flatMap { Decimal(string: $0, locale: Locale(identifier: "en_US_POSIX")) }
        transaction.currency = try row.value(named: "currency")
        transaction.productType = (try row.value(named: "product_type", as: String?.self)).flatMap(ProductType.init(rawValue:))
        transaction.appBundleID = try row.value(named: "app_bundle_id")
        transaction.signedDate = (try row.value(named: "signed_date_ms", as: Int64?.self)).map(date) ?? transaction.purchaseDate
        transaction.environment = Transaction.Environment(rawValue: try row.value(named: "environment")) ?? .xcode
        let consumptionInfo = try row.value(named: "consumption_info", as: String?.self)
        // Both read on every row, so every row reads the same names in the same order (see `ColumnIndexes`).
        let status = StoredTransaction.Status(rawValue: try row.value(named: "status")) ?? .declined
        let hasPurchaseIssue: Bool = try row.value(named: "has_purchase_issue")
        let settledAs = (try row.value(named: "settled_as", as: Int64?.self)).map { UInt64(bitPattern: $0) }
        let accountID: String = try row.value(named: "account_id")
        transaction.appTransactionID = Transaction.appTransactionID(accountID: accountID, appBundleID: transaction.appBundleID)
        var stored = StoredTransaction(
            transaction: transaction, accountID: accountID,
            installID: try row.value(named: "install_id"),
            status: Self.status(status, hasPurchaseIssue: hasPurchaseIssue, isSettled: settledAs != nil),
            isFinished: try row.value(named: "is_finished"), isExternal: try row.value(named: "is_external"),
            requestedAgain: try row.value(named: "requested_again"), settledAs: settledAs)
        stored.consumptionInfo = consumptionInfo
        stored.origin = (try row.value(named: "origin", as: String?.self)).flatMap(StoredTransaction.Origin.init(rawValue:))
        return stored
    }

    /// `TipJarStorage.insert(_:)` for a transaction: one `INSERT INTO transactions`. - Throws: `DatabaseError` (e.g. a duplicate ID).
    public nonisolated(nonsending) func insert(_ stored: StoredTransaction) async throws {
        try await write { db, changes in
            try db.execute(sql: Self.insertTransactionSQL, arguments: Self.insertArguments(stored))
            changes.transaction(stored)
        }
    }

    /// One placeholder per column of ``transactionColumns``, counted from the list so the two cannot disagree.
    static let insertTransactionSQL =
        "INSERT INTO transactions (\(transactionColumns)) VALUES ("
        + Array(repeating: "?", count: transactionColumns.split(separator: ",").count).joined(separator: ", ") + ")"

    /// The values of ``insertTransactionSQL``, each converted where its type is known (no value boxed to be converted
    /// later, a purchase's largest list of arguments).
    static func insertArguments(_ stored: StoredTransaction) -> StatementArguments {
        let t = stored.transaction
        return StatementArguments([
            Int64(bitPattern: t.id).databaseValue, t.productID.databaseValue, milliseconds(t.purchaseDate).databaseValue,
            t.storefront.databaseValue, stored.accountID.databaseValue, stored.installID.databaseValue,
            statusColumn(stored.status).databaseValue, stored.isFinished.databaseValue, stored.isExternal.databaseValue,
            t.revocationDate.map(milliseconds).databaseValue, t.revocationReason?.rawValue.databaseValue ?? .null,
            t.purchasedQuantity.databaseValue, t.appAccountToken?.uuidString.lowercased().databaseValue ?? .null,
            t.price.map(priceText).databaseValue, t.currency.databaseValue, t.productType?.rawValue.databaseValue ?? .null,
            t.appBundleID.databaseValue, milliseconds(t.signedDate).databaseValue, hasPurchaseIssue(stored.status).databaseValue,
            stored.requestedAgain.databaseValue, stored.settledAs.map { Int64(bitPattern: $0) }.databaseValue,
            t.revocationType?.rawValue.databaseValue ?? .null, t.revocationPercentage.databaseValue,
            t.environment.rawValue.databaseValue, stored.consumptionInfo.databaseValue, stored.origin?.rawValue.databaseValue ?? .null,
        ])
    }

    /// The `price` column's text of `price`: its exact decimal digits (`Decimal.description`, which
    /// `Decimal(string:)` reads back). A catalog has few prices, so each is written out once and kept (up to 256):
    /// writing a `Decimal` out divides its mantissa digit by digit, a few microseconds of every purchase.
    static func priceText(_ price: Decimal) -> String {
        if let text = priceTexts.withLock({ $0[price] }) { return text }
        let text = price.description
        priceTexts.withLock { texts in
            if texts.count >= 256 { texts.removeAll() }
            texts[price] = text
        }
        return text
    }
    private static let priceTexts = Mutex<[Decimal: String]>([:])

    /// The `status` column's value: an interrupted purchase is `pending` with `has_purchase_issue = 1`
    /// (`TipJarSchema.v6`); a settled record (an approved request, a resolved interrupted purchase) is `declined` with
    /// `settled_as` set (`TipJarSchema.v9`), so the `status` CHECK stays and no query of purchased rows can take it.
    static func statusColumn(_ status: StoredTransaction.Status) -> String {
        switch status {
        case .interrupted: StoredTransaction.Status.pending.rawValue
        case .approved, .resolved: StoredTransaction.Status.declined.rawValue
        case .pending, .purchased, .declined: status.rawValue
        }
    }

    /// The `has_purchase_issue` column's value: an interrupted purchase's, resolved or not.
    static func hasPurchaseIssue(_ status: StoredTransaction.Status) -> Bool { status == .interrupted || status == .resolved }

    /// The status a row's `status`, `has_purchase_issue` and `settled_as` stand for (``statusColumn(_:)``).
    static func status(_ column: StoredTransaction.Status, hasPurchaseIssue: Bool, isSettled: Bool) -> StoredTransaction.Status {
        if isSettled { return hasPurchaseIssue ? .resolved : .approved }
        return hasPurchaseIssue ? .interrupted : column
    }

    /// The `WHERE` conditions of the rows in `status` (``statusColumn(_:)``), without a parameter.
    static func statusCondition(_ status: StoredTransaction.Status) -> String {
        let settled = status == .approved || status == .resolved ? "settled_as IS NOT NULL" : "settled_as IS NULL"
        return "status = '\(statusColumn(status))' AND has_purchase_issue = \(hasPurchaseIssue(status) ? 1 : 0) AND \(settled)"
    }

    /// `TipJarStorage.transaction(withID:)`: by primary key, a point read on the caller's thread.
    public nonisolated(nonsending) func transaction(withID id: UInt64) async throws -> StoredTransaction? {
        try pool.pointFetchOne(sql: Self.transactionByIDSQL, arguments: [Int64(bitPattern: id)], Self.storedTransaction)
    }

    /// One transaction by primary key (``transaction(withID:)``, ``transactions(withIDs:)``).
    static let transactionByIDSQL = "SELECT \(transactionColumns) FROM transactions WHERE id = ?"

    /// `TipJarStorage.transactions(withIDs:)`: one primary-key lookup each, in one point read (one read transaction).
    public nonisolated(nonsending) func transactions(withIDs ids: [UInt64]) async throws -> [StoredTransaction] {
        guard !ids.isEmpty else { return [] }
        return try pool.pointRead { db in
            let statement = try db.cachedStatement(sql: Self.transactionByIDSQL)
            return try ids.compactMap { id in try statement.fetchOne(arguments: [Int64(bitPattern: id)], Self.storedTransaction) }
        }
    }

    /// `TipJarStorage.update(_:from:)`: status, purchase date, finished flag, revocation, `requested_again`, `settled_as` in one
    /// `UPDATE` whose `WHERE` names the state it expects (``unchangedCondition``); the changed-row count says who won.
    public nonisolated(nonsending) func update(_ stored: StoredTransaction, from expected: StoredTransaction) async throws -> Bool {
        let t = stored.transaction
        return try await write { db, changes in
            try db.execute(
                sql: """
                    UPDATE transactions SET purchase_date_ms = ?, status = ?, is_finished = ?, revocation_date_ms = ?, revocation_reason = ?,
                    signed_date_ms = ?, has_purchase_issue = ?, requested_again = ?, settled_as = ?, revocation_type = ?,
                    revocation_percentage = ?, consumption_info = ?
                    WHERE \(Self.unchangedCondition)
                    """,
                arguments: StatementArguments(
                    ([
                        Self.milliseconds(t.purchaseDate), Self.statusColumn(stored.status), stored.isFinished,
                        t.revocationDate.map(Self.milliseconds), t.revocationReason?.rawValue,
                        Self.milliseconds(t.signedDate), Self.hasPurchaseIssue(stored.status), stored.requestedAgain,
                        stored.settledAs.map { Int64(bitPattern: $0) }, t.revocationType?.rawValue, t.revocationPercentage,
                        stored.consumptionInfo,
                    ] + Self.unchangedValues(expected)).map(\.databaseValue)))
            guard db.changes == 1 else { return false }
            changes.transaction(expected)
            return true
        }
    }

    /// The `WHERE` of a row still in the state it was read in: its ID, status, purchase issue, settlement, revocation
    /// and `requested_again`, bound by ``unchangedValues(_:)``.
    static let unchangedCondition = """
        id = ? AND status = ? AND has_purchase_issue = ? AND (settled_as IS NULL) = ? AND (revocation_date_ms IS NULL) = ?
        AND requested_again = ?
        """

    static func unchangedValues(_ expected: StoredTransaction) -> [any DatabaseValueConvertible] {
        [
            Int64(bitPattern: expected.transaction.id), statusColumn(expected.status), hasPurchaseIssue(expected.status),
            expected.settledAs == nil, !expected.transaction.isRevoked, expected.requestedAgain,
        ]
    }

    /// `TipJarStorage.settle(_:as:issuing:)`: in one write transaction, an `UPDATE` of the record's status and
    /// `settled_as` whose `WHERE` names the state it expects (``unchangedCondition``) and, when it changed the row,
    /// the new transaction's `INSERT`.
    /// - Throws: `DatabaseError` (a duplicate ID: the write is rolled back and nothing changes).
    public nonisolated(nonsending) func settle(
        _ expected: StoredTransaction, as settled: StoredTransaction, issuing issued: StoredTransaction
    ) async throws -> Bool {
        let settledValues: [any DatabaseValueConvertible] = [
            Self.statusColumn(settled.status), Self.hasPurchaseIssue(settled.status), settled.settledAs.map { Int64(bitPattern: $0) },
        ]
        return try await write { db, changes in
            try db.execute(
                sql: "UPDATE transactions SET status = ?, has_purchase_issue = ?, settled_as = ? WHERE \(Self.unchangedCondition)",
                arguments: StatementArguments((settledValues + Self.unchangedValues(expected)).map(\.databaseValue)))
            guard db.changes == 1 else { return false }
            try db.execute(sql: Self.insertTransactionSQL, arguments: Self.insertArguments(issued))
            changes.transaction(expected)
            changes.transaction(issued)
            return true
        }
    }

    /// `TipJarStorage.pendingTransactions()`: through the partial index on `status = 'pending'`, without the
    /// interrupted ones (`has_purchase_issue = 1`), which are not Ask to Buy's.
    public nonisolated(nonsending) func pendingTransactions() async throws -> [StoredTransaction] {
        try await pool.read { db in
            try db.cachedStatement(
                sql: """
                    SELECT \(Self.transactionColumns) FROM transactions WHERE status = 'pending' AND has_purchase_issue = 0 ORDER BY id
                    """
            ).fetchAll(Self.storedTransaction)
        }
    }

    /// `TipJarStorage.unfinishedTransactions(accountID:)`: through the partial index of unfinished purchases.
    public nonisolated(nonsending) func unfinishedTransactions(accountID: String) async throws -> [StoredTransaction] {
        try await pool.read { db in
            try db.cachedStatement(sql: Self.unfinishedTransactionsSQL).fetchAll(arguments: [accountID], Self.storedTransaction)
        }
    }

    /// `TipJarStorage.firstUnfinishedTransaction(accountID:productID:)`: a point read on the caller's thread, through the
    /// partial index of unfinished purchases (an account holds few: the app finishes them).
    public nonisolated(nonsending) func firstUnfinishedTransaction(accountID: String, productID: String) async throws -> StoredTransaction? {
        try pool.pointFetchOne(sql: Self.firstUnfinishedTransactionSQL, arguments: [accountID, productID], Self.storedTransaction)
    }

    /// The oldest unfinished, unrevoked purchase of one product, through the same index as ``unfinishedTransactionsSQL``.
    static let firstUnfinishedTransactionSQL = """
        SELECT \(transactionColumns) FROM transactions INDEXED BY transactions_unfinished
        WHERE account_id = ? AND status = 'purchased' AND is_finished = 0 AND product_id = ? AND revocation_date_ms IS NULL
        ORDER BY id LIMIT 1
        """

    /// The account's unfinished purchases. Without statistics (no `ANALYZE`) SQLite's planner
    /// rated `transactions_by_account` as good as the partial index and walked every transaction of the account, one
    /// table lookup each, so a purchase cost more with every purchase before it; `INDEXED BY` names the index
    /// (https://sqlite.org/lang_indexedby.html) and makes the statement fail to prepare if the index is ever missing.
    static let unfinishedTransactionsSQL = """
        SELECT \(transactionColumns) FROM transactions INDEXED BY transactions_unfinished
        WHERE account_id = ? AND status = 'purchased' AND is_finished = 0 ORDER BY id
        """

    /// `TipJarStorage.recentTransactions(limit:)`: newest first, without Ask to Buy requests.
    public nonisolated(nonsending) func recentTransactions(limit: Int) async throws -> [StoredTransaction] {
        try await pool.read { db in
            try db.cachedStatement(sql: "SELECT \(Self.transactionColumns) FROM transactions WHERE \(Self.listedRows) ORDER BY id DESC LIMIT ?")
                .fetchAll(arguments: [limit], Self.storedTransaction)
        }
    }

    /// The rows transaction lists hold (`StoredTransaction.isListed`): purchased ones and interrupted purchases still
    /// waiting; never an Ask to Buy request (`pending` without a purchase issue; `declined`, approved ones included)
    /// nor a resolved interrupted purchase (`declined` with a purchase issue).
    static let listedRows = "(status = 'purchased' OR (status = 'pending' AND has_purchase_issue = 1))"

    /// `TipJarStorage.largestTransactionID()`: the larger of `max(id)` of the store's transactions and of the
    /// counted keys installs keep after the store forgets a transaction (both primary-key lookups); 0 when empty.
    public nonisolated(nonsending) func largestTransactionID() async throws -> UInt64 {
        try await pool.read { db in
            let value = try db.cachedStatement(
                sql: """
                    SELECT max(coalesce((SELECT max(id) FROM transactions), 0), coalesce((SELECT max(transaction_id) FROM counted_transactions), 0))
                    """
            ).fetchOne { try $0.value(at: 0, as: Int64?.self) }
            return UInt64(bitPattern: (value ?? nil) ?? 0)
        }
    }

    // MARK: Ledger

    /// `TipJarStorage.record(_:)`: in one write transaction, `INSERT … ON CONFLICT DO NOTHING` into
    /// `counted_transactions` and `sqlite3_changes()` decide counted or duplicate (never read-then-write),
    /// the heart is added up to five, the ledger row inserted and, when finished, the transaction marked
    /// finished. A heart already at five is left alone (no page written). Returns after `COMMIT`.
    /// - Throws: `DatabaseError` (busy, full, read-only). Nothing is kept then.
    public nonisolated(nonsending) func record(_ delivery: Delivery) async throws -> (outcome: RecordOutcome, hearts: Int) {
        try await write { db, changes in try Self.record(delivery, in: db, changes: &changes) }
    }

    /// `TipJarStorage.issue(_:thenRecord:)`: one write, so one wait for the disk. In a SAVEPOINT
    /// (<https://www.sqlite.org/lang_savepoint.html>), the store's `INSERT INTO transactions`, with the row
    /// already as the record leaves it (finished when the delivery finishes it, so no `UPDATE` of the row
    /// follows and the index of unfinished transactions is not touched twice), then the record. A record that
    /// fails rolls back to the savepoint and the transaction is inserted again as issued, so it stays
    /// charged, unfinished and unrecorded; the record's error is thrown after that `COMMIT`. That second
    /// insert is one statement, which SQLite backs out alone when it fails
    /// (<https://www.sqlite.org/lang_conflict.html>): then (a duplicate ID, a full disk) the write throws and
    /// keeps nothing. An error that made SQLite roll back the whole transaction (`SQLITE_FULL`,
    /// `SQLITE_IOERR`) undoes everything.
    /// The account's other running installs are read last, on the writer's connection inside the same transaction
    /// (through `installs_by_account`), where the pages are already in its cache.
    /// - Throws: `DatabaseError`: the insert's (a duplicate ID, busy, full), or the record's.
    public nonisolated(nonsending) func issue(
        _ stored: StoredTransaction, thenRecord delivery: Delivery
    ) async throws -> (outcome: RecordOutcome, hearts: Int, otherRunningInstallIDs: [String]) {
        var recordedRow = stored
        recordedRow.isFinished = stored.isFinished || (delivery.finished && delivery.transactionID == stored.transaction.id)
        let (asRecorded, finishedOnInsert) = (Self.insertArguments(recordedRow), recordedRow.isFinished)
        typealias Recorded = (outcome: RecordOutcome, hearts: Int, otherRunningInstallIDs: [String])
        let recorded = try await write(savepoint: false) { db, changes -> Result<Recorded, any Error> in
            // Issued or recorded, the transaction is its account's and its buyer's (the record adds its install).
            changes.transaction(stored)
            do {
                var recordChanges = WriteChanges()
                let recorded = try db.inSavepoint { () throws -> Recorded in
                    try db.execute(sql: Self.insertTransactionSQL, arguments: asRecorded)
                    let (outcome, hearts) = try Self.record(delivery, in: db, finishedOnInsert: finishedOnInsert, changes: &recordChanges)
                    // Inside the savepoint, so a failed read is undone with the record, as a failed record is.
                    let others = try db.cachedStatement(sql: Self.otherRunningInstallsSQL)
                        .fetchAll(arguments: [stored.accountID, delivery.installID]) { try $0.value(at: 0, as: String.self) }
                    return (outcome, hearts, others)
                }
                changes.keys += recordChanges.keys
                return .success(recorded)
            } catch {
                guard db.isInsideTransaction else { throw error }  // SQLite rolled back the whole transaction
                try db.execute(sql: Self.insertTransactionSQL, arguments: Self.insertArguments(stored))
                return .failure(error)
            }
        }
        return try recorded.get()
    }

    /// A ledger row.
    static let insertDeliverySQL = """
        INSERT INTO deliveries (install_id, transaction_id, product_id, path, outcome, finished, at_ms, note)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The record's statements, inside the caller's write transaction (the write lock is held);
    /// `finishedOnInsert`: the transaction's row was inserted finished in this transaction, so it needs no update.
    /// `changes` gets the install and its account (the transaction it finishes is that account's).
    static func record(
        _ delivery: Delivery, in db: Database, finishedOnInsert: Bool = false, changes: inout WriteChanges
    ) throws -> (outcome: RecordOutcome, hearts: Int) {
        var outcome = delivery.outcome
        let transactionID = Int64(bitPattern: delivery.transactionID)
        // Read, then write only a change: the write lock is held, so nothing moves in between.
        let row: (hearts: Int, accountID: String)? =
            try db.cachedStatement(sql: "SELECT hearts, account_id FROM installs WHERE id = ?")
            .fetchOne(arguments: [delivery.installID]) { (try $0.value(at: 0), try $0.value(at: 1)) }
        var hearts = row?.hearts ?? 0
        if let row { changes.install(delivery.installID, accountID: row.accountID) }
        if outcome == .counted {
            try db.execute(
                sql: "INSERT INTO counted_transactions (install_id, transaction_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
                arguments: [delivery.installID, transactionID])
            if db.changes != 1 {
                outcome = .duplicate
            } else if hearts < Install.maximumHearts {
                hearts += 1
                try db.execute(sql: "UPDATE installs SET hearts = ? WHERE id = ?", arguments: [hearts, delivery.installID])
            }
        }
        try db.execute(
            sql: insertDeliverySQL,
            arguments: [
                delivery.installID, transactionID, delivery.productID, delivery.path.rawValue, outcome.rawValue,
                delivery.finished, Self.milliseconds(delivery.at), delivery.note?.rawValue,
            ])
        if delivery.finished, !finishedOnInsert {
            try db.execute(sql: "UPDATE transactions SET is_finished = 1 WHERE id = ?", arguments: [transactionID])
        }
        return (outcome, hearts)
    }

    /// `TipJarStorage.ledger(installID:limit:)`: the last `limit` rows, oldest first.
    public nonisolated(nonsending) func ledger(installID: String, limit: Int) async throws -> [Delivery] {
        try await pool.read { db in try Self.ledger(db, installID: installID, limit: limit) }
    }

    /// `TipJarStorage.installWithLedger(id:limit:)`: both queries in one read transaction.
    public nonisolated(nonsending) func installWithLedger(id: String, limit: Int) async throws -> (install: Install, ledger: [Delivery])? {
        try await pool.read { db in
            guard
                let install = try db.cachedStatement(sql: "SELECT \(Self.installColumns) FROM \(Self.installsWithAccounts) WHERE installs.id = ?")
                    .fetchOne(arguments: [id], Self.install)
            else { return nil }
            return (install, try Self.ledger(db, installID: id, limit: limit))
        }
    }

    /// The last `limit` deliveries of an install, oldest first, each with its transaction's quantity and token,
    /// read by column name.
    static func ledger(_ db: Database, installID: String, limit: Int) throws -> [Delivery] {
        try db.cachedStatement(
            sql: """
                SELECT d.install_id, d.transaction_id, d.product_id, d.path, d.outcome, d.finished, d.at_ms,
                       t.purchased_quantity, t.app_account_token, d.note FROM
                (SELECT * FROM deliveries WHERE install_id = ? ORDER BY id DESC LIMIT ?) AS d
                LEFT JOIN transactions AS t ON t.id = d.transaction_id ORDER BY d.id
                """
        ).fetchAll(arguments: [installID, limit]) { row in
            var delivery = Delivery(
                installID: try row.value(named: "install_id"),
                transactionID: UInt64(bitPattern: try row.value(named: "transaction_id")),
                productID: try row.value(named: "product_id"),
                path: DeliveryPath(rawValue: try row.value(named: "path")) ?? .listener,
                outcome: RecordOutcome(rawValue: try row.value(named: "outcome")) ?? .unverified,
                finished: try row.value(named: "finished"), at: Self.date(try row.value(named: "at_ms")),
                note: (try row.value(named: "note", as: String?.self)).flatMap(DeliveryNote.init(rawValue:)))
            delivery.purchasedQuantity = try row.value(named: "purchased_quantity", as: Int?.self) ?? 1
            delivery.appAccountToken = (try row.value(named: "app_account_token", as: String?.self)).flatMap(UUID.init(uuidString:))
            return delivery
        }
    }

    /// `TipJarStorage.overview()`: counts of installs and counted tips, and the sum of hearts.
    public nonisolated(nonsending) func overview() async throws -> Overview {
        try await pool.read { db in
            try db.cachedStatement(
                sql: """
                    SELECT (SELECT count(*) FROM installs) AS installs, (SELECT count(*) FROM counted_transactions) AS tips,
                           (SELECT coalesce(sum(hearts), 0) FROM installs) AS hearts
                    """
            ).fetchOne { row in
                Overview(installs: try row.value(named: "installs"), tips: try row.value(named: "tips"), hearts: try row.value(named: "hearts"))
            } ?? Overview(installs: 0, tips: 0, hearts: 0)
        }
    }

    // MARK: Time

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
}
