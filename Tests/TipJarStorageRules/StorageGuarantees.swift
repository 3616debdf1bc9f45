import Foundation
import Testing
import TipJar

/// The guarantees `TipJarStorage` documents, asked of the storage directly: one unit of work happens whole or
/// not at all, IDs are unique, a transaction is counted once per install, hearts stop at five.
extension StorageRule {
    static func stored(_ id: UInt64, for install: Install, status: StoredTransaction.Status = .purchased) -> StoredTransaction {
        StoredTransaction(transaction: RuleWorld.transaction(id), accountID: install.accountID, installID: install.id, status: status)
    }

    static func delivery(_ id: UInt64, to installID: String, finished: Bool = true) -> Delivery {
        Delivery(
            installID: installID, transactionID: id, productID: RuleWorld.coffee, path: .listener, outcome: .counted,
            finished: finished, at: RuleWorld.epoch)
    }

    /// Records `count` deliveries at once, transaction `id(index)` each, and returns their outcomes.
    static func recordConcurrently(
        _ world: RuleWorld, installID: String, count: Int,
        id: @escaping @Sendable (Int) -> UInt64
    ) async throws -> [RecordOutcome] {
        try await withThrowingTaskGroup(of: RecordOutcome.self) { group in
            for index in 0..<count {
                group.addTask { try await world.storage.record(delivery(id(index), to: installID)).outcome }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    static let storageRules: [StorageRule] = [
        StorageRule(name: "a transaction ID is saved once: a second insert is refused and the first stays") { world in
            let install = try await world.runningInstall()
            try await world.storage.insert(stored(41, for: install))
            var other = stored(41, for: install)
            other.transaction.productID = RuleWorld.snack
            await #expect(throws: (any Error).self) { try await world.storage.insert(other) }
            #expect(try await world.storage.transaction(withID: 41)?.transaction.productID == RuleWorld.coffee)
        },
        StorageRule(name: "transactions read by ID together are the ones that exist, in the order asked, each as read alone") { world in
            let install = try await world.runningInstall()
            for id: UInt64 in [51, 52, 53] { try await world.storage.insert(stored(id, for: install)) }
            let read = try await world.storage.transactions(withIDs: [53, 99, 51, 52])
            #expect(read.map(\.transaction.id) == [53, 51, 52])
            #expect(read.first == (try await world.storage.transaction(withID: 53)))
            #expect(try await world.storage.transactions(withIDs: []).isEmpty)
        },
        StorageRule(name: "an install ID is saved once: a second insert is refused and the first stays") { world in
            let install = try await world.runningInstall()
            var copy = install
            copy.label = "copy"
            await #expect(throws: (any Error).self) { try await world.storage.insert(copy) }
            #expect(try await world.storage.install(withID: install.id)?.label == install.label)
            #expect(try await world.storage.overview().installs == 1)
        },
        StorageRule(name: "a record that is refused keeps nothing: no row, no counted key, no finished flag") { world in
            let install = try await world.runningInstall()
            try await world.storage.insert(stored(5, for: install))
            let before = try await world.storage.overview()
            await #expect(throws: (any Error).self) { try await world.storage.record(delivery(5, to: "no-such-install")) }
            #expect(try await world.storage.overview() == before)
            #expect(try await world.storage.ledger(installID: "no-such-install", limit: 10).isEmpty)
            #expect(try await world.storage.transaction(withID: 5)?.isFinished == false)
        },
        StorageRule(name: "records of one transaction made at once count it once") { world in
            let install = try await world.runningInstall()
            let outcomes = try await recordConcurrently(world, installID: install.id, count: 8) { _ in 3 }
            #expect(outcomes.filter { $0 == .counted }.count == 1)
            #expect(outcomes.filter { $0 == .duplicate }.count == 7)
            #expect(try await world.hearts(install.id) == 1)
            #expect(try await world.storage.overview().tips == 1)
        },
        StorageRule(name: "tips recorded at once past five leave five hearts, each a counted row") { world in
            let install = try await world.runningInstall()
            let outcomes = try await recordConcurrently(world, installID: install.id, count: 8) { UInt64(100 + $0) }
            #expect(outcomes == Array(repeating: .counted, count: 8))
            #expect(try await world.hearts(install.id) == Install.maximumHearts)
            #expect(try await world.storage.overview() == Overview(installs: 1, tips: 8, hearts: Install.maximumHearts))
        },
        StorageRule(name: "a purchase's issue and record are one operation: the transaction is saved, counted and finished") { world in
            let install = try await world.runningInstall()
            let result = try await world.storage.issue(stored(11, for: install), thenRecord: delivery(11, to: install.id))
            #expect(result.outcome == .counted)
            #expect(result.hearts == 1)
            #expect(try await world.storage.transaction(withID: 11)?.isFinished == true)
            #expect(try await world.storage.ledger(installID: install.id, limit: 10).map(\.transactionID) == [11])
        },
        StorageRule(name: "a purchase's issue answers the account's other running installs as of its commit, for Transaction.updates") { world in
            let phone = try await world.runningInstall(accountID: "ana")
            let tablet = try await world.runningInstall(accountID: "ana")
            let laptop = try await world.runningInstall(accountID: "ana")
            _ = try await world.service.createInstall(locale: .en, storefront: "USA", accountID: "ana")  // stopped
            _ = try await world.runningInstall(accountID: "bob")
            let result = try await world.storage.issue(stored(14, for: phone), thenRecord: delivery(14, to: phone.id))
            #expect(result.otherRunningInstallIDs == [tablet.id, laptop.id].sorted())
            #expect(result.otherRunningInstallIDs == (try await world.storage.runningInstallIDs(accountID: "ana", except: phone.id)))
        },
        StorageRule(name: "an issue of a taken transaction ID keeps and records nothing") { world in
            let install = try await world.runningInstall()
            try await world.storage.insert(stored(12, for: install))
            var other = stored(12, for: install)
            other.transaction.productID = RuleWorld.snack
            await #expect(throws: (any Error).self) { try await world.storage.issue(other, thenRecord: delivery(12, to: install.id)) }
            #expect(try await world.storage.transaction(withID: 12)?.transaction.productID == RuleWorld.coffee)
            #expect(try await world.storage.ledger(installID: install.id, limit: 10).isEmpty)
            #expect(try await world.hearts(install.id) == 0)
        },
        StorageRule(name: "a record refused after its issue keeps the transaction charged, unfinished and unrecorded") { world in
            let install = try await world.runningInstall()
            await #expect(throws: (any Error).self) {
                try await world.storage.issue(stored(13, for: install), thenRecord: delivery(13, to: "no-such-install"))
            }
            #expect(try await world.storage.transaction(withID: 13)?.isFinished == false)
            #expect(try await world.storage.unfinishedTransactions(accountID: install.accountID).map(\.transaction.id) == [13])
            #expect(try await world.storage.overview() == Overview(installs: 1, tips: 0, hearts: 0))
        },
        StorageRule(name: "the finished flag is saved with the record, and an unfinished one comes back") { world in
            let install = try await world.runningInstall()
            try await world.storage.insert(stored(1, for: install))
            try await world.storage.insert(stored(2, for: install))
            _ = try await world.storage.record(delivery(1, to: install.id))
            _ = try await world.storage.record(delivery(2, to: install.id, finished: false))
            #expect(try await world.storage.transaction(withID: 1)?.isFinished == true)
            #expect(try await world.storage.unfinishedTransactions(accountID: install.accountID).map(\.transaction.id) == [2])
        },
        StorageRule(name: "a purchase's unfinished transaction is the account's oldest unfinished, unrevoked one of that product") { world in
            let install = try await world.runningInstall()
            var revoked = stored(1, for: install)
            revoked.transaction.revocationDate = RuleWorld.epoch
            try await world.storage.insert(revoked)
            var snack = stored(2, for: install)
            snack.transaction.productID = RuleWorld.snack
            try await world.storage.insert(snack)
            try await world.storage.insert(stored(3, for: install))
            try await world.storage.insert(stored(4, for: install))
            _ = try await world.storage.record(delivery(3, to: install.id))
            let first = try await world.storage.firstUnfinishedTransaction(accountID: install.accountID, productID: RuleWorld.coffee)
            #expect(first?.transaction.id == 4)
            #expect(try await world.storage.firstUnfinishedTransaction(accountID: install.accountID, productID: RuleWorld.snack)?.transaction.id == 2)
            #expect(try await world.storage.firstUnfinishedTransaction(accountID: "another-account", productID: RuleWorld.coffee) == nil)
        },
        StorageRule(name: "an ID counted stays taken after the store forgets its transaction") { world in
            let install = try await world.runningInstall()
            let report = try await world.service.purchase(productID: RuleWorld.coffee, installID: install.id)
            #expect(report.transactionID == 1)
            #expect(try await world.storage.deleteAllTransactions() == 1)
            #expect(try await world.storage.largestTransactionID() == 1)
            #expect(try await world.service.handle(RuleWorld.verified(1), installID: install.id, path: .launch).outcome == .duplicate)
            #expect(try await world.hearts(install.id) == 1)
        },
        StorageRule(name: "deleting an install takes its ledger and counted keys and keeps its transactions") { world in
            let install = try await world.runningInstall()
            _ = try await world.service.purchase(productID: RuleWorld.coffee, installID: install.id)
            #expect(try await world.storage.deleteInstall(withID: install.id))
            #expect(try await world.storage.install(withID: install.id) == nil)
            #expect(try await world.storage.ledger(installID: install.id, limit: 10).isEmpty)
            #expect(try await world.storage.overview() == Overview(installs: 0, tips: 0, hearts: 0))
            #expect(try await world.storage.transaction(withID: 1)?.installID == install.id)
            #expect(try await world.storage.deleteInstall(withID: install.id) == false)
        },
        StorageRule(name: "a ledger row shows its transaction's quantity and token, then 1 and none once the store forgets it") { world in
            let install = try await world.runningInstall()
            var transaction = stored(7, for: install)
            let token = UUID(uuidString: "3f2a9c4e-1b7d-4e8a-9c0f-2d5b6a7e8f90")
            transaction.transaction.purchasedQuantity = 3
            transaction.transaction.appAccountToken = token
            try await world.storage.insert(transaction)
            _ = try await world.storage.record(delivery(7, to: install.id))
            let row = try await world.storage.ledger(installID: install.id, limit: 10)
            #expect(row.map(\.purchasedQuantity) == [3])
            #expect(row.map(\.appAccountToken) == [token])
            #expect(try await world.storage.deleteTransaction(withID: 7))
            let forgotten = try #require(try await world.storage.installWithLedger(id: install.id, limit: 10))
            #expect(forgotten.ledger.map(\.purchasedQuantity) == [1])
            #expect(forgotten.ledger.map(\.appAccountToken) == [nil])
            #expect(forgotten.install.hearts == 1)
        },
        StorageRule(name: "installs are listed newest first, found by ID prefix or by label ignoring case") { world in
            let ids = ["0a1b2c3d-0000-4000-8000-000000000001", "0a1b9999-0000-4000-8000-000000000002", "ffff0000-0000-4000-8000-000000000003"]
            for (index, id) in ids.enumerated() {
                try await world.storage.insert(
                    Install(
                        id: id, label: index == 2 ? "Ana's iPhone" : "iPad \(index)", locale: .en,
                        storefront: "USA", accountID: "ana", createdAt: RuleWorld.epoch.addingTimeInterval(Double(index))))
            }
            let first = try await world.storage.installs(matching: InstallQuery(pageSize: 2))
            #expect(first.installs.map(\.id) == [ids[2], ids[1]])
            #expect(first.hasMore)
            let second = try await world.storage.installs(matching: InstallQuery(page: 2, pageSize: 2))
            #expect(second.installs.map(\.id) == [ids[0]])
            #expect(second.hasMore == false)
            #expect(try await world.storage.installs(matching: InstallQuery(search: " 0A1B ")).installs.map(\.id) == [ids[1], ids[0]])
            #expect(try await world.storage.installs(matching: InstallQuery(search: "ana's IPHONE")).installs.map(\.id) == [ids[2]])
            #expect(try await world.storage.installs(matching: InstallQuery(search: "ipad", accountID: "bob")).installs.isEmpty)
        },
        StorageRule(name: "Ask to Buy requests, interrupted and purchased transactions are told apart, newest first; lists hold no request") { world in
            let install = try await world.runningInstall()
            try await world.storage.insert(stored(1, for: install, status: .pending))
            try await world.storage.insert(stored(2, for: install, status: .interrupted))
            try await world.storage.insert(stored(3, for: install))
            #expect(try await world.storage.pendingTransactions().map(\.transaction.id) == [1])
            let ids = { (status: StoredTransaction.Status?) in
                try await world.storage.transactions(matching: TransactionQuery(status: status)).transactions.map(\.transaction.id)
            }
            #expect(try await ids(.pending) == [1])
            #expect(try await ids(.interrupted) == [2])
            #expect(try await ids(nil) == [3, 2], "a pending Ask to Buy request is no transaction")
            #expect(try await world.storage.recentTransactions(limit: 5).map(\.transaction.id) == [3, 2])
            #expect(try await world.storage.transactions(accountID: install.accountID, limit: 5).map(\.transaction.id) == [3, 2])
        },
        StorageRule(name: "an update writes the status, dates, finished flag and revocation, and nothing else") { world in
            let install = try await world.runningInstall()
            try await world.storage.insert(stored(4, for: install, status: .pending))
            var changed = stored(4, for: install, status: .purchased)
            changed.transaction.productID = RuleWorld.lunch
            changed.transaction.revocationDate = RuleWorld.epoch
            changed.transaction.revocationReason = .developerIssue
            changed.isFinished = true
            #expect(try await world.storage.update(changed, from: stored(4, for: install, status: .pending)))
            let saved = try #require(try await world.storage.transaction(withID: 4))
            #expect(saved.status == .purchased)
            #expect(saved.isFinished)
            #expect(saved.transaction.revocationReason == .developerIssue)
            #expect(saved.transaction.productID == RuleWorld.coffee)
        },
        StorageRule(name: "an update from a state the transaction is no longer in changes nothing") { world in
            let install = try await world.runningInstall()
            try await world.storage.insert(stored(6, for: install, status: .declined))
            let changed = stored(6, for: install, status: .purchased)
            #expect(try await world.storage.update(changed, from: stored(6, for: install, status: .pending)) == false)
            var revoked = stored(6, for: install, status: .declined)
            revoked.transaction.revocationDate = RuleWorld.epoch
            #expect(try await world.storage.update(changed, from: revoked) == false)
            #expect(try await world.storage.update(changed, from: stored(7, for: install, status: .pending)) == false)
            #expect(try await world.storage.transaction(withID: 6)?.status == .declined)
        },
        StorageRule(name: "store settings are none on a new storage, then what was saved") { world in
            #expect(try await world.storage.storeSettings() == nil)
            let settings = StoreSettings(catalog: .failing, purchaseOutcome: .pending, listenerReemits: 2)
            try await world.storage.save(settings)
            #expect(try await world.storage.storeSettings() == settings)
        },
    ]
}
