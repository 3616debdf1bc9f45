import Foundation
import Testing
import TipJar
import TipJarSQLite
import TipJarStorageRules

/// The domain rules and the storage's guarantees (`Tests/TipJarStorageRules`) on a new SQLite file each; the
/// core's tests run the same rules on `InMemoryTipJarStorage`. One rule at a time, and each file is created and
/// migrated on a thread of its own: its synchronous writes and `fsync`s stay off the two-thread cooperative
/// pool that the live-server tests running beside need.
@Suite("Domain rules, on SQLite", .serialized)
struct SQLiteStorageRuleTests {
    @Test(arguments: StorageRule.all)
    func holds(_ rule: StorageRule) async throws {
        let folder = try SQLiteTemporaryFolder()
        let path = folder.path("tipjar.sqlite3")
        let opened: Result<SQLiteTipJarStorage, any Error> = await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: Result { try SQLiteTipJarStorage(path: path) }) }
        }
        let storage = try opened.get()
        defer { try? storage.queue.close() }
        try await rule.check(on: storage)
    }
}
