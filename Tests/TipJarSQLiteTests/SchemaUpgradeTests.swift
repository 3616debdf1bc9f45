import Foundation
import Testing
import TipJar
@testable import TipJarSQLite

/// Issue 6: a database created by the first schema version upgrades in place, keeping its data.
@Suite("Schema upgrade")
struct SchemaUpgradeTests {
    @Test func upgradesTheFirstSchemaVersionKeepingInstallsLedgerAndSettings() async throws {
        let fixture = try #require(Bundle.module.url(forResource: "Fixtures/v1", withExtension: "sqlite3"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let copy = directory.appendingPathComponent("tipjar.sqlite3")
        try FileManager.default.copyItem(at: fixture, to: copy)

        let storage = try SQLiteTipJarStorage(path: copy.path)
        let applied = try storage.queue.readSync { try SQLiteTipJarStorage.migrator.appliedIdentifiers($0) }
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
        let again = Delivery(installID: tipped.id, transactionID: 1, productID: "com.example.tipjar.tip.coffee", path: .restore,
                             outcome: .counted, finished: true, at: Date(timeIntervalSince1970: 1_757_462_400))
        #expect(try await storage.record(again).outcome == .duplicate)
        #expect(try await storage.install(withID: tipped.id)?.hearts == 2)
        let table = try storage.queue.readSync { db in
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
        #expect(try await storage.deleteInstall(withID: tipped.id))
        #expect(try await storage.install(withID: tipped.id) == nil)
        #expect(try await storage.transactions(matching: TransactionQuery(installID: tipped.id)).transactions == kept)
        #expect(try await storage.ledger(installID: tipped.id, limit: 10).isEmpty)

        let legacy = try #require(try await storage.install(withID: "0a1b2c3d-0000-4000-8000-000000000002"))
        #expect(legacy.legacyHasTipped)
        #expect(try await storage.migrateLegacyFlag(installID: legacy.id))
        #expect(try await storage.install(withID: legacy.id)?.hearts == 1)
        try storage.queue.close()
    }

    @Test func theFixtureItselfIsNeverModified() throws {
        let fixture = try #require(Bundle.module.url(forResource: "Fixtures/v1", withExtension: "sqlite3"))
        let queue = try DatabaseQueue(path: fixture.path, configuration: DatabaseConfiguration(readOnly: true))
        let applied = try queue.readSync { try SQLiteTipJarStorage.migrator.appliedIdentifiers($0) }
        #expect(applied == ["v1-core"])
        try queue.close()
    }
}
