import Synchronization
import Testing

@testable import HTTPServer

/// `MiddlewareChain`: the one place a thrown error becomes an answer, the order of the middlewares, and
/// `RouteParameters.require`.
@Suite("Middleware chain")
struct MiddlewareChainTests {
    struct Unexpected: Error, CustomStringConvertible {
        var description: String { "the disk caught fire" }
    }

    /// Records what passes, in order.
    final class Journal: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    struct Recording: RouterMiddleware {
        let name: String
        let journal: Journal
        func handle(
            _ request: HTTPRequest, context: BasicRequestContext,
            next: (HTTPRequest, BasicRequestContext) async -> HTTPResponse
        ) async throws -> HTTPResponse {
            journal.add("\(name) in")
            let response = await next(request, context)
            journal.add("\(name) out \(response.status.code)")
            return response
        }
    }

    struct Refusing: RouterMiddleware {
        func handle(
            _ request: HTTPRequest, context: BasicRequestContext,
            next: (HTTPRequest, BasicRequestContext) async -> HTTPResponse
        ) async throws -> HTTPResponse {
            guard request.fields["X-Allowed"] == "yes" else {
                throw HTTPError(.forbidden, title: "Forbidden", message: "not you", fields: ["X-Why": "refused"])
            }
            return await next(request, context)
        }
    }

    func router(_ journal: Journal) -> Router<BasicRequestContext> {
        var router = Router<BasicRequestContext>()
        router.get("/conflict") { _, _ in throw HTTPError(.conflict, title: "Conflict", message: "already open") }
        router.get("/unexpected") { _, _ in throw Unexpected() }
        router.get("/transactions/:tid") { _, context in
            .text("transaction \(try context.parameters.require("tid", as: UInt64.self))")
        }
        router.get("/items/:id") { _, context in .text(try context.parameters.require("name")) }
        router.get("/ok") { _, _ in
            journal.add("handler")
            return .text("fine")
        }
        return router
    }

    func chain(
        _ journal: Journal, middlewares: [any RouterMiddleware<BasicRequestContext>] = [],
        log: @escaping @Sendable (String, [String: String]) -> Void = { _, _ in }
    ) -> MiddlewareChain<BasicRequestContext> {
        MiddlewareChain(
            middlewares: middlewares, router: router(journal), makeContext: { _ in BasicRequestContext() },
            internalErrorMessage: "Nothing was changed.", log: log)
    }

    @Test func aThrownStatusErrorIsAnsweredWithItsStatusAndMessage() async {
        let journal = Journal()
        let response = await chain(journal).respond(to: HTTPRequest(method: "GET", target: "/conflict", requestID: "3-1"))
        #expect(response.status == .conflict)
        #expect(String(decoding: response.body, as: UTF8.self) == "already open")
    }

    @Test func anUnknownErrorIsOne500CarryingTheRequestIDWhichIsAlsoLogged() async {
        let journal = Journal()
        let logged = Mutex<[(String, [String: String])]>([])
        let chain = chain(journal, log: { message, metadata in logged.withLock { $0.append((message, metadata)) } })
        let response = await chain.respond(to: HTTPRequest(method: "GET", target: "/unexpected", requestID: "7-2a"))
        #expect(response.status == .internalServerError)
        let body = String(decoding: response.body, as: UTF8.self)
        #expect(body.contains("7-2a"))
        #expect(body.contains("Nothing was changed."))
        #expect(!body.contains("fire"), "the error itself stays in the log")
        let lines = logged.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.0 == "request failed")
        #expect(lines.first?.1["request.id"] == "7-2a")
        #expect(lines.first?.1["error"] == "the disk caught fire")
        #expect(lines.first?.1["path"] == "/unexpected")
    }

    @Test func aStatusErrorBelow500IsNotLogged() async {
        let logged = Mutex(0)
        let chain = chain(Journal(), log: { _, _ in logged.withLock { $0 += 1 } })
        _ = await chain.respond(to: HTTPRequest(method: "GET", target: "/conflict"))
        #expect(logged.withLock { $0 } == 0)
    }

    @Test func requireAnswers404ForASegmentThatNamesNothingAnd400ForAMissingParameter() async throws {
        let chain = chain(Journal())
        let found = await chain.respond(to: HTTPRequest(method: "GET", target: "/transactions/12"))
        #expect(String(decoding: found.body, as: UTF8.self) == "transaction 12")
        #expect(await chain.respond(to: HTTPRequest(method: "GET", target: "/transactions/twelve")).status == .notFound)
        #expect(await chain.respond(to: HTTPRequest(method: "GET", target: "/items/7")).status == .badRequest)
        #expect(throws: RouteParameterError.self) { try RouteParameters([("tid", "x")]).require("tid", as: Int.self) }
        #expect(try RouteParameters([("id", "A1")]).require("id") == "A1")
    }

    @Test func middlewaresRunInTheirOrderAroundTheHandler() async {
        let journal = Journal()
        let chain = chain(journal, middlewares: [Recording(name: "outer", journal: journal), Recording(name: "inner", journal: journal)])
        let response = await chain.respond(to: HTTPRequest(method: "GET", target: "/ok"))
        #expect(response.status == .ok)
        #expect(journal.all == ["outer in", "inner in", "handler", "inner out 200", "outer out 200"])
    }

    @Test func aRefusalIsAnAnswerTheOuterMiddlewaresSeeAndTheHandlerNeverRuns() async {
        let journal = Journal()
        let chain = chain(journal, middlewares: [Recording(name: "outer", journal: journal), Refusing(), Recording(name: "inner", journal: journal)])
        let refused = await chain.respond(to: HTTPRequest(method: "GET", target: "/ok"))
        #expect(refused.status == .forbidden)
        #expect(refused.fields["X-Why"] == "refused")
        #expect(journal.all == ["outer in", "outer out 403"])
        var allowed = HTTPFields()
        allowed["X-Allowed"] = "yes"
        #expect(await chain.respond(to: HTTPRequest(method: "GET", target: "/ok", fields: allowed)).status == .ok)
    }

    @Test func anErrorAHandlerThrowsReachesTheMiddlewaresAsItsAnswer() async {
        let journal = Journal()
        let chain = chain(journal, middlewares: [Recording(name: "outer", journal: journal)])
        _ = await chain.respond(to: HTTPRequest(method: "GET", target: "/unexpected"))
        #expect(journal.all == ["outer in", "outer out 500"])
    }
}
