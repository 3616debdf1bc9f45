import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// `Transaction.updates` "also emits transactions that customers complete in your app on another device"
/// (https://developer.apple.com/documentation/storekit/transaction/updates): every other running install of the Apple
/// Account receives a purchase and a refund through its listener, as a ledger row of its own with the path
/// `otherDevice`; a stopped one gets, at launch, only what is unfinished; installs of other accounts get nothing.
@Suite("Other devices of the Apple Account")
struct OtherDeviceTests {
    @Test func aTipBoughtOnOneInstallReachesEveryOtherRunningInstallOfTheAccountThroughItsListener() async throws {
        let world = try await TestWorld.make()
        let phone = try await world.runningInstall(accountID: "ana")
        let tablet = try await world.runningInstall(accountID: "ana")
        let watch = try await world.runningInstall(accountID: "ana")
        let stranger = try await world.runningInstall(accountID: "bia")
        let bought = try await world.service.purchase(productID: TestWorld.coffee, installID: phone.id)
        let id = try #require(bought.transactionID)
        for other in [tablet, watch] {
            let ledger = try await world.storage.ledger(installID: other.id, limit: 10)
            #expect(ledger.map(\.transactionID) == [id])
            #expect(ledger.map(\.path) == [.otherDevice])
            #expect(ledger.map(\.outcome) == [.counted])
            #expect(try await world.hearts(other.id) == 1, "each device keeps its own hearts")
        }
        #expect(try await world.storage.ledger(installID: phone.id, limit: 10).map(\.path) == [.purchase])
        #expect(try await world.storage.ledger(installID: stranger.id, limit: 10).isEmpty, "another account's install gets nothing")
    }

    @Test func aStoppedInstallGetsNothingAtLaunchForATipAnotherDeviceFinished() async throws {
        let world = try await TestWorld.make()
        let phone = try await world.runningInstall(accountID: "ana")
        let tablet = try await world.runningInstall(accountID: "ana")
        _ = try await world.service.stop(installID: tablet.id)
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: phone.id)
        #expect(try await world.service.launch(installID: tablet.id).deliveries.isEmpty)
        #expect(try await world.hearts(tablet.id) == 0)
    }

    @Test func aRefundReachesEveryRunningInstallOfTheAccountWithTheSameTransactionID() async throws {
        let world = try await TestWorld.make()
        let phone = try await world.runningInstall(accountID: "ana")
        let tablet = try await world.runningInstall(accountID: "ana")
        let id = try #require(try await world.service.purchase(productID: TestWorld.coffee, installID: phone.id).transactionID)
        let delivery = try await world.service.refund(transactionID: id, reason: .developerIssue)
        #expect(delivery?.installID == phone.id)
        let tabletLedger = try await world.storage.ledger(installID: tablet.id, limit: 10)
        #expect(tabletLedger.map(\.outcome) == [.counted, .revoked])
        #expect(tabletLedger.map(\.path) == [.otherDevice, .otherDevice])
        #expect(Set(tabletLedger.map(\.transactionID)) == [id])
        #expect(try await world.hearts(tablet.id) == 1, "hearts never go down")
    }

    @Test func withFinishedConsumablesKeptOnTheirDeviceOnlyUnfinishedTransactionsAndRefundsReachTheOthers() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(finishedConsumablesReachOtherDevices: false))
        let phone = try await world.runningInstall(accountID: "ana")
        let tablet = try await world.runningInstall(accountID: "ana")
        let id = try #require(try await world.service.purchase(productID: TestWorld.coffee, installID: phone.id).transactionID)
        #expect(try await world.storage.ledger(installID: tablet.id, limit: 10).isEmpty, "finished on the phone")
        _ = try await world.service.refund(transactionID: id)
        #expect(try await world.storage.ledger(installID: tablet.id, limit: 10).map(\.outcome) == [.revoked])
        try await world.setSettings { $0.finishIgnored = true }
        let unfinished = try #require(try await world.service.purchase(productID: TestWorld.snack, installID: phone.id).transactionID)
        #expect(try await world.storage.ledger(installID: tablet.id, limit: 10).last?.transactionID == unfinished)
    }

    @Test func aPurchaseOutsideTheAppReachesTheAccountsOtherRunningInstalls() async throws {
        let world = try await TestWorld.make()
        let phone = try await world.runningInstall(accountID: "ana")
        let tablet = try await world.runningInstall(accountID: "ana")
        let (external, _) = try await world.service.externalPurchase(productID: TestWorld.lunch, installID: phone.id)
        let ledger = try await world.storage.ledger(installID: tablet.id, limit: 10)
        #expect(ledger.map(\.transactionID) == [external.transaction.id])
        #expect(ledger.map(\.path) == [.otherDevice])
    }
}
