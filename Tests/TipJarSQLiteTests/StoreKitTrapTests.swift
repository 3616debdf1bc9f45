import Foundation
import TestSupport
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// The real-world StoreKit traps (Public/scenarios/README.md, "Rehearse these StoreKit traps"), each reproduced as a scenario with injected clock and IDs.
@Suite("StoreKit traps")
struct StoreKitTrapTests {
    @Test func trap1SameTransactionFromPurchaseAndListenerCountsOnce() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(listenerReemits: 1))
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.hearts == 1)
        let ledger = try await world.storage.ledger(installID: install.id, limit: 10)
        #expect(ledger.map(\.path) == [.purchase, .listener])
        #expect(ledger.map(\.outcome) == [.counted, .duplicate])
        #expect(Set(ledger.map(\.transactionID)) == [1])
    }

    @Test(arguments: 1...3)
    func trap2ListenerReemitsAFinishedTransactionWithoutAnExtraHeart(_ times: Int) async throws {
        let world = try await TestWorld.make(settings: StoreSettings(listenerReemits: times))
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(try await world.hearts(install.id) == 1)
        #expect(try await world.ledgerOutcomes(install.id) == [.counted] + Array(repeating: .duplicate, count: times))
    }

    @Test func trap3UnverifiedTransactionIsRedeliveredAtEveryLaunchUntilFinished() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(failures: .init(verification: .invalidSignature)))
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        let relaunch = try await world.service.launch(installID: install.id)
        #expect(relaunch.deliveries.map(\.outcome) == [.unverified])
        try await world.setSettings { $0.failures.verification = nil }
        let fixed = try await world.service.launch(installID: install.id)
        #expect(fixed.deliveries.map(\.outcome) == [.counted])
        #expect(fixed.deliveries.map(\.path) == [.launch])
        #expect(try await world.service.launch(installID: install.id).deliveries.isEmpty, "finished: not redelivered")
        let again = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(again.transactionID == 2, "a second purchase of the same tip is a new transaction")
        #expect(try await world.hearts(install.id) == 2)
    }

    @Test func trap3CrashBeforeFinishIsRedeliveredAndCountedOnce() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(crashBeforeFinish: true))
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(productID: TestWorld.lunch, installID: install.id)
        #expect(report.recordOutcome == .counted)
        #expect(try await world.service.install(install.id).isRunning == false, "the app crashed")
        #expect(try await world.storage.transaction(withID: 1)?.isFinished == false)
        try await world.setSettings { $0.crashBeforeFinish = false }
        let launch = try await world.service.launch(installID: install.id)
        #expect(launch.deliveries.map(\.outcome) == [.duplicate])
        #expect(launch.deliveries.map(\.finished) == [true])
        #expect(try await world.hearts(install.id) == 1)
        #expect(try await world.storage.transaction(withID: 1)?.isFinished == true)
    }

    @Test func trap4RefundWithTheSameIDIsRecordedAsRevokedNotAsDuplicate() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        let delivery = try await world.service.refund(transactionID: 1, reason: .developerIssue)
        #expect(delivery?.outcome == .revoked)
        #expect(delivery?.transactionID == 1)
        #expect(try await world.hearts(install.id) == 1, "hearts never go down")
        let stored = try #require(try await world.storage.transaction(withID: 1))
        #expect(stored.transaction.revocationReason == .developerIssue)
        #expect(stored.transaction.revocationDate != nil)
        #expect(try await world.ledgerOutcomes(install.id) == [.counted, .revoked])
    }

    @Test func trap4ARefundWhileTheAppIsStoppedIsNotDeliveredAtItsNextLaunch() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        _ = try await world.service.stop(installID: install.id)
        #expect(try await world.service.refund(transactionID: 1) == nil, "not running: nothing delivered")
        #expect(try await world.service.launch(installID: install.id).deliveries.isEmpty, "a refund leaves a finished transaction finished")
        let stored = try #require(try await world.storage.transaction(withID: 1))
        #expect(stored.transaction.isRevoked)
        #expect(stored.isFinished)
    }

    @Test func trap4WithRefundsDeliveredAtLaunchTheRefundWaitsForTheNextLaunch() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(refundsDeliveredAtLaunch: true))
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        _ = try await world.service.stop(installID: install.id)
        #expect(try await world.service.refund(transactionID: 1) == nil, "not running: nothing delivered yet")
        let launch = try await world.service.launch(installID: install.id)
        #expect(launch.deliveries.map(\.outcome) == [.revoked])
        #expect(launch.deliveries.map(\.path) == [.launch])
        #expect(try await world.hearts(install.id) == 1)
        #expect(try await world.service.launch(installID: install.id).deliveries.isEmpty, "handled once, then finished")
    }

    @Test func aTransactionIsRefundedOnlyOnce() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        _ = try await world.service.refund(transactionID: 1, reason: .developerIssue)
        await #expect(throws: TipJarError.alreadyRefunded(1)) { try await world.service.refund(transactionID: 1, reason: .other) }
        #expect(try await world.storage.transaction(withID: 1)?.transaction.revocationReason == .developerIssue)
        #expect(try await world.ledgerOutcomes(install.id) == [.counted, .revoked])
    }

    @Test func trap5DoubleClickMakesExactlyOnePurchase() async throws {
        let gate = DelayGate()
        let world = try await TestWorld.make(settings: StoreSettings(purchaseLatencyMs: 200), gate: gate)
        let install = try await world.runningInstall()
        let clicks = (0..<5).map { _ in Task { try await world.service.purchase(productID: TestWorld.coffee, installID: install.id) } }
        await gate.untilSomeoneWaits()
        gate.open()
        var purchased = 0, refused = 0
        for click in clicks {
            do {
                if try await click.value.outcome == .purchased { purchased += 1 }
            } catch TipJarError.purchaseInProgress {
                refused += 1
            }
        }
        #expect(purchased == 1)
        #expect(refused == 4)
        #expect(try await world.storage.recentTransactions(limit: 10).count == 1)
    }

    @Test func trap6PendingForeverLeavesButtonsUsableAndCountsNothing() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(purchaseOutcome: .pending))
        let install = try await world.runningInstall()
        #expect(try await world.service.purchase(productID: TestWorld.coffee, installID: install.id).outcome == .pending)
        #expect(await world.service.isPurchaseOpen(installID: install.id) == false)
        #expect(try await world.service.purchase(productID: TestWorld.snack, installID: install.id).outcome == .pending)
        _ = try await world.service.launch(installID: install.id)
        #expect(try await world.hearts(install.id) == 0)
        #expect(try await world.storage.pendingTransactions().count == 2)
    }

    @Test func trap7RestoreAfterReinstallOnTheSameAccountRestoresNothing() async throws {
        let world = try await TestWorld.make()
        let old = try await world.runningInstall(accountID: "ana@example.com")
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: old.id)
        _ = try await world.service.purchase(productID: TestWorld.snack, installID: old.id)
        let reinstall = try await world.runningInstall(accountID: "ana@example.com")
        let restore = try await world.service.restore(installID: reinstall.id)
        #expect(restore.deliveries.isEmpty, "finished consumables are not restored")
        #expect(restore.hearts == 0)
    }

    @Test func restoreDeliversTheAccountsUnfinishedTransactions() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(crashBeforeFinish: true))
        let install = try await world.runningInstall(accountID: "bo@example.com")
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        try await world.setSettings { $0.crashBeforeFinish = false }
        let reinstall = try await world.runningInstall(accountID: "bo@example.com")
        #expect(try await world.hearts(reinstall.id) == 1, "launch delivered the unfinished transaction")
        #expect(try await world.service.restore(installID: reinstall.id).deliveries.isEmpty, "now finished")
    }

    @Test func restoreSyncFailureThrowsTheInjectedError() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(failures: .init(sync: .networkError)))
        let install = try await world.runningInstall()
        await #expect(throws: StoreKitError.networkError) { try await world.service.restore(installID: install.id) }
    }

    @Test func trap8ProductIDMismatchIsAnEmptyStateRetryCannotFix() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(catalog: .mismatch))
        let install = try await world.runningInstall()
        for _ in 0..<3 {
            #expect(try await world.service.loadOffers(installID: install.id) == .unavailable(.empty))
        }
        let held = world.store.storeProductIDs
        #expect(!held.isEmpty)
        #expect(Set(held).isDisjoint(with: world.service.catalog.tips.map(\.productID)))
    }

    @Test func trap9UnknownProductThroughTheListenerIsIgnoredAndLogged() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        let (stored, delivery) = try await world.service.externalPurchase(productID: "com.example.tipjar.tip.dessert", installID: install.id)
        #expect(stored.isExternal)
        #expect(delivery?.outcome == .unknownProduct)
        #expect(try await world.hearts(install.id) == 0)
        #expect(world.logged.all.contains { $0.contains("com.example.tipjar.tip.dessert") })
    }

    @Test func trap10AtFiveHeartsMoreTipsStayFiveAndTheLedgerRecordsEach() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        for _ in 0..<7 { _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id) }
        #expect(try await world.hearts(install.id) == 5)
        #expect(try await world.ledgerOutcomes(install.id) == Array(repeating: .counted, count: 7))
        #expect(try await world.storage.overview().tips == 7)
    }

    @Test func externalPurchaseReachesARunningInstallAtOnce() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        let (_, delivery) = try await world.service.externalPurchase(productID: TestWorld.lunch, installID: install.id)
        #expect(delivery?.path == .listener)
        #expect(try await world.hearts(install.id) == 1)
    }

    @Test func aStoppedInstallReceivesNothingUntilItLaunches() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        _ = try await world.service.stop(installID: install.id)
        let (_, delivery) = try await world.service.externalPurchase(productID: TestWorld.lunch, installID: install.id)
        #expect(delivery == nil)
        #expect(try await world.hearts(install.id) == 0)
        let launch = try await world.service.launch(installID: install.id)
        #expect(launch.deliveries.map(\.path) == [.launch])
        #expect(launch.deliveries.map(\.outcome) == [.counted])
        #expect(try await world.hearts(install.id) == 1)
    }

    /// The purchase opens when the app calls `Product.purchase(options:)`, before the sheet that call shows is shown
    /// or confirmed, and closes after it (https://developer.apple.com/documentation/storekit/product/purchase(options:)).
    @Test func timelineRecordsTheServiceStates() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        _ = try await world.service.loadOffers(installID: install.id)
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        let kinds = world.service.timeline.events(installID: install.id, limit: 20).map(\.kind).reversed()
        #expect(
            Array(kinds) == [
                "install.created", "launch", "state.ready", "purchase.open", "sheet.confirmed", "purchase.closed",
            ])
        _ = try await world.service.openPurchaseSheet(productID: TestWorld.coffee, installID: install.id)
        _ = try await world.service.confirmPurchaseSheet(installID: install.id)
        let sheet = world.service.timeline.events(installID: install.id, limit: 4).map(\.kind).reversed()
        #expect(Array(sheet) == ["purchase.open", "sheet.shown", "sheet.confirmed", "purchase.closed"])
    }

    @Test func reloadingTheSameStateRecordsNoEvent() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        _ = try await world.service.loadOffers(installID: install.id)
        let before = world.service.timeline.events(installID: install.id, limit: 50).count
        for _ in 0..<3 { _ = try await world.service.loadOffers(installID: install.id) }
        #expect(world.service.timeline.events(installID: install.id, limit: 50).count == before)
    }

    @Test func timelineRecordsEachStateChangeOnce() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        _ = try await world.service.loadOffers(installID: install.id)
        try await world.setSettings { $0.catalog = .failing }
        _ = try await world.service.loadOffers(installID: install.id)
        _ = try await world.service.loadOffers(installID: install.id)
        try await world.setSettings { $0.catalog = .normal }
        _ = try await world.service.loadOffers(installID: install.id)
        _ = try await world.service.loadOffers(installID: install.id)
        let states = world.service.timeline.events(installID: install.id, limit: 50).reversed().filter { $0.kind.hasPrefix("state.") }
        #expect(states.map(\.kind) == ["state.ready", "state.unavailable", "state.ready"])
        #expect(states.map(\.detail)[1] == "unavailable: Product.products(for:) threw networkError.")
    }
}
