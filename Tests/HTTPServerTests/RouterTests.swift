import Synchronization
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
        let chain = MiddlewareChain(router: router, makeContext: { _ in BasicRequestContext() })
        guard case .route(let post, _) = chain.resolve(method: "POST", path: "/a/b/c").0 else {
            Issue.record("POST /a/b/c reaches no route")
            return
        }
        #expect(router.routes[post].method == "POST")
        guard case .otherMethods(let allow) = chain.resolve(method: "DELETE", path: "/a/b/c").0 else {
            Issue.record("DELETE /a/b/c is not a 405")
            return
        }
        #expect(allow == "GET, HEAD, OPTIONS, POST", "the methods of both patterns that fit")
        #expect(chain.hasRoute(forPath: "/a/q/c") && !chain.hasRoute(forPath: "/a/q") && !chain.hasRoute(forPath: "/a/q/c/d"))
    }

    /// Records the name of each middleware that runs.
    final class Journal: Sendable {
        let names = Mutex<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        var value: [String] { names.withLock { $0 } }
    }

    struct Named: RouterMiddleware {
        let name: String
        let journal: Journal
        func handle(
            _ request: HTTPRequest, context: BasicRequestContext, next: (HTTPRequest, BasicRequestContext) async -> HTTPResponse
        ) async throws -> HTTPResponse {
            journal.add(name)
            return await next(request, context)
        }
    }

    /// A context that says which group set it up, in its error answers.
    struct Labelled: RequestContext {
        var parameters = RouteParameters()
        var label = "none"
        func response(for error: any HTTPResponseError, to request: HTTPRequest) -> HTTPResponse {
            .text("\(label): \(error.status.code)", status: error.status)
        }
    }

    @Test func aGroupsMiddlewaresRunAfterTheRoutersInFrontOfItsOwnRoutesOnly() async {
        let journal = Journal()
        var router = Router<BasicRequestContext>()
        router.add(middleware: Named(name: "everyone", journal: journal))
        router.group("/api", middlewares: [Named(name: "api", journal: journal)])
        router.get("/api/things") { _, _ in .text("things") }
        router.get("/pages") { _, _ in .text("pages") }
        router.get("/api") { _, _ in .text("the API's own page") }
        #expect(await router.respond(to: HTTPRequest(method: "GET", target: "/api/things")).body == Array("things".utf8))
        #expect(journal.value == ["everyone", "api"])
        #expect(await router.respond(to: HTTPRequest(method: "GET", target: "/pages")).status == .ok)
        #expect(await router.respond(to: HTTPRequest(method: "GET", target: "/api")).status == .ok)
        #expect(journal.value == ["everyone", "api", "everyone", "everyone"], "/api itself is not below /api")
        #expect(await router.respond(to: HTTPRequest(method: "GET", target: "/api/nothing")).status == .notFound)
        #expect(await router.respond(to: HTTPRequest(method: "POST", target: "/api/things")).status == .methodNotAllowed)
        #expect(journal.value == ["everyone", "api", "everyone", "everyone", "everyone", "everyone"], "the router's own answers pass only its own")
        #expect(await router.respond(to: HTTPRequest(method: "BREW", target: "/api/things")).status == .notImplemented)
        #expect(journal.value.count == 6, "a 501 passes no middleware")
    }

    @Test func everyAnswerUnderAGroupHasItsContextSetUpTheLongestPrefixWinning() async {
        var router = Router<Labelled>()
        router.group("/api", context: { context, _ in context.label = "api" })
        router.group("/api/v2", context: { context, _ in context.label = "v2" })
        router.get("/api/v2/:id") { _, context in .text("\(context.label) \(context.parameters["id"] ?? "")") }
        let chain = MiddlewareChain(router: router, makeContext: { _ in Labelled() })
        #expect(await chain.respond(to: HTTPRequest(method: "GET", target: "/api/v2/7")).body == Array("v2 7".utf8))
        #expect(await chain.respond(to: HTTPRequest(method: "GET", target: "/api/nothing")).body == Array("api: 404".utf8))
        #expect(await chain.respond(to: HTTPRequest(method: "DELETE", target: "/api/v2/7")).body == Array("v2: 405".utf8))
        #expect(await chain.respond(to: HTTPRequest(method: "BREW", target: "/api/v2/7")).body == Array("v2: 501".utf8))
        #expect(await chain.respond(to: HTTPRequest(method: "GET", target: "/elsewhere")).body == Array("none: 404".utf8))
    }

    /// Refuses every request whose path ends in `.secret`, in a task and at once alike; passes the rest.
    struct RefusesSecrets: RouterMiddleware {
        func handle(
            _ request: HTTPRequest, context: BasicRequestContext, next: (HTTPRequest, BasicRequestContext) async -> HTTPResponse
        ) async throws -> HTTPResponse {
            if request.path.hasSuffix(".secret") { throw HTTPError(.forbidden, title: "Forbidden", message: "no") }
            return await next(request, context)
        }

        func immediateStep(_ request: HTTPRequest, context: inout BasicRequestContext) -> ImmediateStep {
            request.path.hasSuffix(".secret") ? .refuse(HTTPError(.forbidden, title: "Forbidden", message: "no")) : .pass
        }
    }

    /// A fallback that has every answer in memory.
    struct InMemory: RouterFallback {
        func answer(_ request: HTTPRequest) async throws -> HTTPResponse { .text("file \(request.path)") }
        func immediateAnswer(_ request: HTTPRequest) -> PreparedResponse? { PreparedResponse(.text("file \(request.path)")) }
    }

    @Test func aMiddlewareAddedToTheRouterHoldsForWhatTheIOThreadAnswersToo() async {
        var router = Router<BasicRequestContext>(fallback: InMemory())
        router.get("/page") { _, _ in .text("page") }
        let open = MiddlewareChain(router: router, makeContext: { _ in BasicRequestContext() })
        #expect(open.immediateResponse(to: HTTPRequest(method: "GET", target: "/a.secret"))?.status == .ok, "no middleware: the file leaves at once")
        router.add(middleware: RefusesSecrets())
        let guarded = MiddlewareChain(router: router, makeContext: { _ in BasicRequestContext() })
        #expect(guarded.immediateResponse(to: HTTPRequest(method: "GET", target: "/a.secret"))?.status == .forbidden)
        #expect(await guarded.respond(to: HTTPRequest(method: "GET", target: "/a.secret")).status == .forbidden)
        #expect(guarded.immediateResponse(to: HTTPRequest(method: "GET", target: "/a.css"))?.status == .ok)
        #expect(guarded.immediateResponse(to: HTTPRequest(method: "GET", target: "/page")) == nil, "a handler needs a task")
        #expect(guarded.answerBeforeBody(HTTPRequest(method: "POST", target: "/b.secret"))?.status == .forbidden, "refused from the head")
    }

    @Test func aRememberedResolutionIsTheWalksOwnEvenPastTheMemosLimit() {
        let chain = MiddlewareChain(router: makeRouter(), makeContext: { _ in BasicRequestContext() })
        func described(_ resolution: (RouteIndex.Resolution, group: Int)) -> String {
            switch resolution.0 {
            case .route(let route, let parameters): "route \(route) \(parameters.pairs.count) group \(resolution.group)"
            case .notImplemented: "501"
            case .unmatched: "unmatched"
            case .otherMethods(let allow): "405 \(allow)"
            case .everyMethod: "*"
            }
        }
        let asked = [("GET", "/installs"), ("POST", "/installs"), ("DELETE", "/installs"), ("BREW", "/installs"), ("GET", "/nowhere")]
            + (0..<(RouteIndex.memoLimit + 10)).map { ("GET", "/installs/\($0)/purchases") }
        for _ in 0..<2 {
            for (method, path) in asked {
                let walked = chain.index.walk(method: method, path: path, capturing: false)
                #expect(described(chain.index.resolve(method: method, path: path, capturing: false)) == described(walked), "\(method) \(path)")
            }
        }
    }

    @Test func aRememberedResolutionStillCapturesTheParametersAHandlerNeeds() {
        let chain = MiddlewareChain(router: makeRouter(), makeContext: { _ in BasicRequestContext() })
        func captured(_ resolution: (RouteIndex.Resolution, group: Int)) -> [String] {
            guard case .route(_, let parameters) = resolution.0 else { return ["not a route"] }
            return parameters.pairs.map { "\($0.name)=\($0.value)" }
        }
        // The I/O thread's walk first (no parameters), then the task's (its handler reads them), in both orders.
        for (first, then) in [(false, true), (true, false), (true, true)] {
            let path = "/installs/\(first)-\(then)/purchases"
            let walked = chain.index.walk(method: "GET", path: path, capturing: true)
            _ = chain.index.resolve(method: "GET", path: path, capturing: first)
            let resolved = chain.index.resolve(method: "GET", path: path, capturing: then)
            #expect(captured(resolved) == (then ? captured(walked) : captured(resolved)), "\(path)")
            if then { #expect(captured(resolved) == ["id=\(first)-\(then)"]) }
        }
        // A route without parameters is answered from memory either way.
        let listed = chain.index.resolve(method: "GET", path: "/installs", capturing: false)
        #expect(captured(chain.index.resolve(method: "GET", path: "/installs", capturing: true)) == captured(listed))
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
