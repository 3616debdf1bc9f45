/// Why StoreKit could not verify a signed value; StoreKit's `VerificationResult.VerificationError`,
/// all six cases.
public enum VerificationError: String, Error, Sendable, Codable, CaseIterable {
    /// The certificate chain was invalid.
    case invalidCertificateChain
    /// The device verification properties did not match this device.
    case invalidDeviceVerification
    /// The JWS was not encoded correctly.
    case invalidEncoding
    /// The signature did not match.
    case invalidSignature
    /// Required properties were missing.
    case missingRequiredProperties
    /// A certificate in the chain was revoked.
    case revokedCertificate
}
