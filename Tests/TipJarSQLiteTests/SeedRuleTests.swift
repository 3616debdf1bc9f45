import Foundation
import Testing
import TipJar
import TipJarStorageRules

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// The domain rule that needs a file: a count survives a restart. The other rules (README "Domain rules") run in
/// `SQLiteStorageRuleTests`, a new file each.
@Suite("Seed rules")
struct SeedRuleTests {
    @Test func savedCountSurvivesReopen() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        for id in 1...3 { try await world.service.handle(RuleWorld.verified(UInt64(id)), installID: install.id, path: .purchase) }
        let reopened = try await world.reopened()
        #expect(try await reopened.hearts(install.id) == 3)
        try await reopened.service.handle(RuleWorld.verified(2), installID: install.id, path: .launch)
        #expect(try await reopened.hearts(install.id) == 3, "a reopened store still knows transaction 2 was counted")
    }
}
