import Foundation
import HTTPServer
import TestSupport
import Testing
import TipJar

@testable import TipJarDashboard

/// Relaunch answers at once with the loading skeleton (README "Domain rules": Loading, and its three layers of
/// feedback): the relaunched app loads its tips again, and the page never shows the old tiles while it does. Without
/// JavaScript the skeleton page refreshes at once to the page that loads them (an instant `<meta http-equiv=refresh>`,
/// WCAG 2.2 technique H76), back at the App controls' heading; a purchase's answer puts the focus on its notice.
@Suite("Relaunch and the first visit")
struct RelaunchPageTests {
    let pages = PageTests()

    @Test func relaunchAnswersWithTheSkeletonWhoseRefreshLoadsTheTipsAtTheAppControls() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            let loaded = await server.send("GET", "/installs/\(id)?load=now", fields: [("Cookie", session.cookie)])
            #expect(loaded.body.contains(#"data-state="ready""#))
            let reply = await pages.post(server, "/installs/\(id)/launch", session, form: "textSize=AX5")
            #expect(reply.status == 303)
            let location = try #require(reply["Location"])
            #expect(location == "/installs/\(id)?relaunched=1&textSize=AX5#actions")
            let page = await server.send("GET", String(location.prefix { $0 != "#" }), fields: [("Cookie", session.cookie)])
            #expect(page.body.contains(#"data-state="loading""#), "the relaunched app's tiles are loading, not the old ones")
            #expect(page.body.contains(#"aria-busy="true""#))
            #expect(
                page.body.contains(
                    #"<noscript><meta http-equiv="refresh" content="0; url=/installs/\#(id)?load=now&amp;textSize=AX5#actions"></noscript>"#))
        }
    }

    @Test func aPageWhoseTipsAreShownHasNoRefresh() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            let fresh = await server.send("GET", "/installs/\(id)", fields: [("Cookie", session.cookie)])
            #expect(fresh.body.contains(#"<meta http-equiv="refresh" content="0; url=/installs/\#(id)?load=now&amp;textSize=large">"#))
            let loaded = await server.send("GET", "/installs/\(id)?load=now", fields: [("Cookie", session.cookie)])
            #expect(!loaded.body.contains("http-equiv"), "a loaded page refreshing would load it forever")
        }
    }

    @Test func withoutJavaScriptThePurchasesNoticeTakesTheFocusButALiveFragmentsNever() async throws {
        try await withLiveServer { server in
            let session = try await pages.session(server)
            let id = try await pages.createInstall(server, session)
            let reply = await pages.post(server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.coffee")
            let location = try #require(reply["Location"])
            let page = await server.send("GET", location, fields: [("Cookie", session.cookie)])
            #expect(page.body.contains(#"role="status" tabindex="-1" autofocus>Thank you for the tip! One more heart.</p>"#))
            let fragment = await pages.post(
                server, "/installs/\(id)/purchases", session, form: "productID=com.example.tipjar.tip.coffee", fragment: true)
            #expect(fragment.body.contains("Thank you for the tip!"))
            #expect(!fragment.body.contains("autofocus"), "a swapped-in notice would take the focus from the tapped tile")
        }
    }
}
