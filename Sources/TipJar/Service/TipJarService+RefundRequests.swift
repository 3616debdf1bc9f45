import Foundation

extension TipJarService {
    // MARK: Refund requests

    /// `Transaction.beginRefundRequest(in:)` from the install's screen
    /// (https://developer.apple.com/documentation/storekit/transaction/beginrefundrequest(in:)-4w6kn): the simulated
    /// refund sheet answered with `userAction`. A received request is then decided by the store setting
    /// `refundRequestDecision`: `manual` leaves it on `/store`; `approve` and `decline` decide it at once
    /// (``approveRefundRequest(transactionID:)``, ``declineRefundRequest(transactionID:)``). "The refund request status
    /// reflects the status of the request, not the status of the refund itself"
    /// (https://developer.apple.com/documentation/storekit/transaction/refundrequeststatus): `.success` whatever the
    /// decision. The app is launched first if it is not running (the customer opened it to ask).
    /// - Returns: `.success` or `.userCancelled`.
    /// - Throws: as ``SimulatedStore/beginRefundRequest(transactionID:for:userAction:reason:)``; `TipJarError.installNotFound`.
    @discardableResult
    public func beginRefundRequest(
        transactionID: UInt64, installID: String, userAction: RefundRequest.UserAction, reason: Transaction.RevocationReason? = nil
    ) async throws -> Transaction.RefundRequestStatus {
        let install = try await self.install(installID)
        if !install.isRunning { _ = try await launch(installID: installID) }
        let answer: (status: Transaction.RefundRequestStatus, request: RefundRequest?)
        do {
            answer = try await store.beginRefundRequest(transactionID: transactionID, for: install, userAction: userAction, reason: reason)
        } catch let error as TipJarError {
            throw error
        } catch {
            event(
                installID, "refundRequest.failed", "beginRefundRequest for transaction \(transactionID) threw \(error).",
                ["transactionID": "\(transactionID)", "error": "\(error)"])
            throw error
        }
        event(
            installID, "refundRequest.\(answer.status.rawValue)",
            answer.status == .success
                ? "Refund requested for transaction \(transactionID) (\(reason?.rawValue ?? "no reason")): .success."
                : "Refund sheet for transaction \(transactionID) cancelled: .userCancelled.",
            ["transactionID": "\(transactionID)", "status": answer.status.rawValue])
        guard answer.request != nil else { return answer.status }
        switch store.settings.refundRequestDecision {
        case .manual: break
        case .approve: try await approveRefundRequest(transactionID: transactionID)
        case .decline: try await declineRefundRequest(transactionID: transactionID)
        }
        return answer.status
    }

    /// A refund request approved (on `/store`, or at once by `refundRequestDecision`): the transaction is refunded
    /// (`REFUND_FULL`; reason `developerIssue` when the customer said the app had a problem, else `other`), and the
    /// revoked transaction reaches the listener as every refund does ("Your app receives a Transaction with refund
    /// information in the revocationDate and revocationReason properties",
    /// https://developer.apple.com/documentation/storekit/testing-refund-requests), the account's other running
    /// installs included. When the transaction was refunded meanwhile from the dashboard, the approval stands and
    /// nothing more is delivered.
    /// - Returns: the request as decided and the ledger row of the install that bought it (`nil` when it is stopped).
    /// - Throws: `TipJarError.refundRequestNotFound`, `.refundRequestNotPending` (one of two decisions wins).
    @discardableResult
    public func approveRefundRequest(transactionID: UInt64) async throws -> (request: RefundRequest, delivery: Delivery?) {
        let request = try await store.decideRefundRequest(transactionID: transactionID, as: .approved)
        event(
            request.installID, "refundRequest.approved", "Refund request for transaction \(transactionID) approved.",
            ["transactionID": "\(transactionID)"])
        do {
            return (request, try await refund(transactionID: transactionID, reason: request.revocationReason))
        } catch TipJarError.alreadyRefunded {
            return (request, nil)
        }
    }

    /// A refund request declined: nothing reaches the app.
    /// - Returns: the request as decided.
    /// - Throws: `TipJarError.refundRequestNotFound`, `.refundRequestNotPending`.
    @discardableResult
    public func declineRefundRequest(transactionID: UInt64) async throws -> RefundRequest {
        let request = try await store.decideRefundRequest(transactionID: transactionID, as: .declined)
        event(
            request.installID, "refundRequest.declined", "Refund request for transaction \(transactionID) declined; nothing delivered.",
            ["transactionID": "\(transactionID)"])
        return request
    }
}
