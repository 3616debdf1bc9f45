import CSQLite
import Foundation
import TestSupport
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// README "Domain rules": Purchase. Every purchase outcome, and the purchase lock.
@Suite("Purchase outcomes")
struct PurchaseOutcomeTests {
    @Test func successVerifiedRecordsFinishesAndAddsAHeart() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.outcome == .purchased)
        #expect(report.transactionID == 1)
        #expect(report.recordOutcome == .counted)
        #expect(report.hearts == 1)
        #expect(report.addedHeart)
        #expect(try await world.storage.transaction(withID: 1)?.isFinished == true)
    }

    @Test(
        "If the store's enqueued insert fails, the handler records nothing and the purchase throws that error",
        arguments: [false, true])
    func failedStoreInsertFailsThePurchaseAndRecordsNothing(groupCommit: Bool) async throws {
        let world = try await TestWorld.make(database: DatabaseConfiguration(durability: .normal, groupCommit: groupCommit))
        let install = try await world.runningInstall()
        // A row already holds the ID the store issues next, so the store's INSERT fails (primary key).
        let squatter = StoredTransaction(
            transaction: Transaction(
                id: 1, productID: TestWorld.coffee, purchaseDate: TestWorld.epoch,
                storefront: "USA"),
            accountID: "another-account", installID: install.id, status: .declined)
        try await world.storage.insert(squatter)
        let error = await #expect(throws: DatabaseError.self) {
            try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        }
        #expect(error.map { $0.extendedResultCode & 0xff } == SQLITE_CONSTRAINT)
        #expect(try await world.service.install(install.id).hearts == 0)
        #expect(try await world.storage.ledger(installID: install.id, limit: 10).isEmpty)
        #expect(try await world.storage.transaction(withID: 1)?.status == .declined)
        // Nothing is stuck: the next purchase gets the next ID and counts.
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.outcome == .purchased)
        #expect(report.transactionID == 2)
        #expect(report.hearts == 1)
    }

    @Test(
        "A store insert that failed while another process held the lock is never recorded, and nothing is left behind",
        arguments: [false, true])
    func insertFailedUnderALockIsNeverRecorded(groupCommit: Bool) async throws {
        let world = try await TestWorld.make(database: DatabaseConfiguration(durability: .normal, busyTimeout: .zero, groupCommit: groupCommit))
        let install = try await world.runningInstall()
        var other: OpaquePointer?
        #expect(sqlite3_open(world.path, &other) == SQLITE_OK)
        defer { sqlite3_close(other) }
        #expect(sqlite3_exec(other, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)  // another process holds the write lock
        for _ in 0..<20 {
            await #expect(throws: DatabaseError.self) {
                try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
            }
        }
        // The store's insert fails (SQLITE_BUSY); the handler's record, in the same operation, never runs.
        let transaction = Transaction(id: 9_001, productID: TestWorld.coffee, purchaseDate: TestWorld.epoch, storefront: "USA")
        let delivery = Delivery(
            installID: install.id, transactionID: 9_001, productID: TestWorld.coffee, path: .purchase,
            outcome: .counted, finished: true, at: TestWorld.epoch)
        let error = await #expect(throws: DatabaseError.self) {
            try await world.storage.issue(
                StoredTransaction(
                    transaction: transaction, accountID: install.accountID, installID: install.id,
                    status: .purchased), thenRecord: delivery)
        }
        #expect(error?.isBusy == true)
        #expect(sqlite3_exec(other, "ROLLBACK", nil, nil, nil) == SQLITE_OK)
        #expect(try await world.hearts(install.id) == 0)
        #expect(try await world.storage.ledger(installID: install.id, limit: 10).isEmpty)
        #expect(try await world.storage.transaction(withID: 9_001) == nil)
        // After the lock, purchases count again.
        #expect(try await world.service.purchase(productID: TestWorld.coffee, installID: install.id).hearts == 1)
    }

    @Test(
        "A fault between the store's issue and the handler's record leaves the transaction charged, unfinished and unrecorded; the next launch delivers it",
        arguments: [false, true])
    func faultBetweenIssueAndRecordLeavesAChargedUnfinishedTransaction(groupCommit: Bool) async throws {
        let world = try await TestWorld.make(database: DatabaseConfiguration(durability: .normal, groupCommit: groupCommit))
        let install = try await world.runningInstall()
        // The fault: the record's ledger insert fails, after the store's insert ran in the same operation.
        try world.storage.pool.writeSync { db in
            try db.execute(sql: "CREATE TEMP TRIGGER fault BEFORE INSERT ON deliveries BEGIN SELECT RAISE(ABORT, 'injected fault'); END")
        }
        let error = await #expect(throws: DatabaseError.self) {
            try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        }
        #expect(error.map { $0.extendedResultCode & 0xff } == SQLITE_CONSTRAINT)
        let charged = try #require(try await world.storage.transaction(withID: 1), "the store's issue was kept")
        #expect(charged.status == .purchased)
        #expect(charged.isFinished == false)
        #expect(try await world.storage.ledger(installID: install.id, limit: 10).isEmpty)
        #expect(try await world.hearts(install.id) == 0)
        #expect(await world.service.isPurchaseOpen(installID: install.id) == false)

        try world.storage.pool.writeSync { db in try db.execute(sql: "DROP TRIGGER fault") }
        _ = try await world.service.stop(installID: install.id)
        let launch = try await world.service.launch(installID: install.id)
        #expect(launch.deliveries.map(\.transactionID) == [1])
        #expect(launch.deliveries.map(\.path) == [.launch])
        #expect(launch.deliveries.map(\.outcome) == [.counted])
        #expect(launch.hearts == 1)
        #expect(try await world.storage.transaction(withID: 1)?.isFinished == true)
    }

    @Test func successUnverifiedIsNotRecordedNorFinished() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(purchaseOutcome: .unverified))
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.outcome == .unverified)
        #expect(report.errorName == "invalidSignature")
        #expect(report.hearts == 0)
        #expect(try await world.storage.transaction(withID: 1)?.isFinished == false)
    }

    @Test(arguments: VerificationError.allCases)
    func verificationFailureInjectionNamesEachOfTheSixErrors(_ error: VerificationError) async throws {
        let world = try await TestWorld.make(settings: StoreSettings(failures: .init(verification: error)))
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.outcome == .unverified)
        #expect(report.verificationError == error)
    }

    @Test func userCancelledIsNoErrorAndNoTransaction() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(purchaseOutcome: .cancelled))
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.outcome == .cancelled)
        #expect(report.transactionID == nil)
        #expect(report.errorName == nil)
        #expect(await world.service.isPurchaseOpen(installID: install.id) == false)
    }

    /// Every `StoreKitError` and every `Product.PurchaseError` but `userCancelled`
    /// (https://developer.apple.com/documentation/storekit/product/purchaseerror).
    @Test(arguments: PurchaseFailure.allCases.filter { $0 != .userCancelled })
    func thrownStoreErrorIsAFailedReportWithTheLocalizedMessage(_ error: PurchaseFailure) async throws {
        let world = try await TestWorld.make(settings: StoreSettings(purchaseOutcome: .failed, purchaseError: error))
        let install = try await world.runningInstall(locale: .ptBR, storefront: "BRA")
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.outcome == .failed)
        #expect(report.errorName == error.rawValue)
        #expect(error.error.message(locale: .ptBR) != error.error.message(locale: .en))
        #expect(try await world.storage.recentTransactions(limit: 10).isEmpty)
    }

    @Test func pendingThenApprovedIsDeliveredThroughTheListener() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(purchaseOutcome: .pending))
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(productID: TestWorld.snack, installID: install.id)
        #expect(report.outcome == .pending)
        #expect(report.transactionID == nil, "a pending purchase has no transaction for the app yet")
        #expect(try await world.storage.pendingTransactions().map(\.transaction.id) == [1])
        let approved = try await world.service.approve(requestID: 1)
        #expect(approved.transaction.transaction.id != 1, "approval issues the transaction under a new ID")
        let delivery = approved.delivery
        #expect(delivery?.path == .listener)
        #expect(delivery?.outcome == .counted)
        #expect(try await world.hearts(install.id) == 1)
        #expect(try await world.storage.pendingTransactions().isEmpty)
    }

    @Test func pendingThenDeclinedRecordsNothing() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(purchaseOutcome: .pending))
        let install = try await world.runningInstall()
        _ = try await world.service.purchase(productID: TestWorld.snack, installID: install.id)
        try await world.service.decline(requestID: 1)
        #expect(try await world.hearts(install.id) == 0)
        #expect(try await world.ledgerOutcomes(install.id).isEmpty)
        #expect(try await world.storage.recentTransactions(limit: 10).isEmpty, "a declined request never becomes a transaction")
        await #expect(throws: TipJarError.transactionNotPending(1)) { try await world.service.approve(requestID: 1) }
    }

    @Test func secondConcurrentPurchaseForTheSameInstallIsRefused() async throws {
        let gate = DelayGate()
        let world = try await TestWorld.make(settings: StoreSettings(purchaseLatencyMs: 1500), gate: gate)
        let install = try await world.runningInstall(accountID: "ana")
        let other = try await world.runningInstall(accountID: "bia")
        let first = Task { try await world.service.purchase(productID: TestWorld.coffee, installID: install.id) }
        await gate.untilSomeoneWaits()
        #expect(await world.service.isPurchaseOpen(installID: install.id))
        await #expect(throws: TipJarError.purchaseInProgress(installID: install.id)) {
            try await world.service.purchase(productID: TestWorld.lunch, installID: install.id)
        }
        let otherPurchase = Task { try await world.service.purchase(productID: TestWorld.lunch, installID: other.id) }
        gate.open()
        #expect(try await first.value.outcome == .purchased)
        #expect(try await otherPurchase.value.outcome == .purchased, "another install is not blocked")
        #expect(try await world.hearts(install.id) == 1)
        #expect(await world.service.isPurchaseOpen(installID: install.id) == false)
    }

    @Test func unknownProductPurchaseIsRefused() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        await #expect(throws: TipJarError.unknownProduct("com.example.nope")) {
            try await world.service.purchase(productID: "com.example.nope", installID: install.id)
        }
    }

    @Test func purchaseOnAStoppedInstallLaunchesItFirst() async throws {
        let world = try await TestWorld.make()
        let install = try await world.service.createInstall(locale: .en, storefront: nil, legacyHasTipped: true)
        let report = try await world.service.purchase(productID: TestWorld.coffee, installID: install.id)
        #expect(report.hearts == 2, "launch migrated the legacy flag, then the tip was counted")
        #expect(try await world.service.install(install.id).isRunning)
    }
}
