import Foundation
import Testing
import TipJar
@testable import TipJarSQLite

/// The seed's own tests (seed 001, "keeping count" and "when the store returns nothing"), run
/// against the real SQLite storage.
@Suite("Seed rules")
struct SeedRuleTests {
    func verified(_ id: UInt64, _ productID: String = TestWorld.coffee, revoked: Bool = false) -> VerificationResult<Transaction> {
        var transaction = Transaction(id: id, productID: productID, purchaseDate: TestWorld.epoch, storefront: "USA")
        if revoked {
            transaction.revocationDate = TestWorld.epoch
            transaction.revocationReason = .other
        }
        return .verified(transaction)
    }

    @Test func sameTransactionIDTwiceAddsOneHeart() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        try await world.service.handle(verified(7), installID: install.id, path: .purchase)
        try await world.service.handle(verified(7), installID: install.id, path: .listener)
        #expect(try await world.hearts(install.id) == 1)
        #expect(try await world.ledgerOutcomes(install.id) == [.counted, .duplicate])
    }

    @Test func revokedTransactionAddsNoHeart() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        try await world.service.handle(verified(8, revoked: true), installID: install.id, path: .listener)
        #expect(try await world.hearts(install.id) == 0)
        #expect(try await world.ledgerOutcomes(install.id) == [.revoked])
    }

    @Test func unknownProductAddsNoHeartAndIsLogged() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        try await world.service.handle(verified(9, "com.example.removed.tip"), installID: install.id, path: .listener)
        #expect(try await world.hearts(install.id) == 0)
        #expect(try await world.ledgerOutcomes(install.id) == [.unknownProduct])
        #expect(world.logged.all.contains { $0.contains("product.id=com.example.removed.tip") })
    }

    @Test func unverifiedTransactionIsNotRecordedNorFinished() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        let transaction = Transaction(id: 10, productID: TestWorld.coffee, purchaseDate: TestWorld.epoch, storefront: "USA")
        let delivery = try await world.service.handle(.unverified(transaction, .invalidSignature), installID: install.id, path: .purchase)
        #expect(delivery.outcome == .unverified)
        #expect(delivery.finished == false)
        #expect(try await world.hearts(install.id) == 0)
    }

    @Test func sixthTipStillFiveHearts() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        for id in 1...6 { try await world.service.handle(verified(UInt64(id)), installID: install.id, path: .purchase) }
        #expect(try await world.hearts(install.id) == Install.maximumHearts)
        #expect(try await world.ledgerOutcomes(install.id) == Array(repeating: .counted, count: 6))
    }

    @Test func savedCountSurvivesReopen() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        for id in 1...3 { try await world.service.handle(verified(UInt64(id)), installID: install.id, path: .purchase) }
        let reopened = try await world.reopened()
        #expect(try await reopened.hearts(install.id) == 3)
        try await reopened.service.handle(verified(2), installID: install.id, path: .launch)
        #expect(try await reopened.hearts(install.id) == 3, "a reopened store still knows transaction 2 was counted")
    }

    @Test func legacyBooleanBecomesOneHeartOnce() async throws {
        let world = try await TestWorld.make()
        let install = try await world.service.createInstall(locale: .en, storefront: "USA", legacyHasTipped: true)
        #expect(try await world.service.install(install.id).legacyHasTipped)
        let first = try await world.service.launch(installID: install.id)
        #expect(first.migratedLegacyFlag)
        #expect(try await world.hearts(install.id) == 1)
        let second = try await world.service.launch(installID: install.id)
        #expect(second.migratedLegacyFlag == false)
        #expect(try await world.hearts(install.id) == 1)
        #expect(try await world.service.install(install.id).legacyHasTipped == false)
    }

    @Test func legacyMigrationKeepsExistingHearts() async throws {
        let world = try await TestWorld.make()
        let install = try await world.service.createInstall(locale: .en, storefront: "USA", legacyHasTipped: true)
        try await world.service.handle(verified(1), installID: install.id, path: .listener)
        try await world.service.handle(verified(2), installID: install.id, path: .listener)
        _ = try await world.service.launch(installID: install.id)
        #expect(try await world.hearts(install.id) == 2, "the boolean becomes one heart only if the count is still zero")
    }

    @Test func loadReturnsEmptyThenThrowsThenSucceedsOnRetry() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(catalog: .empty))
        let install = try await world.runningInstall()
        #expect(try await world.service.loadOffers(installID: install.id) == .unavailable(.empty))
        try await world.setSettings { $0.catalog = .failing }
        #expect(try await world.service.loadOffers(installID: install.id) == .unavailable(.loadFailed(.networkError)))
        try await world.setSettings { $0.catalog = .normal }
        guard case .ready(let offers) = try await world.service.loadOffers(installID: install.id) else {
            Issue.record("retry after the outage should be ready")
            return
        }
        #expect(offers.map(\.productID) == [TestWorld.coffee, TestWorld.snack, TestWorld.lunch])
    }

    @Test func loadProductsFailureInjectionThrowsTheChosenError() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(failures: .init(loadProducts: .notEntitled)))
        let install = try await world.runningInstall()
        #expect(try await world.service.loadOffers(installID: install.id) == .unavailable(.loadFailed(.notEntitled)))
    }

    @Test func offersAreLocalizedAndPricedForTheStorefront() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall(locale: .ptBR, storefront: "BRA")
        guard case .ready(let offers) = try await world.service.loadOffers(installID: install.id) else {
            Issue.record("expected offers")
            return
        }
        #expect(offers.map(\.name) == ["Café", "Lanche", "Almoço completo"])
        #expect(offers.map(\.displayPrice) == ["R$\u{A0}0,99", "R$\u{A0}2,99", "R$\u{A0}4,99"])
        #expect(offers.map(\.emoji) == ["☕", "🥐", "🍱"])
    }

    @Test func newInstallOfTheSameAccountStartsWithZeroHearts() async throws {
        let world = try await TestWorld.make()
        let first = try await world.runningInstall(accountID: "ana@example.com")
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: first.id)
        let second = try await world.runningInstall(accountID: "ana@example.com")
        #expect(try await world.hearts(first.id) == 1)
        #expect(try await world.hearts(second.id) == 0)
    }
}
