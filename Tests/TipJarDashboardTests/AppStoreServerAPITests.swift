import Foundation
import HTTPServer
import TestSupport
import Testing
import TipJar

@testable import TipJarDashboard

/// The App Store Server API under `/inApps/` (Sources/TipJarDashboard/README.md, "App Store Server API";
/// https://developer.apple.com/documentation/appstoreserverapi), the transactions' unsecured JWS and the store setting
/// `environment`. Apple's own library judges the same routes in Tests/ServerAPI/check_server_api.py.
@Suite("App Store Server API")
struct AppStoreServerAPITests {
    static let coffee = "com.example.tipjar.tip.coffee"

    /// base64url without padding (RFC 7515 §2).
    static func part(_ data: Data) -> String { CompactJWS.base64URL(data) }

    /// An `Authorization` field with a JWT of Apple's shape ("Generating JSON Web Tokens for API requests"), its claims
    /// changed by `claims` (`NSNull` removes one); the signature is 64 bytes of anything, as it is not verified.
    static func bearer(_ claims: [String: Any] = [:], header: [String: Any] = [:]) -> (String, String) {
        let now = Int(Date().timeIntervalSince1970)
        var body: [String: Any] = ["iss": "issuer", "iat": now, "exp": now + 600, "aud": "appstoreconnect-v1", "bid": "com.example.tipjar"]
        var head: [String: Any] = ["alg": "ES256", "kid": "KEYID12345", "typ": "JWT"]
        for (key, value) in claims { body[key] = value is NSNull ? nil : value }
        for (key, value) in header { head[key] = value is NSNull ? nil : value }
        let encoded = [head, body].map { part(try! JSONSerialization.data(withJSONObject: $0)) }
        return ("Authorization", "Bearer " + encoded.joined(separator: ".") + "." + part(Data(repeating: 1, count: 64)))
    }

