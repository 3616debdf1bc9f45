import Foundation
import SQLiteDatabase

extension TipJarSchema {
    /// `v19-membership-checks-as-comparisons`: the `CHECK` constraints that allow a column one of three or more values
    /// (`transactions.status` and `revocation_type`, `deliveries.path` and `outcome`, `refund_requests.state`) written
    /// as equalities joined by `OR` instead of `IN (…)`. They allow exactly the same values: a `NULL` makes both forms
    /// `NULL`, which a `CHECK` lets pass (https://www.sqlite.org/lang_createtable.html#ckconst), and any other value
    /// is equal to one of the listed values or to none.
    ///
    /// Why: SQLite evaluates `x IN (a, b, c)` over a constant list of more than two values by building a temporary
    /// b-tree of the list each time a statement runs (`sqlite3FindInIndex` in SQLite's `expr.c`: "it is not worth
    /// creating an ephemeral table" only for two or fewer terms; `EXPLAIN` shows an `OpenEphemeral` per list). A
    /// purchase's `INSERT`s into `transactions` and `deliveries` built four, each a page cache opened, filled and
    /// freed, for rows that each check one value.
    ///
    /// A `CHECK` cannot change in place, so each table is rebuilt as
    /// https://www.sqlite.org/lang_altertable.html#otheralter describes (``rebuild(_:in:)``): every row with its
    /// `rowid`, and every index and trigger re-created from the text SQLite kept of it. `notifications` keeps its
    /// lists: `notification_attempts` refers to it, and rebuilding a table another refers to needs foreign keys
    /// off (step 1 of that procedure), which cannot change inside the migration's transaction.
    public static func v19(_ db: Database) throws {
        try rebuild(
            [
                (
                    "transactions",
                    """
                    id INTEGER PRIMARY KEY NOT NULL,
                    product_id TEXT NOT NULL,
                    purchase_date_ms INTEGER NOT NULL,
                    storefront TEXT NOT NULL,
                    account_id TEXT NOT NULL,
                    install_id TEXT NOT NULL,
                    status TEXT NOT NULL CHECK (status = 'pending' OR status = 'purchased' OR status = 'declined'),
                    is_finished INTEGER NOT NULL DEFAULT 0 CHECK (is_finished IN (0, 1)),
                    is_external INTEGER NOT NULL DEFAULT 0 CHECK (is_external IN (0, 1)),
                    revocation_date_ms INTEGER,
                    revocation_reason TEXT CHECK (revocation_reason IN ('developerIssue', 'other')),
                    purchased_quantity INTEGER NOT NULL DEFAULT 1 CHECK (purchased_quantity BETWEEN 1 AND 10),
                    app_account_token TEXT,
                    price TEXT,
                    currency TEXT,
                    product_type TEXT,
                    app_bundle_id TEXT,
                    signed_date_ms INTEGER,
                    has_purchase_issue INTEGER NOT NULL DEFAULT 0 CHECK (has_purchase_issue IN (0, 1)),
                    requested_again INTEGER NOT NULL DEFAULT 0 CHECK (requested_again >= 0),
                    settled_as INTEGER,
                    revocation_type TEXT CHECK (revocation_type = 'REFUND_FULL' OR revocation_type = 'REFUND_PRORATED'
                        OR revocation_type = 'FAMILY_REVOKE'),
                    revocation_percentage INTEGER CHECK (revocation_percentage BETWEEN 0 AND 100000),
                    environment TEXT NOT NULL DEFAULT 'Xcode' CHECK (environment IN ('Xcode', 'LocalTesting')),
                    consumption_info TEXT,
                    origin TEXT CHECK (origin IN ('purchaseSheet', 'askToBuyApproval'))
                    """
                ),
                (
                    "deliveries",
                    """
                    id INTEGER PRIMARY KEY,
                    install_id TEXT NOT NULL REFERENCES installs (id),
                    transaction_id INTEGER NOT NULL,
                    product_id TEXT NOT NULL,
                    path TEXT NOT NULL CHECK (path = 'purchase' OR path = 'listener' OR path = 'launch' OR path = 'restore'
                        OR path = 'otherDevice'),
                    outcome TEXT NOT NULL CHECK (outcome = 'counted' OR outcome = 'duplicate' OR outcome = 'revoked'
                        OR outcome = 'unknownProduct' OR outcome = 'unverified'),
                    finished INTEGER NOT NULL CHECK (finished IN (0, 1)),
                    at_ms INTEGER NOT NULL,
                    note TEXT
                    """
                ),
                (
                    "refund_requests",
                    """
                    transaction_id INTEGER PRIMARY KEY,
                    install_id TEXT NOT NULL,
                    account_id TEXT NOT NULL,
                    product_id TEXT NOT NULL,
                    requested_at_ms INTEGER NOT NULL,
                    reason TEXT CHECK (reason IN ('developerIssue', 'other')),
                    state TEXT NOT NULL CHECK (state = 'pending' OR state = 'approved' OR state = 'declined'),
                    decided_at_ms INTEGER
                    """
                ),
            ], in: db)
    }

