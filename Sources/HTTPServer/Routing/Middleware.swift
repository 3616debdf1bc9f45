/// One step in front of a route's handler (the shape of Hummingbird's `RouterMiddleware`), built into the responder of
/// every route it applies to (``Router/add(middleware:)``, ``Router/group(_:middlewares:context:)``): it may
/// answer by itself (a refusal), change the context its successor gets, or change the answer on its way
/// back; and it may offer the step it takes at once, on the I/O thread (``immediateStep(_:context:)``). `next` never throws: an error thrown further in has already become its answer, so a middleware
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

    /// The step this middleware takes at once, on the server's I/O thread, before any task is started: what
    /// ``handle(_:context:next:)`` would do, when it can decide without blocking or awaiting (a check of the head, a look-up
    /// in memory). The server walks the route's middlewares in order with this, and hands the request to a task (which
    /// runs ``handle(_:context:next:)`` of each, from the first) at the first step that needs one. The route's parameters
    /// are not captured for this walk (no handler runs on it): a step reads the request.
    /// - Parameters:
    ///   - request: the request.
    ///   - context: its context so far; a step that passes may change it for the next.
    /// - Returns: ``ImmediateStep/needsTask`` by default.
    func immediateStep(_ request: HTTPRequest, context: inout Context) -> ImmediateStep
}

extension RouterMiddleware {
    /// Every request takes a task: the middleware offers no step at once.
    public func immediateStep(_ request: HTTPRequest, context: inout Context) -> ImmediateStep { .needsTask }
}

/// A middleware's synchronous first step (``RouterMiddleware/immediateStep(_:context:)``).
public enum ImmediateStep: Sendable {
    /// Go on to the next step, as ``RouterMiddleware/handle(_:context:next:)`` would call `next`.
    case pass
    /// Refuse with this error, as ``RouterMiddleware/handle(_:context:next:)`` would throw it; the chain renders it.
    case refuse(any Error)
    /// Answer now with these bytes (e.g. a stored answer found in memory).
    case answer(PreparedResponse)
    /// This step needs a task (it awaits, or reads a disk): the request takes the normal road from the first step.
    case needsTask
}

/// The server-facing ``HTTPResponder`` of an application: its ``Router``'s routes, each with its middlewares built in
/// once (the shape of Hummingbird's `MiddlewareGroup.constructResponder` and Vapor's `DefaultResponder`, which cache
/// each route's responder at start-up). A request is resolved by one walk of the route tree (its route, parameters and
/// group, or the router's own 404, 405, `OPTIONS` or 501), its context made and set up by its group, and the route's
/// responder runs: the router's middlewares, the group's, the handler. This is the one place where a thrown error
/// becomes an answer (``answer(_:to:context:)``): an ``HTTPResponseError`` (or an error `classify` names) is rendered by
/// the context; any other error is logged with the request ID and answered with one ``InternalServerError``.
public struct MiddlewareChain<Context: RequestContext>: HTTPResponder, ImmediateResponder {
    /// A route's middlewares and handler, composed.
    typealias Responder = @Sendable (HTTPRequest, Context) async -> HTTPResponse

    /// The middlewares in front of every route and of the router's own answers, outermost first: the chain's, then the
    /// router's (``Router/add(middleware:)``).
    public let middlewares: [any RouterMiddleware<Context>]
    /// The routes.
    public let router: Router<Context>
    @usableFromInline let makeContext: @Sendable (HTTPRequest) -> Context
    let errors: ErrorAnswers
    /// Each route's responder, by its number in the router's table.
    let responders: [Responder]
    /// Each route's middlewares, outermost first, as its responder runs them (what the I/O thread walks).
    @usableFromInline let routeMiddlewares: [[any RouterMiddleware<Context>]]
    /// Whether an error can be rendered on the I/O thread (its rendering reads nothing from disk).
    @usableFromInline let rendersErrorsAtOnce: Bool
    /// The route tree and what each of its nodes holds, resolved by one walk.
    @usableFromInline let index: RouteIndex
    /// Each group's context setup, by the group's number.
    @usableFromInline let setups: [Router<Context>.ContextSetup?]

