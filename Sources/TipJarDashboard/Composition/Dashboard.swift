import Foundation
import HTTPServer
import Mustache
import TipJar

/// The web dashboard: every page, fragment and JSON endpoint, behind the security checks of the
/// Sources/HTTPServer/README.md, "Security" (admin token, CSRF token bound to a session cookie, same-origin checks,
/// JSON content type) and with the security headers on every response. ``DashboardStack`` builds it.
///
/// The `Host` allow-list (DNS rebinding) is enforced by `HTTPServer`'s parser before a request reaches
/// the dashboard (421), and the access log is written by `HTTPServer` once the answer is sent
/// (``DashboardStack`` redacts it).
public final class Dashboard: HTTPResponder {
    /// Pages and fragments already rendered, by request and data version (``PageCache``).
    let pageCache: PageCache
    /// The install pages' live channels (``LiveChannels``).
    let liveChannels: LiveChannels
    private let chain: MiddlewareChain<DashboardContext>
    /// The answers given on the server's I/O thread, from the same declarations as ``chain`` (``ImmediateAnswers``).
    let immediateAnswers: ImmediateAnswers

    init(chain: MiddlewareChain<DashboardContext>, pageCache: PageCache, liveChannels: LiveChannels, immediateAnswers: ImmediateAnswers) {
        self.chain = chain
        self.pageCache = pageCache
        self.liveChannels = liveChannels
        self.immediateAnswers = immediateAnswers
    }

    /// The middlewares, in order, in front of the routes; the one place they are composed:
    /// 1. the security headers, on every answer the chain gives (errors and refusals included);
    /// 2. a method the router does not recognize is 501 (RFC 9110 §9.1, §15.6.2) before any sign-in: whatever
    ///    the token, the server cannot act on it;
    /// 3. every text value at most 1,024 bytes, before anything reads it (``FieldSizeCheck``);
    /// 4. the admin token, when the dashboard has one (``AdminTokenCheck``);
    /// 5. the CSRF cookie's token read and the origin and CSRF checks of every unsafe request that reaches a handler
    ///    (``SessionAndOriginCheck``).
    /// Errors become answers in `MiddlewareChain.answer(_:to:context:)`; the storage's errors are named by
    /// ``WebErrors/storageFailure(_:)``. No middleware tells the page cache or the live channels about writes: they key
    /// on the core's change log (``ChangeLog``), which the storage and the timeline report every change to.
    static func chain(
        router: Router<DashboardContext>, adminToken: String?, errorPages: ErrorPages,
        log: @escaping @Sendable (_ message: String, _ metadata: [String: String]) -> Void
    ) -> MiddlewareChain<DashboardContext> {
        var middlewares: [any RouterMiddleware<DashboardContext>] = [SecurityHeaders.Middleware(), KnownMethods(router: router), FieldSizeCheck()]
        if let adminToken { middlewares.append(AdminTokenCheck(token: adminToken)) }
        middlewares.append(SessionAndOriginCheck(hasHandler: { router.hasHandler(method: $0, path: $1) }))
        return MiddlewareChain(
            middlewares: middlewares, router: router,
            makeContext: { DashboardContext(request: $0, errorPages: errorPages) },
            classify: { WebErrors.storageFailure($0) },
            internalErrorMessage: "The dashboard hit an unexpected error. Part of the action may have been saved: check the install and /transactions before trying again.",
            log: log)
    }

    /// Answers one request through the middlewares and the routes (``chain(router:adminToken:errorPages:log:)``).
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        await chain.respond(to: request)
    }
}

/// 501 for a method the router does not recognize (`Router.implements(method:)`), before any other check.
struct KnownMethods: RouterMiddleware {
    let router: Router<DashboardContext>

    func handle(
        _ request: HTTPRequest, context: DashboardContext,
        next: (HTTPRequest, DashboardContext) async -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard router.implements(method: request.method) else { throw HTTPError.notImplemented(request.method) }
        return await next(request, context)
    }
}
