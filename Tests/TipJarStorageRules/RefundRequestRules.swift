import Foundation
import Testing
import TipJar

/// Refund requests the app sends (`Transaction.beginRefundRequest(in:)`,
/// https://developer.apple.com/documentation/storekit/transaction/beginrefundrequest(in:)-4w6kn): one per transaction,
/// and each decision names the state it expects, so one of two decisions wins.
extension StorageRule {
    static let refundRequestRules: [StorageRule] = [
        StorageRule(name: "two refund requests for one transaction at once: one is received, the other is a duplicateRequest") { world in
            let install = try await world.runningInstall()
            let id = try #require(try await world.service.purchase(productID: RuleWorld.coffee, installID: install.id).transactionID)
            let results = await race(6) { _ in
                try await world.service.beginRefundRequest(transactionID: id, installID: install.id, userAction: .submit)
            }
            #expect(winners(results) == 1)
            let errors = results.compactMap { result -> Transaction.RefundRequestError? in
                guard case .failure(let error) = result else { return nil }
                return error as? Transaction.RefundRequestError
            }
            #expect(errors == Array(repeating: .duplicateRequest, count: 5))
            #expect(try await world.storage.refundRequests(limit: 10).map(\.state) == [.pending])
        },
        StorageRule(name: "an approve racing a decline of one refund request: one wins, and only an approval revokes") { world in
            let install = try await world.runningInstall()
            let id = try #require(try await world.service.purchase(productID: RuleWorld.coffee, installID: install.id).transactionID)
            try await world.service.beginRefundRequest(transactionID: id, installID: install.id, userAction: .submit, reason: .developerIssue)
            let results = await race(8) { index in
                if index.isMultiple(of: 2) {
                    _ = try await world.service.approveRefundRequest(transactionID: id)
                } else {
                    _ = try await world.service.declineRefundRequest(transactionID: id)
                }
            }
            #expect(winners(results) == 1)
            #expect(losers(results) == Array(repeating: .refundRequestNotPending(id), count: 7))
            let state = try #require(try await world.storage.refundRequest(transactionID: id)).state
            let revoked = try #require(try await world.storage.transaction(withID: id)).transaction
            #expect(state == .approved || state == .declined)
            #expect(revoked.isRevoked == (state == .approved))
            #expect(revoked.revocationReason == (state == .approved ? .developerIssue : nil))
            #expect(try await world.ledgerOutcomes(install.id) == (state == .approved ? [.counted, .revoked] : [.counted]))
        },
    ]
}
