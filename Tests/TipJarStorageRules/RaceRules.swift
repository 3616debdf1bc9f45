import Foundation
import Testing
import TipJar

/// Concurrent actions on one transaction or install have exactly one winner: each state change names the state it
/// expects (`TipJarStorage.update(_:from:)`), and the losers are told why (409 on the web).
extension StorageRule {
    /// Runs `action` `count` times at once and returns every result.
    static func race<T: Sendable>(_ count: Int, _ action: @escaping @Sendable (Int) async throws -> T) async -> [Result<T, any Error>] {
        await withTaskGroup(of: Result<T, any Error>.self) { group in
            for index in 0..<count {
                group.addTask {
                    do { return .success(try await action(index)) } catch { return .failure(error) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// The errors among `results`, as `TipJarError`s (`nil` for any other error).
    static func losers<T>(_ results: [Result<T, any Error>]) -> [TipJarError?] {
        results.compactMap { result in
            guard case .failure(let error) = result else { return nil }
            return .some(error as? TipJarError)
        }
    }

    /// How many of `results` succeeded.
    static func winners<T>(_ results: [Result<T, any Error>]) -> Int {
        results.filter { if case .success = $0 { true } else { false } }.count
    }

    /// A transaction of `install`'s saved in the store with `status`.
    static func saved(_ id: UInt64, for install: Install, status: StoredTransaction.Status, in world: RuleWorld) async throws {
        try await world.storage.insert(stored(id, for: install, status: status))
    }

    static let raceRules: [StorageRule] = [
        StorageRule(name: "refunds of one transaction at once: one wins, the others are told it was already refunded") { world in
            let install = try await world.runningInstall()
            try await world.service.handle(RuleWorld.verified(21), installID: install.id, path: .purchase)
            try await saved(21, for: install, status: .purchased, in: world)
            let results = await race(8) { _ in try await world.service.refund(transactionID: 21) }
            #expect(winners(results) == 1)
            #expect(losers(results) == Array(repeating: .alreadyRefunded(21), count: 7))
            #expect(try await world.ledgerOutcomes(install.id) == [.counted, .revoked])
        },
        StorageRule(name: "approves of one Ask to Buy request at once: one wins and delivers once") { world in
            let install = try await world.runningInstall()
            try await saved(22, for: install, status: .pending, in: world)
            let results = await race(8) { _ in try await world.service.approve(requestID: 22) }
            #expect(winners(results) == 1)
            #expect(losers(results) == Array(repeating: .transactionNotPending(22), count: 7))
            #expect(try await world.ledgerOutcomes(install.id) == [.counted])
            #expect(try await world.hearts(install.id) == 1)
            let issued = try await world.storage.recentTransactions(limit: 5)
            #expect(issued.map(\.status) == [.purchased], "one transaction issued")
            #expect(try await world.storage.transaction(withID: 22)?.status == .approved)
            #expect(try await world.storage.transaction(withID: 22)?.settledAs == issued.first?.transaction.id)
        },
        StorageRule(name: "an approve racing a decline: one wins, and a declined request is never counted") { world in
            let install = try await world.runningInstall()
            try await saved(23, for: install, status: .pending, in: world)
            let results = await race(8) { index in
                if index.isMultiple(of: 2) {
                    _ = try await world.service.approve(requestID: 23)
                } else {
                    try await world.service.decline(requestID: 23)
                }
            }
            #expect(winners(results) == 1)
            #expect(losers(results) == Array(repeating: .transactionNotPending(23), count: 7))
            // Approved: one transaction issued; declined: none.
            let status = try await world.storage.transaction(withID: 23)?.status
            let issued = try await world.storage.recentTransactions(limit: 5)
            #expect(status == .approved || status == .declined)
            #expect(issued.count == (status == .approved ? 1 : 0))
            #expect(try await world.hearts(install.id) == (status == .approved ? 1 : 0))
            #expect(try await world.ledgerOutcomes(install.id) == (status == .approved ? [.counted] : []))
        },
        StorageRule(name: "declines of one Ask to Buy request at once: one wins") { world in
            let install = try await world.runningInstall()
            try await saved(24, for: install, status: .pending, in: world)
            let results = await race(8) { _ in try await world.service.decline(requestID: 24) }
            #expect(winners(results) == 1)
            #expect(losers(results) == Array(repeating: .transactionNotPending(24), count: 7))
            #expect(try await world.storage.transaction(withID: 24)?.status == .declined)
        },
        StorageRule(name: "resolves of one interrupted purchase at once: one wins and delivers once") { world in
            let install = try await world.runningInstall()
            try await saved(25, for: install, status: .interrupted, in: world)
            let results = await race(8) { _ in try await world.service.resolveIssue(transactionID: 25) }
            #expect(winners(results) == 1)
            #expect(losers(results) == Array(repeating: .transactionNotInterrupted(25), count: 7))
            #expect(try await world.ledgerOutcomes(install.id) == [.counted])
            #expect(try await world.storage.recentTransactions(limit: 5).map(\.transaction.id).contains(25) == false, "a new transaction")
            #expect(try await world.storage.transaction(withID: 25)?.status == .resolved)
            #expect(try await world.hearts(install.id) == 1)
        },
        StorageRule(name: "a delete during a purchase: the purchase is refused before any charge, or the delete is refused") { world in
            let install = try await world.runningInstall()
            let results = await race(2) { index in
                if index == 0 {
                    _ = try await world.service.purchase(productID: RuleWorld.coffee, installID: install.id)
                } else {
                    try await world.service.deleteInstall(install.id)
                }
            }
            #expect(winners(results) >= 1)
            for loser in losers(results) {
                #expect(
                    loser == .purchaseInProgress(installID: install.id) || loser == .installBeingDeleted(install.id)
                        || loser == .installNotFound(install.id))
            }
            // Whatever the order, nothing was charged that nobody was told of.
            #expect(try await world.storage.unfinishedTransactions(accountID: install.accountID).isEmpty)
        },
    ]
}
