import CSQLite
import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// `v19-membership-checks-as-comparisons` (`Sources/TipJarSQLite/TipJarSchema+MembershipChecks.swift`): the tables it
/// rebuilds keep every row, column, index and trigger and allow exactly the values they allowed, and the statements a
/// purchase writes with build no temporary b-tree (`OpenEphemeral`, https://www.sqlite.org/opcode.html) for a check.
@Suite("Membership checks as comparisons")
struct MembershipCheckMigrationTests {
    static let install = "0a1b2c3d-0000-4000-8000-0000000000c9"
    /// `SQLITE_CONSTRAINT_CHECK` (https://www.sqlite.org/rescode.html#constraint_check), a macro Swift does not import.
    static let constraintCheck = SQLITE_CONSTRAINT | (1 << 8)

    /// Rows of each kind the rebuilt tables hold, on a database that stopped at `v18` with a notifications URL set, so
    /// the triggers queue notifications too: purchased, Ask to Buy, declined and revoked transactions, a ledger row
    /// of each path and outcome, and refund requests in each state.
    static func seed(_ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE notification_settings SET url = 'http://127.0.0.1:9/n';
                INSERT INTO installs (id, locale, account_id, hearts, created_at_ms) VALUES ('\(install)', 'en', 'ana', 2, 0);
                INSERT INTO transactions (id, product_id, purchase_date_ms, storefront, account_id, install_id, status, is_finished,
                    purchased_quantity, app_account_token, price, currency, product_type, app_bundle_id, signed_date_ms, environment, origin)
                VALUES (7, 'com.example.tipjar.tip.coffee', 1000, 'USA', 'ana', '\(install)', 'purchased', 1, 3,
                        '5e0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b', '0.99', 'USD', 'Consumable', 'com.example.tipjar', 1000, 'Xcode', 'purchaseSheet'),
                       (8, 'com.example.tipjar.tip.snack', 2000, 'USA', 'ana', '\(install)', 'pending', 0, 1, NULL, '1.99', 'USD',
                        'Consumable', 'com.example.tipjar', 2000, 'LocalTesting', NULL),
                       (9, 'com.example.tipjar.tip.snack', 3000, 'USA', 'ana', '\(install)', 'declined', 0, 1, NULL, NULL, NULL,
                        NULL, NULL, NULL, 'Xcode', NULL);
                UPDATE transactions SET revocation_date_ms = 4000, revocation_reason = 'other', revocation_type = 'REFUND_PRORATED',
                    revocation_percentage = 50000 WHERE id = 7;
                INSERT INTO deliveries (install_id, transaction_id, product_id, path, outcome, finished, at_ms, note) VALUES
                    ('\(install)', 7, 'com.example.tipjar.tip.coffee', 'purchase', 'counted', 1, 1000, NULL),
                    ('\(install)', 7, 'com.example.tipjar.tip.coffee', 'listener', 'duplicate', 1, 1100, NULL),
                    ('\(install)', 7, 'com.example.tipjar.tip.coffee', 'launch', 'revoked', 0, 1200, 'a note'),
                    ('\(install)', 8, 'com.example.tipjar.tip.snack', 'restore', 'unknownProduct', 0, 1300, NULL),
                    ('\(install)', 8, 'com.example.tipjar.tip.snack', 'otherDevice', 'unverified', 0, 1400, NULL);
                INSERT INTO refund_requests (transaction_id, install_id, account_id, product_id, requested_at_ms, reason, state, decided_at_ms) VALUES
                    (7, '\(install)', 'ana', 'com.example.tipjar.tip.coffee', 3500, 'developerIssue', 'approved', 3600),
                    (8, '\(install)', 'ana', 'com.example.tipjar.tip.snack', 3700, NULL, 'pending', NULL);
                """)
    }

    /// What the migration must keep: each rebuilt table's columns (`PRAGMA table_xinfo`) and rows (every column, by
    /// `rowid`), the notifications the triggers queued, and the text of every index and trigger.
    static func snapshot(_ db: Database) throws -> [String] {
        func rows(_ sql: String) throws -> [String] {
            try db.fetchAll(sql: sql) { row in (0..<row.statement.columnCount).map { "\(row[$0])" }.joined(separator: "|") }
        }
        var lines: [String] = []
        for table in ["transactions", "deliveries", "refund_requests", "notifications"] {
            lines += try rows("SELECT * FROM pragma_table_xinfo('\(table)')").map { "\(table) column \($0)" }
            lines += try rows("SELECT rowid, * FROM \(table) ORDER BY rowid").map { "\(table) row \($0)" }
        }
        lines += try rows("SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE type IN ('index', 'trigger') ORDER BY name")
        return lines
    }

    @Test func upgradesKeepingEveryRowColumnIndexAndTrigger() async throws {
        let directory = try SchemaUpgradeTests.newFolder("tipjar-upgrade-v18")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("tipjar.sqlite3").path
        let (old, _) = try SchemaUpgradeTests.pool(at: path, migratedThrough: "v18-one-time-charges-queued-by-the-sender")
        try old.writeSync(Self.seed)
        let before = try old.readSync(Self.snapshot)
        #expect(before.filter { $0.hasPrefix("notifications row") }.count == 4, "a charge, its refund, two consumption requests")
        #expect(before.filter { $0.hasPrefix("deliveries row") }.count == 5)
        try old.close()

        // v19 alone keeps every row, column, index and trigger (the later steps change indexes of their own).
        let (rebuilt, _) = try SchemaUpgradeTests.pool(at: path, migratedThrough: "v19-membership-checks-as-comparisons")
        #expect(try rebuilt.readSync(Self.snapshot) == before)
        try rebuilt.close()

        let storage = try SQLiteTipJarStorage(path: path, configuration: TestWorld.testDatabase)
        defer { try? storage.pool.close() }
        #expect(try storage.pool.readSync { try SQLiteTipJarStorage.migrator.appliedIdentifiers($0) } == TipJarSchema.migrations.map(\.identifier))
        try storage.pool.readSync { db in
            #expect(try db.fetchAll(sql: "PRAGMA foreign_key_check") { "\($0[0])" }.isEmpty)
            #expect(try db.fetchAll(sql: "PRAGMA integrity_check") { try $0.value(at: 0, as: String.self) } == ["ok"])
            let tables = try db.fetchAll(sql: "SELECT sql FROM sqlite_schema WHERE name IN ('transactions', 'deliveries', 'refund_requests')") {
                try $0.value(at: 0, as: String.self)
            }
            #expect(tables.count == 3 && tables.allSatisfy { !$0.contains("_rebuilt") })
        }
        // The triggers made again still queue: a refund request declined is a REFUND_DECLINED.
        try storage.pool.writeSync { db in
            try db.execute(sql: "UPDATE refund_requests SET state = 'declined', decided_at_ms = 5000 WHERE transaction_id = 8")
        }
        let queued = try await storage.notifications(matching: NotificationQuery(limit: 10))
        #expect(queued.map(\.type).contains(.refundDeclined))
    }

    /// Whether `value` may go in `column` of `table`, on a row otherwise as `row` gives it: the insert's result code
    /// (`SQLITE_OK`, or the constraint that refused it), rolled back either way.
    static func admits(_ db: Database, _ table: String, _ row: [String: DatabaseValueConvertible?], _ column: String, _ value: DatabaseValueConvertible?) throws -> Int32 {
        var row = row
        row[column] = .some(value)
        let columns = row.keys.sorted()
        try db.execute(sql: "SAVEPOINT probe")
        defer { _ = try? db.execute(sql: "ROLLBACK TO probe"); _ = try? db.execute(sql: "RELEASE probe") }
        do {
            try db.execute(
                sql: "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))",
                arguments: StatementArguments(columns.map { (row[$0] ?? nil)?.databaseValue ?? .null }))
            return SQLITE_OK
        } catch let error as DatabaseError {
            return error.extendedResultCode
        }
    }

    /// Each rewritten column, on a database at `v18` and on one at the newest version, takes each of its values, and
    /// neither takes a value outside them, another case of one, an empty text, a number or (where the column is
    /// `NOT NULL`) `NULL`.
    @Test func theRewrittenChecksAllowExactlyTheValuesTheListsAllowed() throws {
        let directory = try SchemaUpgradeTests.newFolder("tipjar-checks")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (old, _) = try SchemaUpgradeTests.pool(
            at: directory.appendingPathComponent("v18.sqlite3").path, migratedThrough: "v18-one-time-charges-queued-by-the-sender")
        let new = try SQLiteTipJarStorage(path: directory.appendingPathComponent("new.sqlite3").path, configuration: TestWorld.testDatabase).pool
        defer { try? old.close(); try? new.close() }
        let transaction: [String: DatabaseValueConvertible?] = [
            "id": 70, "product_id": "p", "purchase_date_ms": 1, "storefront": "USA", "account_id": "ana", "install_id": Self.install,
            "status": "purchased",
        ]
        let delivery: [String: DatabaseValueConvertible?] = [
            "install_id": Self.install, "transaction_id": 70, "product_id": "p", "path": "purchase", "outcome": "counted",
            "finished": 1, "at_ms": 1,
        ]
        let refundRequest: [String: DatabaseValueConvertible?] = [
            "transaction_id": 70, "install_id": Self.install, "account_id": "ana", "product_id": "p", "requested_at_ms": 1,
            "state": "pending",
        ]
        let probes: [(table: String, row: [String: DatabaseValueConvertible?], column: String, allowed: [String])] = [
            ("transactions", transaction, "status", ["pending", "purchased", "declined"]),
            ("transactions", transaction, "revocation_type", ["REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE"]),
            ("deliveries", delivery, "path", ["purchase", "listener", "launch", "restore", "otherDevice"]),
            ("deliveries", delivery, "outcome", ["counted", "duplicate", "revoked", "unknownProduct", "unverified"]),
            ("refund_requests", refundRequest, "state", ["pending", "approved", "declined"]),
        ]
        for pool in [old, new] {
            try pool.writeSync { db in
                try db.execute(sql: "INSERT INTO installs (id, locale, account_id, created_at_ms) VALUES (?, 'en', 'ana', 0)", arguments: [Self.install])
            }
        }
        for probe in probes {
            let first = probe.allowed[0]
            let otherCase = first == first.lowercased() ? first.uppercased() : first.lowercased()
            let values: [DatabaseValueConvertible?] = probe.allowed + ["refunded", otherCase, "", 1, nil]
            let results = try [old, new].map { pool in
                try pool.writeSync { db in try values.map { try Self.admits(db, probe.table, probe.row, probe.column, $0) } }
            }
            #expect(results[0] == results[1], "\(probe.table).\(probe.column): v18 \(results[0]), now \(results[1])")
            #expect(results[1].prefix(probe.allowed.count).allSatisfy { $0 == SQLITE_OK }, "\(probe.table).\(probe.column) \(results[1])")
            #expect(results[1][probe.allowed.count..<(probe.allowed.count + 4)].allSatisfy { $0 == Self.constraintCheck }, "\(results[1])")
        }
    }

    /// The statements of a purchase's write, each as SQLite runs it (its own program, not the trigger programs
    /// `OP_Program` calls), open no ephemeral table: before `v19`, the `INSERT`s into `transactions` and `deliveries`
    /// opened four, one per `IN (…)` list of three or more values in their checks.
    @Test func aPurchasesWritesBuildNoTemporaryTableForTheirChecks() throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("tipjar.sqlite3")
        try SQLiteTipJarStorage(path: path, configuration: TestWorld.testDatabase).pool.close()
        let db = try Database(path: path, flags: SQLITE_OPEN_READONLY)
        defer { try? db.close() }
        for sql in [
            SQLiteTipJarStorage.insertTransactionSQL, SQLiteTipJarStorage.insertDeliverySQL,
            "INSERT INTO counted_transactions (install_id, transaction_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
            "UPDATE installs SET hearts = ? WHERE id = ?",
            "INSERT INTO refund_requests (transaction_id, install_id, account_id, product_id, requested_at_ms, state) VALUES (?, ?, ?, ?, ?, ?)",
        ] {
            // EXPLAIN lists the statement's program, then each trigger program from address 0 again.
            let unbound = StatementArguments(Array(repeating: .null, count: sql.filter { $0 == "?" }.count))
            let program = try db.fetchAll(sql: "EXPLAIN " + sql, arguments: unbound) {
                (address: try $0.value(at: 0, as: Int64.self), opcode: try $0.value(at: 1, as: String.self))
            }
            let own = program.enumerated().prefix { $0.offset == 0 || $0.element.address > 0 }.map(\.element.opcode)
            #expect(own.count > 5 && !own.contains("OpenEphemeral"), "\(sql): \(own)")
        }
    }

    /// A rebuild that cannot copy a row (here a ledger row whose install is gone, written with foreign keys off) fails
    /// the migration, which is rolled back: the file stays at `v18` with every row, and says so.
    @Test func aRebuildThatCannotCopyARowLeavesTheDatabaseAsItWas() throws {
        let directory = try SchemaUpgradeTests.newFolder("tipjar-upgrade-orphan")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("tipjar.sqlite3").path
        let (old, _) = try SchemaUpgradeTests.pool(at: path, migratedThrough: "v18-one-time-charges-queued-by-the-sender")
        try old.writeSync(Self.seed)
        try old.close()
        let raw = try Database(path: path, flags: SQLITE_OPEN_READWRITE)
        try raw.execute(sql: "PRAGMA foreign_keys = OFF")
        try raw.execute(
            sql: "INSERT INTO deliveries (install_id, transaction_id, product_id, path, outcome, finished, at_ms) VALUES ('gone', 7, 'p', 'purchase', 'counted', 1, 1)")
        try raw.close()
        let check = try DatabasePool(path: path)
        let before = try check.readSync(Self.snapshot)
        try check.close()

        let error = try #require(throws: DatabaseError.self) { try SQLiteTipJarStorage(path: path, configuration: TestWorld.testDatabase) }
        #expect(error.message.contains("v19-membership-checks-as-comparisons could not run and was rolled back"), "\(error.message)")
        let after = try DatabasePool(path: path)
        defer { try? after.close() }
        #expect(try after.readSync { try SQLiteTipJarStorage.migrator.appliedIdentifiers($0) }.last == "v18-one-time-charges-queued-by-the-sender")
        #expect(try after.readSync(Self.snapshot) == before)
    }
}
