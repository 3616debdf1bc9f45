import Foundation

/// Refund requests the app sends (`Transaction.beginRefundRequest(in:)`), kept one per transaction until the store
/// decides them (Sources/TipJar/README.md, "Refund requests"), like Ask to Buy requests wait for a parent
/// (SimulatedStore+AskToBuy.swift).
extension SimulatedStore {
    /// `Transaction.beginRefundRequest(in:)`
    /// (https://developer.apple.com/documentation/storekit/transaction/beginrefundrequest(in:)-4w6kn) for a transaction
    /// the install's Apple Account owns. The order is the rule: the transaction must be the account's, purchased and
    /// unrevoked (else a request error, not a StoreKit answer); then the Refund Request Sheet failure injection throws
    /// before the sheet answers; a cancelled sheet answers `.userCancelled` and reaches no store; a submitted one is
    /// received ("The App Store has received the refund request", `.success`) unless a request for the transaction
    /// exists, whatever its state (`duplicateRequest`,
    /// https://developer.apple.com/documentation/storekit/transaction/refundrequesterror). Apple is silent on whether
    /// a cancel is checked for duplicates first: here the sheet answers before the store looks.
    /// - Returns: the status and, for `.success`, the request received (pending).
    /// - Throws: `TipJarError.transactionNotFound`, `.invalidValue` (another account's or not a purchased
    ///   transaction), `.alreadyRefunded`; the injected `StoreKitError` or `Transaction.RefundRequestError`;
    ///   `Transaction.RefundRequestError.duplicateRequest`.
    public func beginRefundRequest(
        transactionID: UInt64, for install: Install, userAction: RefundRequest.UserAction, reason: Transaction.RevocationReason?
    ) async throws -> (status: Transaction.RefundRequestStatus, request: RefundRequest?) {
        guard let stored = try await storage.transaction(withID: transactionID), stored.isListed else {
            throw TipJarError.transactionNotFound(transactionID)
        }
        guard stored.accountID == install.accountID else {
            throw TipJarError.invalidValue(field: "transactionID", reason: "belongs to another Apple Account than this install's")
        }
        guard stored.status == .purchased else {
            throw TipJarError.invalidValue(field: "transactionID", reason: "only a purchased transaction can be asked to be refunded")
        }
        guard !stored.transaction.isRevoked else { throw TipJarError.alreadyRefunded(transactionID) }
        if let failure = settings.failures.refundRequest { throw failure.error }
        guard userAction == .submit else { return (.userCancelled, nil) }
        let request = RefundRequest(
            transactionID: transactionID, installID: install.id, accountID: install.accountID,
            productID: stored.transaction.productID, requestedAt: now(), reason: reason)
        guard try await storage.insert(request) else { throw Transaction.RefundRequestError.duplicateRequest }
        return (.success, request)
    }

    /// Decides a pending refund request: `.approved` or `.declined`, dated now. Of an approve and a decline (or two of
    /// either) of one request, the first to reach storage wins; the others are told it was already decided.
    /// - Returns: the request as decided.
    /// - Throws: `TipJarError.refundRequestNotFound`, `.refundRequestNotPending`.
    public func decideRefundRequest(transactionID: UInt64, as state: RefundRequest.State) async throws -> RefundRequest {
        guard let request = try await storage.refundRequest(transactionID: transactionID) else {
            throw TipJarError.refundRequestNotFound(transactionID)
        }
        guard request.state == .pending, state != .pending else { throw TipJarError.refundRequestNotPending(transactionID) }
        var decided = request
        decided.state = state
        decided.decidedAt = now()
        guard try await storage.update(decided, from: request) else { throw TipJarError.refundRequestNotPending(transactionID) }
        return decided
    }
}
