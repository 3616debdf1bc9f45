import SQLiteDatabase
import Foundation
import TipJar

extension SQLiteTipJarStorage {
    // MARK: History

    /// `TipJarStorage.transactions(matching:)`: the filters are bound parameters; newest first by ID, through
    /// the by-account or by-install index when one of those filters is set; Ask to Buy requests only when
    /// `query.status` names theirs; `LIMIT pageSize + 1` tells
    /// whether more follow.
    public nonisolated(nonsending) func transactions(matching query: TransactionQuery) async throws -> TransactionPage {
        var conditions: [String] = []
        var arguments: [any DatabaseValueConvertible] = []
        for (column, value) in [("account_id", query.accountID), ("install_id", query.installID), ("product_id", query.productID)] {
            guard let value else { continue }
            conditions.append("\(column) = ?")
            arguments.append(value)
        }
        // Statuses share the status column; the purchase-issue flag and `settled_as` tell them apart
        // (`TipJarSchema.v6`, `v9`). Without a status, only the rows lists hold.
        conditions.append(query.status.map(Self.statusCondition) ?? Self.listedRows)
        let whereClause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = "SELECT \(Self.transactionColumns) FROM transactions \(whereClause) ORDER BY id DESC LIMIT ? OFFSET ?"
        arguments += [query.pageSize + 1, (query.page - 1) * query.pageSize]
        let values = arguments.map(\.databaseValue)
        let rows = try await pool.read { db in
            try db.cachedStatement(sql: sql).fetchAll(arguments: StatementArguments(values), Self.storedTransaction)
        }
        return TransactionPage(transactions: Array(rows.prefix(query.pageSize)), hasMore: rows.count > query.pageSize)
    }

    /// `TipJarStorage.transactions(accountID:limit:)`: through the by-account index, newest first, without Ask to Buy requests.
    public nonisolated(nonsending) func transactions(accountID: String, limit: Int) async throws -> [StoredTransaction] {
        try await pool.read { db in
            try db.cachedStatement(sql: "SELECT \(Self.transactionColumns) FROM transactions WHERE account_id = ? AND \(Self.listedRows) ORDER BY id DESC LIMIT ?")
                .fetchAll(arguments: [accountID, limit], Self.storedTransaction)
        }
    }

    /// `TipJarStorage.deleteAllTransactions()`: the refund requests, then the transactions, in one write; the counted keys, hearts and ledgers stay.
    public nonisolated(nonsending) func deleteAllTransactions() async throws -> Int {
        try await write { db, changes in
            changes.everything = true  // every account's transactions
            try db.execute(sql: "DELETE FROM refund_requests")
            try db.execute(sql: "DELETE FROM transactions")
            return db.changes
        }
    }

    /// `TipJarStorage.deleteTransaction(withID:)`: its refund request and the transaction, by primary key, in one write.
    public nonisolated(nonsending) func deleteTransaction(withID id: UInt64) async throws -> Bool {
        try await write { db, changes in
            try Self.transactionKeys(id, in: db, into: &changes)
            try db.execute(sql: "DELETE FROM refund_requests WHERE transaction_id = ?", arguments: [Int64(bitPattern: id)])
            try db.execute(sql: "DELETE FROM transactions WHERE id = ?", arguments: [Int64(bitPattern: id)])
            return db.changes == 1
        }
    }

    /// `TipJarStorage.deleteInstall(withID:)`: the ledger rows, the counted keys and the install row in one
    /// write transaction (children first, as `foreign_keys=ON` requires); `transactions` is left alone.
    public nonisolated(nonsending) func deleteInstall(withID id: String) async throws -> Bool {
        try await write { db, changes in
            try Self.installKeys(id, in: db, into: &changes)
            try db.execute(sql: "DELETE FROM deliveries WHERE install_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM counted_transactions WHERE install_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM installs WHERE id = ?", arguments: [id])
            return db.changes == 1
        }
    }
}