    /// Rebuilds each table with new column definitions, inside the caller's transaction, by steps 3 to 8 of
    /// https://www.sqlite.org/lang_altertable.html#otheralter: the text of its indexes (and of every trigger) kept,
    /// a new table created, the rows copied column by column with their `rowid`s, the old table dropped (its indexes
    /// and triggers with it), the new one renamed, and the indexes and triggers created again from their text.
    ///
    /// Every trigger of the schema is dropped first, not only the tables': a trigger of another table that reads one
    /// of them would make `ALTER TABLE … RENAME` fail while it is missing ("error in trigger …: no such table"), since
    /// the rename checks every trigger (https://www.sqlite.org/lang_altertable.html#altertabrename). A table another
    /// table refers to with a foreign key cannot be rebuilt this way with foreign keys on (`DROP TABLE` deletes its
    /// rows first, https://www.sqlite.org/foreignkeys.html#fk_schemacommands).
    /// - Parameter tables: Each table's name and its new column definitions (what goes between the parentheses of
    ///   `CREATE TABLE`); its columns keep their names.
    /// - Throws: ``DatabaseError``; the caller's transaction is then to be rolled back (the migrator does).
    static func rebuild(_ tables: [(name: String, columns: String)], in db: Database) throws {
        let triggers = try db.fetchAll(sql: "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY rowid") {
            (name: try $0.value(at: 0, as: String.self), sql: try $0.value(at: 1, as: String.self))
        }
        for trigger in triggers { try db.execute(sql: "DROP TRIGGER \(quoted(trigger.name))") }
        for table in tables {
            let indexes = try db.fetchAll(
                sql: "SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY rowid",
                arguments: [table.name]
            ) { try $0.value(at: 0, as: String.self) }
            let rebuilt = "\(table.name)_rebuilt"
            try db.execute(sql: "CREATE TABLE \(quoted(rebuilt)) (\n\(table.columns)\n)")
            let columns = try db.fetchAll(sql: "SELECT name FROM pragma_table_info(?) ORDER BY cid", arguments: [rebuilt]) {
                quoted(try $0.value(at: 0, as: String.self))
            }.joined(separator: ", ")
            try db.execute(sql: "INSERT INTO \(quoted(rebuilt)) (\(columns)) SELECT \(columns) FROM \(quoted(table.name)) ORDER BY rowid")
            try db.execute(sql: "DROP TABLE \(quoted(table.name))")
            try db.execute(sql: "ALTER TABLE \(quoted(rebuilt)) RENAME TO \(quoted(table.name))")
            for index in indexes { try db.execute(sql: index) }
        }
        for trigger in triggers { try db.execute(sql: trigger.sql) }
    }

    /// `name` as an SQL identifier in double quotes (https://www.sqlite.org/lang_keywords.html).
    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
