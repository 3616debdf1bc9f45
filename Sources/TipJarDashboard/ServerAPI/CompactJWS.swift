import Foundation

/// A JSON Web Signature in its compact serialization (RFC 7515 §7.1: `header.payload.signature`, each part
/// base64url without padding, RFC 7515 §2), as StoreKit's `VerificationResult.jwsRepresentation` and the App Store
/// Server API's signed transactions are written.
///
/// The dashboard holds no Apple signing key and no crypto library, so its JWS is honestly **unsecured** (RFC 7515
/// Appendix A.5, "Example Unsecured JWS"): the header is `{"alg":"none"}` and the signature part is empty. Nothing can
/// verify it, and nothing should trust it: it stands for what Apple signs, so that a decoder written for Apple's
/// payload can be tested. Apple's App Store Server Library reads it in the `Xcode` and `LocalTesting` environments,
/// where its `SignedDataVerifier` skips verification ("Data is not signed by the App Store, and verification should
/// be skipped", `appstoreserverlibrary/signed_data_verifier.py`, https://github.com/apple/app-store-server-library-python)
/// and checks only the payload's `bundleId` and `environment`; it asks for no `x5c` header there. In `Sandbox` or
/// `Production` it would refuse it (no `x5c` chain, not ES256), as it should.
enum CompactJWS {
    /// The unsecured header, `{"alg":"none"}` (RFC 7515 Appendix A.5).
    static let unsecuredHeader = #"{"alg":"none"}"#

    /// `payload` as an unsecured compact JWS: the header, the payload's JSON (keys sorted, so the same transaction
    /// always reads the same) and an empty signature.
    static func unsecured(_ payload: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let json = (try? encoder.encode(payload)) ?? Data("{}".utf8)
        return encodedUnsecuredHeader + "." + base64URL(json) + "."
    }

    /// The unsecured JWS of a payload already written as JSON (``SortedJSONObject``).
    static func unsecured(json: [UInt8]) -> String {
        encodedUnsecuredHeader + "." + base64URL(Data(json)) + "."
    }

    /// ``unsecuredHeader`` in base64url, encoded once.
    static let encodedUnsecuredHeader = base64URL(Data(unsecuredHeader.utf8))

    /// base64url without padding (RFC 7515 §2, RFC 4648 §5): base64's bytes with `+` and `/` swapped for `-` and `_`
    /// and the padding dropped, in one pass over the bytes (a JWS is made for every transaction answered and every
    /// notification sent).
    static func base64URL(_ data: Data) -> String {
        var bytes = [UInt8](data.base64EncodedData())
        while bytes.last == UInt8(ascii: "=") { bytes.removeLast() }
        for index in bytes.indices {
            switch bytes[index] {
            case UInt8(ascii: "+"): bytes[index] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): bytes[index] = UInt8(ascii: "_")
            default: break
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes of a base64url part (padding optional), or `nil` when it is not base64url.
    static func decodeBase64URL(_ part: Substring) -> Data? {
        guard part.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard text.count % 4 != 1 else { return nil }
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text)
    }
}
