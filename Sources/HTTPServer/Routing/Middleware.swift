/// One step between the server and the router (the shape of Hummingbird's `RouterMiddleware`): it may
/// answer by itself (a refusal), change the context its successor gets, or change the answer on its way
/// back. `next` never throws: an error thrown further in has already become its answer, so a middleware
/// sees every response, errors included.
public protocol RouterMiddleware<Context>: Sendable {
    /// The request context the chain carries.
    associatedtype Context: RequestContext
    /// Handles one request.
    /// - Parameters:
    ///   - request: the request.
    ///   - context: its context so far.
    ///   - next: the rest of the chain (the next middleware, finally the router).
    /// - Returns: the answer.
    /// - Throws: an ``HTTPResponseError`` to refuse (any other error is answered 500).
    func handle(
        _ request: HTTPRequest, context: Context,
        next: (HTTPRequest, Context) async -> HTTPResponse
    ) async throws -> HTTPResponse
}

/// The server-facing ``HTTPResponder`` of an application: builds each request's context, runs the
/// middlewares in order, then the ``Router``, and is the one place where a thrown error becomes an answer
/// (``answer(_:to:context:)``): an ``HTTPResponseError`` (or an error `classify` names) is rendered by the
/// context; any other error is logged with the request ID and answered with one ``InternalServerError``.
public struct MiddlewareChain<Context: RequestContext>: HTTPResponder {
    /// The middlewares, outermost first.
    public let middlewares: [any RouterMiddleware<Context>]
    /// The router behind the last middleware.
    public let router: Router<Context>
    let makeContext: @Sendable (HTTPRequest) -> Context
    let classify: @Sendable (any Error) -> (any HTTPResponseError)?
    let internalErrorMessage: String
    let log: @Sendable (_ message: String, _ metadata: [String: String]) -> Void

    /// Creates the chain.
    /// - Parameters:
    ///   - middlewares: outermost first.
    ///   - router: the routes.
    ///   - makeContext: the context a request starts with.
    ///   - classify: names the status of errors of types that cannot conform to ``HTTPResponseError``
    ///     themselves (e.g. a storage module's); `nil` leaves an error unknown (default: every one).
    ///   - internalErrorMessage: what a 500 tells the client.
    ///   - log: where unknown and 5xx errors are logged: `request failed` with `request.id`, `error` and `path`.
    public init(
        middlewares: [any RouterMiddleware<Context>] = [], router: Router<Context>,
        makeContext: @escaping @Sendable (HTTPRequest) -> Context,
        classify: @escaping @Sendable (any Error) -> (any HTTPResponseError)? = { _ in nil },
        internalErrorMessage: String = "The server hit an unexpected error.",
        log: @escaping @Sendable (_ message: String, _ metadata: [String: String]) -> Void = { _, _ in }
    ) {
        self.middlewares = middlewares
        self.router = router
        self.makeContext = makeContext
        self.classify = classify
        self.internalErrorMessage = internalErrorMessage
        self.log = log
    }

    /// Answers `request`: every middleware in order, then the router.
    /// - Parameter request: the request.
    /// - Returns: the answer; never throws.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        await run(from: 0, request, makeContext(request))
    }

    private func run(from index: Int, _ request: HTTPRequest, _ context: Context) async -> HTTPResponse {
        do {
            guard index < middlewares.count else { return try await router.respond(to: request, context: context) }
            return try await middlewares[index].handle(request, context: context) { request, context in
                await run(from: index + 1, request, context)
            }
        } catch {
            return answer(error, to: request, context: context)
        }
    }

    /// The one place an error becomes an answer: rendered by `context` when it knows its status (logged when
    /// ``HTTPResponseError/isLogged``), else logged with the request ID and answered 500.
    /// - Parameters:
    ///   - error: what a middleware or handler threw.
    ///   - request: the request.
    ///   - context: the context of the step that threw.
    /// - Returns: the answer.
    public func answer(_ error: any Error, to request: HTTPRequest, context: Context) -> HTTPResponse {
        if let known = (error as? any HTTPResponseError) ?? classify(error) {
            if known.isLogged { logFailure(error, request) }
            return context.response(for: known, to: request)
        }
        logFailure(error, request)
        return context.response(for: InternalServerError(requestID: request.requestID, message: internalErrorMessage), to: request)
    }

    private func logFailure(_ error: any Error, _ request: HTTPRequest) {
        log("request failed", ["request.id": request.requestID, "error": String(describing: error), "path": request.path])
    }
}
