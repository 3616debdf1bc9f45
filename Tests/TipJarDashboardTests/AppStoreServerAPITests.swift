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
            let stored = #"{"consumptionPercentage":50000,"customerConsented":true,"deliveryStatus":"DELIVERED","sampleContentProvided":false}"#
            #expect(try await server.storage.transaction(withID: UInt64(id))?.consumptionInfo == stored, "Apple's fields, re-encoded")
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

    /// The transaction IDs a page of a history answer holds, in order.
    static func ids(_ reply: HTTPReply) throws -> [String] {
        try ((reply.object["signedTransactions"] as? [String]) ?? []).map {
            try #require(try decode($0.split(separator: ".", omittingEmptySubsequences: false)[1])["transactionId"] as? String)
        }
    }

    /// Send Consumption Information keeps Apple's fields and nothing else: a body with members `ConsumptionRequest` or
    /// `ConsumptionRequestV1` does not define is refused with a 400 naming them (a thousand of them named by five and
    /// a count), and nothing is stored.
    @Test func aConsumptionBodyWithMembersAppleDoesNotDefineIsRefusedNamingThemAndNothingIsStored() async throws {
        try await withLiveServer { server in
            let id = try #require(try await Self.buy(server).first)
            let json = ("Content-Type", "application/json")
            let padded = #"{"customerConsented":true,"sampleContentProvided":false,"deliveryStatus":"DELIVERED","note":"hi"}"#
            let refused = await server.send("PUT", "/inApps/v2/transactions/consumption/\(id)", fields: [Self.bearer(), json], body: padded)
            #expect(refused.status == 400 && refused.object["errorCode"] as? Int == 4_000_000)
            #expect((refused.object["errorMessage"] as? String)?.contains(#"ConsumptionRequest has no member "note""#) == true)
            let members = (0..<1_000).map { #""m\#($0)":"\#(String(repeating: "x", count: 1_000))""# }.joined(separator: ",")
            let flood = #"{"customerConsented":true,"sampleContentProvided":false,"deliveryStatus":"DELIVERED",\#(members)}"#
            let flooded = await server.send("PUT", "/inApps/v2/transactions/consumption/\(id)", fields: [Self.bearer(), json], body: flood)
            let message = try #require(flooded.object["errorMessage"] as? String)
            #expect(flooded.status == 400 && message.hasSuffix("and 995 more.") && message.utf8.count < 300, "\(message)")
            let v1 =
                #"{"customerConsented":true,"consumptionStatus":0,"platform":1,"sampleContentProvided":false,"deliveryStatus":0,"appAccountToken":"","#
                + #""accountTenure":0,"playTime":0,"lifetimeDollarsRefunded":0,"lifetimeDollarsPurchased":0,"userStatus":0,"extra":1}"#
            let refusedV1 = await server.send("PUT", "/inApps/v1/transactions/consumption/\(id)", fields: [Self.bearer(), json], body: v1)
            #expect(refusedV1.status == 400 && (refusedV1.object["errorMessage"] as? String)?.contains(#"ConsumptionRequestV1 has no member "extra""#) == true)
            #expect(try await server.storage.transaction(withID: UInt64(id))?.consumptionInfo == nil)
        }
    }

    /// Get Transaction History v1 leaves out finished consumables that are not refunded ("The results don't include
    /// consumable in-app purchases that the app marks as finished"); v2 lists them.
    @Test func historyV1LeavesOutFinishedConsumablesUnlessRefunded() async throws {
        try await withLiveServer { server in
            let ids = try await Self.buy(server, count: 3)
            #expect(await server.json("POST", "/api/transactions/\(ids[1])/refund", #"{"reason":"other"}"#).status == 200)
            #expect(await server.json("PUT", "/api/store", #"{"finishIgnored":true}"#).status == 200)
            let unfinished = try #require(try await Self.buy(server, account: "ana").first)
            let v1 = await server.send("GET", "/inApps/v1/history/\(ids[0])", fields: [Self.bearer()])
            let listed = Set(try Self.ids(v1))
            #expect(v1.status == 200 && listed == [String(ids[1]), String(unfinished)])
            let v2 = await server.send("GET", "/inApps/v2/history/\(ids[0])", fields: [Self.bearer()])
            #expect(Set(try Self.ids(v2)) == Set((ids + [unfinished]).map { String($0) }))
        }
    }

    /// Finish Transaction finishes the transaction as the app's `finish()` would: the next launch no longer delivers it
    /// from `Transaction.unfinished`; finishing again changes nothing; an unknown ID is 4040010.
    @Test func finishTransactionTakesTheTransactionOutOfTheAppsUnfinishedOnes() async throws {
        try await withLiveServer { server in
            #expect(await server.json("PUT", "/api/store", #"{"finishIgnored":true}"#).status == 200)
            let install = try #require(await server.json("POST", "/api/installs", #"{"accountID":"ana","launch":true}"#).object["id"] as? String)
            let bought = await server.json("POST", "/api/installs/\(install)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            let id = try #require(bought.object["transactionID"] as? Int)
            #expect(await server.json("PUT", "/api/store", #"{"finishIgnored":false}"#).status == 200)
            #expect(await server.json("GET", "/api/transactions/\(id)").object["isFinished"] as? Bool == false)
            let finished = await server.send("POST", "/inApps/v1/transactions/\(id)/finish", fields: [Self.bearer()])
            #expect(finished.status == 200)
            #expect(await server.json("GET", "/api/transactions/\(id)").object["isFinished"] as? Bool == true)
            let ledger = await server.json("GET", "/api/installs/\(install)/ledger").array
            #expect(ledger.count == 1)
            _ = await server.json("POST", "/api/installs/\(install)/stop")
            _ = await server.json("POST", "/api/installs/\(install)/launch")
            #expect(await server.json("GET", "/api/installs/\(install)/ledger").array.count == ledger.count, "nothing delivered at launch")
            #expect(await server.send("POST", "/inApps/v1/transactions/\(id)/finish", fields: [Self.bearer()]).status == 200, "again: the same answer")
            let unknown = await server.send("POST", "/inApps/v1/transactions/999999/finish", fields: [Self.bearer()])
            #expect(unknown.status == 404 && unknown.object["errorCode"] as? Int == 4_040_010)
        }
    }

    /// An `appTransactionId` names the customer where Apple takes "any transactionId, originalTransactionId, or
    /// appTransactionId" (history, refund history, app transaction info); Get Transaction Info, which takes a
    /// `transactionId`, answers `AppTransactionIdNotSupportedError` (4000048).
    @Test func anAppTransactionIDNamesTheCustomerWhereAppleTakesAnyID() async throws {
        try await withLiveServer { server in
            let ids = try await Self.buy(server, count: 2)
            _ = try await Self.buy(server, account: "bo")
            let payload = try #require(await server.json("GET", "/api/transactions/\(ids[0])").object["jwsPayload"] as? [String: Any])
            let appTransactionID = try #require(payload["appTransactionId"] as? String)
            let history = await server.send("GET", "/inApps/v2/history/\(appTransactionID)", fields: [Self.bearer()])
            let listed = try Self.ids(history)
            #expect(history.status == 200 && listed == ids.map { String($0) })
            #expect(await server.send("GET", "/inApps/v2/refund/lookup/\(appTransactionID)", fields: [Self.bearer()]).status == 200)
            let info = await server.send("GET", "/inApps/v1/transactions/appTransactions/\(appTransactionID)", fields: [Self.bearer()])
            let signed = try #require(info.object["signedAppTransactionInfo"] as? String)
            let app = try Self.decode(signed.split(separator: ".", omittingEmptySubsequences: false)[1])
            #expect(app["appTransactionId"] as? String == appTransactionID && app["bundleId"] as? String == "com.example.tipjar")
            #expect(app["receiptType"] as? String == "Xcode" && (app["originalPurchaseDate"] as? Int).map { $0 <= payload["purchaseDate"] as? Int ?? 0 } == true)
            let byTransaction = await server.send("GET", "/inApps/v1/transactions/appTransactions/\(ids[1])", fields: [Self.bearer()])
            let other = try #require(byTransaction.object["signedAppTransactionInfo"] as? String)
            #expect(try Self.decode(other.split(separator: ".", omittingEmptySubsequences: false)[1])["appTransactionId"] as? String == appTransactionID)
            let notSupported = await server.send("GET", "/inApps/v1/transactions/\(appTransactionID)", fields: [Self.bearer()])
            #expect(notSupported.status == 400 && notSupported.object["errorCode"] as? Int == 4_000_048)
            let nobody = await server.send("GET", "/inApps/v1/transactions/appTransactions/12345", fields: [Self.bearer()])
            #expect(nobody.status == 404 && nobody.object["errorCode"] as? Int == 4_040_010)
        }
    }

    /// Each environment is its own data set, as Apple's sandbox and production are: after the store switches to
    /// `LocalTesting`, an `Xcode` transaction is not found, by ID, in its account's history or its refunds, and the
    /// history lists only what was issued in `LocalTesting`.
    @Test func eachEnvironmentIsItsOwnDataSet() async throws {
        try await withLiveServer { server in
            let xcode = try await Self.buy(server, count: 2)
            #expect(await server.json("POST", "/api/transactions/\(xcode[1])/refund", #"{"reason":"other"}"#).status == 200)
            #expect(await server.json("PUT", "/api/store", #"{"environment":"LocalTesting"}"#).status == 200)
            let local = try await Self.buy(server, count: 1)
            for path in ["/inApps/v1/transactions/\(xcode[0])", "/inApps/v2/history/\(xcode[0])", "/inApps/v2/refund/lookup/\(xcode[1])"] {
                let reply = await server.send("GET", path, fields: [Self.bearer()])
                #expect(reply.status == 404 && reply.object["errorCode"] as? Int == 4_040_010, "\(path)")
            }
            #expect(await server.send("GET", "/inApps/v1/lookup/M\(xcode[0])", fields: [Self.bearer()]).object["status"] as? Int == 1)
            let history = await server.send("GET", "/inApps/v2/history/\(local[0])", fields: [Self.bearer()])
            let listed = try Self.ids(history)
            #expect(listed == local.map { String($0) } && history.object["environment"] as? String == "LocalTesting")
            let refunds = await server.send("GET", "/inApps/v2/refund/lookup/\(local[0])", fields: [Self.bearer()])
            #expect(try Self.ids(refunds).isEmpty, "the Xcode refund is not in LocalTesting's refund history")
            #expect(await server.json("PUT", "/api/store", #"{"environment":"Xcode"}"#).status == 200)
            #expect(try Self.ids(await server.send("GET", "/inApps/v2/history/\(xcode[0])", fields: [Self.bearer()])) == xcode.map { String($0) })
        }
    }

    /// Keyset paging: a transaction refunded between two pages moves to the end of the history (its `signedDate` is
    /// now), so the next page answers it once, and no transaction is skipped or repeated.
    @Test func aTransactionModifiedBetweenPagesIsAnsweredOnceAtItsNewPlace() async throws {
        try await withLiveServer { server in
            let ids = try await Self.buy(server, count: 25)
            let first = await server.send("GET", "/inApps/v2/history/\(ids[0])", fields: [Self.bearer()])
            #expect(try Self.ids(first) == ids.prefix(20).map { String($0) })
            #expect(await server.json("POST", "/api/transactions/\(ids[3])/refund", #"{"reason":"other"}"#).status == 200)
            let revision = try #require(first.object["revision"] as? String)
            let second = await server.send("GET", "/inApps/v2/history/\(ids[0])?revision=\(revision)", fields: [Self.bearer()])
            let listed = try Self.ids(second)
            #expect(listed == (ids.suffix(5) + [ids[3]]).map { String($0) } && second.object["hasMore"] as? Bool == false)
            let descending = await server.send("GET", "/inApps/v2/history/\(ids[0])?sort=DESCENDING", fields: [Self.bearer()])
            #expect(try Self.ids(descending).first == String(ids[3]), "newest modified first")
        }
    }

    /// Set App Account Token sets the purchase's `appAccountToken`, which its JWS carries from then on; a token that is
    /// not a UUID is `InvalidAppAccountTokenUUIDError` (4000183), a member Apple does not define a 400, and nothing
    /// changes on a refusal.
    @Test func setAppAccountTokenPutsTheTokenInTheTransactionsJWS() async throws {
        try await withLiveServer { server in
            let id = try #require(try await Self.buy(server).first)
            let path = "/inApps/v1/transactions/\(id)/appAccountToken"
            let json = ("Content-Type", "application/json")
            for body in [#"{"appAccountToken":"nope"}"#, #"{"appAccountToken":7}"#, "{}", #"{"appAccountToken":"3f9d2c4e8a1b4c7d9e2f5a6b7c8d9e0f"}"#] {
                let refused = await server.send("PUT", path, fields: [Self.bearer(), json], body: body)
                #expect(refused.status == 400 && refused.object["errorCode"] as? Int == 4_000_183, "\(body)")
            }
            let extra = await server.send("PUT", path, fields: [Self.bearer(), json], body: #"{"appAccountToken":"3F9D2C4E-8A1B-4C7D-9E2F-5A6B7C8D9E0F","x":1}"#)
            #expect(extra.status == 400 && extra.object["errorCode"] as? Int == 4_000_000)
            #expect(try await server.storage.transaction(withID: UInt64(id))?.transaction.appAccountToken == nil, "nothing changed")
            let set = await server.send("PUT", path, fields: [Self.bearer(), json], body: #"{"appAccountToken":"3F9D2C4E-8A1B-4C7D-9E2F-5A6B7C8D9E0F"}"#)
            #expect(set.status == 200)
            let signed = try #require(await server.send("GET", "/inApps/v1/transactions/\(id)", fields: [Self.bearer()]).object["signedTransactionInfo"] as? String)
            let payload = try Self.decode(signed.split(separator: ".", omittingEmptySubsequences: false)[1])
            #expect(payload["appAccountToken"] as? String == "3f9d2c4e-8a1b-4c7d-9e2f-5a6b7c8d9e0f")
            let unknown = await server.send(
                "PUT", "/inApps/v1/transactions/999999/appAccountToken", fields: [Self.bearer(), json],
                body: #"{"appAccountToken":"3F9D2C4E-8A1B-4C7D-9E2F-5A6B7C8D9E0F"}"#)
            #expect(unknown.status == 404 && unknown.object["errorCode"] as? Int == 4_040_010)
        }
    }

    /// The `appTransactionId` index is derived again when an account is added: an account that signs in after the
    /// first lookup is found by its identifier, and an identifier of nobody stays 4040010.
    @Test func anAccountAddedAfterTheFirstLookupIsFoundByItsAppTransactionID() async throws {
        try await withLiveServer { server in
            let ana = try #require(try await Self.buy(server, account: "ana").first)
            let anaApp = try #require(Transaction.appTransactionID(accountID: "ana", appBundleID: "com.example.tipjar"))
            #expect(try Self.ids(await server.send("GET", "/inApps/v2/history/\(anaApp)", fields: [Self.bearer()])) == [String(ana)])
            #expect(await server.send("GET", "/inApps/v2/history/42424242", fields: [Self.bearer()]).status == 404)
            let bo = try #require(try await Self.buy(server, account: "bo").first)
            let boApp = try #require(Transaction.appTransactionID(accountID: "bo", appBundleID: "com.example.tipjar"))
            #expect(try Self.ids(await server.send("GET", "/inApps/v2/history/\(boApp)", fields: [Self.bearer()])) == [String(bo)])
            #expect(await server.send("GET", "/inApps/v2/history/42424242", fields: [Self.bearer()]).status == 404)
        }
    }

    /// One app per bundle ID: a transaction another app's bundle ID is stamped on (the same database served before
    /// with another `--bundle-id`) is not found by ID, by order, nor listed in its account's history: Apple answers
    /// 4040010 for another app's transactions.
    @Test func anotherAppsTransactionIsNotFoundAndNotListed() async throws {
        try await withLiveServer { server in
            let own = try #require(try await Self.buy(server).first)
            let stored = try #require(try await server.storage.transaction(withID: UInt64(own)))
            var other = stored
            other.transaction.id = 900_001
            other.transaction.originalID = 900_001
            other.transaction.appBundleID = "com.other.app"
            try await server.storage.insert(other)
            let info = await server.send("GET", "/inApps/v1/transactions/900001", fields: [Self.bearer()])
            #expect(info.status == 404 && info.object["errorCode"] as? Int == 4_040_010)
            let history = await server.send("GET", "/inApps/v2/history/900001", fields: [Self.bearer()])
            #expect(history.status == 404 && history.object["errorCode"] as? Int == 4_040_010)
            let listed = try Self.ids(await server.send("GET", "/inApps/v2/history/\(own)", fields: [Self.bearer()]))
            #expect(listed == [String(own)], "the account's history holds this app's transaction only")
            #expect(await server.send("GET", "/inApps/v1/lookup/M900001", fields: [Self.bearer()]).object["status"] as? Int == 1)
        }
    }
}
