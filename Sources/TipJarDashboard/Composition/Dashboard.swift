import Foundation
import HTTPServer
import Mustache
import TipJar

/// The web dashboard: every page, fragment and JSON endpoint, behind the security checks of the
/// Sources/HTTPServer/README.md, "Security" (admin token, CSRF token bound to a session cookie, same-origin checks,
/// JSON content type); the security headers are the server's defaults, added to every answer by its serializer
/// (``SecurityHeaders/defaults``). ``DashboardStack`` builds it.
///
/// The `Host` allow-list (DNS rebinding) is enforced by `HTTPServer`'s parser before a request reaches
/// the dashboard (421), and the access log is written by `HTTPServer` once the answer is sent
/// (``DashboardStack`` redacts it).
public final class Dashboard: HTTPResponder {
    /// Pages and fragments already rendered, by request and data version (``PageCache``).
    let pageCache: PageCache
    /// The install pages' live channels (``LiveChannels``).
    let liveChannels: LiveChannels
    /// The routes with their middlewares, which answer both roads: in a task, and at once on the server's I/O thread
    /// (`Dashboard+Immediate.swift`).
    let chain: MiddlewareChain<DashboardContext>

    init(chain: MiddlewareChain<DashboardContext>, pageCache: PageCache, liveChannels: LiveChannels) {
        self.chain = chain
        self.pageCache = pageCache
        self.liveChannels = liveChannels
    }

    /// The middlewares, in order, in front of the routes; the one place they are composed, each built into every
    /// route it applies to (`MiddlewareChain`):
    /// - before any: a method the router does not recognize is 501 (RFC 9110 §9.1, §15.6.2), whatever the token: the
    ///   server cannot act on it;
    /// - every request (the router's own middlewares): every text value at most 1,024 bytes, before anything reads it
    ///   (``FieldSizeCheck``), then the admin token, when the dashboard has one (``AdminTokenCheck``);
    /// - then the area's (``DashboardArea``), in front of its handlers only: the pages read the session and check the
    ///   origin and CSRF token of every unsafe request (``FormOriginCheck``); the JSON API checks the origin and content
    ///   type of every unsafe request (``JSONOriginCheck``); the App Store Server API does the same, then checks its JWT
    ///   (``AppStoreServerAPIGate``). Innermost in the pages and the JSON API, the page cache's stored answers
    ///   (``PageCache/StoredAnswers``). A path no route takes goes to the static files (the router's fallback).
    /// The server's I/O thread walks the same list for each route (``MiddlewareChain/immediateResponse(to:)``), each step's
    /// synchronous part (``HTTPServer/RouterMiddleware/immediateStep(_:context:)``), and hands the request to a task at the
    /// first that needs one: a stored page, a file in memory and a refusal leave from there, by the same steps.
    /// Errors become answers in `MiddlewareChain.answer(_:to:context:)`, in the format of the path's area; the storage's
    /// errors are named by ``WebErrors/storageFailure(_:)``. No middleware tells the page cache or the live channels
    /// about writes: they key on the core's change log (``ChangeLog``), which the storage and the timeline report every
    /// change to.
    static func chain(
        router: Router<DashboardContext>, pageCache: PageCache? = nil, adminToken: String?, errorPages: ErrorPages,
        appStoreServerAPIGate: AppStoreServerAPIGate? = nil, rendersErrorsAtOnce: Bool = true,
        log: @escaping @Sendable (_ message: String, _ metadata: [String: String]) -> Void
    ) -> MiddlewareChain<DashboardContext> {
        let stored: [any RouterMiddleware<DashboardContext>] = pageCache.map { [PageCache.StoredAnswers(pageCache: $0)] } ?? []
        var router = router
        router.add(middleware: FieldSizeCheck())
        if let adminToken { router.add(middleware: AdminTokenCheck(token: adminToken)) }
        for area in DashboardArea.allCases {
            var middlewares: [any RouterMiddleware<DashboardContext>]
            switch area {
            case .pages: middlewares = [FormOriginCheck()] + stored
            case .api: middlewares = [JSONOriginCheck()] + stored
            case .appStoreServerAPI: middlewares = [JSONOriginCheck()] + (appStoreServerAPIGate.map { [$0] } ?? [])
            }
            let format = area.errorFormat
            let decodesForms = area == .pages
            router.group(area.prefix, middlewares: middlewares) { context, request in
                context.errorFormat = format
                if decodesForms { context.form = DashboardContext.form(of: request) }
            }
        }
        return MiddlewareChain(
            router: router,
            makeContext: { DashboardContext(request: $0, errorPages: errorPages) },
            classify: { WebErrors.storageFailure($0) },
            internalErrorMessage: "The dashboard hit an unexpected error. Part of the action may have been saved: check the install and /transactions before trying again.",
            log: log, rendersErrorsAtOnce: rendersErrorsAtOnce)
    }

    /// Answers one request through the middlewares and the routes (``chain(router:pageCache:adminToken:errorPages:appStoreServerAPIGate:rendersErrorsAtOnce:log:)``).
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        await chain.respond(to: request)
    }
}

/// The dashboard's areas, each a route group of the router (``Dashboard/chain(router:pageCache:adminToken:errorPages:appStoreServerAPIGate:rendersErrorsAtOnce:log:)``)
/// with its own middlewares and the format of its errors.
enum DashboardArea: CaseIterable, Sendable {
    /// Pages, fragments, forms and the static files: every path below no other area.
    case pages
    /// The JSON API, below `/api` (`/api` itself is the page that documents it).
    case api
    /// The App Store Server API, below `/inApps`, in Apple's paths and shapes.
    case appStoreServerAPI

    /// The path prefix the area's routes lie below.
    var prefix: String {
        switch self {
        case .pages: "/"
        case .api: "/api"
        case .appStoreServerAPI: "/inApps"
        }
    }

    /// The format its errors are answered in.
    var errorFormat: DashboardContext.ErrorFormat {
        switch self {
        case .pages: .page
        case .api: .json
        case .appStoreServerAPI: .appStoreServerAPI
        }
    }

    /// The area of `path`, as the router's groups place it, for an answer given before the router exists (``StartUpGate``).
    static func of(path: String) -> DashboardArea {
        allCases.first { $0 != .pages && path.hasPrefix($0.prefix + "/") } ?? .pages
    }
}
