import Testing
import TipJar
import TipJarStorageRules

/// The domain rules and the storage's guarantees (`Tests/TipJarStorageRules`) on ``InMemoryTipJarStorage``: no
/// file, so the rules are checked in the core's own tests. `TipJarSQLiteTests` runs the same rules on SQLite.
@Suite("Domain rules, in memory")
struct InMemoryStorageRuleTests {
    @Test(arguments: StorageRule.all)
    func holds(_ rule: StorageRule) async throws {
        try await rule.check(on: InMemoryTipJarStorage())
    }
}
