import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// A transaction for anything that is not one of the catalog's tips — a subscription, a non-consumable, an ID
/// the catalog does not hold — is recorded `unknownProduct` and adds no heart, whichever path delivers it.
@Suite("Only tips count")
struct OnlyTipsCountTests {
    /// `v3-tips-and-subscriptions.storekit`: three consumable tips beside a non-consumable and two subscriptions.
    static func catalog() throws -> Catalog {
        try Catalog.load(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("TipJarTests/Fixtures/storekit/v3-tips-and-subscriptions.storekit"))
    }

    static let tip = "io.example.config.tip.a"
    static let notTips = ["io.example.config.monthly.small", "io.example.config.unlock", "io.example.config.removed"]

    @Test("through the listener: a subscription, a non-consumable or an unknown ID adds no heart", arguments: notTips)
    func listener(productID: String) async throws {
        let world = try await TestWorld.make(catalog: try Self.catalog())
        let install = try await world.runningInstall()
        let (_, delivery) = try await world.service.externalPurchase(productID: productID, installID: install.id)
        #expect(delivery?.outcome == .unknownProduct)
        #expect(delivery?.finished == true)
        #expect(try await world.hearts(install.id) == 0)
        #expect(world.logged.all.contains { $0.contains("not a tip") && $0.contains(productID) })
    }

    @Test("at launch: an unfinished subscription waiting for a stopped install adds no heart")
    func launch() async throws {
        let world = try await TestWorld.make(catalog: try Self.catalog())
        let install = try await world.service.createInstall(locale: .en, storefront: "USA")
        let (_, queued) = try await world.service.externalPurchase(productID: Self.notTips[0], installID: install.id)
        #expect(queued == nil, "the app is not running")
        let report = try await world.service.launch(installID: install.id)
        #expect(report.deliveries.map(\.path) == [.launch])
        #expect(report.deliveries.map(\.outcome) == [.unknownProduct])
        #expect(report.hearts == 0)
        #expect(try await world.service.launch(installID: install.id).deliveries.isEmpty, "finished, so not delivered again")
    }

    @Test("through Restore: an unfinished non-consumable adds no heart")
    func restore() async throws {
        let world = try await TestWorld.make(catalog: try Self.catalog(), settings: StoreSettings(finishIgnored: true))
        let install = try await world.runningInstall(accountID: "ana")
        _ = try await world.service.externalPurchase(productID: Self.notTips[1], installID: install.id)
        try await world.setSettings { $0.finishIgnored = false }
        let report = try await world.service.restore(installID: install.id)
        #expect(report.deliveries.map(\.path) == [.restore])
        #expect(report.deliveries.map(\.outcome) == [.unknownProduct])
        #expect(try await world.hearts(install.id) == 0)
    }

    @Test("from another device: another install's non-consumable on the account adds no heart")
    func otherDevice() async throws {
        let world = try await TestWorld.make(catalog: try Self.catalog())
        let first = try await world.runningInstall(accountID: "ana")
        let second = try await world.runningInstall(accountID: "ana")
        _ = try await world.service.externalPurchase(productID: Self.notTips[1], installID: first.id)
        let ledger = try await world.storage.ledger(installID: second.id, limit: 10)
        #expect(ledger.map(\.path) == [.otherDevice])
        #expect(ledger.map(\.outcome) == [.unknownProduct])
        #expect(try await world.hearts(first.id) == 0)
        #expect(try await world.hearts(second.id) == 0)
    }

    @Test("by the purchase path: a non-tip cannot be bought, and the handler never counts one")
    func purchase() async throws {
        let world = try await TestWorld.make(catalog: try Self.catalog())
        let install = try await world.runningInstall()
        await #expect(throws: TipJarError.unknownProduct(Self.notTips[0])) {
            try await world.service.purchase(productID: Self.notTips[0], installID: install.id)
        }
        let (stored, _) = try await world.service.externalPurchase(productID: Self.notTips[0], installID: install.id)
        let delivery = try await world.service.handle(.verified(stored.transaction), installID: install.id, path: .purchase)
        #expect(delivery.outcome == .unknownProduct)
        #expect(try await world.hearts(install.id) == 0)
    }

    @Test("a tip of the same file still counts, by every path")
    func tipsStillCount() async throws {
        let world = try await TestWorld.make(catalog: try Self.catalog())
        let install = try await world.runningInstall()
        #expect(try await world.service.purchase(productID: Self.tip, installID: install.id).recordOutcome == .counted)
        let (_, delivery) = try await world.service.externalPurchase(productID: Self.tip, installID: install.id)
        #expect(delivery?.outcome == .counted)
        #expect(try await world.hearts(install.id) == 2)
    }
}
