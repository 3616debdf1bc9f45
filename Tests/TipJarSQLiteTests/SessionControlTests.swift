import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// StoreKitTest's session controls on the real store and a real SQLite file: the `.storekit` file's settings
/// at start-up and on reset (`SKTestSession.resetToDefaultState()`), Ask to Buy (`askToBuyEnabled`),
/// `clearTransactions()`, `deleteTransaction(identifier:)` and deleting the app.
@Suite("Session controls")
struct SessionControlTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("TipJarTests/Fixtures/storekit")

    static func catalog(_ name: String) throws -> Catalog {
        try Catalog.load(contentsOf: fixtures.appendingPathComponent("\(name).storekit"))
    }

    @Test func askToBuyFromTheFileMakesEveryPurchasePendingUntilApproved() async throws {
        let world = try await TestWorld.make(catalog: try Self.catalog("settings-ask-to-buy-pt-BR"))
        #expect(world.store.settings.askToBuyEnabled)
        let install = try await world.runningInstall(storefront: "BRA")
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.outcome == .pending)
        #expect(try await world.hearts(install.id) == 0)
        let pending = try await world.storage.pendingTransactions()
        #expect(pending.count == 1)
        let delivery = try await world.service.approve(requestID: try #require(pending.first).transaction.id).delivery
        #expect(delivery?.outcome == .counted)
        #expect(try await world.hearts(install.id) == 1)
    }

    @Test func aNewInstallDefaultsToTheFilesLocaleAndStorefront() async throws {
        let catalog = try Self.catalog("settings-ask-to-buy-pt-BR")
        let world = try await TestWorld.make(catalog: catalog)
        let install = try await world.service.createInstall(locale: catalog.defaultLocale, storefront: nil)
        #expect(install.locale == .ptBR)
        #expect(install.storefront == "BRA")
    }

    @Test func theFilesSettingsWinAtEveryStartAndResetRestoresThem() async throws {
        let world = try await TestWorld.make(catalog: try Self.catalog("settings-load-products-fails"))
        let fromFile = StoreSettings.Failures(loadProducts: .networkError, verification: .invalidSignature)
        #expect(world.store.settings.failures == fromFile)
        try await world.setSettings {
            $0.failures = StoreSettings.Failures(); $0.purchaseLatencyMs = 250
        }
        let restarted = try await world.reopened()
        #expect(restarted.store.settings.failures == fromFile, "the file's fields are applied over the saved ones")
        #expect(restarted.store.settings.purchaseLatencyMs == 250, "the others keep what was saved")
        let reset = try await restarted.store.resetToFileSettings()
        #expect(reset == StoreSettings(failures: fromFile))
        #expect(try await restarted.storage.storeSettings() == reset, "the reset is saved")
    }

    @Test func clearTransactionsForgetsEveryTransactionAndInstallsKeepTheirHearts() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        _ = try await world.service.purchase(productID: TestWorld.snack, installID: install.id)
        #expect(try await world.store.clearTransactions() == 2)
        #expect(try await world.storage.transactions(matching: TransactionQuery()).transactions.isEmpty)
        #expect(try await world.hearts(install.id) == 2)
        #expect(try await world.ledgerOutcomes(install.id) == [.counted, .counted])
        // After a restart the next transaction still gets an ID no install counted before.
        let restarted = try await world.reopened()
        let next = try await restarted.service.purchase(productID: TestWorld.lunch, installID: install.id)
        #expect(next.recordOutcome == .counted)
        #expect(try await restarted.hearts(install.id) == 3)
    }

    @Test func deleteTransactionForgetsOneAndAnUnknownIDIsNotFound() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        let first = try #require(try await world.service.purchase(productID: TestWorld.coffee, installID: install.id).transactionID)
        let second = try #require(try await world.service.purchase(productID: TestWorld.snack, installID: install.id).transactionID)
        try await world.store.deleteTransaction(id: first)
        #expect(try await world.storage.transactions(matching: TransactionQuery()).transactions.map(\.transaction.id) == [second])
        await #expect(throws: TipJarError.transactionNotFound(first)) { try await world.store.deleteTransaction(id: first) }
    }

    @Test func deletingTheAppDropsHeartsAndLedgerButAReinstallOnTheAccountGetsWhatIsUnfinished() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(crashBeforeFinish: true))
        let install = try await world.runningInstall(accountID: "ana")
        let transactionID = try #require(try await world.service.purchase(productID: TestWorld.coffee, installID: install.id).transactionID)
        try await world.service.deleteInstall(install.id)
        await #expect(throws: TipJarError.installNotFound(install.id)) { try await world.service.install(install.id) }
        #expect(try await world.storage.ledger(installID: install.id, limit: 10).isEmpty)
        #expect(try await world.storage.transaction(withID: transactionID)?.accountID == "ana", "the store keeps the transaction")
        await #expect(throws: TipJarError.installNotFound(install.id)) { try await world.service.deleteInstall(install.id) }

        try await world.setSettings { $0.crashBeforeFinish = false }
        let reinstall = try await world.runningInstall(accountID: "ana")
        #expect(try await world.ledgerOutcomes(reinstall.id) == [.counted])
        #expect(try await world.hearts(reinstall.id) == 1)
    }

    @Test func historyViewsFollowStoreKitsRulesForConsumables() async throws {
        let catalog = try Self.catalog("v3-tips-and-subscriptions")
        let world = try await TestWorld.make(catalog: catalog)
        let install = try await world.runningInstall(accountID: "ana")
        let finished = try #require(try await world.service.purchase(productID: "io.example.config.tip.a", installID: install.id).transactionID)
        let refunded = try #require(try await world.service.purchase(productID: "io.example.config.tip.b", installID: install.id).transactionID)
        _ = try await world.service.refund(transactionID: refunded)
        let (unlock, _) = try await world.service.externalPurchase(productID: "io.example.config.unlock", installID: install.id)
        try await world.setSettings { $0.askToBuyEnabled = true }
        _ = try await world.service.purchase(productID: "io.example.config.tip.a", installID: install.id)  // pending: no Transaction yet
        try await world.setSettings {
            $0.askToBuyEnabled = false; $0.crashBeforeFinish = true
        }
        let unfinished = try #require(try await world.service.purchase(productID: "io.example.config.tip.c", installID: install.id).transactionID)

        func ids(_ view: TransactionHistoryView, _ productID: String? = nil) async throws -> [UInt64] {
            try await world.store.history(accountID: "ana", view: view, productID: productID).map(\.transaction.id)
        }
        #expect(try await ids(.all) == [unfinished, unlock.transaction.id, refunded], "finished tips are not in Transaction.all")
        #expect(!(try await ids(.all)).contains(finished))
        #expect(try await ids(.unfinished) == [unfinished])
        #expect(try await ids(.currentEntitlements) == [unlock.transaction.id], "consumables are never entitlements")
        #expect(try await ids(.latest, "io.example.config.tip.a") == [], "a finished consumable is not latest(for:)")
        #expect(try await ids(.latest, "io.example.config.tip.b") == [refunded])
        #expect(try await world.store.history(accountID: "bob", view: .all, productID: nil).isEmpty)
        await #expect(throws: TipJarError.self) { try await world.store.history(accountID: "ana", view: .latest, productID: nil) }
    }

    @Test func transactionListsFilterByAccountInstallProductAndStatusNewestFirstInPages() async throws {
        let world = try await TestWorld.make()
        let ana = try await world.runningInstall(accountID: "ana")
        let bob = try await world.runningInstall(accountID: "bob")
        var issued: [UInt64] = []
        for (install, product) in [(ana, TestWorld.coffee), (bob, TestWorld.snack), (ana, TestWorld.lunch), (ana, TestWorld.coffee)] {
            issued.append(try #require(try await world.service.purchase(productID: product, installID: install.id).transactionID))
        }
        func page(_ query: TransactionQuery) async throws -> ([UInt64], Bool) {
            let result = try await world.storage.transactions(matching: query)
            return (result.transactions.map(\.transaction.id), result.hasMore)
        }
        #expect(try await page(TransactionQuery()) == (issued.reversed(), false))
        #expect(try await page(TransactionQuery(accountID: "ana", pageSize: 2)) == ([issued[3], issued[2]], true))
        #expect(try await page(TransactionQuery(accountID: "ana", page: 2, pageSize: 2)) == ([issued[0]], false))
        #expect(try await page(TransactionQuery(installID: bob.id)) == ([issued[1]], false))
        #expect(try await page(TransactionQuery(productID: TestWorld.coffee)) == ([issued[3], issued[0]], false))
        #expect(try await page(TransactionQuery(status: .pending)) == ([], false))
        #expect(try await page(TransactionQuery(accountID: "ana' OR '1'='1")) == ([], false), "filters are bound, never SQL")
    }
}
