import Foundation
import TestSupport
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// The purchase traps of Public/scenarios/README.md's "Rehearse these StoreKit traps" (interrupted purchases, finish() ignored, charged
/// despite an error, Restore replays, re-emit later), each a store setting, on a real SQLite file. Late deliveries
/// wait at the world's `DelayGate`, so a test decides when their delay is over instead of sleeping.
@Suite("Purchase traps")
struct PurchaseTrapTests {
    // MARK: Interrupted purchases

    /// `interruptedPurchasesEnabled` "causes all purchases to fail until you disable it"
    /// (https://developer.apple.com/documentation/storekittest/sktestsession/interruptedpurchasesenabled): `purchase()`
    /// throws the store's `purchaseError` (the choice where Apple is silent on StoreKit 2's error); the store keeps the
    /// interrupted purchase until it is resolved.
    @Test func anInterruptedPurchaseThrowsThePurchaseErrorAndKeepsItsRecordOutOfTheAskToBuyQueue() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(purchaseError: PurchaseFailure(StoreKitError.systemError), interruptedPurchases: true))
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.outcome == .failed)
        #expect(report.errorName == "systemError", "the \"Error when failed\" setting")
        #expect(report.transactionID == nil)
        #expect(try await world.hearts(install.id) == 0)
        #expect(try await world.storage.ledger(installID: install.id, limit: 10).isEmpty)
        let interrupted = try await world.store.interruptedTransactions()
        #expect(interrupted.map(\.transaction.id) == [1])
        #expect(interrupted.map(\.status) == [.interrupted])
        #expect(try await world.storage.pendingTransactions().isEmpty, "not an Ask to Buy request")
        let byInstall = try await world.storage.transactions(matching: TransactionQuery(installID: install.id, status: .interrupted))
        #expect(byInstall.transactions.map(\.transaction.id) == [1])
        #expect(try await world.storage.transactions(matching: TransactionQuery(status: .pending)).transactions.isEmpty)
        #expect(try await world.service.launch(installID: install.id).deliveries.isEmpty, "nothing to deliver before it is resolved")
        // TipJarSchema.v6: kept as a pending row with the purchase-issue flag, so the status CHECK is unchanged.
        let row = try world.storage.pool.readSync { db in
            try db.fetchValue(sql: "SELECT status || ':' || has_purchase_issue FROM transactions WHERE id = 1", as: String.self)
        }
        #expect(row == "pending:1")
    }

    /// "Testing an interrupted purchase" (https://developer.apple.com/documentation/storekit/testing-an-interrupted-purchase):
    /// once the customer resolves the issue, a new purchased transaction arrives through the observer.
    @Test func resolvingAnInterruptedPurchaseIssuesANewTransactionDeliveredThroughTheListenerOnce() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(interruptedPurchases: true))
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.snack, installID: install.id, options: Product.PurchaseOptions(quantity: 2))
        let resolved = try await world.service.resolveIssue(transactionID: 1)
        let issued = resolved.transaction.transaction
        #expect(issued.id != 1, "a new transaction, not the interrupted record's identifier")
        #expect(issued.productID == TestWorld.snack)
        #expect(issued.purchasedQuantity == 2, "the same product and quantity")
        let delivery = try #require(resolved.delivery)
        #expect(delivery.transactionID == issued.id)
        #expect(delivery.path == .listener)
        #expect(delivery.outcome == .counted)
        #expect(delivery.note == .interruptionResolved)
        #expect(try await world.hearts(install.id) == 1)
        #expect(try await world.storage.transaction(withID: issued.id)?.status == .purchased)
        #expect(try await world.storage.transaction(withID: issued.id)?.isFinished == true)
        let record = try await world.storage.transaction(withID: 1)
        #expect(record?.status == .resolved, "the interrupted record keeps its own identifier")
        #expect(record?.settledAs == issued.id)
        #expect(try await world.store.interruptedTransactions().isEmpty)
        #expect(try await world.storage.recentTransactions(limit: 10).map(\.transaction.id) == [issued.id])
        await #expect(throws: TipJarError.transactionNotInterrupted(1)) { try await world.service.resolveIssue(transactionID: 1) }
        await #expect(throws: TipJarError.transactionNotInterrupted(issued.id)) { try await world.service.resolveIssue(transactionID: issued.id) }
        await #expect(throws: TipJarError.transactionNotFound(99)) { try await world.service.resolveIssue(transactionID: 99) }
        #expect(try await world.hearts(install.id) == 1)
        #expect(try await world.storage.ledger(installID: install.id, limit: 10).count == 1, "delivered once")
    }

    @Test func anInterruptedPurchaseSurvivesARestartAndAStoppedAppReceivesItAtLaunch() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(interruptedPurchases: true))
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.lunch, installID: install.id)
        _ = try await world.service.stop(installID: install.id)
        let restarted = try await world.reopened()
        #expect(try await restarted.store.interruptedTransactions().map(\.transaction.id) == [1])
        #expect(try await restarted.service.resolveIssue(transactionID: 1).delivery == nil, "the app is stopped")
        let launch = try await restarted.service.launch(installID: install.id)
        #expect(launch.deliveries.map(\.path) == [.launch])
        #expect(launch.deliveries.map(\.outcome) == [.counted])
        #expect(launch.deliveries.map(\.transactionID) != [1])
        #expect(try await restarted.hearts(install.id) == 1)
    }

    @Test func anAskToBuyApprovalCannotResolveAnInterruptedPurchase() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(interruptedPurchases: true))
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        await #expect(throws: TipJarError.askToBuyRequestNotFound(1)) { try await world.service.approve(requestID: 1) }
    }

    // MARK: finish() is ignored

    @Test func withFinishIgnoredBuyingTheSameTipAgainReturnsTheSameTransactionCountedOnce() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(finishIgnored: true))
        let install = try await world.runningInstall()
        let first = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(first.recordOutcome == .counted)
        #expect(try await world.storage.transaction(withID: 1)?.isFinished == false)
        let second = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(second.transactionID == 1, "StoreKit answers with the unfinished transaction")
        #expect(second.recordOutcome == .duplicate)
        #expect(second.hearts == 1)
        let other = try await world.service.purchase(productID: TestWorld.snack, installID: install.id)
        #expect(other.transactionID == 2, "another product is a new transaction")
        let ledger = try await world.storage.ledger(installID: install.id, limit: 10)
        #expect(ledger.map(\.outcome) == [.counted, .duplicate, .counted])
        #expect(ledger.map(\.finished) == [false, false, false])
        #expect(ledger.map(\.note) == [.finishIgnored, .unfinishedReturned, .finishIgnored])
        #expect(DeliveryNote.finishIgnored.text == "finish() was ignored")
        try await world.setSettings { $0.finishIgnored = false }
        let launch = try await world.service.launch(installID: install.id)
        #expect(launch.deliveries.map(\.outcome) == [.duplicate, .duplicate], "the next launch finishes both, counting nothing")
        #expect(launch.deliveries.map(\.finished) == [true, true])
        #expect(try await world.hearts(install.id) == 2)
    }

    // MARK: An unfinished consumable comes back, with no trap on

    @Test func anUnverifiedTipBoughtAgainReturnsTheSameTransactionInsteadOfANewCharge() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(failures: StoreSettings.Failures(verification: .invalidSignature)))
        let install = try await world.runningInstall()
        let first = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(first.outcome == .unverified)
        let again = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(again.transactionID == first.transactionID, "StoreKit hands the unfinished transaction back")
        #expect(again.outcome == .unverified)
        try await world.setSettings { $0.failures.verification = nil }
        let verified = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(verified.transactionID == first.transactionID, "still no new charge: it is counted and finished now")
        #expect(verified.recordOutcome == .counted)
        let fresh = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(fresh.transactionID != first.transactionID, "once finished, the next purchase is a new transaction")
        let ledger = try await world.storage.ledger(installID: install.id, limit: 10)
        #expect(ledger.map(\.note) == [nil, .unfinishedReturned, .unfinishedReturned, nil])
        #expect(try await world.storage.transactions(matching: TransactionQuery(pageSize: 50)).transactions.count == 2, "two charges, not four")
    }

    @Test func aTipLeftUnfinishedOnOneInstallIsReturnedByTheNextPurchaseOnAnotherInstallOfTheAccount() async throws {
        // finish() ignored on the phone; the tablet, stopped meanwhile, buys the same tip: the account's unfinished
        // transaction comes back (its launch, which the purchase starts, delivers it first, and finish() is still
        // ignored, so it stays unfinished).
        let world = try await TestWorld.make(settings: StoreSettings(finishIgnored: true))
        let phone = try await world.runningInstall(accountID: "ana")
        let tablet = try await world.service.createInstall(locale: .en, storefront: "USA", accountID: "ana")
        let first = try await world.service.purchase(productID: TestWorld.snack, installID: phone.id)
        let again = try await world.service.purchase(productID: TestWorld.snack, installID: tablet.id)
        #expect(again.transactionID == first.transactionID)
        #expect(try await world.storage.ledger(installID: tablet.id, limit: 10).last?.note == .unfinishedReturned)
        #expect(DeliveryNote.unfinishedReturned.text == "purchase() returned the unfinished transaction: no new charge")
    }

    @Test func aTipLeftUnfinishedByACrashReachesTheAccountsOtherRunningInstallThroughItsListener() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(crashBeforeFinish: true))
        let phone = try await world.runningInstall(accountID: "ana")
        let tablet = try await world.runningInstall(accountID: "ana")
        try await world.setSettings { $0.finishedConsumablesReachOtherDevices = false }
        let crashed = try await world.service.purchase(productID: TestWorld.snack, installID: phone.id)
        let ledger = try await world.storage.ledger(installID: tablet.id, limit: 10)
        #expect(ledger.map(\.transactionID) == [try #require(crashed.transactionID)], "unfinished on the phone: it reaches the tablet whatever the setting")
        #expect(ledger.map(\.path) == [.otherDevice])
    }

    // MARK: Charged despite an error

    @Test func chargedDespiteAnErrorThrowsThenTheListenerCountsTheTransactionOnce() async throws {
        let gate = DelayGate()
        let world = try await TestWorld.make(settings: StoreSettings(purchaseError: .networkError, chargedDespiteError: true), gate: gate)
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.outcome == .failed)
        #expect(report.errorName == "networkError")
        #expect(report.hearts == 0)
        let charged = try #require(try await world.storage.transaction(withID: 1))
        #expect(charged.status == .purchased)
        #expect(charged.isFinished == false)
        #expect(try await world.storage.ledger(installID: install.id, limit: 10).isEmpty, "nothing before the delay")
        gate.open()
        #expect(try await eventually { try await world.storage.ledger(installID: install.id, limit: 10).count == 1 })
        let ledger = try await world.storage.ledger(installID: install.id, limit: 10)
        #expect(ledger.map(\.path) == [.listener])
        #expect(ledger.map(\.outcome) == [.counted])
        #expect(ledger.map(\.note) == [.chargedDespiteError])
        #expect(try await world.hearts(install.id) == 1)
        try await world.setSettings { $0.chargedDespiteError = false }
        let retry = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(retry.transactionID == 2, "a retry by the user is a separate transaction")
        #expect(try await world.hearts(install.id) == 2)
    }

    @Test func aChargedTransactionDueWhileTheAppIsStoppedArrivesAtTheNextLaunchOnly() async throws {
        let gate = DelayGate()
        let world = try await TestWorld.make(settings: StoreSettings(chargedDespiteError: true), gate: gate)
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.lunch, installID: install.id)
        _ = try await world.service.stop(installID: install.id)
        gate.open()
        #expect(await eventually { await world.service.scheduledDeliveryCount == 0 })
        #expect(try await world.storage.ledger(installID: install.id, limit: 10).isEmpty)
        let launch = try await world.service.launch(installID: install.id)
        #expect(launch.deliveries.map(\.outcome) == [.counted])
        #expect(try await world.storage.ledger(installID: install.id, limit: 10).count == 1)
    }

    @Test func aChargedTransactionSurvivesARestartBeforeItsDelay() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(chargedDespiteError: true), gate: DelayGate())
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.snack, installID: install.id)
        await world.service.cancelScheduledDeliveries()
        #expect(await world.service.scheduledDeliveryCount == 0, "shutdown drops the wait without waiting for it")
        let restarted = try await world.reopened()
        let launch = try await restarted.service.launch(installID: install.id)
        #expect(launch.deliveries.map(\.outcome) == [.counted])
        #expect(try await restarted.hearts(install.id) == 1)
    }

    // MARK: Restore replays

    @Test func restoreReplaysAFinishedTransactionWithoutAnExtraHeart() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(try await world.service.restore(installID: install.id).deliveries.isEmpty, "off: a finished tip never comes back")
        try await world.setSettings { $0.syncReplaysFinished = true }
        let restore = try await world.service.restore(installID: install.id)
        #expect(restore.deliveries.map(\.path) == [.restore])
        #expect(restore.deliveries.map(\.outcome) == [.duplicate])
        #expect(restore.deliveries.map(\.note) == [.syncReplay])
        #expect(restore.hearts == 1)
        let other = try await world.runningInstall(accountID: install.accountID)
        #expect(try await world.service.restore(installID: other.id).deliveries.isEmpty, "only what this install finished is replayed")
    }

    // MARK: Re-emit later

    @Test func delayedReemitsArriveAfterThePurchaseAnsweredAndAddNoHeart() async throws {
        let gate = DelayGate()
        let world = try await TestWorld.make(settings: StoreSettings(listenerReemits: 2, listenerReemitDelayMs: 5_000), gate: gate)
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.recordOutcome == .counted)
        #expect(try await world.ledgerOutcomes(install.id) == [.counted], "the purchase answered before any re-emit")
        gate.open()
        #expect(try await eventually { try await world.ledgerOutcomes(install.id).count == 3 })
        let ledger = try await world.storage.ledger(installID: install.id, limit: 10)
        #expect(ledger.map(\.outcome) == [.counted, .duplicate, .duplicate])
        #expect(ledger.map(\.path) == [.purchase, .listener, .listener])
        #expect(ledger.map(\.note) == [nil, .reemittedLater, .reemittedLater])
        #expect(try await world.hearts(install.id) == 1)
    }

    @Test func aDelayedReemitDueWhileTheAppIsStoppedWaitsForItsLaunch() async throws {
        let gate = DelayGate()
        let world = try await TestWorld.make(settings: StoreSettings(listenerReemits: 1, listenerReemitDelayMs: 1_000), gate: gate)
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        _ = try await world.service.stop(installID: install.id)
        gate.open()
        #expect(await eventually { await world.service.scheduledDeliveryCount == 0 })
        #expect(try await world.ledgerOutcomes(install.id) == [.counted])
        let launch = try await world.service.launch(installID: install.id)
        #expect(launch.deliveries.map(\.path) == [.listener])
        #expect(launch.deliveries.map(\.outcome) == [.duplicate])
        #expect(try await world.service.launch(installID: install.id).deliveries.isEmpty, "delivered once")
    }

    @Test(arguments: [-1, 60_001])
    func aReemitDelayOutsideZeroToSixtySecondsIsRefusedAndChangesNothing(_ delay: Int) async throws {
        let world = try await TestWorld.make()
        await #expect(throws: TipJarError.self) { try await world.setSettings { $0.listenerReemitDelayMs = delay } }
        #expect(world.store.settings == .normal)
    }

    @Test func settingsSavedBeforeTheTrapsExistedDecodeWithEveryTrapOff() throws {
        let settings = try JSONDecoder().decode(StoreSettings.self, from: Data(#"{"catalog":"normal","listenerReemits":1}"#.utf8))
        #expect(settings == StoreSettings(listenerReemits: 1))
    }
}
