/// What one tap on a tip tile came to, for the page and the JSON API.
public struct PurchaseReport: Sendable, Equatable {
    /// The purchase's outcome as the API names it.
    public enum Outcome: String, Sendable, Codable {
        /// Verified and recorded: the thank-you shows.
        case purchased
        /// The store charged, but verification failed: an alert, nothing recorded.
        case unverified
        /// The person cancelled: no error, buttons enabled again.
        case cancelled
        /// Ask to Buy: a pending notice.
        case pending
        /// The store threw: a modal alert with the localized message.
        case failed
    }

    /// The outcome.
    public var outcome: Outcome
    /// The transaction, when one exists (purchased or unverified).
    public var transactionID: UInt64?
    /// How the handler recorded it, when it did.
    public var recordOutcome: RecordOutcome?
    /// The install's hearts after the purchase.
    public var hearts: Int
    /// Whether this purchase added a heart (false at five hearts, or for a duplicate).
    public var addedHeart: Bool = false
    /// The install's locale, for the alert text.
    public var locale: AppLocale = .en
    /// The thrown store error, for `.failed`.
    public var error: (any Error & LocalizedMessage & Sendable)?
    /// The verification error, for `.unverified`.
    public var verificationError: VerificationError?

    /// The error's stable name, e.g. `networkError`, for the JSON API.
    public var errorName: String? {
        if let error { return String(describing: error) }
        return verificationError?.rawValue
    }

    /// Creates a report.
    public init(
        outcome: Outcome, transactionID: UInt64? = nil, recordOutcome: RecordOutcome? = nil, hearts: Int,
        addedHeart: Bool = false, error: (any Error & LocalizedMessage & Sendable)? = nil,
        verificationError: VerificationError? = nil
    ) {
        self.addedHeart = addedHeart
        self.outcome = outcome
        self.transactionID = transactionID
        self.recordOutcome = recordOutcome
        self.hearts = hearts
        self.error = error
        self.verificationError = verificationError
    }

    /// Compares everything but the error's identity (its name is compared instead).
    public static func == (lhs: PurchaseReport, rhs: PurchaseReport) -> Bool {
        lhs.outcome == rhs.outcome && lhs.transactionID == rhs.transactionID && lhs.recordOutcome == rhs.recordOutcome
            && lhs.hearts == rhs.hearts && lhs.errorName == rhs.errorName
    }
}
