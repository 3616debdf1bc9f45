import Foundation
import TestSupport
import Testing
import TipJar

/// `/store` without JavaScript: each form post answers 303 to `/store?flash=…#section`, and the section acted
/// on says exactly what happened: delivered now (with the outcome and the hearts), or waiting for the next
/// launch of the install. Plus the timeline rule: a page view that finds the same tip jar state records nothing.
@Suite("Store feedback and state events: pages")
struct StoreFeedbackPageTests {
    let pages = PageTests()
    static let coffee = "com.example.tipjar.tip.coffee"

    func install(_ server: LiveServer, launch: Bool = true) async throws -> String {
        let reply = await server.json("POST", "/api/installs", #"{"locale":"en","storefront":"USA","launch":\#(launch)}"#)
        #expect(reply.status == 201)
        return try #require(reply.object["id"] as? String)
    }

    func pendingRequest(_ server: LiveServer, installID: String) async throws -> Int {
        let purchase = await server.json("POST", "/api/installs/\(installID)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
        #expect(purchase.object["outcome"] as? String == "pending")
        return try #require(await server.json("GET", "/api/store/pending").array.first?["requestID"] as? Int)
    }

    /// The `/store` page the redirect leads to, and the text of the section its fragment names.
    func follow(_ server: LiveServer, _ reply: HTTPReply, _ session: PageTests.Session) async throws -> (fragment: String, section: String) {
        #expect(reply.status == 303)
        let location = try #require(reply["Location"])
        let parts = location.split(separator: "#", maxSplits: 1).map(String.init)
        let fragment = try #require(parts.count == 2 ? parts[1] : nil)
        let page = await server.send("GET", parts[0], fields: [("Cookie", session.cookie)])
        #expect(page.status == 200)
        let start = try #require(page.body.range(of: #"<section class="panel" id="\#(fragment)">"#), "the section \(fragment) has that id")
        let end = page.body.range(of: "</section>", range: start.upperBound..<page.body.endIndex)?.lowerBound ?? page.body.endIndex
        #expect(page.body.components(separatedBy: #"class="notice" role="status""#).count == 2, "one message, in the section acted on")
        #expect(!page.body.contains("(or waits"))
        return (fragment, String(page.body[start.upperBound..<end]))
    }

    @Test func approvingWhileTheAppRunsSaysItWasDeliveredWithTheHeartsAndReturnsToPending() async throws {
        try await withLiveServer(settings: StoreSettings(purchaseOutcome: .pending)) { server in
            let id = try await install(server)
            let tid = try await pendingRequest(server, installID: id)
            let session = try await pages.session(server)
            let (fragment, section) = try await follow(server, await pages.post(server, "/store/pending/\(tid)/approve", session, form: "csrfToken=\(session.token)"), session)
            #expect(fragment == "pending")
            #expect(section.contains("Approved: new transaction "), "the approval issues the transaction")
            #expect(!section.contains("transaction \(tid) "), "the request's ID is not the transaction's")
            #expect(section.contains(" was delivered to install \(id.prefix(8)) (counted, 1 heart)."))
        }
    }

    @Test func approvingWhileTheAppIsStoppedSaysItWaitsForTheNextLaunchOfThatInstall() async throws {
        try await withLiveServer(settings: StoreSettings(purchaseOutcome: .pending)) { server in
            let id = try await install(server)
            let tid = try await pendingRequest(server, installID: id)
            _ = await server.json("POST", "/api/installs/\(id)/stop")
            let session = try await pages.session(server)
            let (fragment, section) = try await follow(server, await pages.post(server, "/store/pending/\(tid)/approve", session, form: "csrfToken=\(session.token)"), session)
            #expect(fragment == "pending")
            #expect(section.contains("Approved: new transaction "))
            #expect(section.contains(" waits for the next launch of install \(id.prefix(8)) (the app is stopped)."))
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 0, "nothing was delivered yet")
        }
    }

    @Test func decliningSaysNothingWasRecordedAndReturnsToPending() async throws {
        try await withLiveServer(settings: StoreSettings(purchaseOutcome: .pending)) { server in
            let id = try await install(server)
            let tid = try await pendingRequest(server, installID: id)
            let session = try await pages.session(server)
            let (fragment, section) = try await follow(server, await pages.post(server, "/store/pending/\(tid)/decline", session, form: "csrfToken=\(session.token)"), session)
            #expect(fragment == "pending")
            #expect(section.contains("Declined: Ask to Buy request \(tid) of install \(id.prefix(8)) was never charged; nothing is delivered."))
        }
    }

    @Test func refundingSaysTheRevokedTransactionWasDeliveredAndReturnsToTransactions() async throws {
        try await withLiveServer { server in
            let id = try await install(server)
            let tid = try #require(await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#).object["transactionID"] as? Int)
            let session = try await pages.session(server)
            let reply = await pages.post(server, "/store/transactions/\(tid)/refund", session, form: "csrfToken=\(session.token)&reason=developerIssue")
            let (fragment, section) = try await follow(server, reply, session)
            #expect(fragment == "transactions")
            #expect(section.contains("Refunded: the revoked transaction \(tid) was delivered to install \(id.prefix(8)) (revoked, 1 heart)."))
        }
    }

    @Test func aPurchaseOutsideTheAppSaysDeliveredOrWaitingAndReturnsToItsForm() async throws {
        try await withLiveServer { server in
            let running = try await install(server)
            let stopped = try await install(server, launch: false)
            let session = try await pages.session(server)
            let now = try await follow(
                server,
                await pages.post(
                    server, "/store/external-purchases", session,
                    form: "csrfToken=\(session.token)&installID=\(running)&productID=\(Self.coffee)"), session)
            #expect(now.fragment == "external")
            #expect(
                now.section.range(
                    of: #"Purchased outside the app: transaction \d+ was delivered to install \#(running.prefix(8)) \(counted, 1 heart\)\."#,
                    options: .regularExpression) != nil)
            let later = try await follow(
                server,
                await pages.post(
                    server, "/store/external-purchases", session,
                    form: "csrfToken=\(session.token)&installID=\(stopped)&productID=\(Self.coffee)"), session)
            #expect(later.fragment == "external")
            #expect(
                later.section.range(
                    of: #"Purchased outside the app: transaction \d+ waits for the next launch of install \#(stopped.prefix(8)) \(the app is stopped\)\."#,
                    options: .regularExpression) != nil)
        }
    }

    @Test func savingResettingAndClearingReturnToTheirSections() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let saved = try await follow(
                server,
                await pages.post(
                    server, "/store", session,
                    form: "csrfToken=\(session.token)&catalog=normal&latencyMs=0"
                        + "&purchaseOutcome=success&purchaseError=networkError&purchaseLatencyMs=0&listenerReemits=0&refundRequestDecision=manual"), session)
            #expect(saved.fragment == "settings")
            #expect(saved.section.contains("Store settings saved."))
            let reset = try await follow(server, await pages.post(server, "/store/reset", session, form: "csrfToken=\(session.token)"), session)
            #expect(reset.fragment == "file-settings")
            #expect(reset.section.contains("Reset: the store&#39;s settings are the file&#39;s again."), "HTML-escaped")
            let cleared = try await follow(server, await pages.post(server, "/store/transactions/clear", session, form: "csrfToken=\(session.token)"), session)
            #expect(cleared.fragment == "transactions")
            #expect(cleared.section.contains("Cleared: the store forgot every transaction; installs kept their hearts."))
        }
    }

    @Test(arguments: [
        "/store?flash=approved", "/store?flash=approved&transaction=x&install=abc&delivery=waiting",
        "/store?flash=approved&transaction=1&install=%3Cb%3E&delivery=waiting",
        "/store?flash=approved&transaction=1&install=abc&delivery=counted&hearts=9", "/store?flash=hello",
    ])
    func aFlashWhoseFactsAreMissingOrMalformedShowsNoMessage(_ target: String) async throws {
        try await withLiveServer { server in
            let page = await server.send("GET", target)
            #expect(page.status == 200)
            #expect(!page.body.contains(#"class="notice" role="status""#))
        }
    }

    @Test func aPageViewThatFindsTheSameStateRecordsNoEventAndAnOutageAndItsEndRecordOneEach() async throws {
        try await withLiveServer { server in
            let id = try await install(server)
            let session = try await pages.session(server)
            func views() async {
                #expect(await server.send("GET", "/installs/\(id)?load=now", fields: [("Cookie", session.cookie)]).status == 200)
                #expect(await server.send("GET", "/installs/\(id)/offers", fields: [("Cookie", session.cookie)]).status == 200)
                #expect(await server.json("GET", "/api/installs/\(id)/offers").status == 200)
            }
            func states() -> [String] {
                server.service.timeline.events(installID: id, limit: 50).filter { $0.kind.hasPrefix("state.") }.map(\.kind).reversed()
            }
            await views()
            let afterFirst = server.service.timeline.events(installID: id, limit: 50).count
            await views()
            #expect(server.service.timeline.events(installID: id, limit: 50).count == afterFirst, "page views that find the same state write nothing")
            #expect(states() == ["state.ready"])
            _ = await server.json("PUT", "/api/store", #"{"catalog":"failing"}"#)
            await views()
            _ = await server.json("PUT", "/api/store", #"{"catalog":"normal"}"#)
            await views()
            #expect(states() == ["state.ready", "state.unavailable", "state.ready"])
            let overview = await server.send("GET", "/")
            #expect(overview.body.components(separatedBy: "<code>state.unavailable</code>").count == 2, "Recent events show the outage once")
            #expect(!overview.body.contains("state.loading"))
        }
    }
}
