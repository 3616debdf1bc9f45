import Foundation

/// A refund request the customer sent from the app with `Transaction.beginRefundRequest(in:)`
/// (https://developer.apple.com/documentation/storekit/transaction/beginrefundrequest(in:)-4w6kn), as the simulated
/// App Store keeps it: one per transaction, whatever became of it, since Apple's `duplicateRequest` is thrown "if the
/// App Store has previously received a refund request for this transaction and the refund decision is still pending,
/// has been previously denied, or has been previously approved"
/// (https://developer.apple.com/documentation/storekit/transaction/refundrequesterror). "The App Store takes up to 48
/// hours to either approve or deny a refund" (the same `beginRefundRequest` page): here the store's
/// `refundRequestDecision` setting or the dashboard decides.
public struct RefundRequest: Sendable, Equatable {
    /// Where the request stands.
    public enum State: String, Sendable, Codable, CaseIterable {
        /// Received; no decision yet.
        case pending
        /// Approved: the transaction was refunded and the revocation delivered.
        case approved
        /// Declined: nothing is delivered.
        case declined
    }

    /// What the customer did on the refund sheet.
    public enum UserAction: String, Sendable, Codable, CaseIterable {
        /// Submitted the request.
        case submit
        /// Cancelled the sheet (`Transaction.RefundRequestStatus.userCancelled`).
        case cancel
    }

    /// The transaction it asks to refund (the request's key).
    public var transactionID: UInt64
    /// The install the app asked from.
    public var installID: String
    /// The Apple Account that owns the transaction.
    public var accountID: String
    /// The transaction's product.
    public var productID: String
    /// When the App Store received it.
    public var requestedAt: Date
    /// The reason the customer chose on the sheet, if any: `developerIssue` ("the app had a problem") or `other`.
    public var reason: Transaction.RevocationReason?
    /// Where it stands.
    public var state: State
    /// When it was approved or declined.
    public var decidedAt: Date?

    /// Creates a request.
    public init(
        transactionID: UInt64, installID: String, accountID: String, productID: String, requestedAt: Date,
        reason: Transaction.RevocationReason?, state: State = .pending, decidedAt: Date? = nil
    ) {
        self.transactionID = transactionID
        self.installID = installID
        self.accountID = accountID
        self.productID = productID
        self.requestedAt = requestedAt
        self.reason = reason
        self.state = state
        self.decidedAt = decidedAt
    }

    /// The revocation reason an approval refunds with: `developerIssue` when the customer said the app had a problem,
    /// else `other`.
    public var revocationReason: Transaction.RevocationReason { reason == .developerIssue ? .developerIssue : .other }
}

extension Transaction {
    /// `Transaction.RefundRequestStatus` (https://developer.apple.com/documentation/storekit/transaction/refundrequeststatus):
    /// "The refund request status reflects the status of the request, not the status of the refund itself."
    public enum RefundRequestStatus: String, Sendable, Codable, CaseIterable {
        /// "The App Store has received the refund request."
        case success
        /// The customer cancelled the refund sheet.
        case userCancelled
    }

    /// `Transaction.RefundRequestError` (https://developer.apple.com/documentation/storekit/transaction/refundrequesterror),
    /// in its declaration order, which `current.index` follows (`StoreKitSettingsDecoder.refundRequestErrors`).
    public enum RefundRequestError: String, Error, Sendable, Codable, CaseIterable, LocalizedMessage {
        /// A request for this transaction was already received (pending, denied or approved).
        case duplicateRequest
        /// The request could not be made.
        case failed

        /// The alert text in `en` and `pt-BR`.
        public func message(locale: AppLocale) -> String {
            switch (self, locale) {
            case (.duplicateRequest, .en): "A refund was already requested for this purchase."
            case (.duplicateRequest, .ptBR): "Já foi pedido um reembolso para esta compra."
            case (.failed, .en): "The refund request could not be sent. Try again later."
            case (.failed, .ptBR): "Não foi possível enviar o pedido de reembolso. Tente novamente mais tarde."
            }
        }
    }
}

/// An error `Transaction.beginRefundRequest(in:)` can be made to throw (the store setting `failures.refundRequest`,
/// Xcode's "Refund Request Sheet"): `SKTestFailures.RefundRequest` has `generic(StoreKitError)` and
/// `refundRequest(Transaction.RefundRequestError)`
/// (https://developer.apple.com/documentation/storekittest/sktestfailures/refundrequest). No name is in both, so one
/// string names the error.
public struct RefundRequestFailure: RawRepresentable, Hashable, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// The error's case name, e.g. `networkError` or `failed`.
    public let rawValue: String

    /// The failure named `rawValue`, or `nil` when neither error type has a case of that name.
    public init?(rawValue: String) {
        guard StoreKitError(rawValue: rawValue) != nil || Transaction.RefundRequestError(rawValue: rawValue) != nil else { return nil }
        self.rawValue = rawValue
    }

    /// The `StoreKitError` of the same name.
    public init(_ error: StoreKitError) { rawValue = error.rawValue }

    /// The `Transaction.RefundRequestError` of the same name.
    public init(_ error: Transaction.RefundRequestError) { rawValue = error.rawValue }

    /// Every `StoreKitError`, then every `Transaction.RefundRequestError`.
    public static let allCases: [RefundRequestFailure] =
        StoreKitError.allCases.map(RefundRequestFailure.init) + Transaction.RefundRequestError.allCases.map(RefundRequestFailure.init)

    /// The error to throw.
    public var error: any Error & LocalizedMessage & Sendable {
        if let error = StoreKitError(rawValue: rawValue) { return error }
        return Transaction.RefundRequestError(rawValue: rawValue) ?? StoreKitError.unknown
    }

    /// `StoreKitError` or `Transaction.RefundRequestError`, for labels on `/store`.
    public var typeName: String { StoreKitError(rawValue: rawValue) != nil ? "StoreKitError" : "Transaction.RefundRequestError" }

    /// The case name.
    public var description: String { rawValue }
}
