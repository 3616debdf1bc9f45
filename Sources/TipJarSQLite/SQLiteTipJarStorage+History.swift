import SQLiteDatabase
import Foundation
import TipJar

extension SQLiteTipJarStorage {
    // MARK: History

    /// `TipJarStorage.transactions(matching:)`: the filters are bound parameters; newest first by ID; Ask to Buy requests
    /// only when `query.status` names theirs; `LIMIT pageSize + 1` tells whether more follow. An account or install
    /// filter reads `transactions_by_account` in its order: an install's transactions through the ranges of the accounts
    /// `install_accounts` files them under (`TipJarSchema.v20`; one, unless rows were written under another account),
    /// looked up in the same read transaction, with `install_id` compared inside the index.
    public nonisolated(nonsending) func transactions(matching query: TransactionQuery) async throws -> TransactionPage {
        let rows = try await pool.read { db -> [StoredTransaction] in
            var accounts = query.accountID.map { [$0] }
            if let installID = query.installID {
                let filed = try db.cachedStatement(sql: "SELECT account_id FROM install_accounts WHERE install_id = ?")
                    .fetchAll(arguments: [installID]) { try $0.value(at: 0, as: String.self) }
                accounts = accounts.map { named in named.filter(filed.contains) } ?? filed
            }
            if accounts?.isEmpty == true { return [] }  // no transaction was ever filed under that install (and account)
            let (sql, arguments) = Self.transactionsSQL(query, accounts: accounts)
            return try db.cachedStatement(sql: sql).fetchAll(arguments: arguments, Self.storedTransaction)
        }
        return TransactionPage(transactions: Array(rows.prefix(query.pageSize)), hasMore: rows.count > query.pageSize)
    }

    /// The statement of ``transactions(matching:)`` once the accounts to read are known (`nil`: no account or install
    /// filter, the table in `id` order).
    static func transactionsSQL(_ query: TransactionQuery, accounts: [String]?) -> (sql: String, arguments: StatementArguments) {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        var source = "transactions"
        if let accounts {
            source += " INDEXED BY transactions_by_account"
            conditions.append(accounts.count == 1 ? "account_id = ?" : "account_id IN (\(Array(repeating: "?", count: accounts.count).joined(separator: ", ")))")
            arguments += accounts.map(\.databaseValue)
        }
        for (column, value) in [("install_id", query.installID), ("product_id", query.productID)] {
            guard let value else { continue }
            conditions.append("\(column) = ?")
            arguments.append(value.databaseValue)
        }
        // Statuses share the status column; the purchase-issue flag and `settled_as` tell them apart
        // (`TipJarSchema.v6`, `v9`). Without a status, only the rows lists hold.
        conditions.append(query.status.map(Self.statusCondition) ?? Self.listedRows)
        arguments += [query.pageSize + 1, (query.page - 1) * query.pageSize].map(\.databaseValue)
        let sql = "SELECT \(Self.transactionColumns) FROM \(source) WHERE \(conditions.joined(separator: " AND ")) ORDER BY id DESC LIMIT ? OFFSET ?"
        return (sql, StatementArguments(arguments))
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