    static func buy(_ server: LiveServer, account: String = "ana", count: Int = 1) async throws -> [Int] {
        let install = try #require(await server.json("POST", "/api/installs", #"{"accountID":"\#(account)","launch":true}"#).object["id"] as? String)
        var ids: [Int] = []
        for _ in 0..<count {
            let reply = await server.json("POST", "/api/installs/\(install)/purchases", #"{"productID":"\#(coffee)"}"#)
            ids.append(try #require(reply.object["transactionID"] as? Int))
        }
        return ids
    }

    static func decode(_ part: Substring) throws -> [String: Any] {
        let data = try #require(CompactJWS.decodeBase64URL(part))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// RFC 7515 §7.1 and Appendix A.5: three base64url parts without padding, the header `{"alg":"none"}`, an empty
    /// signature, and the payload exactly the transaction's `jwsPayload`.
    @Test func aTransactionsJWSIsUnsecuredCompactAndItsPayloadIsTheJWSPayload() async throws {
        try await withLiveServer { server in
            let id = try #require(try await Self.buy(server).first)
            let transaction = await server.json("GET", "/api/transactions/\(id)").object
            let jws = try #require(transaction["jwsRepresentation"] as? String)
            let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
            #expect(parts.count == 3 && parts[2].isEmpty && !jws.contains("="))
            #expect(try Self.decode(parts[0]) as NSDictionary == ["alg": "none"])
            #expect(try Self.decode(parts[1]) as NSDictionary == transaction["jwsPayload"] as? NSDictionary)
            #expect(transaction["orderID"] as? String == "M\(id)")
            let page = await server.send("GET", "/transactions/\(id)").body
            #expect(page.contains(#"<pre class="jws-text" id="jws" tabindex="0" aria-labelledby="jws-title">\#(jws)</pre>"#), "the page shows the JWS without script")
        }
    }

    /// Apple stamps `environment` on each signed transaction: a change of the setting applies to new transactions only.
    @Test func theEnvironmentIsStampedWhenTheTransactionIsIssued() async throws {
        try await withLiveServer { server in
            let before = try #require(try await Self.buy(server).first)
            #expect(await server.json("PUT", "/api/store", #"{"environment":"LocalTesting"}"#).object["environment"] as? String == "LocalTesting")
            let after = try #require(try await Self.buy(server, account: "bo").first)
            let old = await server.json("GET", "/api/transactions/\(before)").object
            let new = await server.json("GET", "/api/transactions/\(after)").object
            #expect(old["environment"] as? String == "Xcode" && (old["jwsPayload"] as? [String: Any])?["environment"] as? String == "Xcode")
            #expect(new["environment"] as? String == "LocalTesting" && (new["jwsPayload"] as? [String: Any])?["environment"] as? String == "LocalTesting")
            #expect(await server.json("PUT", "/api/store", #"{"environment":"Sandbox"}"#).status == 400, "only Xcode and LocalTesting")
        }
    }

    /// Every route needs a bearer JWT of Apple's shape; a wrong one is a 401 with the Bearer challenge, over a socket.
    @Test func aRequestWithoutAJWTOfApplesShapeIsRefusedWith401() async throws {
        try await withLiveServer(transport: .live) { server in
            let id = try #require(try await Self.buy(server).first)
            let path = "/inApps/v1/transactions/\(id)"
            let wrong: [(String, String)?] = [
                nil, Self.bearer(["aud": "nope"]), Self.bearer(["bid": "com.example.other"]), Self.bearer(["exp": 1]),
                Self.bearer(["exp": Int(Date().timeIntervalSince1970) + 7_200]), Self.bearer(header: ["alg": "none"]),
                Self.bearer(header: ["kid": NSNull()]), ("Authorization", "Bearer a.b"),
            ]
            for field in wrong {
                let reply = await server.send("GET", path, fields: field.map { [$0] } ?? [])
                #expect(reply.status == 401, "\(String(describing: field))")
                #expect(reply["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
            }
            let good = await server.send("GET", path, fields: [Self.bearer(["iat": NSNull()])])
            #expect(good.status == 200, "a token without iat, as Apple's library sends it")
            #expect(good.object["signedTransactionInfo"] as? String == (await server.json("GET", "/api/transactions/\(id)").object["jwsRepresentation"] as? String))
        }
    }

    /// With `--admin-token` the routes still need it, in the `tipjar_admin` cookie, since `Authorization` holds the JWT.
    @Test func withAnAdminTokenTheRoutesTakeItAsTheCookieBesideTheJWT() async throws {
        let token = "0123456789abcdef0123456789abcdef"
        try await withLiveServer(adminToken: token) { server in
            let path = "/inApps/v1/transactions/999999"
            let refused = await server.send("GET", path, fields: [Self.bearer()])
            #expect(refused.status == 401 && (refused.object["errorMessage"] as? String)?.contains("tipjar_admin cookie") == true)
            let answered = await server.send("GET", path, fields: [Self.bearer(), ("Cookie", "tipjar_admin=\(token)")])
            #expect(answered.status == 404 && answered.object["errorCode"] as? Int == 4_040_010)
        }
    }

    /// Apple's error body and codes: 4000006 for an ID that is not a number, 4040010 for one the store does not keep,
    /// as `Content-Type: application/json` exactly (Apple's library reads a code from that media type only).
    @Test func anUnknownTransactionIsApplesNotFoundAndANonNumberApplesInvalidID() async throws {
        try await withLiveServer { server in
            let missing = await server.send("GET", "/inApps/v1/transactions/999999", fields: [Self.bearer()])
            #expect(missing.status == 404 && missing.object["errorCode"] as? Int == 4_040_010)
            #expect(missing["Content-Type"] == "application/json")
            for id in ["abc", "+1", "-1", "1.0"] {
                let invalid = await server.send("GET", "/inApps/v2/history/\(id)", fields: [Self.bearer()])
                #expect(invalid.status == 400 && invalid.object["errorCode"] as? Int == 4_000_006, "\(id)")
            }
            let order = await server.send("GET", "/inApps/v1/lookup/M999999", fields: [Self.bearer()])
            #expect(order.status == 200 && order.object["status"] as? Int == 1)
        }
    }

    /// Get Transaction History v2 answers 20 per page; the revision continues after the page's last transaction.
    @Test func theHistoryPagesByTwentyAndTheRevisionContinuesWhereThePageEnded() async throws {
        try await withLiveServer { server in
            let ids = try await Self.buy(server, count: 23)
            let first = await server.send("GET", "/inApps/v2/history/\(ids[0])", fields: [Self.bearer()]).object
            #expect((first["signedTransactions"] as? [String])?.count == 20 && first["hasMore"] as? Bool == true)
            #expect(first["bundleId"] as? String == "com.example.tipjar" && first["environment"] as? String == "Xcode")
            let revision = try #require(first["revision"] as? String)
            let second = await server.send("GET", "/inApps/v2/history/\(ids[0])?revision=\(revision)", fields: [Self.bearer()]).object
            #expect((second["signedTransactions"] as? [String])?.count == 3 && second["hasMore"] as? Bool == false)
            let all = ((first["signedTransactions"] as? [String]) ?? []) + ((second["signedTransactions"] as? [String]) ?? [])
            let seen = try all.map { try Self.decode($0.split(separator: ".", omittingEmptySubsequences: false)[1])["transactionId"] as? String }
            #expect(seen == ids.map { String($0) }, "every purchase once, oldest first")
        }
    }

    /// Send Consumption Information refuses a wrong field with Apple's code for it, then stores the body it accepts.
    @Test func consumptionInformationIsCheckedFieldByFieldThenStored() async throws {
        try await withLiveServer { server in
            let id = try #require(try await Self.buy(server).first)
            let path = "/inApps/v2/transactions/consumption/\(id)"
            let json = ("Content-Type", "application/json")
            let wrongBody = #"{"customerConsented":true,"sampleContentProvided":"no","deliveryStatus":"DELIVERED"}"#
            let wrong = await server.send("PUT", path, fields: [Self.bearer(), json], body: wrongBody)
            #expect(wrong.status == 400 && wrong.object["errorCode"] as? Int == 4_000_041)
            let body = #"{"customerConsented":true,"sampleContentProvided":false,"deliveryStatus":"DELIVERED","consumptionPercentage":50000}"#
            #expect(await server.send("PUT", path, fields: [Self.bearer(), json], body: body).status == 202)
            #expect(try await server.storage.transaction(withID: UInt64(id))?.consumptionInfo == body)
            #expect(await server.send("GET", "/transactions/\(id)").body.contains("consumptionPercentage&quot;:50000"), "the page shows it")
        }
    }

    /// Before the database is open, `/inApps/` answers 503 in Apple's shape, `GeneralInternalRetryableError`.
    @Test func whileStartingTheServerAPIAnswersApplesRetryableError() async throws {
        let request = try HTTPRequest(
            method: "GET", decoding: "/inApps/v1/transactions/1", fields: ["Host": "127.0.0.1"], body: [],
            remoteAddress: "127.0.0.1", requestID: "test")
        let response = await StartUpGate().respond(to: request)
        #expect(response.status == .serviceUnavailable && response.fields["Content-Type"] == "application/json")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(body["errorCode"] as? Int == 5_000_001)
    }

    /// The token's rules, read as Apple's library writes its token: no `iat`, `exp` five minutes ahead.
    @Test func aTokenWithoutIatMayLiveAtMostAnHourFromNow() throws {
        let now: Int64 = 1_800_000_000
        func token(_ claims: [String: Any]) -> String { Self.bearer(claims).1 }
        #expect(throws: Never.self) { try AppStoreServerAPIToken.check(token(["iat": NSNull(), "exp": now + 300]), bundleID: "com.example.tipjar", now: now) }
        #expect(throws: AppStoreServerAPIToken.Refusal.self) {
            try AppStoreServerAPIToken.check(token(["iat": NSNull(), "exp": now + 3_601]), bundleID: "com.example.tipjar", now: now)
        }
        #expect(throws: AppStoreServerAPIToken.Refusal.self) {
            try AppStoreServerAPIToken.check(token(["iat": now, "exp": now + 3_601]), bundleID: "com.example.tipjar", now: now)
        }
    }
}
