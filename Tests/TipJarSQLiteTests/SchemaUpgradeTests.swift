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
