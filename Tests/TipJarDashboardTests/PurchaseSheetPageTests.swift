import Foundation
import Testing
import TipJar

/// The purchase sheet on the pages, without JavaScript (a page of its own, two POST forms) and with it (the
/// `<dialog>` fragment `app.js` opens), Cancel's silence, `skipPurchaseSheet`, the ledger's options, Restore's alert
/// and the precedence rule on `/store`.
@Suite("The purchase sheet on the pages")
struct PurchaseSheetPageTests {
    let pages = PageTests()
    static let coffee = "com.example.tipjar.tip.coffee"

    @Test func withoutJavaScriptATileGoesToTheSheetPageThenConfirmBuys() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session, locale: "pt-BR", storefront: "BRA")
            let page = await server.send("GET", "/installs/\(id)?load=now", fields: [("Cookie", session.cookie)])
            #expect(page.body.contains(#"action="/installs/\#(id)/purchase-sheet""#), "the tile posts to the sheet")
            #expect(!page.body.contains(#"action="/installs/\#(id)/purchases""#))
            let open = await pages.post(server, "/installs/\(id)/purchase-sheet", session, form: "productID=\(Self.coffee)&textSize=xxLarge")
            #expect(open.status == 303)
            #expect(open["Location"] == "/installs/\(id)/purchase-sheet?textSize=xxLarge")
            let sheet = await server.send("GET", "/installs/\(id)/purchase-sheet?textSize=xxLarge", fields: [("Cookie", session.cookie)])
            #expect(sheet.status == 200)
            for text in [
                "Coffee", "R$\u{A0}0,99", "Conta", "account-\(id.prefix(8))", ">Confirmar</button>", ">Cancelar</button>",
                #"action="/installs/\#(id)/purchase-sheet/confirm""#, #"action="/installs/\#(id)/purchase-sheet/cancel""#,
                #"name="csrfToken" value="\#(session.token)""#, #"name="textSize" value="xxLarge""#,
            ] {
                #expect(sheet.body.contains(text), "missing \(text)")
            }
            #expect(!sheet.body.contains("data-fragment"), "the page's forms post as pages")
            let whileOpen = await server.send("GET", "/installs/\(id)?load=now", fields: [("Cookie", session.cookie)])
            #expect(whileOpen.body.contains(#"class="tile tier-coffee" disabled"#), "every tip button stays disabled while the sheet is open")
            let second = await pages.post(server, "/installs/\(id)/purchase-sheet", session, form: "productID=\(Self.coffee)")
            #expect(second.status == 409)
            let confirm = await pages.post(server, "/installs/\(id)/purchase-sheet/confirm", session, form: "textSize=xxLarge")
            #expect(confirm["Location"]?.hasPrefix("/installs/\(id)?load=now&feedback=purchased&textSize=xxLarge&once=") == true)
            #expect(await server.json("GET", "/api/installs/\(id)").object["hearts"] as? Int == 1)
            let closed = await server.send("GET", "/installs/\(id)/purchase-sheet", fields: [("Cookie", session.cookie)])
            #expect(closed.status == 303, "no sheet is open any more")
        }
    }

    @Test func cancelIsSilentAndTheTimelineSaysTheUserCancelled() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            _ = await pages.post(server, "/installs/\(id)/purchase-sheet", session, form: "productID=\(Self.coffee)")
            let cancel = await pages.post(server, "/installs/\(id)/purchase-sheet/cancel", session, form: "")
            let location = try #require(cancel["Location"])
            #expect(location.hasPrefix("/installs/\(id)?load=now&feedback=cancelled&once="))
            let page = await server.send("GET", location, fields: [("Cookie", session.cookie)])
            #expect(!page.body.contains(#"<dialog id="alert""#), "no alert")
            #expect(!page.body.contains(#"class="tile tier-coffee" disabled"#), "the buttons are usable again")
            #expect(page.body.contains("the user cancelled"))
            #expect((await server.json("GET", "/api/transactions").object["transactions"] as? [Any])?.isEmpty == true)
            let again = await pages.post(server, "/installs/\(id)/purchase-sheet/cancel", session, form: "", fragment: true)
            #expect(again.status == 409)
            #expect(again.body.contains("Purchase closed"))
        }
    }

    @Test func withJavaScriptTheSheetIsADialogFragmentAndConfirmAnswersTheLiveFragments() async throws {
        try await withLiveServer(settings: StoreSettings(purchaseOutcome: .failed, purchaseError: PurchaseFailure(Product.PurchaseError.purchaseNotAllowed))) { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            let open = await pages.post(server, "/installs/\(id)/purchase-sheet", session, form: "productID=\(Self.coffee)", fragment: true)
            #expect(open.status == 200)
            #expect(open.body.contains(#"<div id="purchase-sheet-slot">"#))
            #expect(open.body.contains(#"<dialog id="purchase-sheet" class="alert sheet" open aria-labelledby="sheet-title" lang="en">"#))
            #expect(open.body.contains("Coffee") && open.body.contains("$0.99") && open.body.contains(">Confirm</button>"))
            #expect(open.body.contains("data-fragment data-sheet"))
            let page = await server.send("GET", "/installs/\(id)", fields: [("Cookie", session.cookie)])
            #expect(page.body.contains(#"<dialog id="purchase-sheet""#), "a reload while the sheet is open shows it again")
            let confirm = await pages.post(server, "/installs/\(id)/purchase-sheet/confirm", session, form: "", fragment: true)
            #expect(confirm.body.contains(#"id="hearts""#) && confirm.body.contains(#"id="ledger""#))
            #expect(confirm.body.contains(PageTests.escaped(Product.PurchaseError.purchaseNotAllowed.message(locale: .en))))
            #expect(
                confirm.body.contains(#"<div id="purchase-sheet-slot">"#) && !confirm.body.contains(#"<dialog id="purchase-sheet""#),
                "the slot comes back empty")
        }
    }

    @Test func withSkipPurchaseSheetATileBuysAtOnce() async throws {
        try await withLiveServer(settings: StoreSettings(skipPurchaseSheet: true)) { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            let page = await server.send("GET", "/installs/\(id)?load=now", fields: [("Cookie", session.cookie)])
            #expect(page.body.contains(#"action="/installs/\#(id)/purchases""#))
            let reply = await pages.post(server, "/installs/\(id)/purchase-sheet", session, form: "productID=\(Self.coffee)")
            #expect(reply["Location"]?.hasPrefix("/installs/\(id)?load=now&feedback=purchased&once=") == true, "a post to the sheet is confirmed at once too")
            let store = await server.send("GET", "/store")
            #expect(store.body.contains(#"name="skipPurchaseSheet" value="1" checked>"#))
            #expect(store.body.contains("skipped: every purchase is confirmed at once"))
        }
    }

    @Test func aThrownUserCancelledShowsNoAlertOnThePage() async throws {
        try await withLiveServer(settings: StoreSettings(failures: StoreSettings.Failures(purchase: .userCancelled))) { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            _ = await pages.post(server, "/installs/\(id)/purchase-sheet", session, form: "productID=\(Self.coffee)", fragment: true)
            let reply = await pages.post(server, "/installs/\(id)/purchase-sheet/confirm", session, form: "", fragment: true)
            #expect(reply.status == 200)
            #expect(!reply.body.contains(#"<dialog id="alert""#))
            #expect(!reply.body.contains("Purchase failed"))
        }
    }

    @Test func theLedgerShowsTheQuantityAndTheAppAccountToken() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            _ = await server.json(
                "POST", "/api/installs/\(id)/purchases",
                #"{"productID":"\#(Self.coffee)","quantity":4,"appAccountToken":"6f1c2a7e-3b5d-4c8e-9a0f-1d2e3f4a5b6c"}"#)
            let page = await server.send("GET", "/installs/\(id)", fields: [("Cookie", session.cookie)])
            #expect(page.body.contains(#"<span class="badge">×4</span>"#))
            #expect(page.body.contains("appAccountToken <code>6f1c2a7e-3b5d-4c8e-9a0f-1d2e3f4a5b6c</code>"))
        }
    }

    @Test func aFailedRestoreAlertSpeaksOfRestore() async throws {
        try await withLiveServer(settings: StoreSettings(failures: StoreSettings.Failures(sync: .userCancelled))) { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session, locale: "pt-BR", storefront: "BRA")
            let reply = await pages.post(server, "/installs/\(id)/restore", session, form: "", fragment: true)
            #expect(reply.body.contains("A restauração foi cancelada."))
            #expect(!reply.body.contains("A compra foi cancelada."))
        }
    }

    @Test func storeOffersEveryPurchaseErrorAndStatesThePrecedence() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let store = await server.send("GET", "/store", fields: [("Cookie", session.cookie)])
            // Each case under its type (`<optgroup label="Product.PurchaseError">`), so a closed select shows it whole.
            for failure in PurchaseFailure.allCases {
                #expect(store.body.contains(#"<option value="\#(failure.rawValue)">\#(failure.rawValue)</option>"#))
                #expect(store.body.contains(#"<optgroup label="\#(failure.typeName)">"#))
            }
            #expect(store.body.contains("<strong>Precedence:</strong> the Purchase failure injection wins."))
            let saved = await pages.post(
                server, "/store", session,
                form: "catalog=normal&latencyMs=0&purchaseOutcome=failed&purchaseError=invalidOfferPrice"
                    + "&failPurchase=ineligibleForOffer&purchaseLatencyMs=0&listenerReemits=0&skipPurchaseSheet=1&refundRequestDecision=manual")
            #expect(saved.status == 303)
            let settings = await server.json("GET", "/api/store").object
            #expect(settings["purchaseError"] as? String == "invalidOfferPrice")
            #expect((settings["failures"] as? [String: Any])?["purchase"] as? String == "ineligibleForOffer")
            #expect(settings["skipPurchaseSheet"] as? Bool == true)
        }
    }
}
