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

    /// The unsecured JWS of a payload already written as JSON (``SortedJSONObject``): the header, the dot, the payload
    /// and the last dot written into one string, Foundation's base64 made base64url on the way (every transaction
    /// answered and every notification sent is one).
    static func unsecured(json: [UInt8]) -> String {
        let base64 = Data(json).base64EncodedData()
        let header = encodedUnsecuredHeader.utf8
        return String(unsafeUninitializedCapacity: header.count + base64.count + 2) { buffer in
            var count = 0
            for byte in header {
                buffer[count] = byte
                count += 1
            }
            buffer[count] = UInt8(ascii: ".")
            count += 1
            count += urlSafe(base64, into: UnsafeMutableBufferPointer(rebasing: buffer[count...]))
            buffer[count] = UInt8(ascii: ".")
            return count + 1
        }
    }

    /// ``unsecuredHeader`` in base64url, encoded once.
    static let encodedUnsecuredHeader = base64URL(Data(unsecuredHeader.utf8))

    /// base64url without padding (RFC 7515 §2, RFC 4648 §5): Foundation's base64 with `+` and `/` swapped for `-` and
    /// `_` and the padding dropped, written straight into the string.
    static func base64URL(_ data: Data) -> String {
        let base64 = data.base64EncodedData()
        return String(unsafeUninitializedCapacity: base64.count) { urlSafe(base64, into: $0) }
    }

    /// Writes `base64` (RFC 4648 §4) into `buffer` as base64url without padding (§5). - Returns: the bytes written.
    private static func urlSafe(_ base64: Data, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        base64.withUnsafeBytes { source in
            var count = 0
            for byte in source {
                switch byte {
                case UInt8(ascii: "+"): buffer[count] = UInt8(ascii: "-")
                case UInt8(ascii: "/"): buffer[count] = UInt8(ascii: "_")
                case UInt8(ascii: "="): return count  // padding comes only at the end
                default: buffer[count] = byte
                }
                count += 1
            }
            return count
        }
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
