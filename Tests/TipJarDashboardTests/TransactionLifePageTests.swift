import Foundation
import Testing
import TipJar

/// Where the transaction lives are drawn: `/transactions/{id}` (the store's facts and one diagram per install the
/// transaction reached), the install page's latest transactions (also in its live fragments), and the link from
/// every transactions table.
@Suite("Transaction lives: pages")
struct TransactionLifePageTests {
    static let coffee = "com.example.tipjar.tip.coffee"

    static func createInstall(_ server: LiveServer, _ body: String) async throws -> String {
        let created = await server.json("POST", "/api/installs", body)
        return try #require(created.object["id"] as? String, "\(created.body)")
    }

    @Test func aTransactionPageDrawsItsLifeOnEveryInstallItReached() async throws {
        try await withLiveServer { server in
            let first = try await Self.createInstall(server, #"{"accountID":"ana","launch":true}"#)
            _ = await server.json("PUT", "/api/store", #"{"crashBeforeFinish":true}"#)
            let bought = await server.json("POST", "/api/installs/\(first)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            let id = try #require(bought.object["transactionID"] as? Int)
            _ = await server.json("PUT", "/api/store", #"{"crashBeforeFinish":false}"#)
            // A second install of the account gets the unfinished transaction at its launch.
            let second = try await Self.createInstall(server, #"{"accountID":"ana","launch":true}"#)
            let page = await server.send("GET", "/transactions/\(id)")
            #expect(page.status == 200)
            #expect(page.body.components(separatedBy: #"<svg class="sequence-diagram""#).count - 1 == 2, "the buyer's and the second install's")
            #expect(page.body.contains(#"aria-labelledby="life-\#(id)-1-title""#))
            #expect(page.body.contains("<li>App: crash before finish() (trap).</li>"))
            #expect(page.body.contains("<li>App Store: bought on install \(first.prefix(8)), unfinished.</li>"))
            #expect(page.body.contains("on install \(second.prefix(8))</title>"))
            #expect(await server.send("GET", "/transactions/999999").status == 404)
            #expect(await server.send("GET", "/transactions/abc").status == 404)
            #expect((await server.send("GET", "/transactions")).body.contains(#"<a href="/transactions/\#(id)"><code>\#(id)</code></a>"#))
        }
    }

    /// The diagram of `/transactions/{id}` (the SVG and its steps as text).
    static func diagram(_ server: LiveServer, _ id: Int) async throws -> String {
        let page = await server.send("GET", "/transactions/\(id)").body
        let start = try #require(page.range(of: #"<svg class="sequence-diagram"#))
        let end = try #require(page.range(of: "</ol>", range: start.upperBound..<page.endIndex))
        return String(page[start.lowerBound..<end.upperBound])
    }

    @Test func aTransactionsDiagramIsDrawnFromWhatIsStoredSoItIsTheSameAfter200EventsAndAfterReopeningTheDatabase() async throws {
        try await withLiveServer { server in
            let install = try await Self.createInstall(server, #"{"accountID":"ana","launch":true}"#)
            let bought = await server.json("POST", "/api/installs/\(install)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            let id = try #require(bought.object["transactionID"] as? Int)
            let drawn = try await Self.diagram(server, id)
            #expect(drawn.contains("<li>App Store → App: sheet: Confirm.</li>"), "the sheet the purchase showed")
            // 200 unrelated events on the same install: more than the in-memory timeline keeps of it.
            for _ in 0..<100 {
                _ = await server.json("POST", "/api/installs/\(install)/stop")
                _ = await server.json("POST", "/api/installs/\(install)/launch")
            }
            #expect(server.service.timeline.events(installID: install, limit: .max).allSatisfy { $0.attributes["transactionID"] == nil })
            #expect(try await Self.diagram(server, id) == drawn)
            await server.stop()
            let reopened = try await LiveServer(directory: server.directory)
            let afterRestart = try await Self.diagram(reopened, id)
            await reopened.stop()
            #expect(afterRestart == drawn)
        }
    }

    @Test func yourServersLaneIsDrawnFromTheStoredNotificationsAttemptsAndConsumptionInformationAlsoAfterReopening() async throws {
        try await withLiveServer { server in
            try await server.storage.save(NotificationSettings(url: "http://127.0.0.1:9/n", timeScale: 3_600))
            let install = try await Self.createInstall(server, #"{"accountID":"ana","launch":true}"#)
            let bought = await server.json("POST", "/api/installs/\(install)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
            let id = try #require(bought.object["transactionID"] as? Int)
            // ONE_TIME_CHARGE: the first attempt times out, the retry an hour later (a millisecond here) succeeds.
            let clock = NotificationSenderTests.ManualClock(Date().addingTimeInterval(1))
            let transport = NotificationSenderTests.ScriptedTransport { $0 == 0 ? .timedOut : .success }
            let sender = NotificationSenderTests.sender(server, transport, clock: clock)
            #expect(try await sender.sendDue() == 1)
            clock.set(Date().addingTimeInterval(3_600))
            #expect(try await sender.sendDue() == 1)
            // A refund request queues a CONSUMPTION_REQUEST (not sent: no sender runs), and the server answers it.
            try await server.service.beginRefundRequest(transactionID: UInt64(id), installID: install, userAction: .submit)
            _ = try await server.service.recordConsumption(#"{"customerConsented":true}"#, transactionID: UInt64(id))
            let drawn = try await Self.diagram(server, id)
            #expect(drawn.contains(">Your server</text>"))
            #expect(drawn.contains("<li>App Store → Your server: ONE_TIME_CHARGE: TIMED_OUT (failed).</li>"))
            #expect(drawn.contains("<li>App Store → Your server: retry 1: SUCCESS.</li>"))
            #expect(drawn.contains("<li>App Store → Your server: CONSUMPTION_REQUEST: not sent yet (not ended).</li>"))
            #expect(drawn.contains("<li>Your server → App Store: Send Consumption Information.</li>"))
            #expect(drawn.components(separatedBy: #"<g class="step attempt-failed">"#).count - 1 == 1)
            let installPage = await server.send("GET", "/installs/\(install)").body
            #expect(installPage.contains("<li>App Store → Your server: retry 1: SUCCESS.</li>"), "the install page draws the same lane")
            await server.stop()
            let reopened = try await LiveServer(directory: server.directory)
            let afterRestart = try await Self.diagram(reopened, id)
            await reopened.stop()
            #expect(afterRestart == drawn)
        }
    }

    @Test func theInstallPageAndItsLiveFragmentsDrawTheLatestTransactions() async throws {
        try await withLiveServer { server in
            let install = try await Self.createInstall(server, #"{"label":"<b>Ana</b>","launch":true}"#)
            #expect((await server.send("GET", "/installs/\(install)")).body.contains("<p class=\"muted\">No transaction yet.</p>"))
            for _ in 0..<4 {
                #expect(await server.json("POST", "/api/installs/\(install)/purchases", #"{"productID":"\#(Self.coffee)"}"#).status == 200)
            }
            let page = await server.send("GET", "/installs/\(install)")
            #expect(page.body.components(separatedBy: #"<figure class="life""#).count - 1 == 3, "the latest three of four")
            #expect(page.body.contains(#"aria-labelledby="life-4-title""#) && !page.body.contains(#"aria-labelledby="life-1-title""#))
            #expect(page.body.contains("(&lt;b&gt;Ana&lt;/b&gt;)"))
            let live = await server.send("GET", "/installs/\(install)/live")
            #expect(live.body.contains(#"<section id="lives" aria-labelledby="lives-title">"#))
            #expect(live.body.contains(#"aria-labelledby="life-4-title""#))
        }
    }
}
