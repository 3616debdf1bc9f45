import Foundation
import Testing
import TipJar
import TipJarSQLite
import TipJarStorageRules

/// The domain rules and the storage's guarantees (`Tests/TipJarStorageRules`) on a new SQLite file each; the
/// core's tests run the same rules on `InMemoryTipJarStorage`. One rule at a time, and each file is created and
/// migrated, and closed, on a thread of its own: its synchronous writes and `fsync`s stay off the two-thread cooperative
/// pool that the live-server tests running beside need.
@Suite("Domain rules, on SQLite", .serialized)
struct SQLiteStorageRuleTests {
    @Test(arguments: StorageRule.all)
    func holds(_ rule: StorageRule) async throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("tipjar.sqlite3")
        let storage = try await Self.onThread { try SQLiteTipJarStorage(path: path) }.get()
        do {
            try await rule.check(on: storage)
        } catch {
            _ = await Self.onThread { try storage.pool.close() }
            throw error
        }
        try await Self.onThread { try storage.pool.close() }.get()
    }

    /// Runs `body`, which blocks (file I/O, `fsync`), on a thread of its own.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async -> Result<T, any Error> {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Result { try body() }) }
        }
    }
}
