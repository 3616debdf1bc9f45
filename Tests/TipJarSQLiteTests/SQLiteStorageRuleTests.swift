import Foundation
import TestSupport
import Testing
import TipJar
import SQLiteDatabase
import TipJarSQLite
import TipJarStorageRules

/// The domain rules and the storage's guarantees (`Tests/TipJarStorageRules`) on a new SQLite file each. Each file is created and migrated, and closed, on a
/// thread of its own (`onThread`): its synchronous writes stay off the two-thread cooperative pool that the live-server
/// tests running beside need. None of the rules is about durability, so the file is at `synchronous=NORMAL`.
@Suite("Domain rules, on SQLite")
struct SQLiteStorageRuleTests {
    @Test(arguments: StorageRule.all)
    func holds(_ rule: StorageRule) async throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("tipjar.sqlite3")
        let storage = try await Self.blocking { try SQLiteTipJarStorage(path: path, configuration: TestWorld.testDatabase) }.get()
        do {
            try await rule.check(on: storage)
        } catch {
            _ = await Self.blocking { try storage.pool.close() }
            throw error
        }
        try await Self.blocking { try storage.pool.close() }.get()
    }

    /// Runs `body`, which blocks (file I/O, `fsync`), on a thread of its own, and answers how it ended.
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async -> Result<T, any Error> {
        await onThread { Result { try body() } }
    }
}
