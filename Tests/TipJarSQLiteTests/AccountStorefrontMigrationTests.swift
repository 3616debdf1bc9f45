import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// `v7-account-storefronts` (Sources/TipJarSQLite/TipJarSchema.swift): a database of the previous version, where each
/// install had its own storefront, upgrades to one storefront per Apple Account; the newest install of an account
/// decides when its installs disagreed. A file the migration cannot upgrade is left as it was, and the error says why.
@Suite("Account storefront migration")
struct AccountStorefrontMigrationTests {
    /// A new database file in a new temporary folder, with every migration up to `v6-purchase-issues` applied and
    /// `rows` (SQL) written, then closed.
    static func databaseThroughV6(_ rows: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tipjar-upgrade-v6-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("tipjar.sqlite3").path
        let throughV6 = try #require(TipJarSchema.migrations.firstIndex { $0.identifier == "v6-purchase-issues" })
        var migrator = DatabaseMigrator()
        for (identifier, migrate) in TipJarSchema.migrations[...throughV6] {
            migrator.registerMigration(identifier, migrate)
        }
        let old = try DatabasePool(path: path)
        try migrator.migrate(old)
        try old.writeSync { db in try db.execute(sql: rows) }
        try old.close()
        return path
    }

    /// Ana's three installs disagree (the newest, created last, is in GBR); Bob's one is in BRA; a transaction made
    /// in USA.
    static let disagreeingInstalls = """
        INSERT INTO installs (id, locale, storefront, account_id, hearts, is_running, created_at_ms) VALUES
            ('ana-old', 'en', 'USA', 'ana', 1, 1, 1000),
            ('ana-new', 'en', 'GBR', 'ana', 0, 0, 3000),
            ('ana-mid', 'pt-BR', 'BRA', 'ana', 0, 0, 2000),
            ('bob-one', 'en', 'BRA', 'bob', 0, 0, 1500);
        INSERT INTO transactions (id, product_id, purchase_date_ms, storefront, account_id, install_id, status, is_finished, currency)
            VALUES (1, 'com.example.tipjar.tip.coffee', 1000, 'USA', 'ana', 'ana-old', 'purchased', 1, 'USD');
        """

    @Test func anAccountWhoseInstallsDisagreeKeepsItsNewestInstallsStorefront() async throws {
        let path = try Self.databaseThroughV6(Self.disagreeingInstalls)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let storage = try SQLiteTipJarStorage(path: path, configuration: TestWorld.testDatabase)
        defer { try? storage.pool.close() }
        #expect(try storage.pool.readSync { try SQLiteTipJarStorage.migrator.appliedIdentifiers($0) }.contains("v7-account-storefronts"))
        for id in ["ana-old", "ana-mid", "ana-new"] {
            #expect(try await storage.install(withID: id)?.storefront == "GBR", "\(id) reports its account's storefront")
        }
        #expect(try await storage.installs(matching: InstallQuery(accountID: "ana")).installs.map(\.storefront) == ["GBR", "GBR", "GBR"])
        #expect(try await storage.install(withID: "bob-one")?.storefront == "BRA")
        let kept = try #require(try await storage.install(withID: "ana-old"))
        #expect(kept.hearts == 1 && kept.isRunning && kept.accountID == "ana", "the other columns are kept")
        #expect(try await storage.transaction(withID: 1)?.transaction.storefront == "USA", "a transaction keeps its storefront")
        let columns = try storage.pool.readSync { db in
            try db.fetchAll(sql: "SELECT name FROM pragma_table_info('installs')") { try $0.value(at: 0, as: String.self) }
        }
        #expect(!columns.contains("storefront"), "one copy of the storefront, the account's")
        // The upgraded file works as a new one: a change moves the account.
        #expect(try await storage.setStorefront("JPN", accountID: "ana") == "GBR")
        #expect(try await storage.install(withID: "ana-mid")?.storefront == "JPN")
    }

    @Test func aMigrationThatCannotRunLeavesTheDatabaseAsItWasAndSaysWhy() async throws {
        // An index someone added on installs.storefront: SQLite refuses to drop an indexed column
        // (https://www.sqlite.org/lang_altertable.html#altertabdropcol), so v7 cannot run on this file.
        let path = try Self.databaseThroughV6(Self.disagreeingInstalls + "CREATE INDEX local_installs_by_storefront ON installs (storefront);")
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        func snapshot() throws -> [String] {
            let pool = try DatabasePool(path: path)
            defer { try? pool.close() }
            return try pool.readSync { db in
                try db.fetchAll(sql: "SELECT type || ' ' || name || ' ' || coalesce(sql, '') FROM sqlite_schema ORDER BY name") {
                    try $0.value(at: 0, as: String.self)
                }
                    + db.fetchAll(sql: "SELECT id || ' ' || storefront || ' ' || account_id FROM installs ORDER BY id") {
                        try $0.value(at: 0, as: String.self)
                    }
                    + db.fetchAll(sql: "SELECT identifier FROM \(DatabaseMigrator.tableName) ORDER BY rowid") {
                        try $0.value(at: 0, as: String.self)
                    }
            }
        }
        let before = try snapshot()
        #expect(before.last == "v6-purchase-issues")
        do {
            let storage = try SQLiteTipJarStorage(path: path, configuration: TestWorld.testDatabase)
            try? storage.pool.close()
            Issue.record("the migration should have been refused")
        } catch let error as DatabaseError {
            #expect(error.message.contains("v7-account-storefronts"), "the error names the migration: \(error.message)")
            #expect(error.message.contains("rolled back"))
            #expect(
                error.message.contains("local_installs_by_storefront") || error.message.contains("storefront"),
                "and SQLite's reason: \(error.message)")
            #expect(error.path == path)
        }
        #expect(try snapshot() == before, "no accounts table, installs keep their storefronts, v7 not recorded")
    }
}
