import Foundation
import TestSupport
import Testing
import TipJar

/// The JSON API over a real socket.
@Suite("JSON API")
struct JSONAPITests {
    static let coffee = "com.example.tipjar.tip.coffee"

    func createInstall(_ server: LiveServer, _ body: String = #"{"locale":"en","storefront":"USA","legacyHasTipped":false}"#) async throws -> String {
        let reply = await server.json("POST", "/api/installs", body)
        #expect(reply.status == 201)
        return try #require(reply.object["id"] as? String)
    }

    @Test func createInstallThenPurchaseThenReadTheLedger() async throws {
        try await withLiveServer { server in
            let created = await server.json("POST", "/api/installs", #"{"locale":"en","storefront":"USA","legacyHasTipped":false}"#)
            #expect(created.status == 201)
            #expect(created["Content-Type"] == "application/json; charset=utf-8")
            #expect(created.object["locale"] as? String == "en")
            #expect(created.object["storefront"] as? String == "USA")
            #expect(created.object["hearts"] as? Int == 0)
            #expect(created.object["legacyHasTipped"] as? Bool == false)
            let id = try #require(created.object["id"] as? String)

            let offers = await server.json("GET", "/api/installs/\(id)/offers")
            #expect(offers.object["state"] as? String == "ready")
            let tiles = try #require(offers.object["offers"] as? [[String: Any]])
            #expect(tiles.map { $0["name"] as? String } == ["Coffee", "Snack", "Lunch"])
            #expect(tiles.map { $0["displayPrice"] as? String } == ["$0.99", "$2.99", "$4.99"])
            #expect(tiles.map { $0["emoji"] as? String } == ["☕", "🥐", "🍱"])

            let purchase = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            #expect(purchase.status == 200)
            #expect(purchase.object["outcome"] as? String == "purchased")
            #expect(purchase.object["hearts"] as? Int == 1)
            let transactionID = try #require(purchase.object["transactionID"] as? Int)

            let ledger = await server.json("GET", "/api/installs/\(id)/ledger")
            #expect(ledger.array.count == 1)
            #expect(ledger.array.first?["transactionID"] as? Int == transactionID)
            #expect(ledger.array.first?["path"] as? String == "purchase")
            #expect(ledger.array.first?["outcome"] as? String == "counted")
            #expect(ledger.array.first?["finished"] as? Bool == true)
            #expect((ledger.array.first?["at"] as? String)?.hasSuffix("Z") == true)

            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 1)
        }
    }

