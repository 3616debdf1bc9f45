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
    /// and the last dot written into one string (every transaction answered and every notification sent is one).
    static func unsecured(json: [UInt8]) -> String {
        let header = encodedUnsecuredHeader.utf8
        return json.withUnsafeBytes { payload in
            String(unsafeUninitializedCapacity: header.count + encodedCount(payload.count) + 2) { buffer in
                var count = 0
                for byte in header {
                    buffer[count] = byte
                    count += 1
                }
                buffer[count] = UInt8(ascii: ".")
                count += 1
                count += encode(payload, into: UnsafeMutableBufferPointer(rebasing: buffer[count...]))
                buffer[count] = UInt8(ascii: ".")
                return count + 1
            }
        }
    }

    /// ``unsecuredHeader`` in base64url, encoded once.
    static let encodedUnsecuredHeader = base64URL(Data(unsecuredHeader.utf8))

    /// base64url without padding (RFC 7515 §2, RFC 4648 §5). Foundation writes only base64 (§4), whose `+`, `/` and
    /// padding a JWS may not hold; writing the URL alphabet at once spares a pass over the bytes to swap them.
    static func base64URL(_ data: Data) -> String {
        data.withUnsafeBytes { bytes in String(unsafeUninitializedCapacity: encodedCount(bytes.count)) { encode(bytes, into: $0) } }
    }

    /// How many characters base64url without padding writes for `count` bytes: four for each three, two or three for
    /// the one or two left.
    private static func encodedCount(_ count: Int) -> Int {
        let left = count % 3
        return count / 3 * 4 + (left == 0 ? 0 : left + 1)
    }

    /// RFC 4648 §5's alphabet ("The "URL and Filename safe" Base 64 Alphabet").
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Writes `bytes` into `buffer` in base64url without padding: each 24 bits as four 6-bit indexes into the alphabet,
    /// most significant first (RFC 4648 §4, §5). - Returns: the characters written (``encodedCount(_:)``).
    private static func encode(_ bytes: UnsafeRawBufferPointer, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        alphabet.withUnsafeBufferPointer { alphabet in
            var count = 0
            var index = 0
            while index + 3 <= bytes.count {
                let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                buffer[count] = alphabet[Int(group >> 18)]
                buffer[count + 1] = alphabet[Int(group >> 12 & 0x3F)]
                buffer[count + 2] = alphabet[Int(group >> 6 & 0x3F)]
                buffer[count + 3] = alphabet[Int(group & 0x3F)]
                count += 4
                index += 3
            }
            let left = bytes.count - index
            if left > 0 {
                let group = UInt32(bytes[index]) << 16 | (left == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                buffer[count] = alphabet[Int(group >> 18)]
                buffer[count + 1] = alphabet[Int(group >> 12 & 0x3F)]
                count += 2
                if left == 2 {
                    buffer[count] = alphabet[Int(group >> 6 & 0x3F)]
                    count += 1
                }
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
