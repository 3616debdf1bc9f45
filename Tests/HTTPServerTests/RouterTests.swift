import Testing

@testable import HTTPServer

@Suite("Router")
struct RouterTests {
    func makeRouter() -> Router<BasicRequestContext> {
        var router = Router<BasicRequestContext>()
        router.get("/installs/:id/purchases") { _, context in .text("purchases of \(context.parameters["id"] ?? "?")") }
        router.post("/installs") { _, _ in .text("created", status: .created) }
        router.get("/installs") { _, _ in .text("list") }
        return router
    }

    @Test func matchesParameters() async {
        let response = await makeRouter().respond(to: HTTPRequest(method: "GET", target: "/installs/42/purchases"))
        #expect(response.body == Array("purchases of 42".utf8))
    }

    @Test func ofTwoPatternsThatFitAPathTheFirstAddedAnswersLiteralOrParameter() async {
        var router = Router<BasicRequestContext>()
        router.get("/installs/:id") { _, context in .text("install \(context.parameters["id"] ?? "?")") }
        router.get("/installs/new") { _, _ in .text("new form") }
        router.get("/a/b/c") { _, _ in .text("literal first") }
        router.get("/a/:x/c") { _, _ in .text("parameter second") }
        router.post("/a/:x/c") { _, context in .text("post \(context.parameters["x"] ?? "?")") }
        #expect(await router.respond(to: HTTPRequest(method: "GET", target: "/installs/new")).body == Array("install new".utf8))
        #expect(await router.respond(to: HTTPRequest(method: "GET", target: "/a/b/c")).body == Array("literal first".utf8))
        #expect(await router.respond(to: HTTPRequest(method: "GET", target: "/a/z/c")).body == Array("parameter second".utf8))
        #expect(await router.respond(to: HTTPRequest(method: "POST", target: "/a/b/c")).body == Array("post b".utf8), "a literal of another method does not hide the parameter")
        #expect(router.hasHandler(method: "POST", path: "/a/b/c") && !router.hasHandler(method: "DELETE", path: "/a/b/c"))
        #expect(router.hasRoute(forPath: "/a/q/c") && !router.hasRoute(forPath: "/a/q") && !router.hasRoute(forPath: "/a/q/c/d"))
    }

    @Test func unknownPathIs404() async {
        #expect(await makeRouter().respond(to: HTTPRequest(method: "GET", target: "/nope")).status == .notFound)
    }

    @Test func wrongMethodIs405WithAllow() async {
        let response = await makeRouter().respond(to: HTTPRequest(method: "DELETE", target: "/installs"))
        #expect(response.status == .methodNotAllowed)
        #expect(response.fields["Allow"] == "GET, HEAD, OPTIONS, POST")
    }

    @Test func headUsesGetHandler() async {
        #expect(await makeRouter().respond(to: HTTPRequest(method: "HEAD", target: "/installs")).body == Array("list".utf8))
    }

    @Test func optionsAnswersAllow() async {
        let response = await makeRouter().respond(to: HTTPRequest(method: "OPTIONS", target: "/installs"))
        #expect(response.status == .noContent)
        #expect(response.fields["Allow"]?.contains("POST") == true)
        let star = await makeRouter().respond(to: HTTPRequest(method: "OPTIONS", target: "*"))
        #expect(star.status == .noContent)
    }

    @Test func fallbackAnswersUnmatched() async {
        var router = makeRouter()
        router.fallback = ClosureResponder { _ in .text("fallback") }
        #expect(await router.respond(to: HTTPRequest(method: "GET", target: "/x")).body == Array("fallback".utf8))
    }

    @Test("A path is cut into the segments split(separator: \"/\") gives, empty ones dropped, whatever its characters")
    func pathSegmentsMatchSplit() {
        for path in [
            "/", "", "/installs", "/installs/", "//installs//42/", "/api/installs/0f3c/purchases", "/café/e\u{301}/😀",
            "/a/b/c/d/e/f", "relative/path", "/%2F/x", "///",
        ] {
            #expect(RouteSegment.parts(of: path) == path.split(separator: "/", omittingEmptySubsequences: true), "\(path)")
        }
        // RFC 3986 §3.3: every "/" separates, even one a combining mark makes part of a grapheme.
        #expect(RouteSegment.parts(of: "/a/\u{301}b") == ["a", "\u{301}b"])
    }
}
