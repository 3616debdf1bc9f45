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
}