    @Test func unknownInstallIs404AndUnknownProductIs422() async throws {
        try await withLiveServer { server in
            let missing = await server.json("GET", "/api/installs/no-such-install")
            #expect(missing.status == 404)
            #expect(missing.object["error"] is String)
            let id = try await createInstall(server)
            let unknown = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"com.example.nope"}"#)
            #expect(unknown.status == 422)
        }
    }

    @Test func secondPurchaseWhileOneIsOpenIs409() async throws {
        // The first purchase waits out its latency at the gate, so it is open while the second one arrives.
        let gate = DelayGate()
        try await withLiveServer(settings: StoreSettings(purchaseLatencyMs: 700), sleep: gate.sleep) { server in
            let id = try await createInstall(server)
            async let first = server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            await gate.untilSomeoneWaits()
            #expect(gate.requested == [.milliseconds(700)])
            let second = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            #expect(second.status == 409)
            gate.open()
            #expect(await first.status == 200)
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 1)
        }
    }

    @Test func storeSettingsRoundTripAndFailedPurchaseCarriesTheMessage() async throws {
        try await withLiveServer { server in
            let put = await server.json(
                "PUT", "/api/store",
                #"{"catalog":"normal","latencyMs":0,"purchaseOutcome":"failed","purchaseError":"notEntitled","failures":{"verification":null}}"#)
            #expect(put.status == 200)
            #expect(put.object["purchaseOutcome"] as? String == "failed")
            #expect(await server.json("GET", "/api/store").object["purchaseError"] as? String == "notEntitled")
            let id = try await createInstall(server, #"{"locale":"pt-BR","storefront":"BRA"}"#)
            let purchase = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            #expect(purchase.object["outcome"] as? String == "failed")
            #expect(purchase.object["error"] as? String == StoreKitError.notEntitled.message(locale: .ptBR))
            #expect(purchase.object["transactionID"] == nil)
        }
    }

    @Test(arguments: [
        #"{"catalog":"sometimes"}"#, #"{"latencyMs":-1}"#, #"{"latencyMs":60001}"#, #"{"latencyMs":true}"#,
        #"{"purchaseOutcome":3}"#, #"{"failures":{"sync":"flood"}}"#, #"{"failures":[]}"#, #"{"surprise":1}"#, #"[1,2]"#, #"{"catalog":"#,
    ])
    func badStoreSettingsAre400AndChangeNothing(_ body: String) async throws {
        try await withLiveServer { server in
            let before = await server.json("GET", "/api/store").body
            let reply = await server.json("PUT", "/api/store", body)
            #expect(reply.status == 400)
            #expect(reply.object["error"] is String)
            #expect(await server.json("GET", "/api/store").body == before)
        }
    }

    @Test(arguments: ["", "{", #"{"locale":"fr"}"#, #"{"storefront":"XYZ"}"#, #"{"legacyHasTipped":"yes"}"#, #"{"label":"\#(String(repeating: "x", count: 101))"}"#])
    func badNewInstallBodiesAre400(_ body: String) async throws {
        try await withLiveServer { server in
            let reply = await server.send("POST", "/api/installs", fields: [("Content-Type", "application/json")], body: body)
            #expect(reply.status == 400)
            #expect(reply.object["error"] is String)
        }
    }

    @Test func askToBuyApprovalReachesTheListener() async throws {
        try await withLiveServer(settings: StoreSettings(purchaseOutcome: .pending)) { server in
            let id = try await createInstall(server, #"{"locale":"en","launch":true}"#)
            let purchase = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            #expect(purchase.object["outcome"] as? String == "pending")
            let pending = await server.json("GET", "/api/store/pending").array
            #expect(pending.count == 1)
            #expect(pending.first?["installID"] as? String == id)
            let requestID = try #require(pending.first?["requestID"] as? Int)
            let approved = await server.json("POST", "/api/store/pending/\(requestID)/approve")
            #expect(approved.status == 200)
            #expect(approved.object["outcome"] as? String == "counted")
            #expect(approved.object["transactionID"] as? Int != requestID, "approval issues the transaction under its own ID")
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 1)
            #expect(await server.json("GET", "/api/installs/\(id)/ledger").array.first?["path"] as? String == "listener")
        }
    }

    /// A pending Ask to Buy request is no transaction: Apple issues none until approval
    /// (https://developer.apple.com/documentation/storekit/product/purchaseresult/pending).
    @Test func aPendingAskToBuyRequestHasNoTransactionInTheAPIAndNoJWSPayload() async throws {
        try await withLiveServer(settings: StoreSettings(askToBuyEnabled: true)) { server in
            let id = try await createInstall(server, #"{"locale":"en","launch":true}"#)
            for _ in 0..<2 {
                let purchase = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
                #expect(purchase.object["outcome"] as? String == "pending")
                #expect(purchase.object["transactionID"] == nil || purchase.object["transactionID"] is NSNull)
            }
            let pending = await server.json("GET", "/api/store/pending").array
            #expect(pending.count == 1, "the second request was consolidated")
            let request = try #require(pending.first)
            #expect(request["requestedAgain"] as? Int == 1)
            #expect(request["jwsPayload"] == nil && request["transactionID"] == nil)
            let requestID = try #require(request["requestID"] as? Int)
            let listed = await server.json("GET", "/api/transactions").object["transactions"] as? [[String: Any]]
            #expect(listed?.isEmpty == true)
            // One answer for a request ID on every /api/transactions/{id} method: it is no transaction.
            let answers = [
                await server.json("GET", "/api/transactions/\(requestID)"), await server.json("DELETE", "/api/transactions/\(requestID)"),
                await server.json("POST", "/api/transactions/\(requestID)/refund", #"{"reason":"other"}"#),
            ]
            #expect(answers.map(\.status) == [404, 404, 404] && Set(answers.map(\.body)).count == 1, "\(answers.map(\.body))")
            #expect(await server.json("GET", "/api/store/pending").array.count == 1, "the request is still waiting")
            #expect(await server.json("GET", "/api/transactions?format=csv").body.split(separator: "\n").count <= 1)
            let approved = await server.json("POST", "/api/store/pending/\(requestID)/approve")
            let transactionID = try #require(approved.object["transactionID"] as? Int)
            #expect(approved.object["jwsPayload"] != nil)
            #expect((await server.json("GET", "/api/transactions").object["transactions"] as? [[String: Any]])?.map { $0["transactionID"] as? Int } == [transactionID])
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 1)
        }
    }

    @Test func refundKeepsTheHeartAndShowsInTheLedger() async throws {
        try await withLiveServer { server in
            let id = try await createInstall(server)
            let purchase = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            let transactionID = try #require(purchase.object["transactionID"] as? Int)
            let refund = await server.json("POST", "/api/transactions/\(transactionID)/refund", #"{"reason":"developerIssue"}"#)
            #expect(refund.status == 200)
            #expect(refund.object["revocationReason"] as? Int == 1, "StoreKit's rawValue for developerIssue")
            #expect(refund.object["outcome"] as? String == "revoked")
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 1)
            #expect(await server.json("GET", "/api/installs/\(id)/ledger").array.map { $0["outcome"] as? String } == ["counted", "revoked"])
        }
    }

    @Test func stoppedInstallGetsAnExternalPurchaseAtItsNextLaunch() async throws {
        try await withLiveServer { server in
            let id = try await createInstall(server, #"{"locale":"en","launch":true}"#)
            #expect(await server.json("POST", "/api/installs/\(id)/stop").object["isRunning"] as? Bool == false)
            let external = await server.json("POST", "/api/installs/\(id)/external-purchases", #"{"productID":"com.example.tipjar.tip.lunch"}"#)
            #expect(external.status == 201)
            #expect(external.object["delivered"] as? Bool == false)
            let launched = await server.json("POST", "/api/installs/\(id)/launch")
            #expect(launched.object["hearts"] as? Int == 1)
            #expect(await server.json("GET", "/api/installs/\(id)/ledger").array.first?["path"] as? String == "launch")
        }
    }

    @Test func restoreWithSyncFailureIsAnErrorAndWithoutItReturnsTheInstall() async throws {
        try await withLiveServer(settings: StoreSettings(failures: .init(sync: .networkError))) { server in
            let id = try await createInstall(server)
            let failed = await server.json("POST", "/api/installs/\(id)/restore")
            #expect(failed.status == 503)
            #expect(failed.object["storeKitError"] as? String == "networkError")
            _ = await server.json("PUT", "/api/store", #"{"failures":{"sync":null}}"#)
            let restored = await server.json("POST", "/api/installs/\(id)/restore")
            #expect(restored.status == 200)
            #expect(restored.object["id"] as? String == id)
        }
    }

    @Test func legacyInstallMigratesAtLaunch() async throws {
        try await withLiveServer { server in
            let id = try await createInstall(server, #"{"locale":"en","storefront":"USA","legacyHasTipped":true}"#)
            #expect(await server.json("GET", "/api/installs/\(id)").object["legacyHasTipped"] as? Bool == true)
            let launched = await server.json("POST", "/api/installs/\(id)/launch")
            #expect(launched.object["hearts"] as? Int == 1)
            #expect(launched.object["legacyHasTipped"] as? Bool == false)
        }
    }

    @Test func emptyCatalogOffersAreUnavailableWithAMessage() async throws {
        try await withLiveServer(settings: StoreSettings(catalog: .empty)) { server in
            let id = try await createInstall(server)
            let offers = await server.json("GET", "/api/installs/\(id)/offers")
            #expect(offers.object["state"] as? String == "unavailable")
            #expect(offers.object["message"] as? String == "No tips are available right now.")
        }
    }
}

/// Found by a fresh-eyes review: numbers a client sends never reach unchecked arithmetic.
@Suite("Hostile query values")
struct HostileQueryTests {
    @Test(arguments: ["9223372036854775807", "-9223372036854775808", "99999999999999999999", "1e99", "-1", "0", "abc"])
    func anyPageNumberIsAnsweredAndTheServerKeepsServing(_ page: String) async throws {
        try await withLiveServer { server in
            // The API refuses a page outside 1...1,000,000 naming it, as /api/transactions does; the page clamps it.
            for path in ["/api/installs?page=\(page)", "/api/installs?pageSize=\(page)&page=\(page)"] {
                let reply = await server.send("GET", path)
                #expect(reply.status == 400, "\(path) answered \(reply.status)")
                #expect((reply.object["error"] as? String)?.hasPrefix("page must be a whole number") == true, "\(reply.body)")
            }
            #expect(await server.send("GET", "/installs?page=\(page)").status == 200)
            #expect(await server.json("GET", "/api/store").status == 200, "still serving")
        }
    }
}
