/// The outcome of checking a signed value's JWS signature, shaped like StoreKit 2's
/// `VerificationResult<SignedType>`.
///
/// The handler records only `.verified` transactions (README "Domain rules": Purchase); an `.unverified`
/// transaction is shown as an error and left unfinished.
public enum VerificationResult<SignedType: Sendable>: Sendable {
    /// The signature checked out.
    case verified(SignedType)
    /// The signature failed to verify, for the given reason.
    case unverified(SignedType, VerificationError)

    /// The signed value, whether or not it verified (StoreKit's `unsafePayloadValue`).
    public var unsafePayloadValue: SignedType {
        switch self {
        case .verified(let value), .unverified(let value, _): value
        }
    }

    /// Why verification failed, or `nil` when it succeeded.
    public var verificationError: VerificationError? {
        if case .unverified(_, let error) = self { return error }
        return nil
    }
}

extension VerificationResult: Equatable where SignedType: Equatable {}
