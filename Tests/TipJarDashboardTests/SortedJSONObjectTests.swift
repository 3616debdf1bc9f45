import Foundation
import Testing
import TipJar

@testable import TipJarDashboard

/// The payloads the dashboard signs are written by ``SortedJSONObject``; these hold their bytes equal to what
/// `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` writes for the same value, whatever members are set and
/// whatever characters their strings hold.
@Suite("Sorted JSON objects")
struct SortedJSONObjectTests {
    static func encoded(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// Every control character, the two that JSON escapes, a slash, non-ASCII and the line separators JSON leaves as they are.
    static let awkward = String((0..<0x20).map { Character(UnicodeScalar(UInt8($0))) }) + "\"\\/é\u{2028}\u{2029}\u{7F}😀 end"

    static func transaction() -> Transaction {
        Transaction(id: 42, productID: "com.example.tipjar.tip.coffee", purchaseDate: Date(timeIntervalSince1970: 1_700_000_000.123), storefront: "BRA")
    }

    @Test func aTransactionsPayloadIsTheEncodersBytesWithEveryMemberSetOrNone() throws {
        var full = APIModels.JWSTransactionPayload(Self.transaction())
        full.bundleID = "com.example.tipjar"
        full.type = "Consumable"
        full.appAccountToken = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")?.uuidString.lowercased()
        full.storefrontID = "143503"
        full.price = 4_990
        full.currency = "BRL"
        full.revocationDate = 1_700_000_100_000
        full.revocationReason = 1
        full.revocationType = "REFUND_PRORATED"
        full.revocationPercentage = 50_000
        full.appTransactionID = "704289572311684532"
        #expect(full.json == (try Self.encoded(full)))

        var bare = full
        (bare.bundleID, bare.type, bare.appAccountToken, bare.storefrontID, bare.price, bare.currency) = (nil, nil, nil, nil, nil, nil)
        (bare.revocationDate, bare.revocationReason, bare.revocationType, bare.revocationPercentage, bare.appTransactionID) = (nil, nil, nil, nil, nil)
        #expect(bare.json == (try Self.encoded(bare)))
        #expect(!String(decoding: bare.json, as: UTF8.self).contains("null"))

        var odd = full
        odd.productID = Self.awkward
        odd.storefront = Self.awkward
        odd.price = -1
        #expect(odd.json == (try Self.encoded(odd)))
        #expect(odd.jwsRepresentation == CompactJWS.unsecured(odd))
    }

    @Test func aNotificationsPayloadIsTheEncodersBytesWithOrWithoutItsOptionalMembers() throws {
        let data = APIModels.NotificationData(
            bundleId: "com.example.tipjar", environment: "Xcode",
            signedTransactionInfo: APIModels.JWSTransactionPayload(Self.transaction()).jwsRepresentation,
            consumptionRequestReason: "UNINTENDED_PURCHASE")
        var payload = APIModels.NotificationPayload(
            notificationType: "CONSUMPTION_REQUEST", subtype: "SUMMARY", notificationUUID: "0192a0ff-6a34-7c0e-9f0e-4a8b5d7e1c2f",
            data: data, signedDate: 1_700_000_000_123)
        #expect(payload.json == (try Self.encoded(payload)))

        payload.subtype = nil
        payload.data.signedTransactionInfo = nil
        payload.data.consumptionRequestReason = nil
        #expect(payload.json == (try Self.encoded(payload)))

        payload.data.bundleId = Self.awkward
        payload.notificationType = Self.awkward
        #expect(payload.json == (try Self.encoded(payload)))
    }

    /// RFC 4648 §10's test vectors in base64url without padding (§5, RFC 7515 §2), the two characters base64url swaps,
    /// and every length from 0 to 66 bytes (each count of padding) decoding back to its bytes.
    @Test func base64URLIsRFC4648sAlphabetWithoutPadding() throws {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (text, encoded) in vectors { #expect(CompactJWS.base64URL(Data(text.utf8)) == encoded) }
        #expect(CompactJWS.base64URL(Data([0xFB, 0xFF, 0xBF])) == "-_-_")
        for count in 0...66 {
            let bytes = Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 251) })
            let encoded = CompactJWS.base64URL(bytes)
            #expect(!encoded.contains { "+/=".contains($0) })
            #expect(CompactJWS.decodeBase64URL(Substring(encoded)) == bytes)
        }
        let jws = CompactJWS.unsecured(json: Array(#"{"x":">>>???"}"#.utf8))
        #expect(jws == "eyJhbGciOiJub25lIn0.eyJ4IjoiPj4-Pz8_In0.")
    }

    /// A purchase's answer: the same bytes with each optional member set or not, an error message of any characters,
    /// a transaction ID past `Int64.max`; and the response `JSONBody` makes of it is the one it makes of the encoder's.
    @Test func aPurchasesAnswerIsTheEncodersBytesWhateverItCarries() throws {
        let full = APIModels.PurchaseBody(
            outcome: "failed", transactionID: UInt64.max, hearts: 5, error: Self.awkward + "<script>&</script>",
            errorName: "networkError", recordOutcome: "duplicate")
        let bare = APIModels.PurchaseBody(outcome: "userCancelled", transactionID: nil, hearts: 0)
        let usual = APIModels.PurchaseBody(outcome: "purchased", transactionID: 1, hearts: 1, recordOutcome: "counted")
        for body in [full, bare, usual] {
            #expect(body.object.json == (try Self.encoded(body)))
            let written = JSONBody.response(body.object)
            let encoded = JSONBody.response(body)
            #expect(written.body == encoded.body && written.fields["Content-Type"] == encoded.fields["Content-Type"])
            #expect(!written.body.contains { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "&") })
        }
        let decoded = try JSONSerialization.jsonObject(with: Data(JSONBody.response(full.object).body)) as? [String: Any]
        #expect(decoded?["error"] as? String == full.error, "markup made inert is the same string")
        #expect(JSONBody.response(usual.object).body == Array(#"{"hearts":1,"outcome":"purchased","recordOutcome":"counted","transactionID":1}"#.utf8))
    }
}
