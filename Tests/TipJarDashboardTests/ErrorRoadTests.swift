import Foundation
import HTTPServer
import Testing

@testable import TipJarDashboard

/// Every error takes one road (`MiddlewareChain.answer(_:to:context:)`): the router's own 404, 405 and 501 and the
/// static files' 404 are thrown like a handler's, so under `/api/` they answer `{"error": …}` and elsewhere the
/// error page, both with the security headers (RFC 9110 §15.5.5, §15.5.6, §15.6.2).
@Suite("Errors take one road")
struct ErrorRoadTests {
    @Test(arguments: ["/api/unknown", "/api/installs/00000000-0000-0000-0000-000000000000/nothing-here"])
    func anUnknownAPIPathIsAJSONNotFound(_ path: String) async throws {
        try await withLiveServer { server in
            let reply = await server.send("GET", path)
            #expect(reply.status == 404)
            #expect(reply["Content-Type"]?.hasPrefix("application/json") == true)
            #expect(reply.object["error"] as? String == "Nothing is at this address.")
            #expect(reply["Content-Security-Policy"] == SecurityHeaders.contentSecurityPolicy)
        }
    }

    @Test func aMethodAnAPIPathDoesNotTakeIsAJSON405WithAllow() async throws {
        try await withLiveServer { server in
            let reply = await server.send("DELETE", "/api/store")
            #expect(reply.status == 405)
            #expect(reply["Content-Type"]?.hasPrefix("application/json") == true)
            #expect(reply["Allow"]?.contains("GET") == true)
            #expect((reply.object["error"] as? String)?.contains("DELETE is not allowed here") == true)
        }
    }

    @Test func anUnknownMethodUnderTheAPIIsAJSON501() async throws {
        try await withLiveServer { server in
            let reply = await server.send("BREW", "/api/store")
            #expect(reply.status == 501)
            #expect(reply["Content-Type"]?.hasPrefix("application/json") == true)
            #expect(reply.object["error"] != nil)
        }
    }

    @Test(arguments: ["/no-such-page", "/no-such-file.css"])
    func anUnknownPageOrFileIsTheErrorPage(_ path: String) async throws {
        try await withLiveServer { server in
            let reply = await server.send("GET", path)
            #expect(reply.status == 404)
            #expect(reply["Content-Type"] == "text/html; charset=utf-8")
            #expect(reply.body.contains("Nothing is at this address."))
            #expect(reply["X-Frame-Options"] == "DENY")
        }
    }

    @Test func aFileWithAMethodItDoesNotTakeIsTheErrorPageWithAllow() async throws {
        try await withLiveServer { server in
            let reply = await server.send("PUT", "/app.css")
            #expect(reply.status == 405)
            #expect(reply["Allow"] == "GET, HEAD, OPTIONS")
            #expect(reply["Content-Type"] == "text/html; charset=utf-8")
        }
    }

    /// RFC 4122 §3: UUIDs compare case-insensitively; every route reads `:id` the same way (`DashboardContext.installID()`).
    @Test func everyInstallRouteFindsTheInstallByAnUppercaseID() async throws {
        try await withLiveServer { server in
            let created = await server.json("POST", "/api/installs", #"{"locale":"en","storefront":"USA","launch":true}"#)
            let id = try #require(created.object["id"] as? String)
            let upper = id.uppercased()
            #expect(await server.send("GET", "/installs/\(upper)").status == 200)
            #expect(await server.json("GET", "/api/installs/\(upper)").status == 200)
            let page = await server.send("GET", "/installs/\(id)")
            let token = try #require(page.csrfToken)
            let cookie = try #require(page.sessionCookie)
            let stop = await server.send(
                "POST", "/installs/\(upper)/stop",
                fields: [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", cookie), ("Origin", server.origin)],
                body: "csrfToken=\(token)")
            #expect(stop.status == 303, "\(stop.body)")
        }
    }
}
