import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// A database created by the first schema version upgrades in place, keeping its data.
@Suite("Schema upgrade")
struct SchemaUpgradeTests {
    /// A new folder of its own for one test's database files.
    static func newFolder(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The database at `path` migrated through the migration `identifier` and no later one, open, with the migrator
    /// that did it: a file as a release that stopped there left it.
    static func pool(at path: String, migratedThrough identifier: String) throws -> (DatabasePool, DatabaseMigrator) {
        let last = try #require(TipJarSchema.migrations.firstIndex { $0.identifier == identifier })
        var migrator = DatabaseMigrator()
        for (identifier, migrate) in TipJarSchema.migrations[...last] {
            migrator.registerMigration(identifier, migrate)
        }
        let pool = try DatabasePool(path: path)
        try migrator.migrate(pool)
        return (pool, migrator)
    }

    @Test func upgradesTheFirstSchemaVersionKeepingInstallsLedgerAndSettings() async throws {
        let fixture = try #require(Bundle.module.url(forResource: "Fixtures/v1", withExtension: "sqlite3"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let copy = directory.appendingPathComponent("tipjar.sqlite3")
        try FileManager.default.copyItem(at: fixture, to: copy)

        let storage = try SQLiteTipJarStorage(path: copy.path, configuration: TestWorld.testDatabase)
        let applied = try storage.pool.readSync { try SQLiteTipJarStorage.migrator.appliedIdentifiers($0) }
        #expect(applied == TipJarSchema.migrations.map(\.identifier))
        let tipped = try #require(try await storage.install(withID: "0a1b2c3d-0000-4000-8000-000000000001"))
        #expect(tipped.hearts == 2)
        #expect(tipped.label == "", "v2 adds the label column with an empty default")
        #expect(try await storage.ledger(installID: tipped.id, limit: 10).map(\.outcome) == [.counted, .counted, .duplicate])
        let settings = try #require(try await storage.storeSettings())
        #expect(settings.catalog == .slow)
        #expect(settings.latencyMs == 1200)
        #expect(settings.listenerReemits == 0, "a field added later takes its default")
        #expect(try await storage.largestTransactionID() == 2)
        // v3 moved the counted keys: delivering a counted transaction again is still a duplicate.
        let again = Delivery(
            installID: tipped.id, transactionID: 1, productID: "com.example.tipjar.tip.coffee", path: .restore,
            outcome: .counted, finished: true, at: Date(timeIntervalSince1970: 1_757_462_400))
        #expect(try await storage.record(again).outcome == .duplicate)
        #expect(try await storage.install(withID: tipped.id)?.hearts == 2)
        let table = try storage.pool.readSync { db in
            try db.fetchValue(sql: "SELECT sql FROM sqlite_schema WHERE name = 'counted_transactions'", as: String.self)
        }
        #expect(table?.contains("PRIMARY KEY (transaction_id, install_id)") == true)

        // v4: the store's transactions outlive a deleted install.
        let kept = try await storage.transactions(matching: TransactionQuery(installID: tipped.id)).transactions
        #expect(kept.map(\.transaction.id) == [2, 1])
        // v5: a transaction saved before keeps quantity 1 and has no price, currency, type, bundle ID or token;
        // its signedDate is its purchase date.
        for old in kept.map(\.transaction) {
            #expect(old.purchasedQuantity == 1)
            #expect(old.price == nil && old.currency == nil && old.productType == nil && old.appBundleID == nil && old.appAccountToken == nil)
            #expect(old.signedDate == old.purchaseDate && old.originalPurchaseDate == old.purchaseDate)
        }
        // v6: no transaction saved before has a purchase issue, and no ledger row a trap's reason.
        #expect(kept.allSatisfy { $0.status == .purchased })
        #expect(try await storage.ledger(installID: tipped.id, limit: 10).allSatisfy { $0.note == nil })
        #expect(try await storage.deleteInstall(withID: tipped.id))
        #expect(try await storage.install(withID: tipped.id) == nil)
        #expect(try await storage.transactions(matching: TransactionQuery(installID: tipped.id)).transactions == kept)
        #expect(try await storage.ledger(installID: tipped.id, limit: 10).isEmpty)

        let legacy = try #require(try await storage.install(withID: "0a1b2c3d-0000-4000-8000-000000000002"))
        #expect(legacy.legacyHasTipped)
        #expect(try await storage.migrateLegacyFlag(installID: legacy.id))
        #expect(try await storage.install(withID: legacy.id)?.hearts == 1)
        try storage.pool.close()
    }

    /// A database that ran every migration up to `v5-transaction-fields` (and no later one) gains `v6-purchase-issues`
    /// in place: its transactions keep their `Transaction` fields and status (a pending one stays Ask to Buy's, not
    /// interrupted), its ledger rows keep their quantity and have no reason, and an interrupted purchase can be saved.
    @Test func upgradesADatabaseThatStoppedAtTheTransactionFieldsMigration() async throws {
        let directory = try Self.newFolder("tipjar-upgrade-v5")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("tipjar.sqlite3").path
        let install = "0a1b2c3d-0000-4000-8000-0000000000a5"
        let token = "5e0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"
        let (old, migrator) = try Self.pool(at: path, migratedThrough: "v5-transaction-fields")
        try old.writeSync { db in
            try db.execute(
                sql: """
                    INSERT INTO installs (id, locale, storefront, account_id, hearts, created_at_ms) VALUES ('\(install)', 'en', 'USA', 'ana', 1, 0);
                    INSERT INTO transactions (id, product_id, purchase_date_ms, storefront, account_id, install_id, status, is_finished,
                        purchased_quantity, app_account_token, price, currency, product_type, app_bundle_id, signed_date_ms)
                        VALUES (7, 'com.example.tipjar.tip.coffee', 1000, 'USA', 'ana', '\(install)', 'purchased', 1, 3, '\(token)', '0.99', 'USD',
                                'Consumable', 'com.example.tipjar', 1000),
                               (8, 'com.example.tipjar.tip.snack', 2000, 'USA', 'ana', '\(install)', 'pending', 0, 1, NULL, '1.99', 'USD',
                                'Consumable', 'com.example.tipjar', 2000);
                    INSERT INTO counted_transactions (transaction_id, install_id) VALUES (7, '\(install)');
                    INSERT INTO deliveries (install_id, transaction_id, product_id, path, outcome, finished, at_ms)
                        VALUES ('\(install)', 7, 'com.example.tipjar.tip.coffee', 'purchase', 'counted', 1, 1000);
                    """)
        }
        #expect(try old.readSync { try migrator.appliedIdentifiers($0) }.last == "v5-transaction-fields")
        try old.close()

        let storage = try SQLiteTipJarStorage(path: path, configuration: TestWorld.testDatabase)
        defer { try? storage.pool.close() }
        #expect(try storage.pool.readSync { try SQLiteTipJarStorage.migrator.appliedIdentifiers($0) } == TipJarSchema.migrations.map(\.identifier))
        let coffee = try #require(try await storage.transaction(withID: 7))
        #expect(coffee.status == .purchased && coffee.isFinished)
        #expect(coffee.transaction.purchasedQuantity == 3)
        #expect(coffee.transaction.appAccountToken == UUID(uuidString: token))
        #expect(coffee.transaction.price == Decimal(string: "0.99") && coffee.transaction.currency == "USD")
        #expect(coffee.transaction.productType == .consumable && coffee.transaction.appBundleID == "com.example.tipjar")
        #expect(try await storage.transaction(withID: 8)?.status == .pending)
        #expect(try await storage.pendingTransactions().map(\.transaction.id) == [8])
        let ledger = try await storage.ledger(installID: install, limit: 10)
        #expect(ledger.map(\.outcome) == [.counted])
        #expect(ledger.first?.purchasedQuantity == 3 && ledger.first?.note == nil)

        // The v6 column works on the upgraded file: an interrupted purchase keeps its v5 fields beside its issue flag.
        var transaction = Transaction(
            id: 9, productID: "com.example.tipjar.tip.coffee", purchaseDate: Date(timeIntervalSince1970: 3),
            storefront: "USA")
        transaction.purchasedQuantity = 2
        try await storage.insert(StoredTransaction(transaction: transaction, accountID: "ana", installID: install, status: .interrupted))
        let saved = try #require(try await storage.transaction(withID: 9))
        #expect(saved.status == .interrupted && saved.transaction.purchasedQuantity == 2)
        #expect(try await storage.pendingTransactions().map(\.transaction.id) == [8], "an interrupted purchase is not Ask to Buy's")
    }

    /// A database that stopped at `v16-server-api-history`, with queued, sending and `TEST` notifications and their
    /// attempts, gains `v17-notification-keys-indexed-when-set` in place: every row and attempt as it was, the keys still
    /// unique, and no key index entry for a notification that has no key yet.
    @Test func upgradesTheNotificationsQueueToPartialKeyIndexesKeepingEveryRowAndAttempt() async throws {
        let directory = try Self.newFolder("tipjar-upgrade-v16")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("tipjar.sqlite3").path
        let install = "0a1b2c3d-0000-4000-8000-0000000000b6"
        let (old, _) = try Self.pool(at: path, migratedThrough: "v16-server-api-history")
        try old.writeSync { db in
            try db.execute(
                sql: """
                    UPDATE notification_settings SET url = 'http://127.0.0.1:9/n', time_scale = 3600;
                    INSERT INTO installs (id, locale, account_id, hearts, created_at_ms) VALUES ('\(install)', 'en', 'ana', 1, 0);
                    INSERT INTO transactions (id, product_id, purchase_date_ms, storefront, account_id, install_id, status, is_finished,
                        purchased_quantity, price, currency, product_type, app_bundle_id, signed_date_ms)
                        VALUES (7, 'com.example.tipjar.tip.coffee', 1000, 'USA', 'ana', '\(install)', 'purchased', 1, 1, '0.99', 'USD',
                                'Consumable', 'com.example.tipjar', 1000),
                               (8, 'com.example.tipjar.tip.snack', 2000, 'USA', 'ana', '\(install)', 'purchased', 1, 1, '1.99', 'USD',
                                'Consumable', 'com.example.tipjar', 2000);
                    UPDATE notifications SET state = 'sending', attempt_count = 2, notification_uuid = 'uuid-7', signed_payload = 'a.b.',
                        next_attempt_ms = 9000 WHERE transaction_id = 7;
                    INSERT INTO notification_attempts (notification_id, attempt, attempted_at_ms, result, url, detail, ended_at_ms)
                        SELECT id, 1, 1500, 'TIMED_OUT', 'http://127.0.0.1:9/n', 'no answer within 5 s', 6500 FROM notifications WHERE transaction_id = 7;
                    INSERT INTO notification_attempts (notification_id, attempt, attempted_at_ms, result, url, detail, ended_at_ms)
                        SELECT id, 2, 7000, 'OTHER', 'http://127.0.0.1:9/n', NULL, NULL FROM notifications WHERE transaction_id = 7;
                    INSERT INTO notifications (notification_type, created_at_ms, test_token, notification_uuid, signed_payload, next_attempt_ms)
                        VALUES ('TEST', 3000, 'token-1', 'uuid-test', 'c.d.', 3000);
                    """)
        }
        func snapshot(_ db: Database) throws -> [[String]] {
            let columns = "id, notification_type, subtype, transaction_id, created_at_ms, has_snapshot, signed_date_ms, revocation_date_ms, "
                + "revocation_reason, revocation_type, revocation_percentage, consumption_request_reason, test_token, notification_uuid, "
                + "signed_payload, state, attempt_count, next_attempt_ms"
            let rows = try db.fetchAll(sql: "SELECT \(columns) FROM notifications ORDER BY id") { row in
                (0..<18).map { "\(row[$0])" }
            }
            let attempts = try db.fetchAll(sql: "SELECT * FROM notification_attempts ORDER BY notification_id, attempt") { row in
                (0..<7).map { "\(row[$0])" }
            }
            return rows + attempts
        }
        let before = try old.readSync(snapshot)
        #expect(before.count == 5, "three notifications (two charges, a TEST) and two attempts")
        try old.close()

        let storage = try SQLiteTipJarStorage(path: path, configuration: TestWorld.testDatabase)
        defer { try? storage.pool.close() }
        #expect(try storage.pool.readSync { try SQLiteTipJarStorage.migrator.appliedIdentifiers($0) } == TipJarSchema.migrations.map(\.identifier))
        #expect(try storage.pool.readSync(snapshot) == before, "every row and attempt, ids included")
        try storage.pool.readSync { db in
            #expect(try db.fetchAll(sql: "PRAGMA foreign_key_check") { "\($0[0])" }.isEmpty)
            #expect(try db.fetchAll(sql: "PRAGMA integrity_check") { try $0.value(at: 0, as: String.self) } == ["ok"])
            let indexes = try db.fetchAll(sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'notifications' ORDER BY name") {
                try $0.value(at: 0, as: String.self)
            }
            #expect(indexes == [
                "notifications_by_created", "notifications_by_transaction", "notifications_due", "notifications_due_tests",
                "notifications_test_token", "notifications_uuid",
            ], "no automatic index on a column constraint")
            #expect(try db.fetchValue(sql: "SELECT COUNT(*) FROM notifications INDEXED BY notifications_uuid WHERE notification_uuid IS NOT NULL", as: Int64.self) == 2)
            let plan = try db.fetchAll(sql: "EXPLAIN QUERY PLAN SELECT * FROM notifications WHERE test_token = ?", arguments: ["token-1"]) {
                try $0.value(named: "detail", as: String.self)
            }
            #expect(plan.contains { $0.contains("notifications_test_token") }, "\(plan)")
        }
        // The keys stay unique where they are set; any number of rows may have none.
        #expect(throws: DatabaseError.self) {
            try storage.pool.writeSync { db in
                try db.execute(sql: "INSERT INTO notifications (notification_type, created_at_ms, notification_uuid, next_attempt_ms) VALUES ('TEST', 1, 'uuid-7', 1)")
            }
        }
        #expect(throws: DatabaseError.self) {
            try storage.pool.writeSync { db in
                try db.execute(sql: "INSERT INTO notifications (notification_type, created_at_ms, test_token, next_attempt_ms) VALUES ('TEST', 1, 'token-1', 1)")
            }
        }
        // The triggers of v14 queue into the table made again.
        try storage.pool.writeSync { db in
            try db.execute(
                sql: """
                    INSERT INTO transactions (id, product_id, purchase_date_ms, storefront, account_id, install_id, status, is_finished,
                        purchased_quantity, price, currency, product_type, app_bundle_id, signed_date_ms)
                    VALUES (9, 'com.example.tipjar.tip.coffee', 4000, 'USA', 'ana', '\(install)', 'purchased', 0, 1, '0.99', 'USD',
                            'Consumable', 'com.example.tipjar', 4000)
                    """)
        }
        let queued = try await storage.notifications(matching: NotificationQuery(limit: 10))
        #expect(queued.filter { $0.transactionID == 9 }.map(\.type) == [.oneTimeCharge])
        #expect(queued.filter { $0.notificationUUID == nil }.count == 2, "the new charge and the untouched one have no key yet")
        let sending = try #require(queued.first { $0.transactionID == 7 })
        #expect(sending.attempts.map(\.result) == [.timedOut, .other] && !sending.attempts[1].hasEnded)
    }

    @Test func theFixtureItselfIsNeverModified() throws {
        let fixture = try #require(Bundle.module.url(forResource: "Fixtures/v1", withExtension: "sqlite3"))
        let queue = try DatabasePool(path: fixture.path, configuration: DatabaseConfiguration(readOnly: true))
        let applied = try queue.readSync { try SQLiteTipJarStorage.migrator.appliedIdentifiers($0) }
        #expect(applied == ["v1-core"])
        try queue.close()
    }

    /// A database that stopped at `v17`, whose purchases queued their charges in their own writes, gains `v18` in
    /// place: those charges stay as they were (none queued twice), and a purchase after it waits for the next read.
    @Test func upgradesToChargesQueuedAfterThePurchaseWithoutQueuingAnyTwice() async throws {
        let directory = try Self.newFolder("tipjar-upgrade-v17")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("tipjar.sqlite3").path
        let install = "0a1b2c3d-0000-4000-8000-0000000000b7"
        let (old, _) = try Self.pool(at: path, migratedThrough: "v17-notification-keys-indexed-when-set")
        func insertTransaction(_ id: Int, _ db: Database) throws {
            try db.execute(
                sql: """
                    INSERT INTO transactions (id, product_id, purchase_date_ms, storefront, account_id, install_id, status, is_finished,
                        purchased_quantity, price, currency, product_type, app_bundle_id, signed_date_ms)
                    VALUES (\(id), 'com.example.tipjar.tip.coffee', \(id * 1000), 'USA', 'ana', '\(install)', 'purchased', 1, 1, '0.99',
                        'USD', 'Consumable', 'com.example.tipjar', \(id * 1000))
                    """)
        }
        try old.writeSync { db in
            try db.execute(
                sql: """
                    UPDATE notification_settings SET url = 'http://127.0.0.1:9/n';
                    INSERT INTO installs (id, locale, account_id, hearts, created_at_ms) VALUES ('\(install)', 'en', 'ana', 1, 0);
                    """)
            try insertTransaction(7, db)
            try insertTransaction(8, db)
        }
        try old.close()

        let storage = try SQLiteTipJarStorage(path: path, configuration: TestWorld.testDatabase)
        defer { try? storage.pool.close() }
        let mark = try storage.pool.readSync { db in
            try db.fetchValue(sql: "SELECT charges_queued_through FROM notification_settings", as: Int64.self)
        }
        #expect(mark == 8, "the purchases before the upgrade are queued already")
        try storage.pool.writeSync { db in try insertTransaction(9, db) }
        #expect(try storage.pool.readSync { try $0.fetchValue(sql: "SELECT COUNT(*) FROM notifications", as: Int64.self) } == 2)
        let queued = try await storage.notifications(matching: NotificationQuery(limit: 10))
        #expect(queued.map(\.transactionID) == [7, 8, 9] && queued.allSatisfy { $0.type == .oneTimeCharge })
    }
}
