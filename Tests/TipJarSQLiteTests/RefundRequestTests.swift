import Foundation
import Testing
import TipJar

@testable import SQLiteDatabase
@testable import TipJarSQLite

/// Refund requests from the app (`Transaction.beginRefundRequest(in:)`,
/// https://developer.apple.com/documentation/storekit/transaction/beginrefundrequest(in:)-4w6kn) on a real SQLite file:
/// "The refund request status reflects the status of the request, not the status of the refund itself"
/// (https://developer.apple.com/documentation/storekit/transaction/refundrequeststatus); an approval reaches the app
/// as a revocation through the listener (https://developer.apple.com/documentation/storekit/testing-refund-requests).
@Suite("Refund requests from the app")
struct RefundRequestTests {
    static func tip(_ world: TestWorld, _ installID: String) async throws -> UInt64 {
        try #require(try await world.service.purchase(productID: TestWorld.coffee, installID: installID).transactionID)
    }

    @Test func aSubmittedRequestAnswersSuccessWaitsPendingAndASecondOneIsADuplicateWhateverItsState() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        let id = try await Self.tip(world, install.id)
        #expect(try await world.service.beginRefundRequest(transactionID: id, installID: install.id, userAction: .submit, reason: .other) == .success)
        let request = try #require(try await world.storage.refundRequest(transactionID: id))
        #expect(request.state == .pending && request.installID == install.id && request.accountID == install.accountID && request.reason == .other)
        #expect(try await world.storage.transaction(withID: id)?.transaction.isRevoked == false, "the status is the request's, not the refund's")
        await #expect(throws: Transaction.RefundRequestError.duplicateRequest) {
            try await world.service.beginRefundRequest(transactionID: id, installID: install.id, userAction: .submit)
        }
        try await world.service.declineRefundRequest(transactionID: id)
        await #expect(throws: Transaction.RefundRequestError.duplicateRequest, "a denied request is a duplicate too") {
            try await world.service.beginRefundRequest(transactionID: id, installID: install.id, userAction: .submit)
        }
    }

    @Test func aCancelledRefundSheetAnswersUserCancelledAndTheStoreReceivesNothing() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        let id = try await Self.tip(world, install.id)
        #expect(try await world.service.beginRefundRequest(transactionID: id, installID: install.id, userAction: .cancel) == .userCancelled)
        #expect(try await world.storage.refundRequests(limit: 10).isEmpty)
    }

    @Test func anApprovedRequestReachesTheAppAsARevocationThroughTheListenerAndTheAccountsOtherInstalls() async throws {
        let world = try await TestWorld.make()
        let phone = try await world.runningInstall(accountID: "ana")
        let pad = try await world.runningInstall(accountID: "ana")
        let id = try await Self.tip(world, phone.id)
        try await world.service.beginRefundRequest(transactionID: id, installID: phone.id, userAction: .submit, reason: .developerIssue)
        let (request, delivery) = try await world.service.approveRefundRequest(transactionID: id)
        #expect(request.state == .approved)
        #expect(delivery?.path == .listener && delivery?.outcome == .revoked)
        let revoked = try #require(try await world.storage.transaction(withID: id)).transaction
        #expect(revoked.revocationReason == .developerIssue && revoked.revocationType == .fullRefund && revoked.revocationDate != nil)
        #expect(try await world.storage.ledger(installID: pad.id, limit: 10).map(\.outcome).last == .revoked, "another device of the account")
        await #expect(throws: TipJarError.refundRequestNotPending(id)) { try await world.service.declineRefundRequest(transactionID: id) }
    }

    @Test func aDeclinedRequestDeliversNothing() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        let id = try await Self.tip(world, install.id)
        try await world.service.beginRefundRequest(transactionID: id, installID: install.id, userAction: .submit)
        #expect(try await world.service.declineRefundRequest(transactionID: id).state == .declined)
        #expect(try await world.ledgerOutcomes(install.id) == [.counted])
        #expect(try await world.storage.transaction(withID: id)?.transaction.isRevoked == false)
    }

    @Test("refundRequestDecision approve or decline decides at once after .success", arguments: [StoreSettings.RefundRequestDecision.approve, .decline])
    func theRefundRequestDecisionSettingDecidesAtOnceAfterSuccess(_ decision: StoreSettings.RefundRequestDecision) async throws {
        let world = try await TestWorld.make(settings: StoreSettings(refundRequestDecision: decision))
        let install = try await world.runningInstall()
        let id = try await Self.tip(world, install.id)
        #expect(try await world.service.beginRefundRequest(transactionID: id, installID: install.id, userAction: .submit) == .success)
        #expect(try await world.storage.refundRequest(transactionID: id)?.state == (decision == .approve ? .approved : .declined))
        #expect(try await world.ledgerOutcomes(install.id) == (decision == .approve ? [.counted, .revoked] : [.counted]))
        #expect(try await world.storage.transaction(withID: id)?.transaction.revocationReason == (decision == .approve ? .other : nil))
    }

    @Test("the Refund Request Sheet failure is thrown and the store receives nothing", arguments: [
        RefundRequestFailure(StoreKitError.networkError), RefundRequestFailure(Transaction.RefundRequestError.failed),
    ])
    func theRefundRequestSheetFailureIsThrownAndTheStoreReceivesNothing(_ failure: RefundRequestFailure) async throws {
        let world = try await TestWorld.make(settings: StoreSettings(failures: StoreSettings.Failures(refundRequest: failure)))
        let install = try await world.runningInstall()
        let id = try await Self.tip(world, install.id)
        await #expect {
            try await world.service.beginRefundRequest(transactionID: id, installID: install.id, userAction: .submit)
        } throws: { error in
            (error as? StoreKitError)?.rawValue == failure.rawValue || (error as? Transaction.RefundRequestError)?.rawValue == failure.rawValue
        }
        #expect(try await world.storage.refundRequests(limit: 10).isEmpty)
    }

    @Test func onlyAPurchasedUnrevokedTransactionOfTheInstallsAccountCanBeAskedFor() async throws {
        let world = try await TestWorld.make()
        let ana = try await world.runningInstall(accountID: "ana")
        let bruno = try await world.runningInstall(accountID: "bruno")
        let id = try await Self.tip(world, ana.id)
        await #expect(throws: TipJarError.invalidValue(field: "transactionID", reason: "belongs to another Apple Account than this install's")) {
            try await world.service.beginRefundRequest(transactionID: id, installID: bruno.id, userAction: .submit)
        }
        await #expect(throws: TipJarError.transactionNotFound(999_999)) {
            try await world.service.beginRefundRequest(transactionID: 999_999, installID: ana.id, userAction: .submit)
        }
        _ = try await world.service.refund(transactionID: id)
        await #expect(throws: TipJarError.alreadyRefunded(id)) {
            try await world.service.beginRefundRequest(transactionID: id, installID: ana.id, userAction: .submit)
        }
        #expect(try await world.storage.refundRequests(limit: 10).isEmpty)
    }

    @Test func aRefundRequestOutlivesARestartAndForgettingItsTransactionForgetsTheRequest() async throws {
        let world = try await TestWorld.make()
        let install = try await world.runningInstall()
        let id = try await Self.tip(world, install.id)
        try await world.service.beginRefundRequest(transactionID: id, installID: install.id, userAction: .submit, reason: .developerIssue)
        let reopened = try await world.reopened()
        let kept = try #require(try await reopened.storage.refundRequest(transactionID: id))
        #expect(kept.state == .pending && kept.reason == .developerIssue && kept.installID == install.id)
        try await reopened.store.deleteTransaction(id: id)
        #expect(try await reopened.storage.refundRequests(limit: 10).isEmpty, "SKTestSession.deleteTransaction(identifier:) forgets its request too")
    }
}
