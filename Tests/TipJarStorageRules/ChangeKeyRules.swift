import Foundation
import Testing
import TipJar

/// What each write of a storage reports to its ``ChangeLog`` once it committed (``TipJarStorage/changeLog``): the keys
/// it touched, and none it did not, so a reader of another install, account or the store is not woken and a reader of
/// these is never missed.
extension StorageRule {
    /// Runs `write` and expects the change log to name every key of `touched` after it, and none of `untouched`.
    static func expectChanges(
        _ world: RuleWorld, touched: [ChangeKey], untouched: [ChangeKey], sourceLocation: SourceLocation = #_sourceLocation,
        by write: () async throws -> Void
    ) async throws {
        let log = world.storage.changeLog
        let before = log.value
        try await write()
        for key in touched {
            #expect(!log.isUnchanged(.keys([key]), since: before), "\(key) was not reported", sourceLocation: sourceLocation)
        }
        for key in untouched {
            #expect(log.isUnchanged(.keys([key]), since: before), "\(key) was reported", sourceLocation: sourceLocation)
        }
    }

    /// Saves a notifications URL, so that the store's events queue notifications (`TipJarSchema.v14`'s triggers).
    static func setNotificationsURL(_ world: RuleWorld) async throws {
        let queue = try #require(world.storage as? any ServerNotificationStorage)
        var settings = try await queue.notificationSettings()
        settings.url = "http://127.0.0.1:9/notifications"
        try await queue.save(settings)
    }

    static let changeKeyRules: [StorageRule] = [
        StorageRule(name: "a purchase reports its install and its account, not another install, account, the store or the queue without a URL") {
            world in
            let buyer = try await world.runningInstall()
            let other = try await world.runningInstall(accountID: "account-other")
            try await expectChanges(
                world, touched: [.install(buyer.id), .account(buyer.accountID)],
                untouched: [.install(other.id), .account(other.accountID), .store, .notifications]
            ) {
                _ = try await world.storage.issue(stored(11, for: buyer), thenRecord: delivery(11, to: buyer.id))
            }
        },
        StorageRule(name: "a purchase that queues a notification reports the notifications key") { world in
            try await setNotificationsURL(world)
            let buyer = try await world.runningInstall()
            try await expectChanges(world, touched: [.install(buyer.id), .account(buyer.accountID), .notifications], untouched: [.store]) {
                _ = try await world.storage.issue(stored(12, for: buyer), thenRecord: delivery(12, to: buyer.id))
            }
        },
        StorageRule(name: "a delivery to the account's other device reports that install and the account, not the buyer") { world in
            let buyer = try await world.runningInstall()
            let device = try await world.runningInstall(accountID: buyer.accountID)
            try await world.storage.insert(stored(13, for: buyer))
            try await expectChanges(world, touched: [.install(device.id), .account(buyer.accountID)], untouched: [.install(buyer.id), .store]) {
                _ = try await world.storage.record(delivery(13, to: device.id))
            }
        },
        StorageRule(name: "a change to an install's row reports the install and its account") { world in
            let install = try await world.runningInstall()
            let other = try await world.runningInstall(accountID: "account-other")
            let untouched: [ChangeKey] = [.install(other.id), .account(other.accountID), .store, .notifications]
            try await expectChanges(world, touched: [.install(install.id), .account(install.accountID)], untouched: untouched) {
                try await world.storage.setLabel("renamed", installID: install.id)
            }
            try await expectChanges(world, touched: [.install(install.id), .account(install.accountID)], untouched: untouched) {
                try await world.storage.setRunning(false, installID: install.id)
            }
            try await expectChanges(world, touched: [.install(install.id), .account(install.accountID)], untouched: untouched) {
                let deleted = try await world.storage.deleteInstall(withID: install.id)
                #expect(deleted)
            }
        },
        StorageRule(name: "a storefront change reports the account, not its installs one by one nor another account") { world in
            let install = try await world.runningInstall()
            let other = try await world.runningInstall(accountID: "account-other")
            try await expectChanges(
                world, touched: [.account(install.accountID)], untouched: [.install(install.id), .account(other.accountID), .store]
            ) {
                let before = try await world.storage.setStorefront("BRA", accountID: install.accountID)
                #expect(before == "USA")
            }
        },
        StorageRule(name: "the store's settings report the store key alone") { world in
            let install = try await world.runningInstall()
            var settings = StoreSettings.normal
            settings.latencyMs = 7
            try await expectChanges(world, touched: [.store], untouched: [.install(install.id), .account(install.accountID), .notifications]) {
                try await world.storage.save(settings)
            }
        },
        StorageRule(name: "a refund reports the buyer's install and account, and the queue when it queues a notification") { world in
            try await setNotificationsURL(world)
            let buyer = try await world.runningInstall()
            let other = try await world.runningInstall(accountID: "account-other")
            let purchased = stored(14, for: buyer)
            _ = try await world.storage.issue(purchased, thenRecord: delivery(14, to: buyer.id))
            let expected = try #require(try await world.storage.transaction(withID: 14))
            var refunded = expected
            refunded.transaction.revocationDate = RuleWorld.epoch
            refunded.transaction.revocationReason = .other
            try await expectChanges(
                world, touched: [.install(buyer.id), .account(buyer.accountID), .notifications],
                untouched: [.install(other.id), .account(other.accountID), .store]
            ) {
                let won = try await world.storage.update(refunded, from: expected)
                #expect(won)
            }
        },
        StorageRule(name: "a write that changed nothing or was refused reports nothing") { world in
            let install = try await world.runningInstall()
            try await world.storage.insert(stored(15, for: install))
            let before = world.storage.changeLog.value
            await #expect(throws: (any Error).self) { try await world.storage.insert(stored(15, for: install)) }
            #expect(try await world.storage.setStorefront("USA", accountID: install.accountID) == nil)
            #expect(try await world.storage.migrateLegacyFlag(installID: install.id) == false)
            #expect(world.storage.changeLog.isUnchanged(.everything, since: before))
        },
        StorageRule(name: "forgetting every transaction reports a change of everything") { world in
            let install = try await world.runningInstall()
            try await world.storage.insert(stored(16, for: install))
            try await expectChanges(world, touched: [.install(install.id), .account("any account"), .store, .notifications], untouched: []) {
                _ = try await world.storage.deleteAllTransactions()
            }
        },
        StorageRule(name: "a timeline event of the service reports its install's key") { world in
            let install = try await world.runningInstall()
            let other = try await world.runningInstall(accountID: "account-other")
            try await expectChanges(world, touched: [.install(install.id)], untouched: [.install(other.id), .account(other.accountID)]) {
                _ = try await world.service.stop(installID: install.id)
            }
        },
    ]
}
