import Foundation
import TestSupport
import Testing
import TipJar

/// The pages of the session controls and the history, without JavaScript: confirmation pages whose forms
/// post with the CSRF token, the Transactions page and the account page.
@Suite("Session controls and history: pages")
struct SessionAndHistoryPageTests {
    typealias Session = PageTests.Session

    /// A browser session (cookie and CSRF token), as the page tests start one.
    func session(_ server: LiveServer) async throws -> Session { try await PageTests().session(server) }

    func post(_ server: LiveServer, _ target: String, _ session: Session, token: Bool = true) async -> HTTPReply {
        await server.send(
            "POST", target,
            fields: [
                ("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", session.cookie),
                ("Origin", server.origin), ("Sec-Fetch-Site", "same-origin"),
            ],
            body: token ? "csrfToken=\(session.token)" : "")
    }

    func get(_ server: LiveServer, _ target: String, _ session: Session) async -> HTTPReply {
        await server.send("GET", target, fields: [("Cookie", session.cookie)])
    }

    @Test func storeShowsEveryKeyOfTheFileInATableAndMarksWhatCameFromIt() async throws {
        try await withLiveServer(catalog: try LiveServer.fixtureCatalog("settings-ask-to-buy-pt-BR")) { server in
            let page = await server.send("GET", "/store")
            // One table row per key (key, applied or ignored, what it does), not the command line's report lines.
            #expect(page.body.contains(#"<tr><td><code>_askToBuyEnabled</code></td><td><span class="badge badge-normal">applied</span></td><td>true"#))
            #expect(page.body.contains(#"<tr class="muted"><td><code>_timeRate</code></td><td><span class="badge">ignored</span></td><td>"#))
            #expect(page.body.contains(#"<tr><td><code>_disableDialogs</code></td><td><span class="badge badge-normal">applied</span></td><td>true: skipPurchaseSheet on"#))
            #expect(!page.body.contains("applied setting:") && !page.body.contains("ignored setting:"))
            #expect(
                page.body.contains(
                    #"name="skipPurchaseSheet" value="1" checked> Skip the purchase sheet (Xcode's Disable Dialogs): every purchase is confirmed at once <span class="badge">from the file</span>"#
                ))
            #expect(page.body.contains(#"name="askToBuyEnabled" value="1" checked> Ask to Buy: every purchase waits for approval <span class="badge">from the file</span>"#))
            #expect(page.body.contains(#"App Store Sync <span class="badge">from the file</span>"#))
            #expect(!page.body.contains(#"Load Products <span class="badge">from the file</span>"#))
            #expect(page.body.contains(#"href="/confirm/store-reset""#))
        }
    }

    @Test func resetGoesThroughAConfirmationPageThatWorksWithoutJavaScriptAndIsOnTheTimeline() async throws {
        try await withLiveServer(catalog: try LiveServer.fixtureCatalog("settings-ask-to-buy-pt-BR")) { server in
            let session = try await session(server)
            _ = await server.json("PUT", "/api/store", #"{"askToBuyEnabled":false,"failures":{"sync":null}}"#)
            #expect(
                !(await get(server, "/store", session)).body.contains(#"App Store Sync <span class="badge">from the file</span>"#),
                "a setting changed since is no longer marked")
            let confirm = await get(server, "/confirm/store-reset", session)
            #expect(confirm.status == 200)
            #expect(confirm.body.contains(#"<form method="post" action="/store/reset""#))
            #expect(confirm.body.contains(#"name="csrfToken" value="\#(session.token)""#))
            #expect(confirm.body.contains(#"<a href="/store">Cancel</a>"#))
            #expect(await post(server, "/store/reset", session, token: false).status == 403, "the CSRF token is required")
            let before = server.stack.service.timeline.events(installID: nil, limit: 100).filter { $0.kind == "store.settings" }.count
            let done = await post(server, "/store/reset", session)
            #expect(done.status == 303)
            let after = server.stack.service.timeline.events(installID: nil, limit: 100).filter { $0.kind == "store.settings" }
            #expect(after.count == before + 1, "the page's reset is on the timeline as the API's is")
            #expect(done["Location"] == "/store?flash=reset#file-settings", "back to the section acted on")
            let settings = await server.json("GET", "/api/store")
            #expect(settings.object["askToBuyEnabled"] as? Bool == true)
            #expect((settings.object["failures"] as? [String: Any])?["sync"] as? String == "networkError")
        }
    }

    @Test func deletingAnInstallFromItsPageAsksFirstThenDeletes() async throws {
        try await withLiveServer { server in
            let session = try await session(server)
            let created = await server.json("POST", "/api/installs", #"{"accountID":"ana smith+2","launch":true}"#)
            let id = try #require(created.object["id"] as? String)
            let installPage = await get(server, "/installs/\(id)", session)
            #expect(installPage.body.contains(#"<a href="/accounts/ana%20smith%2B2">ana smith+2</a>"#))
            #expect(installPage.body.contains(#"href="/confirm/installs/\#(id)/delete""#))
            let confirm = await get(server, "/confirm/installs/\(id)/delete", session)
            #expect(confirm.body.contains(#"action="/installs/\#(id)/delete""#))
            #expect(confirm.body.contains("transactions stay with the store"))
            #expect(await get(server, "/accounts/ana%20smith%2B2", session).body.contains("<code>ana smith+2</code>"), "the account link works")
            #expect(await server.json("POST", "/api/installs", #"{"accountID":"a/b"}"#).status == 400)
            #expect(await get(server, "/confirm/installs/no-such/delete", session).status == 404)
            let done = await post(server, "/installs/\(id)/delete", session)
            #expect(done.status == 303)
            #expect(done["Location"] == "/installs?flash=deleted")
            #expect(await server.json("GET", "/api/installs/\(id)").status == 404)
        }
    }

    @Test func clearingAndDeletingTransactionsFromThePagesAsksFirst() async throws {
        try await withLiveServer { server in
            let session = try await session(server)
            let created = await server.json("POST", "/api/installs", #"{"accountID":"ana","launch":true}"#)
            let id = try #require(created.object["id"] as? String)
            for product in ["coffee", "snack"] {
                _ = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"com.example.tipjar.tip.\#(product)"}"#)
            }
            let list = await server.json("GET", "/api/transactions").object["transactions"] as? [[String: Any]] ?? []
            let newest = try #require(list.first?["transactionID"] as? Int)
            #expect(await get(server, "/confirm/transactions/\(newest)/delete", session).body.contains(#"action="/store/transactions/\#(newest)/delete""#))
            #expect(await get(server, "/confirm/transactions/999999/delete", session).status == 404)
            #expect(await post(server, "/store/transactions/\(newest)/delete", session)["Location"] == "/transactions?flash=deleted")
            #expect(await server.json("GET", "/api/transactions/\(newest)").status == 404)
            #expect(await get(server, "/confirm/transactions-clear", session).body.contains(#"action="/store/transactions/clear""#))
            #expect(await post(server, "/store/transactions/clear", session)["Location"] == "/store?flash=cleared#transactions")
            #expect((await server.json("GET", "/api/transactions").object["transactions"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func theTransactionsPageFiltersPagesAndShowsEveryColumn() async throws {
        try await withLiveServer { server in
            let session = try await session(server)
            let ana = try #require(await server.json("POST", "/api/installs", #"{"accountID":"ana","storefront":"BRA","launch":true}"#).object["id"] as? String)
            let bob = try #require(await server.json("POST", "/api/installs", #"{"accountID":"bob","launch":true}"#).object["id"] as? String)
            _ = await server.json("POST", "/api/installs/\(ana)/purchases", #"{"productID":"com.example.tipjar.tip.coffee"}"#)
            _ = await server.json("POST", "/api/installs/\(bob)/purchases", #"{"productID":"com.example.tipjar.tip.lunch"}"#)
            let all = await get(server, "/transactions", session)
            #expect(all.status == 200)
            #expect(all.body.contains(#"<a href="/transactions" aria-current="page">Transactions</a>"#))
            for column in ["Date (UTC)", "Product", "Price", "Storefront", "Apple Account", "Install", "Status", "Finished"] {
                #expect(all.body.contains(#"<th scope="col">\#(column)</th>"#), "\(column)")
            }
            #expect(all.body.contains("R$\u{A0}0,99"), "priced in the transaction's storefront")
            #expect(all.body.contains("$4.99"))
            let filtered = await get(server, "/transactions?accountID=ana", session)
            let productCell = { (name: String) in #"<td class="product-id">com.<wbr>example.<wbr>tipjar.<wbr>tip.<wbr>\#(name)<wbr></td>"# }
            #expect(filtered.body.contains(productCell("coffee")) && !filtered.body.contains(productCell("lunch")))
            let paged = await get(server, "/transactions?pageSize=1", session)
            #expect(paged.body.contains(#"href="/transactions?page=2&amp;pageSize=1">Older →</a>"#))
            #expect(await get(server, "/transactions?status=lost", session).status == 400)
            #expect(await get(server, "/transactions?page=0", session).status == 400)
        }
    }

    @Test func theAccountPageShowsItsInstallsAndStoreKitsViews() async throws {
        try await withLiveServer(settings: StoreSettings(crashBeforeFinish: true)) { server in
            let session = try await session(server)
            let id = try #require(await server.json("POST", "/api/installs", #"{"accountID":"ana","launch":true}"#).object["id"] as? String)
            _ = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"com.example.tipjar.tip.coffee"}"#)
            let page = await get(server, "/accounts/ana", session)
            #expect(page.status == 200)
            #expect(page.body.contains(#"<a href="/installs/\#(id)">"#))
            for heading in ["Transaction.all", "Transaction.unfinished", "Transaction.currentEntitlements", "Transaction.latest(for:)"] {
                #expect(page.body.contains("><code>\(heading)</code></h2>"), "\(heading)")
            }
            #expect(page.body.contains("Consumables are never entitlements"))
            #expect(page.body.contains("<code>com.example.tipjar.tip.coffee</code>: transaction"))
            let nobody = await get(server, "/accounts/nobody", session)
            #expect(nobody.status == 200)
            #expect(nobody.body.contains("The account bought nothing."))
        }
    }

    /// `SKIncludeConsumableInAppPurchaseHistory` (the store setting `includeConsumableInAppPurchaseHistory`): off, a
    /// finished tip is in neither `Transaction.all` nor `latest(for:)`, on the account page and in its API; on, in both.
    @Test func aFinishedTipShowsInTheAccountHistoryOnlyWithSKIncludeConsumableInAppPurchaseHistory() async throws {
        try await withLiveServer { server in
            let session = try await session(server)
            let id = try #require(await server.json("POST", "/api/installs", #"{"accountID":"ana","launch":true}"#).object["id"] as? String)
            _ = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"com.example.tipjar.tip.coffee"}"#)
            func allSection() async -> Substring {
                let body = await get(server, "/accounts/ana", session).body
                guard let start = body.range(of: #"id="all-title""#), let end = body.range(of: #"id="unfinished-title""#) else { return "" }
                return body[start.upperBound..<end.lowerBound]
            }
            func viewCount(_ query: String) async -> Int {
                (await server.json("GET", "/api/accounts/ana/transactions?\(query)").object["transactions"] as? [Any])?.count ?? -1
            }
            #expect(await allSection().contains("Empty."))
            #expect(await allSection().contains("is false"))
            #expect(await viewCount("view=all") == 0)
            #expect(await viewCount("view=latest&productID=com.example.tipjar.tip.coffee") == 0)
            let saved = await server.json("PUT", "/api/store", #"{"includeConsumableInAppPurchaseHistory":true}"#)
            #expect(saved.status == 200)
            #expect(saved.object["includeConsumableInAppPurchaseHistory"] as? Bool == true)
            #expect(await allSection().contains(#"<td class="product-id">com.<wbr>example.<wbr>tipjar.<wbr>tip.<wbr>coffee<wbr></td>"#))
            #expect(await allSection().contains("is true"))
            #expect(await viewCount("view=all") == 1)
            #expect(await viewCount("view=latest&productID=com.example.tipjar.tip.coffee") == 1)
            #expect(await viewCount("view=currentEntitlements") == 0, "a consumable is never an entitlement")
            let store = await server.send("GET", "/store")
            #expect(store.body.contains(#"name="includeConsumableInAppPurchaseHistory" value="1" checked> SKIncludeConsumableInAppPurchaseHistory"#))
        }
    }
}
