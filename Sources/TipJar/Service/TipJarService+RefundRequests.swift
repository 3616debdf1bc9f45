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
                ["transactionID": "\(transactionID)", "errorName": "\(error)", "userAction": userAction.rawValue])
            throw error
        }
        let decision = answer.request == nil ? nil : store.settings.refundRequestDecision
        var attributes = ["transactionID": "\(transactionID)", "status": answer.status.rawValue, "userAction": userAction.rawValue]
        attributes["reason"] = reason?.rawValue
        attributes["decision"] = decision?.rawValue
        event(
            installID, "refundRequest.\(answer.status.rawValue)",
            answer.status == .success
                ? "Refund requested for transaction \(transactionID) (\(reason?.rawValue ?? "no reason")): .success."
                : "Refund sheet for transaction \(transactionID) cancelled: .userCancelled.",
            attributes)
        switch decision {
        case .approve?:
            // Consumption information sent before the request counts: a server that asked for a decline gets one.
            if let stored = try await records.transaction(withID: transactionID), Self.prefersDecline(stored.consumptionInfo) {
                try await declineRefundRequest(transactionID: transactionID, decidedBy: "setting")
            } else {
                try await approveRefundRequest(transactionID: transactionID, decidedBy: "setting")
            }
        case .decline?: try await declineRefundRequest(transactionID: transactionID, decidedBy: "setting")
        case .manual?, .consumptionInformation?, nil: break
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
    /// - Parameter decidedBy: `store` (on `/store` or the API) or `setting` (`refundRequestDecision`), which the
    ///   timeline's `refund` event names so a recording replays it as the step that decided it.
    /// - Parameter share: the refunded share in milliunits of a percent for a prorated refund (`REFUND_PRORATED`,
    ///   1...99,999), or `nil` for a full refund (`REFUND_FULL`).
    /// - Throws: `TipJarError.refundRequestNotFound`, `.refundRequestNotPending` (one of two decisions wins).
    @discardableResult
    public func approveRefundRequest(
        transactionID: UInt64, decidedBy: String = "store", share: Int? = nil
    ) async throws -> (request: RefundRequest, delivery: Delivery?) {
        let type: Transaction.RevocationType = share == nil ? .fullRefund : .proratedRefund
        if let share, !(1..<Transaction.fullRevocationPercentage).contains(share) {
            throw TipJarError.invalidValue(field: "revocationPercentage", reason: "a prorated refund takes 1 to 99999 milliunits of a percent")
        }
        let request = try await store.decideRefundRequest(transactionID: transactionID, as: .approved)
        event(
            request.installID, "refundRequest.approved", "Refund request for transaction \(transactionID) approved.",
            ["transactionID": "\(transactionID)", "decidedBy": decidedBy])
        let refunded: StoredTransaction
        do {
            refunded = try await store.refund(transactionID: transactionID, reason: request.revocationReason, type: type, percentage: share)
        } catch TipJarError.alreadyRefunded {
            return (request, nil)
        }
        let reason = request.revocationReason.rawValue
        var attributes = ["transactionID": "\(transactionID)", "reason": reason, "revocationType": type.rawValue, "refundRequest": decidedBy]
        if let share { attributes["revocationPercentage"] = "\(share)" }
        event(
            refunded.installID, "refund",
            "Refunded transaction \(transactionID) (\(reason), \(type.rawValue)\(share.map { ", \($0) milliunits" } ?? "")): refund request approved.",
            attributes)
        return (request, try await deliverThroughListener(refunded))
    }

    /// A refund request declined: nothing reaches the app.
    /// - Returns: the request as decided.
    /// - Throws: `TipJarError.refundRequestNotFound`, `.refundRequestNotPending`.
    @discardableResult
    public func declineRefundRequest(transactionID: UInt64, decidedBy: String = "store") async throws -> RefundRequest {
        let request = try await store.decideRefundRequest(transactionID: transactionID, as: .declined)
        event(
            request.installID, "refundRequest.declined", "Refund request for transaction \(transactionID) declined; nothing delivered.",
            ["transactionID": "\(transactionID)", "decidedBy": decidedBy])
        return request
    }

    /// Consumption information received from the developer's server for `transactionID` (Send Consumption Information,
    /// https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information; `json` the request
    /// body as saved): with `refundRequestDecision` `consumptionInformation` and a pending refund request, the
    /// request is decided now as ``refundDecision(_:)`` reads the body: declined, granted in full, or granted as a
    /// prorated refund of the share not consumed.
    /// - Returns: the decision made, or `nil` when none was.
    @discardableResult
    public func consumptionInformationReceived(transactionID: UInt64, json: String) async throws -> RefundRequest.State? {
        guard store.settings.refundRequestDecision == .consumptionInformation,
            let request = try await records.refundRequest(transactionID: transactionID), request.state == .pending
        else { return nil }
        do {
            let decision = Self.refundDecision(json)
            guard case .grant(let share) = decision else {
                try await declineRefundRequest(transactionID: transactionID, decidedBy: "consumptionInformation")
                return .declined
            }
            try await approveRefundRequest(transactionID: transactionID, decidedBy: "consumptionInformation", share: share)
            return .approved
        } catch TipJarError.refundRequestNotPending {
            return nil  // Decided meanwhile on /store: the dashboard's decision stands.
        }
    }

    /// What consumption information asks the App Store to do with a refund request.
    enum RefundDecision: Equatable {
        /// Grant it: in full (`nil`), or the share in milliunits of a percent (a prorated refund).
        case grant(share: Int?)
        /// Decline it.
        case decline
    }

    /// The decision consumption information asks for: a decline for ``prefersDecline(_:)``; for `refundPreference`
    /// `GRANT_PRORATED` ("a prorated refund", https://developer.apple.com/documentation/appstoreserverapi/refundpreference)
    /// the share not consumed, `100000 - consumptionPercentage` ("the percentage, in milliunits, of the In-App
    /// Purchase the customer consumed", https://developer.apple.com/documentation/appstoreserverapi/consumptionpercentage),
    /// which is a full refund when nothing was consumed and a decline when everything was (nothing is left to refund);
    /// Apple does not say how it prorates, nor what `GRANT_PRORATED` without `consumptionPercentage` means: this grants
    /// it in full. Anything else grants in full.
    static func refundDecision(_ json: String?) -> RefundDecision {
        if prefersDecline(json) { return .decline }
        guard let json, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
            object["refundPreference"] as? String == "GRANT_PRORATED", let consumed = object["consumptionPercentage"] as? Int,
            (0...Transaction.fullRevocationPercentage).contains(consumed)
        else { return .grant(share: nil) }
        let share = Transaction.fullRevocationPercentage - consumed
        if share == 0 { return .decline }
        return .grant(share: share == Transaction.fullRevocationPercentage ? nil : share)
    }

    /// Whether consumption information asks for a decline: `refundPreference` `"DECLINE"` (Send Consumption
    /// Information) or `2`, "Prefer decline" (v1's `refundPreferenceV1`,
    /// https://developer.apple.com/documentation/appstoreserverapi/refundpreferencev1).
    static func prefersDecline(_ json: String?) -> Bool {
        guard let json, let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return false }
        if let text = object["refundPreference"] as? String { return text == "DECLINE" }
        // The v1 body was checked to hold an integer from 0 to 3.
        if let number = object["refundPreference"] as? Int { return number == 2 }
        return false
    }
}
