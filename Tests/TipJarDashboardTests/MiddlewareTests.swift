import Foundation
import HTTPServer
import Synchronization
import Testing

@testable import TipJarDashboard

/// The dashboard's middlewares (`Dashboard.chain(router:pageCache:adminToken:errorPages:appStoreServerAPIGate:rendersErrorsAtOnce:log:)`): their order, deny
/// by default for every unsafe method that reaches a handler, and error answers rendered from the templates.
@Suite("Dashboard middlewares")
struct MiddlewareTests {
    /// Counts the handler's runs.
    final class Runs: Sendable {
        let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    static func errorPages() throws -> ErrorPages {
        ErrorPages(
            templates: try TemplateSource(directory: LiveServer.repositoryRoot.appendingPathComponent("Templates"), reload: false),
            catalogName: "TipProducts.storekit")
    }

    /// A chain whose router has a form `DELETE` route and a JSON one, both counting their runs.
    static func chain(_ runs: Runs, adminToken: String? = nil) throws -> MiddlewareChain<DashboardContext> {
        var router = Router<DashboardContext>()
        router.delete("/things/:id") { _, context in
            runs.add()
            return .text("deleted \(try context.parameters.require("id"))")
        }
        router.delete("/api/things/:id") { _, _ in
            runs.add()
            return HTTPResponse(status: .noContent)
        }
        return Dashboard.chain(router: router, adminToken: adminToken, errorPages: try errorPages(), log: { _, _ in })
    }

    static func request(_ method: String, _ target: String, _ fields: [(String, String)]) -> HTTPRequest {
        var all = HTTPFields()
        all.append(name: "Host", value: "127.0.0.1:8080")
        for (name, value) in fields { all.append(name: name, value: value) }
        return HTTPRequest(method: method, target: target, fields: all, requestID: "5-9")
    }

    @Test func everyRouteRunsFieldSizesThenAdminTokenThenItsAreasOriginCheck() throws {
        let chain = try Self.chain(Runs(), adminToken: String(repeating: "ab", count: 16))
        let names = chain.middlewares.map { String(describing: type(of: $0)) }
        #expect(names == ["FieldSizeCheck", "AdminTokenCheck"])
        let areas = chain.router.routes.map { chain.router.middlewares(ofRoutePattern: $0.pattern).map { String(describing: type(of: $0)) } }
        #expect(areas == [["FormOriginCheck"], ["JSONOriginCheck"]], "/things/:id is a page's, /api/things/:id the JSON API's")
        let withoutToken = try Self.chain(Runs())
        #expect(!withoutToken.middlewares.contains { $0 is AdminTokenCheck })
    }

    @Test func aDeleteRouteWithoutOriginOrCSRFTokenIsRefusedAndNeverRuns() async throws {
        let runs = Runs()
        let chain = try Self.chain(runs)
        let bare = await chain.respond(to: Self.request("DELETE", "/things/1", []))
        #expect(bare.status == .forbidden)
        let token = CSRFCookie.randomToken()
        let id = token
        let noToken = await chain.respond(to: Self.request("DELETE", "/things/1", [("Sec-Fetch-Site", "same-origin"), ("Cookie", "tipjar_session=\(id)")]))
        #expect(noToken.status == .forbidden)
        let crossSite = await chain.respond(to: Self.request("DELETE", "/api/things/1", [("Sec-Fetch-Site", "cross-site")]))
        #expect(crossSite.status == .forbidden)
        #expect(runs.value == 0)
        let allowed = await chain.respond(
            to: Self.request(
                "DELETE", "/things/1",
                [
                    ("Sec-Fetch-Site", "same-origin"),
                    ("Cookie", "tipjar_session=\(id)"), ("X-CSRF-Token", token),
                ]))
        #expect(allowed.status == .ok)
        #expect(String(decoding: allowed.body, as: UTF8.self) == "deleted 1")
        #expect(runs.value == 1)
    }

    @Test func errorPagesAndFragmentsRenderFromTheirTemplates() async throws {
        let chain = try Self.chain(Runs(), adminToken: String(repeating: "ab", count: 16))
        let page = await chain.respond(to: Self.request("GET", "/installs", []))
        #expect(page.status == .unauthorized)
        #expect(page.fields["WWW-Authenticate"] == AdminTokenCheck.challenge)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("<h1>Sign-in required</h1>"))
        #expect(html.contains("Status 401 · request ID <code>5-9</code>"))
        #expect(html.contains(#"<nav aria-label="Main">"#), "the page is Templates/pages/error.mustache inside the layout")
        let fragment = await chain.respond(to: Self.request("GET", "/installs", [("X-Fragment", "1")]))
        let alert = String(decoding: fragment.body, as: UTF8.self)
        #expect(alert.contains(#"<h2 id="alert-title">Sign-in required</h2>"#))
        #expect(alert.contains(">OK</button>"))
        let json = await chain.respond(to: Self.request("GET", "/api/installs", []))
        #expect(json.fields["Content-Type"] == "application/json; charset=utf-8")
        #expect(String(decoding: json.body, as: UTF8.self).contains(#""error":"This dashboard needs its admin token"#))
    }
}
