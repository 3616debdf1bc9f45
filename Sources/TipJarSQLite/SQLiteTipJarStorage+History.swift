import SQLiteDatabase
import Foundation
import TipJar

extension SQLiteTipJarStorage {
    // MARK: History

    /// `TipJarStorage.transactions(matching:)`: the filters are bound parameters; newest first by ID; Ask to Buy requests
    /// only when `query.status` names theirs; `LIMIT pageSize + 1` tells whether more follow. An account filter reads
    /// `transactions_by_account` in its order; an install filter first reads the accounts `install_accounts` files the
    /// install's transactions under, in the same read transaction, then each account's range when no other install uses
    /// it, and `shared_account_transactions` when one does (`TipJarSchema.v20`): a range in `id` order either way.
    public nonisolated(nonsending) func transactions(matching query: TransactionQuery) async throws -> TransactionPage {
        let rows = try await pool.read { db -> [StoredTransaction] in
            let filed = try query.installID.map { installID in
                try db.cachedStatement(sql: Self.installAccountsSQL).fetchAll(arguments: [installID]) { row in
                    (account: try row.value(named: "account_id", as: String.self), shared: try row.value(named: "shared", as: Bool.self))
                }
            }
            guard let (sql, arguments) = Self.transactionsSQL(query, filed: filed) else { return [] }
            return try db.cachedStatement(sql: sql).fetchAll(arguments: arguments, Self.storedTransaction)
        }
        return TransactionPage(transactions: Array(rows.prefix(query.pageSize)), hasMore: rows.count > query.pageSize)
    }

    /// The accounts an install's transactions are filed under, each with whether another install's are too.
    static let installAccountsSQL = """
        SELECT account_id, EXISTS (SELECT 1 FROM install_accounts AS other
                                   WHERE other.account_id = mine.account_id AND other.install_id <> mine.install_id) AS shared
        FROM install_accounts AS mine WHERE mine.install_id = ?
        """

    /// ``transactionColumns`` read from `transactions AS t` beside another table, each under its own name.
    static let joinedTransactionColumns = transactionColumns.split(separator: ",")
        .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        .map { column in "t.\(column) AS \(column)" }
        .joined(separator: ", ")

    /// The statement of ``transactions(matching:)``, given for an install filter the accounts ``installAccountsSQL``
    /// read; `nil` when no row can match (the install has no transaction under the account asked for, or none at all).
    static func transactionsSQL(_ query: TransactionQuery, filed: [(account: String, shared: Bool)]?) -> (sql: String, arguments: StatementArguments)? {
        // Statuses share the status column; the purchase-issue flag and `settled_as` tell them apart
        // (`TipJarSchema.v6`, `v9`). Without a status, only the rows lists hold.
        var filters = [query.status.map(Self.statusCondition) ?? Self.listedRows]
        var filterArguments: [DatabaseValue] = []
        if let productID = query.productID {
            filters.append("product_id = ?")
            filterArguments.append(productID.databaseValue)
        }
        let page = [query.pageSize + 1, (query.page - 1) * query.pageSize].map(\.databaseValue)
        func equals(_ column: String, oneOf values: [String]) -> (condition: String, arguments: [DatabaseValue]) {
            let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
            return (values.count == 1 ? "\(column) = ?" : "\(column) IN (\(placeholders))", values.map(\.databaseValue))
        }
        guard let installID = query.installID else {
            guard let accountID = query.accountID else {
                let sql = "SELECT \(transactionColumns) FROM transactions WHERE \(filters.joined(separator: " AND ")) ORDER BY id DESC LIMIT ? OFFSET ?"
                return (sql, StatementArguments(filterArguments + page))
            }
            let sql = """
                SELECT \(transactionColumns) FROM transactions INDEXED BY transactions_by_account
                WHERE \((["account_id = ?"] + filters).joined(separator: " AND ")) ORDER BY id DESC LIMIT ? OFFSET ?
                """
            return (sql, StatementArguments([accountID.databaseValue] + filterArguments + page))
        }
        let accounts = (filed ?? []).filter { query.accountID == nil || $0.account == query.accountID }
        let own = accounts.filter { !$0.shared }.map(\.account)
        let shared = accounts.filter(\.shared).map(\.account)
        var branches: [(sql: String, arguments: [DatabaseValue])] = []
        if !own.isEmpty {  // the account's range holds this install's transactions alone
            let account = equals("account_id", oneOf: own)
            let conditions = [account.condition, "install_id = ?"] + filters
            branches.append((
                "SELECT \(transactionColumns) FROM transactions INDEXED BY transactions_by_account WHERE \(conditions.joined(separator: " AND "))",
                account.arguments + [installID.databaseValue] + filterArguments
            ))
        }
        if !shared.isEmpty {
            let account = equals("t.account_id", oneOf: shared)
            let conditions = ["s.install_id = ?", "t.install_id = s.install_id", account.condition] + filters
            branches.append((
                """
                SELECT \(joinedTransactionColumns) FROM shared_account_transactions AS s CROSS JOIN transactions AS t ON t.id = s.transaction_id
                WHERE \(conditions.joined(separator: " AND "))
                """,
                [installID.databaseValue] + account.arguments + filterArguments
            ))
        }
        switch branches.count {
        case 0: return nil
        case 1: return (branches[0].sql + " ORDER BY \(own.isEmpty ? "s.transaction_id" : "id") DESC LIMIT ? OFFSET ?", StatementArguments(branches[0].arguments + page))
        default:  // an install under an account of its own and one it shares: rare, and sorted
            let sql = "SELECT * FROM (\(branches[0].sql) UNION ALL \(branches[1].sql)) ORDER BY id DESC LIMIT ? OFFSET ?"
            return (sql, StatementArguments(branches[0].arguments + branches[1].arguments + page))
        }
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
