import Foundation
import TestSupport
import Testing
import TipJar

/// Refund requests from the app on the pages and the JSON API: the ledger's "Request a refund" link opens the app's
/// refund sheet (`Transaction.beginRefundRequest(in:)`,
/// https://developer.apple.com/documentation/storekit/transaction/beginrefundrequest(in:)-4w6kn), whose answer is the
/// install's feedback line; `/store` decides the request.
@Suite("Refund requests from the app: pages and API")
struct RefundRequestPageTests {
    let pages = PageTests()
    static let coffee = "com.example.tipjar.tip.coffee"

    func tip(_ server: LiveServer, _ id: String) async throws -> Int {
        let purchase = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID":"\#(Self.coffee)"}"#)
        return try #require(purchase.object["transactionID"] as? Int)
    }

    @Test("the ledger links a counted row to the refund sheet, whose Submit shows the request on the install", arguments: [
        ("en", "Refund requested; the App Store will decide.", "Request a refund"),
        ("pt-BR", "Reembolso pedido; a App Store vai decidir.", "Pedir reembolso"),
    ])
    func theLedgerLinksACountedRowToTheRefundSheetWhoseSubmitShowsTheRequestOnTheInstall(
        _ locale: String, _ notice: String, _ title: String
    ) async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session, locale: locale)
            let tid = try await tip(server, id)
            let sheetPath = "/installs/\(id)/transactions/\(tid)/refund-sheet"
            let install = await server.send("GET", "/installs/\(id)", fields: [("Cookie", session.cookie)])
            // The link keeps the screen's text size, so the sheet opens in it (app.js opens it as a dialog instead).
            #expect(install.body.contains(#"<a href="\#(sheetPath)?textSize=large" aria-label="Request a refund of transaction \#(tid)">"#))
            let sheet = await server.send("GET", sheetPath, fields: [("Cookie", session.cookie)])
            #expect(sheet.status == 200)
            #expect(sheet.body.contains("<h1>\(title)</h1>"))
            #expect(sheet.body.contains(#"<input type="hidden" name="csrfToken" value="\#(session.token)">"#), "the form carries the CSRF token")
            #expect(sheet.body.contains(#"<fieldset class="refund-reason" id="refund-reason">"#), "the reasons are radios, which wrap at any text size")
            let cancel = await pages.post(server, "/installs/\(id)/transactions/\(tid)/refund-request", session, form: "userAction=cancel")
            #expect(cancel["Location"]?.hasPrefix("/installs/\(id)?feedback=refundCancelled&once=") == true)
            let reply = await pages.post(server, "/installs/\(id)/transactions/\(tid)/refund-request", session, form: "userAction=submit&reason=developerIssue")
            #expect(reply.status == 303)
            let location = try #require(reply["Location"])
            #expect(location.hasPrefix("/installs/\(id)?feedback=refundRequested&once="))
            let page = await server.send("GET", location, fields: [("Cookie", session.cookie)])
            #expect(page.body.contains(notice))
            let again = await pages.post(server, "/installs/\(id)/transactions/\(tid)/refund-request", session, form: "userAction=submit")
            #expect(again["Location"]?.hasPrefix("/installs/\(id)?feedback=refundFailed&error=duplicateRequest&once=") == true)
        }
    }

    @Test func theStoreQueueShowsAPendingRequestWithApproveAndDeclineAndApprovalDeliversTheRevocation() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            let tid = try await tip(server, id)
            #expect(await server.json("POST", "/api/installs/\(id)/transactions/\(tid)/refund-request", #"{"userAction":"submit"}"#).status == 200)
            let store = await server.send("GET", "/store", fields: [("Cookie", session.cookie)])
            #expect(store.body.contains(#"<section class="panel" id="refund-requests">"#))
            #expect(store.body.contains(#"action="/store/refund-requests/\#(tid)/approve""#))
            #expect(store.body.contains(#"action="/store/refund-requests/\#(tid)/decline""#))
            let feedback = StoreFeedbackPageTests()
            let (fragment, section) = try await feedback.follow(
                server, await pages.post(server, "/store/refund-requests/\(tid)/approve", session, form: "x=1"), session)
            #expect(fragment == "refund-requests")
            #expect(section.contains("Refund request approved: the revoked transaction \(tid) was delivered to install \(id.prefix(8)) (revoked, 1 heart)."))
            #expect(section.contains(#"<span class="badge">approved</span>"#), "decided requests stay, with their outcome")
            let ledger = await server.json("GET", "/api/installs/\(id)/ledger").array
            #expect(ledger.last?["path"] as? String == "listener" && ledger.last?["outcome"] as? String == "revoked")
        }
    }

    @Test func theJSONAPIAnswersTheStatusADuplicateRequestAndTheInjectedFailureByName() async throws {
        try await withLiveServer { server in
            let id = try #require(await server.json("POST", "/api/installs", #"{"locale":"en","storefront":"USA","launch":true}"#).object["id"] as? String)
            let tid = try await tip(server, id)
            let path = "/api/installs/\(id)/transactions/\(tid)/refund-request"
            #expect(await server.json("POST", path, #"{"userAction":"later"}"#).status == 400)
            #expect(await server.json("POST", path, #"{"userAction":"cancel"}"#).object["status"] as? String == "userCancelled")
            let received = await server.json("POST", path, #"{"userAction":"submit","reason":"other"}"#)
            #expect(received.status == 200 && received.object["status"] as? String == "success")
            let duplicate = await server.json("POST", path, #"{"userAction":"submit"}"#)
            #expect(duplicate.status == 409 && duplicate.object["errorName"] as? String == "duplicateRequest")
            let queue = await server.json("GET", "/api/store/refund-requests").array
            #expect(queue.count == 1 && queue.first?["state"] as? String == "pending" && queue.first?["reason"] as? String == "other")
            let declined = await server.json("POST", "/api/store/refund-requests/\(tid)/decline")
            #expect(declined.status == 200 && declined.object["state"] as? String == "declined")
            #expect(await server.json("POST", "/api/store/refund-requests/\(tid)/approve").status == 409, "one decision wins")
            #expect(await server.json("PUT", "/api/store", #"{"failures":{"refundRequest":"failed"}}"#).status == 200)
            let other = try await tip(server, id)
            let failed = await server.json("POST", "/api/installs/\(id)/transactions/\(other)/refund-request", #"{"userAction":"submit"}"#)
            #expect(failed.status == 503 && failed.object["errorName"] as? String == "failed")
        }
    }
}
