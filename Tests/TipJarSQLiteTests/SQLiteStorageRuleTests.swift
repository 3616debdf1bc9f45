import Testing
import TipJar
import TipJarSQLite
import TipJarStorageRules

/// The domain rules and the storage's guarantees (`Tests/TipJarStorageRules`) on a new SQLite file each; the
/// core's tests run the same rules on `InMemoryTipJarStorage`.
@Suite("Domain rules, on SQLite")
struct SQLiteStorageRuleTests {
    @Test(arguments: StorageRule.all)
    func holds(_ rule: StorageRule) async throws {
        let folder = try SQLiteTemporaryFolder()
        let storage = try SQLiteTipJarStorage(path: folder.path("tipjar.sqlite3"))
        defer { try? storage.queue.close() }
        try await rule.check(on: storage)
    }
}
