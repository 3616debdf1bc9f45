import SQLiteDatabase
import Foundation
import TipJar

extension SQLiteTipJarStorage: ServerAPIStorage {
    // MARK: App Store Server API (TipJarSchema.v16)

    /// `ServerAPIStorage.serverAPITransactions(matching:)`: one range of `transactions_history` (or
    /// `transactions_refunds`) from the page's position, in the index's order, the filters bound parameters; the rows
    /// a filter leaves out are skipped inside SQLite, never read into Swift.
    public nonisolated(nonsending) func serverAPITransactions(matching query: ServerAPIHistoryQuery) async throws -> [StoredTransaction] {
        let (sql, arguments) = Self.serverAPITransactionsSQL(query)
        let bound = StatementArguments(arguments)
        return try await pool.read { db in try db.cachedStatement(sql: sql).fetchAll(arguments: bound, Self.storedTransaction) }
    }

    /// The statement and its arguments of ``serverAPITransactions(matching:)``.
    static func serverAPITransactionsSQL(_ query: ServerAPIHistoryQuery) -> (sql: String, arguments: [DatabaseValue]) {
        let key = query.order == .modified ? "signed_date_ms" : "revocation_date_ms"
        var conditions = [
            "account_id = ?", "environment = ?", "status = 'purchased'", "has_purchase_issue = 0", "settled_as IS NULL",
            "(app_bundle_id = ? OR app_bundle_id IS NULL)",
        ]
        var arguments: [DatabaseValue] = [
            query.accountID.databaseValue, query.environment.rawValue.databaseValue, query.appBundleID.databaseValue,
        ]
        if query.order == .revoked { conditions.append("revocation_date_ms IS NOT NULL") }
        if let after = query.after {
            // A row value comparison (https://www.sqlite.org/rowvalue.html), which SQLite answers as an index range.
            conditions.append("(\(key), id) \(query.descending ? "<" : ">") (?, ?)")
            arguments += [after.milliseconds.databaseValue, Int64(bitPattern: after.id).databaseValue]
        }
        if let start = query.startDate {
            conditions.append("purchase_date_ms >= ?")
            arguments.append(start.databaseValue)
        }
        if let end = query.endDate {
            conditions.append("purchase_date_ms < ?")
            arguments.append(end.databaseValue)
        }
        if !query.productIDs.isEmpty {
            conditions.append("product_id IN (\(Array(repeating: "?", count: query.productIDs.count).joined(separator: ", ")))")
            arguments += query.productIDs.map(\.databaseValue)
        }
        if !query.productTypes.isEmpty {
            conditions.append("product_type IN (\(Array(repeating: "?", count: query.productTypes.count).joined(separator: ", ")))")
            arguments += query.productTypes.map(\.rawValue.databaseValue)
        }
        if let revoked = query.revoked { conditions.append(revoked ? "revocation_date_ms IS NOT NULL" : "revocation_date_ms IS NULL") }
        if query.excludesFinishedConsumables {
            // A transaction of a product the catalog no longer holds has no type; every product sold here is a tip.
            conditions.append(
                "NOT (is_finished = 1 AND revocation_date_ms IS NULL AND COALESCE(product_type, '\(ProductType.consumable.rawValue)') = '\(ProductType.consumable.rawValue)')")
        }
        let direction = query.descending ? "DESC" : "ASC"
        let index = query.order == .modified ? "transactions_history" : "transactions_refunds"
        let sql = """
            SELECT \(Self.transactionColumns) FROM transactions INDEXED BY \(index) WHERE \(conditions.joined(separator: " AND "))
            ORDER BY \(key) \(direction), id \(direction) LIMIT ?
            """
        arguments.append(max(0, query.limit).databaseValue)
        return (sql, arguments)
    }

    /// `ServerAPIStorage.accountIDs()`: a scan of `accounts` (one row per Apple Account that ever signed in on an
    /// install, kept when its installs are deleted), never of the transactions.
    public nonisolated(nonsending) func accountIDs() async throws -> [String] {
        try await pool.read { db in
            try db.cachedStatement(sql: "SELECT account_id FROM accounts").fetchAll(arguments: []) { row -> String in try row.value(named: "account_id") }
        }
    }

    /// `ServerAPIStorage.accountCount()`: `count(*)` of `accounts`, which SQLite answers from the table's b-tree.
    public nonisolated(nonsending) func accountCount() async throws -> Int {
        try await pool.read { db in
            try db.cachedStatement(sql: "SELECT count(*) AS count FROM accounts").fetchOne(arguments: []) { row -> Int in try row.value(named: "count") } ?? 0
        }
    }

    /// `ServerAPIStorage.firstSeen(accountID:)`: the earliest install creation and purchase, by the accounts' indexes.
    public nonisolated(nonsending) func firstSeen(accountID: String) async throws -> Date? {
        try await pool.read { db in
            let first = try db.cachedStatement(
                sql: """
                    SELECT MIN(first) AS first FROM (
                        SELECT MIN(created_at_ms) AS first FROM installs WHERE account_id = ?
                        UNION ALL SELECT MIN(purchase_date_ms) FROM transactions WHERE account_id = ?)
                    """
            ).fetchOne(arguments: [accountID, accountID]) { row -> Int64? in try row.value(named: "first", as: Int64?.self) }
            return (first ?? nil).map(Self.date)
        }
    }

    /// `ServerAPIStorage.setAppAccountToken(_:transactionID:)`: one `UPDATE` by primary key, written in lower case as a
    /// purchase's token is (`insertArguments(_:)`).
    public nonisolated(nonsending) func setAppAccountToken(_ token: UUID, transactionID: UInt64) async throws -> Bool {
        let id = Int64(bitPattern: transactionID)
        return try await write { db, changes in
            try db.execute(
                sql: "UPDATE transactions SET app_account_token = ? WHERE id = ? AND status = 'purchased' AND has_purchase_issue = 0 AND settled_as IS NULL",
                arguments: [token.uuidString.lowercased(), id])
            guard db.changes == 1 else { return false }
            // The transaction's install and account pages show its token: they change with it.
            if let (installID, accountID) = try db.cachedStatement(sql: "SELECT install_id, account_id FROM transactions WHERE id = ?")
                .fetchOne(arguments: [id], { row -> (String, String) in (try row.value(named: "install_id"), try row.value(named: "account_id")) })
            {
                changes.install(installID, accountID: accountID)
            }
            return true
        }
    }
}
