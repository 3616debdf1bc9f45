import Foundation
import TestSupport
import Testing
import TipJar

/// The purchase traps through the pages, as a browser without JavaScript uses them: the `/store` form sets them, tip
/// buttons and Restore post, the Resolve button posts with the CSRF token, and the install page (and the `live`
/// fragments it polls every 3 s) shows each ledger row's reason.
@Suite("Purchase traps, pages")
struct PurchaseTrapPageTests {
    let pages = PageTests()
    static let coffeeForm = "productID=com.example.tipjar.tip.coffee"

    /// The `/store` form as the page posts it, healthy, plus `extra` fields.
    static func storeForm(_ extra: String) -> String {
        "catalog=normal&latencyMs=0&purchaseOutcome=success&purchaseError=networkError&refundRequestDecision=manual&failLoadProducts=&failPurchase="
            + "&failVerification=&failSync=&purchaseLatencyMs=0&listenerReemits=0&listenerReemitDelayMs=0&" + extra
    }

    func installPage(_ server: LiveServer, _ id: String, _ session: PageTests.Session) async -> String {
        await server.send("GET", "/installs/\(id)?load=now", fields: [("Cookie", session.cookie)]).body
    }

    @Test func theStoreFormSetsEveryTrapAndTheSummaryNamesThem() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let form = Self.storeForm("interruptedPurchases=1&finishIgnored=1&chargedDespiteError=1&syncReplaysFinished=1")
                .replacingOccurrences(of: "listenerReemitDelayMs=0", with: "listenerReemitDelayMs=750")
                .replacingOccurrences(of: "listenerReemits=0", with: "listenerReemits=1")
            let saved = await pages.post(server, "/store", session, form: form)
            #expect(saved.status == 303)
            let settings = await server.json("GET", "/api/store").object
            for key in ["interruptedPurchases", "finishIgnored", "chargedDespiteError", "syncReplaysFinished"] {
                #expect(settings[key] as? Bool == true, "\(key)")
            }
            #expect(settings["listenerReemitDelayMs"] as? Int == 750)
            let page = await server.send("GET", "/store", fields: [("Cookie", session.cookie)]).body
            for name in ["interruptedPurchases", "finishIgnored", "chargedDespiteError", "syncReplaysFinished"] {
                #expect(page.contains(#"name="\#(name)" value="1" checked"#), "\(name) is ticked")
            }
            #expect(page.contains(#"name="listenerReemitDelayMs" min="0" max="60000" value="750""#))
            for badge in ["interrupted purchases", "finish() is ignored", "charged despite an error", "Restore replays", "re-emits 750 ms later"] {
                #expect(page.contains(#"<span class="badge badge-failing">\#(badge)</span>"#), "\(badge)")
            }
            let unticked = await pages.post(server, "/store", session, form: Self.storeForm(""))
            #expect(unticked.status == 303)
            #expect(await server.json("GET", "/api/store").object["finishIgnored"] as? Bool == false, "an unticked box turns it off")
        }
    }

    @Test(arguments: ["70000", "-5", "soon"])
    func aBadReemitDelayInTheFormIs400AndChangesNothing(_ value: String) async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let before = await server.json("GET", "/api/store").body
            let form = Self.storeForm("finishIgnored=1").replacingOccurrences(of: "listenerReemitDelayMs=0", with: "listenerReemitDelayMs=\(value)")
            let reply = await pages.post(server, "/store", session, form: form)
            #expect(reply.status == 400)
            #expect(reply.body.contains("listenerReemitDelayMs"))
            #expect(await server.json("GET", "/api/store").body == before)
        }
    }

    @Test func anInterruptedPurchaseIsListedOnStoreAndItsResolveButtonDeliversANewTransaction() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            #expect(await pages.post(server, "/store", session, form: Self.storeForm("interruptedPurchases=1")).status == 303)
            let id = try await pages.createInstall(server, session)
            let tap = await pages.post(server, "/installs/\(id)/purchases", session, form: Self.coffeeForm)
            #expect(tap["Location"]?.contains("feedback=failed") == true, "purchase() throws: \(tap["Location"] ?? "")")
            let store = await server.send("GET", "/store", fields: [("Cookie", session.cookie)]).body
            #expect(store.contains("Interrupted purchases: waiting for the customer"))
            let transactionID = try #require(
                await server.json("GET", "/api/transactions?installID=\(id)&status=interrupted")
                    .object["transactions"].flatMap { ($0 as? [[String: Any]])?.first?["transactionID"] as? Int })
            #expect(store.contains(#"<form method="post" action="/store/interrupted/\#(transactionID)/resolve">"#))

            let forged = await server.send(
                "POST", "/store/interrupted/\(transactionID)/resolve",
                fields: [
                    ("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", session.cookie),
                    ("Origin", server.origin),
                ], body: "")
            #expect(forged.status == 403, "no CSRF token, no resolve")
            let resolved = await pages.post(server, "/store/interrupted/\(transactionID)/resolve", session, form: "")
            #expect(resolved.status == 303)
            let location = try #require(resolved["Location"])
            #expect(location.hasPrefix("/store?flash=resolved&transaction="))
            #expect(!location.hasPrefix("/store?flash=resolved&transaction=\(transactionID)&"), "a new transaction, not the interrupted record's ID")
            #expect(location.hasSuffix("&delivery=counted&hearts=1#interrupted"), "back to the section acted on, with what happened")
            let after = await server.send("GET", String(location.prefix { $0 != "#" }), fields: [("Cookie", session.cookie)]).body
            #expect(after.contains("Resolved: the interrupted purchase completed; new transaction "))
            #expect(after.contains("No purchase is interrupted."))
            let install = await installPage(server, id, session)
            #expect(install.contains("interrupted purchase resolved"))
            #expect(install.contains("♥♡♡♡♡"))
            #expect(await pages.post(server, "/store/interrupted/\(transactionID)/resolve", session, form: "").status == 409)
            #expect(await pages.post(server, "/store/interrupted/424242/resolve", session, form: "").status == 404)
        }
    }

    @Test func finishIgnoredShowsTheSameTransactionAgainWithTheReasonsOfBothRows() async throws {
        try await withLiveServer(settings: StoreSettings(finishIgnored: true)) { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            _ = await pages.post(server, "/installs/\(id)/purchases", session, form: Self.coffeeForm)
            _ = await pages.post(server, "/installs/\(id)/purchases", session, form: Self.coffeeForm)
            let page = await installPage(server, id, session)
            #expect(page.components(separatedBy: #"<span class="muted">finish() was ignored</span>"#).count - 1 == 1, "the first row")
            #expect(page.contains(#"outcome-duplicate">duplicate</span> <span class="muted">purchase() returned the unfinished transaction: no new charge"#))
            #expect(page.contains("♥♡♡♡♡"))
        }
    }

    @Test func chargedDespiteAnErrorShowsTheAlertThenThePolledLedgerCountsIt() async throws {
        let gate = DelayGate()
        try await withLiveServer(settings: StoreSettings(chargedDespiteError: true), sleep: gate.sleep) { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            let tap = await pages.post(server, "/installs/\(id)/purchases", session, form: Self.coffeeForm)
            #expect(tap["Location"]?.contains("feedback=failed") == true)
            #expect(!(await installPage(server, id, session)).contains("charged although purchase() threw"))
            await gate.untilSomeoneWaits()
            gate.open()
            let polled = await eventually {
                await server.send("GET", "/installs/\(id)/live", fields: [("Cookie", session.cookie), ("X-Fragment", "1")])
                    .body.contains("charged although purchase() threw")
            }
            #expect(polled, "the fragment the page polls every 3 s shows the late delivery")
            #expect(await installPage(server, id, session).contains("♥♡♡♡♡"))
        }
    }

    @Test func restoreReplaysShowTheirReasonWithoutAnExtraHeart() async throws {
        try await withLiveServer(settings: StoreSettings(syncReplaysFinished: true)) { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            _ = await pages.post(server, "/installs/\(id)/purchases", session, form: Self.coffeeForm)
            #expect(await pages.post(server, "/installs/\(id)/restore", session, form: "").status == 303)
            let page = await installPage(server, id, session)
            #expect(page.contains("AppStore.sync() replayed a finished transaction"))
            #expect(page.contains("♥♡♡♡♡"))
        }
    }

    @Test func reemitsLaterReachTheOpenPageThroughItsPoll() async throws {
        let gate = DelayGate()
        try await withLiveServer(settings: StoreSettings(listenerReemits: 1, listenerReemitDelayMs: 4_000), sleep: gate.sleep) { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            let tap = await pages.post(server, "/installs/\(id)/purchases", session, form: Self.coffeeForm, fragment: true)
            #expect(tap.status == 200)
            #expect(!tap.body.contains("re-emitted after the purchase answered"), "the purchase answered first")
            await gate.untilSomeoneWaits()
            gate.open()
            let polled = await eventually {
                await server.send("GET", "/installs/\(id)/live", fields: [("Cookie", session.cookie), ("X-Fragment", "1")])
                    .body.contains("re-emitted after the purchase answered")
            }
            #expect(polled)
            #expect(await installPage(server, id, session).contains("♥♡♡♡♡"))
        }
    }
}
