import Foundation
import Mustache
import TestSupport
import Testing
import TipJar

@testable import TipJarDashboard

/// The simulated screen on `/installs/{id}` and the pages around it, over a real socket: the
/// thank-you line, the hearts' accessible name, alerts in the install's language, the ledger's
/// order, the empty overview and the slow catalog's default. (Layout, focus and text sizes need a
/// browser: Tests/Browser/test_phone_screen.py.)
extension PageTests {
    @Test func theThankYouLineIsShownWheneverThereIsAHeartInTheInstallsLanguage() async throws {
        guard case .object(let none) = ViewModels.hearts(0, strings: .english),
            case .object(let one) = ViewModels.hearts(1, strings: .portuguese)
        else { Issue.record("hearts is not an object"); return }
        #expect(none["thanks"] == nil)
        #expect(one["thanks"] == .string(TipJarStrings.portuguese.thanks))
        try await withLiveServer { server in
            let session = try await session(server)
            let id = try await createInstall(server, session, locale: "pt-BR", storefront: "BRA")
            let before = await server.send("GET", "/installs/\(id)", fields: [("Cookie", session.cookie)])
            #expect(!before.body.contains(TipJarStrings.portuguese.thanks))
            _ = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.coffee")
            let reloaded = await server.send("GET", "/installs/\(id)", fields: [("Cookie", session.cookie)])
            #expect(reloaded.body.contains(#"<p class="thanks">Obrigado por apoiar o app!</p>"#))
            #expect(!reloaded.body.contains("Obrigado pela gorjeta!"), "the purchase notice itself is not repeated on a reload")
        }
    }

    @Test func theHeartsCountIsTheNameOfAnImageNeverAnAriaLabelOnAParagraph() async throws {
        try await withLiveServer { server in
            let session = try await session(server)
            let id = try await createInstall(server, session)
            _ = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.coffee")
            let page = await server.send("GET", "/installs/\(id)", fields: [("Cookie", session.cookie)])
            #expect(page.body.contains(#"<span role="img" aria-label="1 of 5 hearts">♥♡♡♡♡</span>"#))
            let list = await server.send("GET", "/installs")
            #expect(list.body.contains(#"<span class="hearts" role="img" aria-label="1 of 5 hearts">"#))
            for body in [page.body, list.body] {
                #expect(body.range(of: #"<p[^>]*aria-label"#, options: .regularExpression) == nil)
            }
        }
    }

    @Test func aPurchaseWhileAnotherIsOpenGetsItsAlertInTheInstallsLanguage() async throws {
        try await withLiveServer(settings: StoreSettings(purchaseLatencyMs: 2_000)) { server in
            let session = try await session(server)
            let id = try await createInstall(server, session, locale: "pt-BR", storefront: "BRA")
            async let first = post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.coffee", fragment: true)
            #expect(await eventually { await server.send("GET", "/installs/\(id)").body.contains("purchase.open") })
            let second = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.snack", fragment: true)
            #expect(second.status == 409)
            #expect(second.body.contains(#"<h2 id="alert-title">Compra em andamento</h2>"#))
            #expect(second.body.contains("Já há uma compra em andamento."))
            #expect(!second.body.contains("Conflict") && !second.body.contains("A purchase is already open"))
            #expect(await first.status == 200)
        }
    }

    @Test func anUnknownProductTappedOnThePortugueseScreenIsExplainedInPortuguese() async throws {
        try await withLiveServer { server in
            let session = try await session(server)
            let id = try await createInstall(server, session, locale: "pt-BR", storefront: "BRA")
            let reply = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.gone", fragment: true)
            #expect(reply.status == 422)
            #expect(reply.body.contains(TipJarStrings.portuguese.unknownProductTitle))
            #expect(!reply.body.contains("not a tip in the loaded catalog"))
            let page = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.gone")
            #expect(page.status == 422, "without JavaScript the error page is unchanged")
        }
    }

    @Test func thePageShowsTheLedgerNewestFirstWhileTheAPIKeepsOldestFirst() async throws {
        try await withLiveServer { server in
            let session = try await session(server)
            let id = try await createInstall(server, session)
            for tip in ["coffee", "snack"] {
                _ = await post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.\(tip)")
            }
            let api = await server.json("GET", "/api/installs/\(id)/ledger").array.compactMap { $0["transactionID"] as? Int }
            #expect(api.count == 2 && api == api.sorted())
            let page = await server.send("GET", "/installs/\(id)", fields: [("Cookie", session.cookie)]).body
            let positions = api.compactMap { page.range(of: "<td><code>\($0)</code></td>")?.lowerBound }
            #expect(positions.count == 2 && positions[1] < positions[0], "the newer transaction comes first")
            #expect(page.contains("newest first</caption>"))
        }
    }

    @Test func theEmptyOverviewOffersToCreateAnInstall() async throws {
        try await withLiveServer { server in
            let empty = await server.send("GET", "/")
            #expect(empty.body.contains(#"href="/installs#create">Create an install</a>"#))
            #expect(await server.send("GET", "/installs").body.contains(#"id="create""#))
            let session = try await session(server)
            _ = try await createInstall(server, session)
            #expect(!(await server.send("GET", "/").body.contains("Create an install")))
        }
    }

    @Test(arguments: [("slow", "0", 2_000), ("slow", "", 2_000), ("slow", "350", 350), ("normal", "0", 0)])
    func choosingSlowWithNoLatencySetsTheVisibleDefault(_ catalog: String, _ latency: String, _ expected: Int) throws {
        let form = [
            "catalog": catalog, "latencyMs": latency, "purchaseOutcome": "success", "purchaseError": "networkError",
            "purchaseLatencyMs": "0", "listenerReemits": "0", "refundRequestDecision": "manual",
        ]
        #expect(try StoreController.settings(fromForm: form).latencyMs == expected)
    }

    @Test func everyTableScrollsInsideItsOwnFocusableNamedRegion() {
        for (name, text) in TemplateSafetyTests.templates where text.contains("<table") {
            let tables = text.components(separatedBy: "<table").count - 1
            let regions = text.components(separatedBy: #"class="table-scroll" role="region""#).count - 1
            #expect(tables == regions, "\(name): \(tables) tables, \(regions) scrolling regions")
            let named = text.matches(of: /role="region" aria-label(ledby)?="[^"]+"/).count
            #expect(named == regions, "\(name): a region without a name")
            #expect(text.components(separatedBy: #"tabindex="0""#).count - 1 >= regions, "\(name): a region the keyboard cannot scroll")
        }
    }
}
