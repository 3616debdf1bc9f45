import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// Ask to Buy as Apple runs it (Sources/TipJar/README.md, "Ask to Buy requests"): a pending request is no transaction
/// ("If a pending purchase succeeds, StoreKit delivers the resulting Transaction in the transaction updates",
/// https://developer.apple.com/documentation/storekit/product/purchaseresult/pending), and duplicate requests are
/// consolidated ("Any duplicate Ask to Buy requests are consolidated and only resets the 24-hour timer. Once approved,
/// only 1 purchase is completed.", https://developer.apple.com/forums/thread/706277), on a real SQLite file.
@Suite("Ask to Buy requests")
struct AskToBuyRequestTests {
    @Test func twoRequestsForOneTipOnOneAccountAreConsolidatedAndTheirApprovalCompletesOnePurchase() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(askToBuyEnabled: true))
        let child = try await world.runningInstall(accountID: "family-child")
        let ipad = try await world.runningInstall(accountID: "family-child")
        #expect(try await world.service.purchase(productID: TestWorld.coffee, installID: child.id).outcome == .pending)
        let first = try #require(try await world.storage.pendingTransactions().first)
        #expect(try await world.service.purchase(productID: TestWorld.coffee, installID: ipad.id).outcome == .pending, "the pending answer again")
        let waiting = try await world.storage.pendingTransactions()
        #expect(waiting.map(\.transaction.id) == [first.transaction.id], "consolidated: no second request")
        #expect(waiting.first?.requestedAgain == 1, "recorded as requested again")
        #expect(try #require(waiting.first).transaction.purchaseDate > first.transaction.purchaseDate, "the request's timer is reset")
        #expect(waiting.first?.installID == child.id, "the waiting request keeps its own install")

        let approved = try await world.service.approve(requestID: first.transaction.id)
        #expect(try await world.storage.recentTransactions(limit: 10).map(\.transaction.id) == [approved.transaction.transaction.id])
        #expect(try await world.hearts(child.id) == 1)
        #expect(try await world.hearts(ipad.id) == 1, "the one transaction reaches the account's other device through Transaction.updates")
        #expect(try await world.storage.ledger(installID: ipad.id, limit: 10).map(\.path) == [.otherDevice])
        #expect(try await world.ledgerOutcomes(child.id) == [.counted], "one transaction, one heart")
        await #expect(throws: TipJarError.transactionNotPending(first.transaction.id)) {
            try await world.service.approve(requestID: first.transaction.id)
        }
    }

    @Test func anotherTipOrAnotherAccountIsANewRequestAndOneDecidedIsNotJoined() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(askToBuyEnabled: true))
        let child = try await world.runningInstall(accountID: "family-child")
        let other = try await world.runningInstall(accountID: "someone-else")
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: child.id)
        _ = try await world.service.purchase(productID: TestWorld.snack, installID: child.id)
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: other.id)
        let waiting = try await world.storage.pendingTransactions()
        #expect(waiting.count == 3)
        #expect(waiting.allSatisfy { $0.requestedAgain == 0 })
        try await world.service.decline(requestID: try #require(waiting.first).transaction.id)
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: child.id)
        #expect(try await world.storage.pendingTransactions().count == 3, "a declined request is not joined: a new one waits")
    }

    /// A duplicate request is one for the same product and quantity: a request for 3 while one for 1 waits asks for
    /// another purchase, waits on its own, and its approval charges 3.
    @Test func aRequestForAnotherQuantityIsNotADuplicateAndItsApprovalChargesItsOwnQuantity() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(askToBuyEnabled: true))
        let child = try await world.runningInstall(accountID: "family-child")
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: child.id)
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: child.id, options: Product.PurchaseOptions(quantity: 3))
        _ = try await world.service.purchase(productID: TestWorld.coffee, installID: child.id, options: Product.PurchaseOptions(quantity: 3))
        let waiting = try await world.storage.pendingTransactions()
        #expect(waiting.map(\.transaction.purchasedQuantity) == [1, 3] && waiting.map(\.requestedAgain) == [0, 1])
        let approved = try await world.service.approve(requestID: waiting[1].transaction.id)
        #expect(approved.transaction.transaction.purchasedQuantity == 3)
    }

    @Test func aPendingRequestIsNoTransactionUntilApprovalIssuesOneWithANewIDDatedThen() async throws {
        let world = try await TestWorld.make(settings: StoreSettings(askToBuyEnabled: true))
        let install = try await world.runningInstall()
        let report = try await world.service.purchase(
            productID: TestWorld.lunch, installID: install.id, options: Product.PurchaseOptions(quantity: 3))
        #expect(report.transactionID == nil, "Product.PurchaseResult.pending carries no transaction")
        let request = try #require(try await world.storage.pendingTransactions().first)
        #expect(try await world.service.records.transaction(withID: request.transaction.id) == nil)
        #expect(try await world.service.records.askToBuyRequest(withID: request.transaction.id)?.status == .pending)
        #expect(try await world.storage.recentTransactions(limit: 10).isEmpty)
        #expect(try await world.storage.transactions(matching: TransactionQuery()).transactions.isEmpty)
        #expect(try await world.service.records.transactions(matching: TransactionQuery(status: .pending)).transactions.isEmpty)
        #expect(try await world.storage.transactions(accountID: install.accountID, limit: 10).isEmpty)
        #expect(try await world.store.unfinished(accountID: install.accountID).isEmpty)

        let approved = try await world.service.approve(requestID: request.transaction.id).transaction
        #expect(approved.transaction.id != request.transaction.id)
        #expect(approved.transaction.purchaseDate > request.transaction.purchaseDate, "dated at the approval")
        #expect(approved.transaction.purchasedQuantity == 3)
        let settled = try await world.storage.transaction(withID: request.transaction.id)
        #expect(settled?.status == .approved, "the request keeps its own identifier")
        #expect(settled?.settledAs == approved.transaction.id)
        #expect(try await world.service.records.transaction(withID: approved.transaction.id)?.status == .purchased)
    }
}
