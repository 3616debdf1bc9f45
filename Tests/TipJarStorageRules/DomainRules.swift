import Foundation
import Testing
import TipJar

/// One rule every ``TipJarStorage`` keeps, checked through the service (README "Domain rules") or the storage
/// itself; `TipJarSQLiteTests` runs each against a new SQLite file.
public struct StorageRule: Sendable, CustomTestStringConvertible {
    /// What holds, as a sentence.
    public let name: String
    /// The store's settings the rule starts from.
    public let settings: StoreSettings
    /// The rule's checks in a new world (`#expect` records what does not hold).
    let body: @Sendable (RuleWorld) async throws -> Void

    init(name: String, settings: StoreSettings = .normal, _ body: @escaping @Sendable (RuleWorld) async throws -> Void) {
        self.name = name
        self.settings = settings
        self.body = body
    }

    /// Checks the rule on `storage`, a new, empty storage: a ``RuleWorld`` is opened on it with ``settings``.
    public func check(on storage: any TipJarStorage) async throws {
        try await body(try await RuleWorld.make(storage: storage, settings: settings))
    }

    /// The rule's sentence, as the test's argument is shown.
    public var testDescription: String { name }

    /// Every rule: the seed's rules (README "Domain rules": Loading, Recording, Hearts live per installation and Migration), the storage's own guarantees, the races and the
    /// account's storefront.
    public static let all: [StorageRule] = seedRules + storageRules + raceRules + accountRules + refundRequestRules + changeKeyRules
}

extension StorageRule {
    static let seedRules: [StorageRule] = [
        StorageRule(name: "the same transaction ID twice adds one heart") { world in
            let install = try await world.runningInstall()
            try await world.service.handle(RuleWorld.verified(7), installID: install.id, path: .purchase)
            try await world.service.handle(RuleWorld.verified(7), installID: install.id, path: .listener)
            #expect(try await world.hearts(install.id) == 1)
            #expect(try await world.ledgerOutcomes(install.id) == [.counted, .duplicate])
        },
        StorageRule(name: "a revoked transaction adds no heart") { world in
            let install = try await world.runningInstall()
            try await world.service.handle(RuleWorld.verified(8, revoked: true), installID: install.id, path: .listener)
            #expect(try await world.hearts(install.id) == 0)
            #expect(try await world.ledgerOutcomes(install.id) == [.revoked])
        },
        StorageRule(name: "an unknown product adds no heart and is logged") { world in
            let install = try await world.runningInstall()
            try await world.service.handle(RuleWorld.verified(9, "com.example.removed.tip"), installID: install.id, path: .listener)
            #expect(try await world.hearts(install.id) == 0)
            #expect(try await world.ledgerOutcomes(install.id) == [.unknownProduct])
            #expect(world.logged.all.contains { $0.contains("product.id=com.example.removed.tip") })
        },
        StorageRule(name: "an unverified transaction is neither recorded nor finished") { world in
            let install = try await world.runningInstall()
            let delivery = try await world.service.handle(
                .unverified(RuleWorld.transaction(10), .invalidSignature),
                installID: install.id, path: .purchase)
            #expect(delivery.outcome == .unverified)
            #expect(delivery.finished == false)
            #expect(try await world.hearts(install.id) == 0)
        },
        StorageRule(name: "a sixth tip still shows five hearts, and every tip is a counted row") { world in
            let install = try await world.runningInstall()
            for id in 1...6 { try await world.service.handle(RuleWorld.verified(UInt64(id)), installID: install.id, path: .purchase) }
            #expect(try await world.hearts(install.id) == Install.maximumHearts)
            #expect(try await world.ledgerOutcomes(install.id) == Array(repeating: .counted, count: 6))
        },
        StorageRule(name: "the old version's boolean becomes one heart, once") { world in
            let install = try await world.service.createInstall(locale: .en, storefront: "USA", legacyHasTipped: true)
            #expect(try await world.service.install(install.id).legacyHasTipped)
            let first = try await world.service.launch(installID: install.id)
            #expect(first.migratedLegacyFlag)
            #expect(try await world.hearts(install.id) == 1)
            let second = try await world.service.launch(installID: install.id)
            #expect(second.migratedLegacyFlag == false)
            #expect(try await world.hearts(install.id) == 1)
            #expect(try await world.service.install(install.id).legacyHasTipped == false)
        },
        StorageRule(name: "the legacy migration keeps hearts already counted") { world in
            let install = try await world.service.createInstall(locale: .en, storefront: "USA", legacyHasTipped: true)
            try await world.service.handle(RuleWorld.verified(1), installID: install.id, path: .listener)
            try await world.service.handle(RuleWorld.verified(2), installID: install.id, path: .listener)
            _ = try await world.service.launch(installID: install.id)
            #expect(try await world.hearts(install.id) == 2, "the boolean becomes one heart only if the count is still zero")
        },
        StorageRule(
            name: "a load is unavailable when empty, then when it throws, then ready on Retry",
            settings: StoreSettings(catalog: .empty)
        ) { world in
            let install = try await world.runningInstall()
            #expect(try await world.service.loadOffers(installID: install.id) == .unavailable(.empty))
            try await world.setSettings { $0.catalog = .failing }
            #expect(try await world.service.loadOffers(installID: install.id) == .unavailable(.loadFailed(.networkError)))
            try await world.setSettings { $0.catalog = .normal }
            guard case .ready(let offers) = try await world.service.loadOffers(installID: install.id) else {
                Issue.record("retry after the outage should be ready")
                return
            }
            #expect(offers.map(\.productID) == [RuleWorld.coffee, RuleWorld.snack, RuleWorld.lunch])
        },
        StorageRule(
            name: "an injected loadProducts failure throws the chosen error",
            settings: StoreSettings(failures: .init(loadProducts: .notEntitled))
        ) { world in
            let install = try await world.runningInstall()
            #expect(try await world.service.loadOffers(installID: install.id) == .unavailable(.loadFailed(.notEntitled)))
        },
        StorageRule(name: "offers are localized and priced for the storefront") { world in
            let install = try await world.runningInstall(locale: .ptBR, storefront: "BRA")
            guard case .ready(let offers) = try await world.service.loadOffers(installID: install.id) else {
                Issue.record("expected offers")
                return
            }
            #expect(offers.map(\.name) == ["Café", "Lanche", "Almoço completo"])
            #expect(offers.map(\.displayPrice) == ["R$\u{A0}0,99", "R$\u{A0}2,99", "R$\u{A0}4,99"])
            #expect(offers.map(\.emoji) == ["☕", "🥐", "🍱"])
        },
        StorageRule(name: "a new install of the same account starts with zero hearts") { world in
            let first = try await world.runningInstall(accountID: "ana@example.com")
            _ = try await world.service.purchase(productID: RuleWorld.coffee, installID: first.id)
            let second = try await world.runningInstall(accountID: "ana@example.com")
            #expect(try await world.hearts(first.id) == 1)
            #expect(try await world.hearts(second.id) == 0)
        },
    ]
}
