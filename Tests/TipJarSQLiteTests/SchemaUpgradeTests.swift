import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// A database created by the first schema version upgrades in place, keeping its data.
@Suite("Schema upgrade")
struct SchemaUpgradeTests {
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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-upgrade-v5-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("tipjar.sqlite3").path
        let throughV5 = try #require(TipJarSchema.migrations.firstIndex { $0.identifier == "v5-transaction-fields" })
        var migrator = DatabaseMigrator()
        for (identifier, sql) in TipJarSchema.migrations[...throughV5] {
            migrator.registerMigration(identifier) { db in try db.execute(sql: sql) }
        }
        let install = "0a1b2c3d-0000-4000-8000-0000000000a5"
        let token = "5e0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b"
        let old = try DatabasePool(path: path)
        try migrator.migrate(old)
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

    @Test func theFixtureItselfIsNeverModified() throws {
        let fixture = try #require(Bundle.module.url(forResource: "Fixtures/v1", withExtension: "sqlite3"))
        let queue = try DatabasePool(path: fixture.path, configuration: DatabaseConfiguration(readOnly: true))
        let applied = try queue.readSync { try SQLiteTipJarStorage.migrator.appliedIdentifiers($0) }
        #expect(applied == ["v1-core"])
        try queue.close()
    }
}
