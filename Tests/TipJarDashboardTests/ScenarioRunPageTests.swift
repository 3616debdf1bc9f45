import Foundation
import TestSupport
import Testing
import TipJar

/// `/store`'s "Run" next to each shipped scenario: a form that posts with the CSRF token, runs the file
/// against this server through its JSON API, answers a page with every step's result, and puts the
/// store settings from before the run back.
@Suite("Scenario runs from /store")
struct ScenarioRunPageTests {
    static let trap1 = "trap-01-purchase-and-listener-report-the-same-transaction.json"

    func post(_ server: LiveServer, _ target: String, _ session: PageTests.Session, token: Bool = true) async -> HTTPReply {
        await server.send(
            "POST", target,
            fields: [
                ("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", session.cookie),
                ("Origin", server.origin), ("Sec-Fetch-Site", "same-origin"),
            ],
            body: token ? "csrfToken=\(session.token)" : "")
    }

    @Test func everyShippedScenarioHasARunFormWithTheCSRFToken() async throws {
        try await withLiveServer { server in
            let page = await server.send("GET", "/store")
            #expect(page.status == 200)
            let token = try #require(page.csrfToken)
            let shipped = try FileManager.default.contentsOfDirectory(atPath: LiveServer.repositoryRoot.appendingPathComponent("Public/scenarios").path)
                .filter { $0.hasSuffix(".json") }
            #expect(shipped.count >= 10)
            for file in shipped {
                #expect(
                    page.body.contains(#"<form method="post" action="/store/scenarios/\#(file)/run" class="inline"><input type="hidden" name="csrfToken" value="\#(token)">"#),
                    "a Run form for \(file)")
            }
            #expect(page.body.contains("its store steps change the store settings while it runs"))
        }
    }

    @Test func aRunShowsEveryStepHeldAndPutsTheStoreSettingsBack() async throws {
        try await withLiveServer { server in
            #expect(await server.json("PUT", "/api/store", #"{"latencyMs":1234,"listenerReemits":2}"#).status == 200)
            let before = await server.send("GET", "/api/store").body
            let session = try await PageTests().session(server)
            let result = await post(server, "/store/scenarios/\(Self.trap1)/run", session)
            #expect(result.status == 200)
            #expect(result.body.contains("Every step held."))
            #expect(result.body.contains(#"<tr class="step-passed"><td>1</td><td><code>store"#))
            #expect(result.body.contains(#"<tr class="step-passed"><td>3</td><td><code>purchase ana com.example.tipjar.tip.coffee</code></td><td>passed</td>"#))
            #expect(!result.body.contains("step-failed") && !result.body.contains("step-skipped"))
            #expect(await server.send("GET", "/api/store").body == before, "the settings from before the run are back")
            let transactions = await server.send("GET", "/api/transactions").object["transactions"] as? [[String: Any]] ?? []
            #expect(transactions.count == 1, "the run bought its coffee on this server")
            #expect((transactions.first?["accountID"] as? String)?.hasPrefix("ana") == true)
        }
    }

    static let shipped =
        ((try? FileManager.default.contentsOfDirectory(
            atPath: LiveServer.repositoryRoot
                .appendingPathComponent("Public/scenarios").path)) ?? []).filter { $0.hasSuffix(".json") }.sorted()

    @Test(arguments: shipped)
    func everyShippedScenarioHoldsWhenRunFromTheStorePage(_ file: String) async throws {
        try await withLiveServer { server in
            let notifications = Task { await server.stack.runNotifications() }  // as `serve` runs it
            defer { notifications.cancel() }
            let session = try await PageTests().session(server)
            let result = await post(server, "/store/scenarios/\(file)/run", session)
            #expect(result.status == 200)
            #expect(result.body.contains("Every step held."), "\(file): \(result.body)")
        }
    }

    @Test func aSecondRunWhileOneIsRunningIsRefused() async throws {
        try await withLiveServer { server in
            let session = try await PageTests().session(server)
            let first = Task { await post(server, "/store/scenarios/trap-05-double-click-or-two-tabs.json/run", session) }
            // The first run's store step sets a 1.5 s purchase latency before its taps: it is running then.
            #expect(await eventually { await server.send("GET", "/api/store").object["purchaseLatencyMs"] as? Int == 1500 })
            let second = await post(server, "/store/scenarios/\(Self.trap1)/run", session)
            #expect(second.status == 409)
            #expect(second.body.contains("Another scenario is running on this server"))
            #expect(await first.value.body.contains("Every step held."))
            #expect(await post(server, "/store/scenarios/\(Self.trap1)/run", session).status == 200, "free again once it ended")
        }
    }

    @Test func inAdminTokenModeTheRunSendsTheToken() async throws {
        let token = "0123456789abcdef0123456789abcdef"
        try await withLiveServer(adminToken: token) { server in
            let bearer = ("Authorization", "Bearer \(token)")
            let page = await server.send("GET", "/store", fields: [bearer])
            let cookie = try #require(page.sessionCookie)
            let csrf = try #require(page.csrfToken)
            let result = await server.send(
                "POST", "/store/scenarios/\(Self.trap1)/run",
                fields: [
                    bearer, ("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", cookie),
                    ("Origin", server.origin), ("Sec-Fetch-Site", "same-origin"),
                ],
                body: "csrfToken=\(csrf)")
            #expect(result.status == 200)
            #expect(result.body.contains("Every step held."), "its API calls were let in: \(result.body)")
        }
    }

    @Test func aRunWithoutTheCSRFTokenIsRefusedAndRunsNothing() async throws {
        try await withLiveServer { server in
            let session = try await PageTests().session(server)
            let refused = await post(server, "/store/scenarios/\(Self.trap1)/run", session, token: false)
            #expect(refused.status == 403)
            let installs = await server.send("GET", "/api/installs").object["installs"] as? [[String: Any]]
            #expect(installs?.isEmpty == true)
        }
    }

    @Test(arguments: ["nope.json", "schema", "README.md"])
    func onlyAShippedScenarioRuns(_ file: String) async throws {
        try await withLiveServer { server in
            let session = try await PageTests().session(server)
            let reply = await post(server, "/store/scenarios/\(file)/run", session)
            #expect(reply.status == 404)
            let installs = await server.send("GET", "/api/installs").object["installs"] as? [[String: Any]]
            #expect(installs?.isEmpty == true)
        }
    }
}
