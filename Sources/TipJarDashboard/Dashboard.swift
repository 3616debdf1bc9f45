import Foundation
import HTTPServer
import Mustache
import TipJar

/// The web dashboard: every page, fragment and JSON endpoint, behind the security checks of the
/// README's Security section (admin token, CSRF token bound to a session cookie, same-origin checks,
/// JSON content type) and with the security headers on every response.
///
/// The `Host` allow-list (DNS rebinding) is enforced by `HTTPServer`'s parser before a request reaches
/// the dashboard (421), and the access log is written by `HTTPServer` once the answer is sent
/// (``DashboardStack`` redacts it).
public final class Dashboard: HTTPResponder {
    let service: TipJarService
    let storage: any TipJarStorage
    let configuration: DashboardConfiguration
    let templates: TemplateSource
    let ownServer = OwnServer()
    /// Pages and fragments already rendered, by request and data version (``PageCache``).
    let pageCache: PageCache
    /// The install pages' live channels (``LiveChannels``).
    let liveChannels: LiveChannels
    let log: @Sendable (_ message: String, _ metadata: [String: String]) -> Void
    private let chain: MiddlewareChain<DashboardContext>
    /// The answers given on the server's I/O thread, from the same declarations as ``chain`` (``ImmediateAnswers``).
    let immediateAnswers: ImmediateAnswers

    /// Builds the dashboard and parses every template once.
    /// - Parameters:
    ///   - service: The tip jar service (with its simulated store).
    ///   - storage: The storage the service uses, for listings and the ledger.
    ///   - configuration: Folders, template reloading, admin token.
    ///   - log: Structured log sink for request errors (detail and request ID; never secrets).
    /// - Throws: `MustacheError` when a template does not parse (names template, line, column).
    public init(service: TipJarService, storage: any TipJarStorage, configuration: DashboardConfiguration,
                log: @escaping @Sendable (_ message: String, _ metadata: [String: String]) -> Void) throws {
        self.service = service
        self.storage = storage
        self.configuration = configuration
        self.log = log
        self.templates = try TemplateSource(directory: configuration.templatesDirectory, reload: configuration.reloadTemplates)
        self.pageCache = PageCache(timeline: service.timeline, isEnabled: !configuration.reloadTemplates)
        self.liveChannels = LiveChannels(timeline: service.timeline)
        let staticFiles = StaticFiles(root: configuration.publicDirectory)
        var router = Router<DashboardContext>(fallback: staticFiles)
        let routes = Routes(templates: templates, service: service, storage: storage, pageCache: pageCache,
                            liveChannels: liveChannels, catalogName: configuration.catalogName,
                            scenarioDownloads: ScenarioDownload.list(in: configuration.publicDirectory),
                            ownServer: ownServer, adminToken: configuration.adminToken)
        routes.register(in: &router)
        let errorPages = ErrorPages(templates: templates, catalogName: configuration.catalogName)
        chain = Self.chain(router: router, pageCache: pageCache, adminToken: configuration.adminToken, errorPages: errorPages, log: log)
        immediateAnswers = ImmediateAnswers(staticFiles: staticFiles, router: router, pageCache: pageCache, adminToken: configuration.adminToken,
                                            chain: chain, errorPages: errorPages, rendersInMemory: !configuration.reloadTemplates)
    }

    /// The middlewares, in order, in front of the routes; the one place they are composed:
    /// 1. the security headers, on every answer the chain gives (errors and refusals included);
    /// 2. a method the router does not recognize is 501 (RFC 9110 §9.1, §15.6.2) before any sign-in: whatever
    ///    the token, the server cannot act on it;
    /// 3. every text value at most 1,024 bytes, before anything reads it (``FieldSizeCheck``);
    /// 4. the admin token, when the dashboard has one (``AdminTokenCheck``);
    /// 5. the CSRF cookie's token read and the origin and CSRF checks of every unsafe request that reaches a handler
    ///    (``SessionAndOriginCheck``);
    /// 6. after a request that may have written, before its answer is sent, the stored pages go out of date
    ///    (``PageCache/noteWrite()``).
    /// Errors become answers in `MiddlewareChain.answer(_:to:context:)`; the storage's errors are named by
    /// ``Routes/storageFailure(_:)``.
    static func chain(router: Router<DashboardContext>, pageCache: PageCache? = nil, adminToken: String?, errorPages: ErrorPages,
                      log: @escaping @Sendable (_ message: String, _ metadata: [String: String]) -> Void) -> MiddlewareChain<DashboardContext> {
        var middlewares: [any RouterMiddleware<DashboardContext>] = [SecurityHeaders.Middleware(), KnownMethods(router: router), FieldSizeCheck()]
        if let adminToken { middlewares.append(AdminTokenCheck(token: adminToken)) }
        middlewares.append(SessionAndOriginCheck(hasHandler: { router.hasHandler(method: $0, path: $1) }))
        if let pageCache { middlewares.append(PageCache.Writes(cache: pageCache)) }
        return MiddlewareChain(middlewares: middlewares, router: router,
                               makeContext: { DashboardContext(request: $0, errorPages: errorPages) },
                               classify: { Routes.storageFailure($0) },
                               internalErrorMessage: "The dashboard hit an unexpected error. Part of the action may have been saved: check the install and /transactions before trying again.", log: log)
    }

    /// Tells the dashboard which server it answers for, so that `/store` can run a shipped scenario
    /// against this very server (through its JSON API, as `tipjar scenario run --url` does). Until
    /// then, and once the server is gone, a run is refused with 503.
    public func attach(to server: HTTPServer) { ownServer.attach(server) }

    /// Answers one request through the middlewares and the routes (``chain(router:pageCache:adminToken:errorPages:log:)``).
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        await chain.respond(to: request)
    }
}

/// 501 for a method the router does not recognize (`Router.implements(method:)`), before any other check.
struct KnownMethods: RouterMiddleware {
    let router: Router<DashboardContext>

    func handle(_ request: HTTPRequest, context: DashboardContext,
                next: (HTTPRequest, DashboardContext) async -> HTTPResponse) async throws -> HTTPResponse {
        guard router.implements(method: request.method) else { return .status(.notImplemented) }
        return await next(request, context)
    }
}
