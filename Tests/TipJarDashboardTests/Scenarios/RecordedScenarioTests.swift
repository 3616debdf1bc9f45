import Foundation
import Testing
import TipJarScenario

/// `GET /api/installs/{id}/scenario`: the steps taken on an install, with the outcomes seen as
/// expectations, replay to the same hearts and ledger on a fresh database.
@Suite("recorded scenarios")
struct RecordedScenarioTests {
    static let coffee = "com.example.tipjar.tip.coffee", snack = "com.example.tipjar.tip.snack", lunch = "com.example.tipjar.tip.lunch"

    /// The ledger without its IDs and times: what a replay must reproduce.
    static func ledgerShape(_ server: LiveServer, _ id: String) async -> [String] {
        await server.json("GET", "/api/installs/\(id)/ledger").array.map {
            "\($0["path"] ?? "") \($0["outcome"] ?? "") \($0["finished"] ?? "") \($0["productID"] ?? "")"
        }
    }

    @Test func aRecordedScenarioReplaysToTheSameHeartsAndLedgerOnAFreshDatabase() async throws {
        let (recorded, hearts, ledger) = try await withLiveServer { server in
            let store = { (patch: String) async in #expect(await server.json("PUT", "/api/store", patch).status == 200, "\(patch)") }
            await store(#"{"listenerReemits":1}"#)
            let created = await server.json("POST", "/api/installs", #"{"accountID":"ana","legacyHasTipped":true,"label":"=HYPERLINK(\"x\")","launch":true}"#)
            let id = try #require(created.object["id"] as? String)
            let purchase = { (product: String) async in await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(product)"}"#) }
            let coffee = await purchase(Self.coffee)
            await store(#"{"listenerReemits":0,"purchaseOutcome":"pending"}"#)
            _ = await purchase(Self.snack)
            _ = await purchase(Self.lunch)
            let pending = await server.json("GET", "/api/store/pending").array.compactMap { $0["requestID"] as? Int }
            #expect(pending.count == 2)
            #expect(await server.json("POST", "/api/store/pending/\(pending.max()!)/approve").status == 200)
            #expect(await server.json("POST", "/api/store/pending/\(pending.min()!)/decline").status == 200)
            await store(#"{"purchaseOutcome":"failed","purchaseError":"networkError"}"#)
            #expect(await purchase(Self.coffee).object["errorName"] as? String == "networkError")
            await store(#"{"purchaseOutcome":"success"}"#)
            #expect(await server.json("POST", "/api/installs/\(id)/external-purchases", #"{"productID":"com.example.tipjar.tip.dessert"}"#).status == 201)
            #expect(await server.json("POST", "/api/transactions/\(coffee.object["transactionID"] as? Int ?? 0)/refund", #"{"reason":"developerIssue"}"#).status == 200)
            #expect(await server.json("POST", "/api/installs/\(id)/stop").status == 200)
            #expect(await server.json("POST", "/api/installs/\(id)/external-purchases", #"{"productID":"\#(Self.lunch)"}"#).status == 201)
            #expect(await server.json("POST", "/api/installs/\(id)/launch").status == 200)
            await store(#"{"crashBeforeFinish":true}"#)
            _ = await purchase(Self.snack)
            await store(#"{"crashBeforeFinish":false,"failures":{"verification":"invalidSignature","sync":null}}"#)
            _ = await purchase(Self.snack)
            await store(#"{"failures":{"verification":null,"sync":"networkError"}}"#)
            #expect(await server.json("POST", "/api/installs/\(id)/restore").status == 503)
            await store(#"{"failures":{"sync":null}}"#)
            #expect(await server.json("POST", "/api/installs/\(id)/restore").status == 200)

            let recorded = await server.send("GET", "/api/installs/\(id)/scenario")
            #expect(recorded.status == 200, "\(recorded.body)")
            #expect(recorded["Content-Disposition"] == "attachment; filename=\"scenario-\(id).json\"")
            let hearts = (await server.json("GET", "/api/installs/\(id)")).object["hearts"] as? Int
            return (recorded, hearts, await Self.ledgerShape(server, id))
        }
        #expect(ledger.count >= 10)

        let scenario = try Scenario(data: Data(recorded.body.utf8), file: "recorded.json")
        try await withLiveServer { fresh in
            let result = await ScenarioRunner(transport: fresh.stack.scenarioTransport, output: { _ in })
                .run(scenario, file: "recorded.json")
            #expect(result.passed, "\(result.firstFailure?.line ?? "")\n\(recorded.body)")
            let replayed = await fresh.json("GET", "/api/installs?pageSize=10").object["installs"] as? [[String: Any]] ?? []
            #expect(replayed.count == 1)
            let replayedID = replayed.first?["id"] as? String ?? ""
            #expect(replayed.first?["hearts"] as? Int == hearts)
            #expect(await Self.ledgerShape(fresh, replayedID) == ledger)
        }
    }

    /// Refund requests from the app (Sources/TipJar/README.md, "Refund requests from the app") are recorded as the
    /// steps that made them: refundRequest, approveRefund, declineRefund; one decided by the setting as its request.
    @Test func recordedRefundRequestsReplayAsTheRequestsAndTheStoresDecisions() async throws {
        let (recorded, ledger) = try await withLiveServer { server in
            let id = try #require(await server.json("POST", "/api/installs", #"{"accountID":"ana","launch":true}"#).object["id"] as? String)
            let tip = { (product: String) async in await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(product)"}"#).object["transactionID"] as? Int ?? 0 }
            let request = { (tid: Int, body: String) async in await server.json("POST", "/api/installs/\(id)/transactions/\(tid)/refund-request", body).status }
            let coffee = await tip(Self.coffee), snack = await tip(Self.snack)
            #expect(await request(coffee, #"{"userAction":"cancel"}"#) == 200)
            #expect(await request(coffee, #"{"userAction":"submit","reason":"developerIssue"}"#) == 200)
            #expect(await request(coffee, #"{"userAction":"submit"}"#) == 409)
            #expect(await server.json("POST", "/api/store/refund-requests/\(coffee)/approve").status == 200)
            #expect(await request(snack, #"{"userAction":"submit"}"#) == 200)
            #expect(await server.json("POST", "/api/store/refund-requests/\(snack)/decline").status == 200)
            #expect(await server.json("PUT", "/api/store", #"{"refundRequestDecision":"approve"}"#).status == 200)
            let lunch = await tip(Self.lunch)
            #expect(await request(lunch, #"{"userAction":"submit"}"#) == 200)
            let recorded = await server.send("GET", "/api/installs/\(id)/scenario")
            #expect(recorded.status == 200, "\(recorded.body)")
            return (recorded.body, await Self.ledgerShape(server, id))
        }
        #expect(recorded.contains("approveRefund") && recorded.contains("declineRefund"), "\(recorded)")
        let scenario = try Scenario(data: Data(recorded.utf8), file: "recorded.json")
        try await withLiveServer { fresh in
            let result = await ScenarioRunner(transport: fresh.stack.scenarioTransport, output: { _ in }).run(scenario, file: "recorded.json")
            #expect(result.passed, "\(result.firstFailure?.line ?? "")\n\(recorded)")
            let replayed = await fresh.json("GET", "/api/installs?pageSize=10").object["installs"] as? [[String: Any]] ?? []
            #expect(await Self.ledgerShape(fresh, replayed.first?["id"] as? String ?? "") == ledger)
            #expect(await fresh.json("GET", "/api/store/refund-requests").array.compactMap { $0["state"] as? String } == ["approved", "declined", "approved"])
        }
    }

    @Test func aRecordingStatesTheOutcomesAsExpectations() async throws {
        let recorded = try await withLiveServer { server in
            let id = try #require(await server.json("POST", "/api/installs", #"{"launch":true}"#).object["id"] as? String)
            _ = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            return await server.send("GET", "/api/installs/\(id)/scenario")
        }
        let scenario = try Scenario(data: Data(recorded.body.utf8), file: "recorded.json")
        #expect(scenario.steps.map(\.type.name) == ["store", "createInstall", "relaunch", "purchase"])
        let purchase = try #require(scenario.steps.last)
        #expect(purchase.expect.outcome == "purchased")
        #expect(purchase.expect.errorName == .null)
        #expect(purchase.expect.hearts == 1)
        #expect(
            purchase.expect.ledger == [
                ScenarioExpectation.LedgerRow(
                    path: "purchase", outcome: "counted", finished: true,
                    productID: Self.coffee, transaction: "t1")
            ])
    }

    @Test func aTransactionOfAnotherInstallOnTheAccountIsRefusedWithTheReason() async throws {
        let recorded = try await withLiveServer { server in
            try await server.service.updateStore(.init(crashBeforeFinish: true))
            let first = try #require(await server.json("POST", "/api/installs", #"{"accountID":"ana","launch":true}"#).object["id"] as? String)
            _ = await server.json("POST", "/api/installs/\(first)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            try await server.service.updateStore(.normal)
            let second = try #require(await server.json("POST", "/api/installs", #"{"accountID":"ana","launch":true}"#).object["id"] as? String)
            return await server.send("GET", "/api/installs/\(second)/scenario")
        }
        #expect(recorded.status == 409)
        #expect((recorded.object["error"] as? String)?.contains("another install on the same account") == true)
    }

    @Test func anInstallWhoseCreationLeftTheTimelineIsRefusedWithTheReason() async throws {
        let recorded = try await withLiveServer { server in
            let id = try #require(await server.json("POST", "/api/installs", "{}").object["id"] as? String)
            for _ in 0..<50 { _ = await server.json("POST", "/api/installs/\(id)/stop") }
            return await server.send("GET", "/api/installs/\(id)/scenario")
        }
        #expect(recorded.status == 409)
        #expect((recorded.object["error"] as? String)?.contains("creation is no longer on the timeline") == true)
    }

    @Test func anUnknownInstallHasNoScenario() async throws {
        try await withLiveServer { server in
            #expect(await server.send("GET", "/api/installs/nope/scenario").status == 404)
        }
    }
}
