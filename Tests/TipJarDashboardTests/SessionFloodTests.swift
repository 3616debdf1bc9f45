import Foundation
import HTTPServer
import Testing
import TipJar

@testable import TipJarDashboard

/// Another site can make a browser send any number of cookie-less requests (`<img src>`: a
/// `SameSite=Strict` cookie is never sent cross-site, RFC 6265bis §5.6.7.1). None of them may make a
/// browser's next form post fail: the CSRF token lives in the browser's cookie (`CSRFCookie`), not in a table.
@Suite("CSRF tokens under a flood")
struct SessionFloodTests {
    /// A request made in process (`Dashboard.respond(to:)`): the flood needs no socket.
    static func request(_ target: String, cookie: String? = nil) -> HTTPRequest {
        var fields = HTTPFields()
        fields.append(name: "Host", value: "127.0.0.1:8080")
        if let cookie { fields.append(name: "Cookie", value: cookie) }
        return HTTPRequest(method: "GET", target: target, fields: fields, requestID: "flood")
    }

    @Test func aTokenNeverUsedYetSurvivesThousandsOfCookielessPageViews() async throws {
        try await withLiveServer { server in
            let pages = PageTests()
            let session = try await pages.session(server)  // a page loaded, its form not posted yet
            for _ in 0..<3_000 {  // a server table of 10,000 sessions lost its oldest to 12,000; there is no table now
                let flood = await server.dashboard.respond(to: Self.request("/installs"))
                #expect(flood.status == .ok)
                #expect(flood.fields["Set-Cookie"] != nil, "a page with forms hands out a token")
            }
            _ = try await pages.createInstall(server, session)
        }
    }

    @Test func aFormPostsWithTheTokenItsPageGaveAfterTheServerRestarted() async throws {
        let session = try await withLiveServer { server in try await PageTests().session(server) }
        try await withLiveServer { server in _ = try await PageTests().createInstall(server, session) }
    }

    @Test func requestsWithoutAFormStartNoSession() async throws {
        // A failing catalog: the tip jar fragment shows its Retry state, which has no form with a token.
        try await withLiveServer(settings: StoreSettings(catalog: .failing)) { server in
            let created = await server.json("POST", "/api/installs", #"{"locale":"en","launch":true}"#)
            #expect(created.status == 201)
            let id = try #require(created.object["id"] as? String)
            let targets: [(String, [(String, String)])] = [
                ("/", []), ("/catalog", []), ("/app.css", []), ("/app.js", []), ("/api/store", []), ("/api/installs/\(id)", []),
                ("/installs/\(id)/live", [("X-Fragment", "1")]), ("/installs/\(id)/offers", [("X-Fragment", "1")]),
                ("/installs/no-such-install", []), ("/no-such-page", []), ("/installs/no-such-install/offers", [("X-Fragment", "1")]),
            ]
            for (target, fields) in targets {
                let reply = await server.send("GET", target, fields: fields)
                #expect(reply.status != 0, "\(target) answered")
                #expect(reply["Set-Cookie"] == nil, "\(target) set a cookie")
            }
            let post = await server.send("POST", "/installs", fields: [("Content-Type", "application/x-www-form-urlencoded")], body: "locale=en")
            #expect(post.status == 403)
            #expect(post["Set-Cookie"] == nil)
            for target in ["/installs", "/store", "/installs/\(id)"] {
                #expect(await server.send("GET", target).sessionCookie != nil, "\(target) has forms")
            }
        }
    }
}
