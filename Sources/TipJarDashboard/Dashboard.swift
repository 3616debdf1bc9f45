import Foundation
import HTTPServer
import Mustache
import TipJar

/// The web dashboard: every page, fragment and JSON endpoint, behind the security checks of the
/// README's Security section (admin token, CSRF token bound to a session cookie, same-origin checks,
/// JSON content type) and with the security headers on every response.
///
/// The `Host` allow-list (DNS rebinding) is enforced by `HTTPServer` before routing.
public final class Dashboard: HTTPResponder {
    let service: TipJarService
    let storage: any TipJarStorage
    let configuration: DashboardConfiguration
    let templates: TemplateSource
    let sessions: SessionStore
    let ownServer = OwnServer()
    /// Pages and fragments already rendered, by request and data version (``PageCache``).
    let pageCache: PageCache
    let log: @Sendable (_ message: String, _ metadata: [String: String]) -> Void
    private let router: Router

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
        self.sessions = SessionStore(limit: configuration.sessionLimit)
        self.templates = try TemplateSource(directory: configuration.templatesDirectory, reload: configuration.reloadTemplates)
        self.pageCache = PageCache(timeline: service.timeline, isEnabled: !configuration.reloadTemplates)
        var router = Router(fallback: StaticFiles(root: configuration.publicDirectory))
        let routes = Routes(templates: templates, service: service, storage: storage, sessions: sessions, pageCache: pageCache,
                            catalogName: configuration.catalogName,
                            scenarioDownloads: ScenarioDownload.list(in: configuration.publicDirectory),
                            ownServer: ownServer, adminToken: configuration.adminToken, log: log)
        routes.register(in: &router)
        self.router = router
    }

    /// Tells the dashboard which server it answers for, so that `/store` can run a shipped scenario
    /// against this very server (through its JSON API, as `tipjar scenario run --url` does). Until
    /// then, and once the server is gone, a run is refused with 503.
    public func attach(to server: HTTPServer) { ownServer.attach(server) }

    /// Answers one request: admin token, session, CSRF and origin checks, routing, then the
    /// security headers.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        var response = await process(request)
        SecurityHeaders.apply(to: &response)
        return response
    }

    private func process(_ request: HTTPRequest) async -> HTTPResponse {
        // A method the router does not recognize is 501 (RFC 9110 §9.1, §15.6.2) before any sign-in: whatever the
        // token, the server cannot act on it.
        guard router.implements(method: request.method) else { return .status(.notImplemented) }
        if let token = configuration.adminToken {
            switch AdminTokenCheck(token: token).check(request) {
            case .allowed: break
            case .redirect(let location, let cookie):
                var response = HTTPResponse.redirect(to: location)
                response.fields.append(name: "Set-Cookie", value: cookie)
                return response
            case .refused:
                var response = Routes.problem(request, status: .unauthorized, title: "Sign-in required",
                                              message: "This dashboard needs its admin token: open the link printed at start-up, or send Authorization: Bearer.")
                response.fields["WWW-Authenticate"] = AdminTokenCheck.challenge
                return response
            }
        }
        // Looking the session up marks it as used (see `SessionStore`), whatever the request.
        let sessionToken = SessionStore.sessionID(fromCookie: request.fields["Cookie"]).flatMap(sessions.token(forSession:))
        // Deny by default: a request with any method but the safe ones (RFC 9110 §9.2.1: GET, HEAD, OPTIONS)
        // that would reach a handler, DELETE included, passes the origin and CSRF checks first. Any other
        // request is answered 404, 405 (with Allow) or 501 by the router without acting.
        if !["GET", "HEAD", "OPTIONS"].contains(request.method), router.hasHandler(method: request.method, path: request.path) {
            let isAPI = request.path.hasPrefix("/api/")
            if let refusal = OriginCheck.refusal(for: request, isAPI: isAPI, sessionToken: sessionToken) { return refusal }
        }
        let response = await router.respond(to: request)
        // Whatever a request that may write changed is committed by now, and its answer is not sent yet.
        if !["GET", "HEAD", "OPTIONS"].contains(request.method) { pageCache.noteWrite() }
        return response
    }
}
