import Foundation
import Testing
import TipJar

/// The storefront belongs to the Apple Account: `Storefront.current` is "the App Store storefront of the customer's
/// account" (https://developer.apple.com/documentation/storekit/storefront), and `Storefront.updates` "emits when
/// the storefront changes" (https://developer.apple.com/documentation/storekit/storefront/updates). Installs of one
/// account never disagree; a transaction keeps the storefront it was made in (`Transaction.storefront`).
extension StorageRule {
    /// The storefront each of `installs` reports, read three ways: by ID, in the account's list, and with its ledger.
    static func storefronts(_ installs: [Install], in world: RuleWorld) async throws -> [String] {
        var codes: [String] = []
        for install in installs {
            codes.append(try await world.service.install(install.id).storefront)
            codes.append(try await world.storage.installWithLedger(id: install.id, limit: 1)?.install.storefront ?? "none")
        }
        let listed = try await world.storage.installs(matching: InstallQuery(accountID: installs.first?.accountID))
        return codes + listed.installs.map(\.storefront)
    }

    /// The kinds of the install's timeline events, oldest first.
    static func eventKinds(_ installID: String, in world: RuleWorld) -> [String] {
        world.service.timeline.events(installID: installID, limit: 100).reversed().map(\.kind)
    }

    static let accountRules: [StorageRule] = [
        StorageRule(name: "a finished tip is in the account's history only with SKIncludeConsumableInAppPurchaseHistory") { world in
            let install = try await world.runningInstall(accountID: "ana")
            let tip = try #require(try await world.service.purchase(productID: RuleWorld.coffee, installID: install.id).transactionID)
            #expect(try await world.storage.transaction(withID: tip)?.isFinished == true)
            #expect(try await world.store.history(accountID: "ana", view: .all, productID: nil).isEmpty)
            #expect(try await world.store.history(accountID: "ana", view: .latest, productID: RuleWorld.coffee).isEmpty)
            try await world.setSettings { $0.includeConsumableInAppPurchaseHistory = true }
            #expect(try await world.store.history(accountID: "ana", view: .all, productID: nil).map(\.transaction.id) == [tip])
            #expect(try await world.store.history(accountID: "ana", view: .latest, productID: RuleWorld.coffee).map(\.transaction.id) == [tip])
            #expect(try await world.store.history(accountID: "ana", view: .currentEntitlements, productID: nil).isEmpty)
            #expect(try await world.store.history(accountID: "ana", view: .unfinished, productID: nil).isEmpty)
        },
        StorageRule(name: "two installs of one account always report the same storefront: a new one signs into the account's") { world in
            let first = try await world.runningInstall(storefront: "USA", accountID: "ana")
            let second = try await world.service.createInstall(locale: .ptBR, storefront: "BRA", accountID: "ana")
            #expect(second.storefront == "USA", "the device signs into the account, whose storefront is USA")
            #expect(try await storefronts([first, second], in: world).allSatisfy { $0 == "USA" })
            let created = try #require(world.service.timeline.events(installID: second.id, limit: 10).first { $0.kind == "install.created" })
            #expect(created.attributes["storefront"] == "USA" && created.attributes["requestedStorefront"] == "BRA")
            // The storage keeps it too, whatever storefront an install is inserted with.
            var third = Install(id: "install-direct", locale: .en, storefront: "JPN", accountID: "ana", createdAt: RuleWorld.epoch)
            #expect(try await world.storage.insert(third).storefront == "USA")
            third.storefront = "USA"
            #expect(try await world.storage.install(withID: third.id) == third)
            // Another account is not affected, and an account keeps its storefront after its installs are deleted.
            let bob = try await world.service.createInstall(locale: .en, storefront: "BRA", accountID: "bob")
            #expect(bob.storefront == "BRA")
            for install in [first, second, third] { try await world.service.deleteInstall(install.id) }
            #expect(try await world.service.createInstall(locale: .en, storefront: "GBR", accountID: "ana").storefront == "USA")
        },
        StorageRule(name: "a storefront change reaches every install of the account; the running ones get Storefront.updates") { world in
            let running = try await world.runningInstall(storefront: "USA", accountID: "ana")
            let stopped = try await world.service.createInstall(locale: .en, storefront: "USA", accountID: "ana")
            let other = try await world.runningInstall(storefront: "USA", accountID: "bob")
            let moved = try await world.service.setStorefront("gbr", installID: stopped.id)
            #expect(moved.storefront == "GBR")
            #expect(try await storefronts([running, stopped], in: world).allSatisfy { $0 == "GBR" })
            #expect(try await world.service.install(other.id).storefront == "USA", "another account keeps its storefront")
            #expect(eventKinds(running.id, in: world).filter { $0 == "storefront.changed" }.count == 1)
            let update = try #require(world.service.timeline.events(installID: running.id, limit: 50).first { $0.kind == "storefront.changed" })
            #expect(update.detail.contains("USA → GBR"))
            #expect(!eventKinds(stopped.id, in: world).contains("storefront.changed"), "a stopped app has no listener")
            #expect(!eventKinds(other.id, in: world).contains("storefront.changed"))
            guard case .ready(let offers) = try await world.service.loadOffers(installID: running.id) else {
                Issue.record("expected offers")
                return
            }
            #expect(offers.first?.displayPrice == "£0.99", "the running install prices in the new storefront")
            _ = try await world.service.launch(installID: stopped.id)
            guard case .ready(let later) = try await world.service.loadOffers(installID: stopped.id) else {
                Issue.record("expected offers")
                return
            }
            #expect(later.first?.displayPrice == "£0.99", "the stopped one sees it at its next launch")
            // The same storefront again changes nothing and emits nothing.
            _ = try await world.service.setStorefront("GBR", installID: running.id)
            #expect(eventKinds(running.id, in: world).filter { $0 == "storefront.changed" }.count == 1)
        },
        StorageRule(name: "transactions keep the storefront they were made in when the account moves") { world in
            let phone = try await world.runningInstall(storefront: "USA", accountID: "ana")
            let tablet = try await world.runningInstall(storefront: "USA", accountID: "ana")
            let before = try #require(try await world.service.purchase(productID: RuleWorld.coffee, installID: phone.id).transactionID)
            _ = try await world.service.setStorefront("BRA", installID: tablet.id)
            _ = try await world.service.loadOffers(installID: phone.id)
            let after = try #require(try await world.service.purchase(productID: RuleWorld.coffee, installID: phone.id).transactionID)
            let old = try #require(try await world.storage.transaction(withID: before)?.transaction)
            let new = try #require(try await world.storage.transaction(withID: after)?.transaction)
            #expect(old.storefront == "USA" && old.currency == "USD")
            #expect(new.storefront == "BRA" && new.currency == "BRL", "the phone's next purchase is made in the account's new storefront")
        },
    ]
}