    /// Creates the chain and builds every route's responder.
    /// - Parameters:
    ///   - middlewares: in front of the router's own, outermost first.
    ///   - router: the routes, their groups and middlewares.
    ///   - makeContext: the context a request starts with (its group then sets it up).
    ///   - classify: names the status of errors of types that cannot conform to ``HTTPResponseError``
    ///     themselves (e.g. a storage module's); `nil` leaves an error unknown (default: every one).
    ///   - internalErrorMessage: what a 500 tells the client.
    ///   - log: where unknown and 5xx errors are logged: `request failed` with `request.id`, `error` and `path`.
    ///   - rendersErrorsAtOnce: whether the context renders an error without blocking (templates in memory), so a
    ///     refusal decided on the I/O thread is answered there (``immediateResponse(to:)``); default `true`.
    public init(
        middlewares: [any RouterMiddleware<Context>] = [], router: Router<Context>,
        makeContext: @escaping @Sendable (HTTPRequest) -> Context,
        classify: @escaping @Sendable (any Error) -> (any HTTPResponseError)? = { _ in nil },
        internalErrorMessage: String = "The server hit an unexpected error.",
        log: @escaping @Sendable (_ message: String, _ metadata: [String: String]) -> Void = { _, _ in },
        rendersErrorsAtOnce: Bool = true
    ) {
        self.rendersErrorsAtOnce = rendersErrorsAtOnce
        let all = middlewares + router.middlewares
        let errors = ErrorAnswers(classify: classify, internalErrorMessage: internalErrorMessage, log: log)
        self.middlewares = all
        self.router = router
        self.makeContext = makeContext
        self.errors = errors
        let index = RouteIndex(router)
        let routeMiddlewares = index.routeGroups.map { all + router.groups[$0].middlewares }
        self.index = index
        self.routeMiddlewares = routeMiddlewares
        setups = router.groups.map(\.setup)
        responders = zip(router.table, routeMiddlewares).map { route, middlewares in
            Self.constructResponder(middlewares, endpoint: route.handler, errors: errors)
        }
    }

    /// The responder of a route: each middleware around the next, the handler innermost, each step's thrown error
    /// answered where it is thrown (so a middleware's `next` never throws).
    static func constructResponder(
        _ middlewares: [any RouterMiddleware<Context>], endpoint: @escaping Router<Context>.Handler, errors: ErrorAnswers
    ) -> Responder {
        var responder: Responder = { request, context in
            do { return try await endpoint(request, context) } catch { return errors.answer(error, to: request, context: context) }
        }
        for middleware in middlewares.reversed() {
            let next = responder
            responder = { request, context in
                do {
                    return try await middleware.handle(request, context: context, next: next)
                } catch {
                    return errors.answer(error, to: request, context: context)
                }
            }
        }
        return responder
    }

    /// The route `method` and `path` reach and the group whose context setup applies, in one walk of the route tree.
    /// - Parameters:
    ///   - method: the request's method.
    ///   - path: the request's decoded path.
    /// - Returns: what the request reaches, and its group's number.
    func resolve(method: String, path: String) -> (RouteIndex.Resolution, group: Int) {
        index.resolve(method: method, path: path)
    }

    /// Whether the router recognizes `method` (else every request with it is answered 501).
    public func implements(method: String) -> Bool { index.methods.contains(method) }

    /// Whether any route, of any method, matches the path: when none does, the request goes to the router's fallback
    /// (or is answered 404).
    public func hasRoute(forPath path: String) -> Bool { index.hasRoute(forPath: path) }

    /// The context `request` starts with in group `group`: made, then set up by the group.
    @inlinable
    func context(for request: HTTPRequest, group: Int) -> Context {
        var context = makeContext(request)
        setups[group]?(&context, request)
        return context
    }

