import Foundation
import Testing

@testable import SQLiteDatabase
@testable import TipJarSQLite

@Suite("DatabaseMigrator")
struct DatabaseMigratorTests {
    static func migrator(_ identifiers: [String]) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for identifier in identifiers {
            migrator.registerMigration(identifier) { db throws in
                try db.execute(sql: "CREATE TABLE \"\(identifier)\"(id INTEGER PRIMARY KEY)")
            }
        }
        return migrator
    }

    @Test("Migrations apply once, in order, each recorded in tipjar_migrations")
    func appliesOnceInOrder() throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"))
        try Self.migrator(["v1-create-installs"]).migrate(pool)
        let migrator = Self.migrator(["v1-create-installs", "v2-create-tips"])
        try migrator.migrate(pool)
        try migrator.migrate(pool)
        #expect(try pool.readSync { try migrator.appliedIdentifiers($0) } == ["v1-create-installs", "v2-create-tips"])
        #expect(try migrator.isUpToDate(pool))
        let appliedAt = try pool.readSync { try $0.fetchValue(sql: "SELECT applied_at FROM tipjar_migrations", as: String.self) }
        #expect(appliedAt?.isEmpty == false)
    }

    @Test("An upgrade names each migration before it runs on a file that had some; a new file's are not named")
    func upgradesAreNamedBeforeTheyRun() throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"))
        var named: [String] = []
        try Self.migrator(["v1", "v2"]).migrate(pool) { named.append($0) }
        #expect(named.isEmpty, "a new file")
        try Self.migrator(["v1", "v2", "v3", "v4"]).migrate(pool) { named.append($0) }
        #expect(named == ["v3", "v4"])
        try Self.migrator(["v1", "v2", "v3", "v4"]).migrate(pool) { named.append($0) }
        #expect(named == ["v3", "v4"], "nothing left to upgrade")
    }

    @Test("A failing migration rolls back with its record; earlier migrations stay applied")
    func failingMigrationRollsBack() throws {
        let folder = try SQLiteTemporaryFolder()
        let pool = try DatabasePool(path: folder.path("db.sqlite"))
        var migrator = Self.migrator(["v1"])
        migrator.registerMigration("v2-broken") { db throws in
            try db.execute(sql: "CREATE TABLE half(id INTEGER)")
            try db.execute(sql: "INSERT INTO missing VALUES (1)")
        }
        #expect(throws: DatabaseError.self) { try migrator.migrate(pool) }
        #expect(try pool.readSync { try migrator.appliedIdentifiers($0) } == ["v1"])
        #expect(try pool.readSync { try $0.fetchValue(sql: "SELECT 1 FROM sqlite_master WHERE name = 'half'", as: Int64.self) } == nil)
    }

    @Test("A database migrated by a newer version is refused with a clear message and not modified")
    func newerDatabaseIsRefused() throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("db.sqlite")
        let newer = try DatabasePool(path: path)
        try Self.migrator(["v1", "v2", "v3-from-the-future"]).migrate(newer)
        try newer.close()
        let before = sqliteFileBytes(path)

        let pool = try DatabasePool(path: path)
        let error = expectSQLiteError { try Self.migrator(["v1", "v2", "v4-local"]).migrate(pool) }
        try pool.close()
        #expect(error?.message.contains("v3-from-the-future") == true)
        #expect(error?.message.contains(path) == true)
        #expect(error?.message.contains("newer version") == true)
        #expect(sqliteFileBytes(path) == before)
    }
}
