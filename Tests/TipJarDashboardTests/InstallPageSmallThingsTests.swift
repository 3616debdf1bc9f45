import Foundation
import Testing
import TipJar

/// Small rules of the install page and the overview, through a live server: the no-JavaScript feedback is shown
/// once, deleted installs are text, "Save as scenario" says why it cannot record, the live channel says whether a
/// purchase is open, and the ledger is one landmark.
@Suite("Install page: small things")
struct InstallPageSmallThingsTests {
    let pages = PageTests()
    static let coffee = "com.example.tipjar.tip.coffee"

    @Test func theNoJavaScriptFeedbackIsShownOnceAndNotAgainOnAReload() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            let reply = await pages.post(server, "/installs/\(id)/purchases", session, form: "productID=\(Self.coffee)")
            let location = try #require(reply["Location"])
            let first = await server.send("GET", location, fields: [("Cookie", session.cookie)])
            #expect(first.body.contains("Thank you for the tip! One more heart."))
            let shown = try #require(first.fields.first { $0.name == "Set-Cookie" && $0.value.hasPrefix("tipjar_feedback_shown=") }?.value)
            #expect(shown.contains("HttpOnly") && shown.contains("SameSite=Strict") && shown.contains("Path=/installs/\(id)"))
            let marker = try #require(shown.split(separator: ";").first.map(String.init))
            let reload = await server.send("GET", location, fields: [("Cookie", "\(session.cookie); \(marker)")])
            #expect(reload.status == 200)
            #expect(!reload.body.contains("One more heart."), "a reload thanked again")
            #expect(reload.body.contains("♥♡♡♡♡"))
        }
    }

    @Test func eventsOfADeletedInstallAreTextNotLinks() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            let before = await server.send("GET", "/")
            #expect(before.body.contains(#"<a href="/installs/\#(id)">"#))
            #expect(await server.json("DELETE", "/api/installs/\(id)").status == 204)
            let after = await server.send("GET", "/")
            #expect(!after.body.contains(#"href="/installs/\#(id)""#), "a link that answers 404")
            #expect(after.body.contains(#"<span class="deleted-install">\#(id.prefix(8)) (deleted)</span>"#))
        }
    }

    @Test func saveAsScenarioSaysWhyOnceTheCreationLeftTheTimeline() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            #expect(await server.send("GET", "/installs/\(id)", fields: [("Cookie", session.cookie)]).body.contains(">Save as scenario</a>"))
            for _ in 0..<30 {
                _ = await server.json("POST", "/api/installs/\(id)/stop")
                _ = await server.json("POST", "/api/installs/\(id)/launch")
            }
            #expect(await server.send("GET", "/api/installs/\(id)/scenario").status == 409)
            let page = await server.send("GET", "/installs/\(id)", fields: [("Cookie", session.cookie)])
            #expect(!page.body.contains(">Save as scenario</a>"))
            #expect(page.body.contains("Save as scenario is not available: This install&#39;s creation is no longer on the timeline"))
        }
    }

    @Test func theLiveFragmentsSayWhetherAPurchaseSheetIsOpen() async throws {
        try await withLiveServer(settings: StoreSettings(skipPurchaseSheet: false)) { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            #expect(await server.send("GET", "/installs/\(id)/live").body.contains(#"<p id="purchase-state" class="purchase-state muted" role="status" data-open="false"></p>"#))
            _ = await pages.post(server, "/installs/\(id)/purchase-sheet", session, form: "productID=\(Self.coffee)")
            #expect(
                await server.send("GET", "/installs/\(id)/live").body.contains(
                    #"<p id="purchase-state" class="purchase-state muted" role="status" data-open="true">"#
                        + "A purchase is open on this app (maybe in another tab): the tips wait until it closes.</p>"),
                "the disabled tiles say why")
        }
    }

    @Test func theLedgerIsOneLandmarkNamedOnce() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            _ = await server.json("POST", "/api/installs/\(id)/purchases", #"{"productID": "\#(Self.coffee)"}"#)
            let page = await server.send("GET", "/installs/\(id)", fields: [("Cookie", session.cookie)])
            #expect(page.body.components(separatedBy: #"aria-labelledby="ledger-title""#).count == 2, "one element named by the ledger's heading")
        }
    }
}