    /// Answers `request`: its route's responder, or the router's own answer behind the router's middlewares.
    /// - Parameter request: the request.
    /// - Returns: the answer; never throws.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        let (resolution, group) = resolve(method: request.method, path: request.path)
        var context = context(for: request, group: group)
        switch resolution {
        case .route(let route, let parameters):
            context.parameters = parameters
            return await responders[route](request, context)
        case .notImplemented:
            return answer(HTTPError.notImplemented(request.method), to: request, context: context)
        case .unmatched:
            return await run(from: 0, request, context) { [router] request, _ in
                guard let fallback = router.fallback else { throw HTTPError.notFound }
                return try await fallback.answer(request)
            }
        case .otherMethods(let allow):
            return await run(from: 0, request, context) { request, _ in
                if request.method == "OPTIONS" { return Router<Context>.allowResponse(.noContent, allow: allow) }
                throw HTTPError.methodNotAllowed(request.method, allow: allow)
            }
        case .everyMethod:
            return await run(from: 0, request, context) { [index] _, _ in
                Router<Context>.allowResponse(.noContent, allow: index.allowEverything)
            }
        }
    }

    /// The router's middlewares from `index` on, then `endpoint` (the router's own answer).
    private func run(
        from index: Int, _ request: HTTPRequest, _ context: Context,
        _ endpoint: (HTTPRequest, Context) async throws -> HTTPResponse
    ) async -> HTTPResponse {
        do {
            guard index < middlewares.count else { return try await endpoint(request, context) }
            return try await middlewares[index].handle(request, context: context) { request, context in
                await run(from: index + 1, request, context, endpoint)
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
        errors.answer(error, to: request, context: context)
    }

    /// The answer `request` gets before any middleware or handler runs for it, when ``answer(_:to:context:)`` renders
    /// `error` in the format of the request's group (e.g. a refusal given on the server's I/O thread).
    /// - Parameters:
    ///   - error: the error.
    ///   - request: the request.
    /// - Returns: the answer.
    public func answer(_ error: any Error, to request: HTTPRequest) -> HTTPResponse {
        let (_, group) = resolve(method: request.method, path: request.path)
        return answer(error, to: request, context: context(for: request, group: group))
    }

    /// The answer to `request` when it can be given at once, on the server's I/O thread, by the same steps as
    /// ``respond(to:)``: the same walk of the route tree, the same context, then each middleware of the route's list in
    /// order (``RouterMiddleware/immediateStep(_:context:)``), then, for a path no route takes, the fallback's
    /// ``RouterFallback/immediateAnswer(_:)``. `nil` at the first step that needs a task (the request then takes
    /// ``respond(to:)`` from the start), and for the router's own 405 and `OPTIONS` and a route's handler, which run in
    /// a task. A refusal is rendered as ``answer(_:to:context:)`` renders it, when ``rendersErrorsAtOnce``.
    /// - Parameter request: the complete request.
    /// - Returns: the prepared answer, or `nil`.
    @inlinable
    public func immediateResponse(to request: HTTPRequest) -> PreparedResponse? {
        let (resolution, group) = index.resolve(method: request.method, path: request.path, capturing: false)
        let context = context(for: request, group: group)
        switch resolution {
        case .route(let route, _):
            return walk(routeMiddlewares[route], request, context, then: { _ in nil })
        case .notImplemented:
            return refusal(HTTPError.notImplemented(request.method), request, context)
        case .unmatched:
            return walk(middlewares, request, context, then: { [router] _ in router.fallback?.immediateAnswer(request) })
        case .otherMethods, .everyMethod:
            return nil
        }
    }

    /// The answer a request with this head gets before its body is read, when a step of the router's own middlewares
    /// (those in front of every route) refuses it from the head alone (a missing credential, RFC 9110 §15.5.2): no body
    /// can change that. `nil` otherwise, and for a method the router does not recognize (its 501 waits for the
    /// complete request, as any other).
    /// - Parameter head: the request's head, its body empty.
    /// - Returns: the refusal, or `nil` to read the body.
    @inlinable
    public func answerBeforeBody(_ head: HTTPRequest) -> PreparedResponse? {
        let (resolution, group) = index.resolve(method: head.method, path: head.path, capturing: false)
        if case .notImplemented = resolution { return nil }
        var context = context(for: head, group: group)
        for middleware in middlewares {
            switch middleware.immediateStep(head, context: &context) {
            case .pass: continue
            case .refuse(let error): return refusal(error, head, context)
            case .answer, .needsTask: return nil
            }
        }
        return nil
    }

    /// `middlewares`' immediate steps in order, then `end` with the context they leave.
    @inlinable
    func walk(
        _ middlewares: [any RouterMiddleware<Context>], _ request: HTTPRequest, _ context: Context,
        then end: (Context) -> PreparedResponse?
    ) -> PreparedResponse? {
        var context = context
        for middleware in middlewares {
            switch middleware.immediateStep(request, context: &context) {
            case .pass: continue
            case .refuse(let error): return refusal(error, request, context)
            case .answer(let prepared): return prepared
            case .needsTask: return nil
            }
        }
        return end(context)
    }

    /// `error` rendered as the chain renders it, when that can be done on the I/O thread.
    @usableFromInline
    func refusal(_ error: any Error, _ request: HTTPRequest, _ context: Context) -> PreparedResponse? {
        guard rendersErrorsAtOnce else { return nil }
        return PreparedResponse(answer(error, to: request, context: context))
    }

    /// How errors become answers, held by every route's responder.
    struct ErrorAnswers: Sendable {
        let classify: @Sendable (any Error) -> (any HTTPResponseError)?
        let internalErrorMessage: String
        let log: @Sendable (_ message: String, _ metadata: [String: String]) -> Void

        func answer(_ error: any Error, to request: HTTPRequest, context: Context) -> HTTPResponse {
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
}
