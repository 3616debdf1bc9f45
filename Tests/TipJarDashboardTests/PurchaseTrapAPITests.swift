import Foundation
import TestSupport
import Testing
import TipJar

/// The purchase traps through the JSON API (Public/scenarios/README.md, "Rehearse these StoreKit traps"): each set up with `PUT /api/store`
/// as a script would, its outcome read back from the purchase answer, the ledger and the transaction list. Late
/// deliveries wait at a ``DelayGate``.
@Suite("Purchase traps, JSON API")
struct PurchaseTrapAPITests {
    static let coffee = "com.example.tipjar.tip.coffee"

    func runningInstall(_ server: LiveServer) async throws -> String {
        let reply = await server.json("POST", "/api/installs", #"{"locale":"en","storefront":"USA","launch":true}"#)
        #expect(reply.status == 201)
        return try #require(reply.object["id"] as? String)
    }

    func put(_ server: LiveServer, _ body: String) async {
        let reply = await server.json("PUT", "/api/store", body)
        #expect(reply.status == 200, "PUT /api/store \(body): \(reply.body)")
    }

    func buy(_ server: LiveServer, _ id: String) async -> HTTPReply {
        await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
    }

    func ledger(_ server: LiveServer, _ id: String) async -> [[String: Any]] {
        await server.json("GET", "/api/installs/\(id)/ledger").array
    }

    @Test func theFiveTrapSettingsRoundTripAndAreOffByDefault() async throws {
        try await withLiveServer { server in
            let before = await server.json("GET", "/api/store").object
            for key in ["interruptedPurchases", "finishIgnored", "chargedDespiteError", "syncReplaysFinished"] {
                #expect(before[key] as? Bool == false, "\(key)")
            }
            #expect(before["listenerReemitDelayMs"] as? Int == 0)
            await put(server, #"{"interruptedPurchases":true,"finishIgnored":true,"chargedDespiteError":true,"syncReplaysFinished":true,"listenerReemitDelayMs":60000}"#)
            let after = await server.json("GET", "/api/store").object
            for key in ["interruptedPurchases", "finishIgnored", "chargedDespiteError", "syncReplaysFinished"] {
                #expect(after[key] as? Bool == true, "\(key)")
            }
            #expect(after["listenerReemitDelayMs"] as? Int == 60000)
        }
    }

    @Test(arguments: [
        #"{"interruptedPurchases":1}"#, #"{"finishIgnored":"yes"}"#, #"{"chargedDespiteError":null}"#,
        #"{"syncReplaysFinished":0}"#, #"{"listenerReemitDelayMs":60001}"#, #"{"listenerReemitDelayMs":-1}"#,
        #"{"listenerReemitDelayMs":1.5}"#, #"{"listenerReemitDelayMs":true}"#, #"{"listenerReemitDelayMs":"100"}"#,
    ])
    func aBadTrapValueIs400AndChangesNothing(_ body: String) async throws {
        try await withLiveServer { server in
            let before = await server.json("GET", "/api/store").body
            let reply = await server.json("PUT", "/api/store", body)
            #expect(reply.status == 400)
            let key = try #require(body.split(separator: "\"").dropFirst().first)
            #expect((reply.object["error"] as? String)?.contains(key) == true, "the message names the field")
            #expect(await server.json("GET", "/api/store").body == before)
        }
    }

    @Test func anInterruptedPurchaseFailsWithThePurchaseErrorAndResolvingItDeliversANewTransactionThroughTheListener() async throws {
        try await withLiveServer { server in
            await put(server, #"{"interruptedPurchases":true,"purchaseError":"purchaseNotAllowed"}"#)
            let id = try await runningInstall(server)
            let purchase = await buy(server, id)
            #expect(purchase.status == 200)
            #expect(purchase.object["outcome"] as? String == "failed")
            #expect(purchase.object["errorName"] as? String == "purchaseNotAllowed")
            #expect(purchase.object["hearts"] as? Int == 0)
            let listed = await server.json("GET", "/api/transactions?installID=\(id)&status=interrupted").object
            let rows = try #require(listed["transactions"] as? [[String: Any]])
            #expect(rows.count == 1)
            #expect(rows.first?["status"] as? String == "interrupted")
            let transactionID = try #require(rows.first?["transactionID"] as? Int)
            #expect(await server.json("GET", "/api/store/pending").array.isEmpty, "not waiting for Ask to Buy")
            #expect(await server.json("POST", "/api/store/pending/\(transactionID)/approve").status == 404, "no Ask to Buy request")

            let resolved = await server.json("POST", "/api/store/interrupted/\(transactionID)/resolve")
            #expect(resolved.status == 200)
            #expect(resolved.object["transactionID"] as? Int != transactionID, "a new transaction")
            #expect(resolved.object["status"] as? String == "purchased")
            #expect(resolved.object["delivered"] as? Bool == true)
            #expect(resolved.object["outcome"] as? String == "counted")
            let rowsAfter = await ledger(server, id)
            #expect(rowsAfter.map { $0["path"] as? String } == ["listener"])
            #expect(rowsAfter.map { $0["note"] as? String } == ["interruptionResolved"])
            #expect(rowsAfter.map { $0["reason"] as? String } == ["interrupted purchase resolved"])
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 1)

            let newID = try #require(resolved.object["transactionID"] as? Int)
            let again = await server.json("POST", "/api/store/interrupted/\(newID)/resolve")
            #expect(again.status == 409)
            #expect((again.object["error"] as? String)?.contains("not an interrupted purchase") == true)
            #expect(await server.json("POST", "/api/store/interrupted/\(transactionID)/resolve").status == 409, "resolved once")
            #expect(await server.json("POST", "/api/store/interrupted/999999/resolve").status == 404)
            #expect(await server.json("POST", "/api/store/interrupted/abc/resolve").status == 404)
            #expect(await server.json("GET", "/api/transactions?status=interruptedd").status == 400)
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 1)
        }
    }

    @Test func withFinishIgnoredTheSecondPurchaseReturnsTheSameTransactionAsADuplicate() async throws {
        try await withLiveServer { server in
            await put(server, #"{"finishIgnored":true}"#)
            let id = try await runningInstall(server)
            let first = await buy(server, id)
            let second = await buy(server, id)
            #expect(first.object["recordOutcome"] as? String == "counted")
            #expect(second.object["recordOutcome"] as? String == "duplicate")
            #expect(second.object["transactionID"] as? Int == first.object["transactionID"] as? Int)
            #expect(second.object["hearts"] as? Int == 1)
            let rows = await ledger(server, id)
            #expect(rows.map { $0["outcome"] as? String } == ["counted", "duplicate"])
            #expect(rows.map { $0["finished"] as? Bool } == [false, false])
            #expect(rows.map { $0["reason"] as? String } == ["finish() was ignored", "purchase() returned the unfinished transaction: no new charge"])
            let transaction = await server.json("GET", "/api/transactions/\(first.object["transactionID"] as? Int ?? 0)").object
            #expect(transaction["isFinished"] as? Bool == false)
        }
    }

    @Test func chargedDespiteAnErrorFailsThenTheListenerCountsItOnce() async throws {
        let gate = DelayGate()
        try await withLiveServer(sleep: gate.sleep) { server in
            await put(server, #"{"chargedDespiteError":true,"purchaseError":"networkError"}"#)
            let id = try await runningInstall(server)
            let purchase = await buy(server, id)
            #expect(purchase.status == 200)
            #expect(purchase.object["outcome"] as? String == "failed")
            #expect(purchase.object["errorName"] as? String == "networkError")
            #expect(purchase.object["hearts"] as? Int == 0)
            let listed = await server.json("GET", "/api/transactions?installID=\(id)").object["transactions"] as? [[String: Any]] ?? []
            #expect(listed.map { $0["status"] as? String } == ["purchased"], "the store created the transaction")
            #expect(listed.map { $0["isFinished"] as? Bool } == [false])
            #expect(await ledger(server, id).isEmpty)
            await gate.untilSomeoneWaits()
            #expect(gate.requested == [.milliseconds(StoreSettings.lateDeliveryDelayMs)])
            gate.open()
            #expect(await eventually { await ledger(server, id).count == 1 })
            let rows = await ledger(server, id)
            #expect(rows.map { $0["path"] as? String } == ["listener"])
            #expect(rows.map { $0["outcome"] as? String } == ["counted"])
            #expect(rows.map { $0["reason"] as? String } == ["charged although purchase() threw"])
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 1)
            let retry = await buy(server, id)
            #expect(retry.object["outcome"] as? String == "failed")
            #expect(retry.object["hearts"] as? Int == 1)
            let all = await server.json("GET", "/api/transactions?installID=\(id)").object["transactions"] as? [[String: Any]] ?? []
            #expect(all.count == 2, "a retry is a separate transaction")
        }
    }

    @Test func restoreReplaysAFinishedTransactionAsARestoreDuplicate() async throws {
        try await withLiveServer { server in
            let id = try await runningInstall(server)
            _ = await buy(server, id)
            await put(server, #"{"syncReplaysFinished":true}"#)
            #expect(await server.json("POST", "/api/installs/\(id)/restore").status == 200)
            let rows = await ledger(server, id)
            #expect(rows.map { "\($0["path"] as? String ?? "") \($0["outcome"] as? String ?? "")" } == ["purchase counted", "restore duplicate"])
            #expect(rows.last?["reason"] as? String == "AppStore.sync() replayed a finished transaction")
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 1)
        }
    }

    @Test func reemitsLaterArriveAfterThePurchaseAnsweredWithTheirDelay() async throws {
        let gate = DelayGate()
        try await withLiveServer(sleep: gate.sleep) { server in
            await put(server, #"{"listenerReemits":2,"listenerReemitDelayMs":2500}"#)
            let id = try await runningInstall(server)
            let purchase = await buy(server, id)
            #expect(purchase.object["recordOutcome"] as? String == "counted")
            #expect(await ledger(server, id).count == 1, "the purchase answered before the re-emits")
            await gate.untilSomeoneWaits()
            #expect(gate.requested == [.milliseconds(2500)])
            gate.open()
            #expect(await eventually { await ledger(server, id).count == 3 })
            let rows = await ledger(server, id)
            #expect(rows.map { $0["outcome"] as? String } == ["counted", "duplicate", "duplicate"])
            #expect(rows.map { $0["reason"] as? String } == [nil, "re-emitted after the purchase answered", "re-emitted after the purchase answered"])
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 1)
        }
    }
}
