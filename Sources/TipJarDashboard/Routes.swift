import Foundation
import HTTPServer
import Mustache
import TipJar

/// The dashboard's routes: pages and fragments (`Routes+Pages`, `Routes+Actions`) and the JSON API
/// (`Routes+API`). They reach the core through the service alone: its actions, and ``TipJarService/records`` to read
/// what is stored. Handlers throw; `Dashboard.chain(router:adminToken:errorPages:log:)` turns errors into answers.
struct Routes: Sendable {
    let templates: TemplateSource
    let service: TipJarService
    /// Rendered pages by request and data version; see ``PageCache``.
    let pageCache: PageCache
    /// One live event channel per watched install, shared by its streams; see ``LiveChannels``.
    let liveChannels: LiveChannels
    let catalogName: String
    /// The scenario files offered for download on `/store`, read once from `Public/scenarios/`.
    let scenarioDownloads: [ScenarioDownload]
    /// `/store`'s scenario runs, answered by this dashboard in process.
    let scenarioRuns: ScenarioRuns
    /// `Public/api/openapi.json`, read once, for the `/api` page.
    let apiReference: APIReference

    func register(in router: inout Router<DashboardContext>) {
        registerPages(in: &router)
        registerLiveEvents(in: &router)
        registerActions(in: &router)
        registerPurchaseSheet(in: &router)
        registerAPI(in: &router)
        registerSessionControls(in: &router)
        registerHistory(in: &router)
        registerTransactionLife(in: &router)
        registerDownloads(in: &router)
        registerScenarioRuns(in: &router)
        registerAPIDocs(in: &router)
    }

    // MARK: Request helpers

    /// The CSRF token of the request's session (empty when it has none). Never starts a session.
    func csrfToken(_ context: DashboardContext) -> String { context.csrfToken ?? "" }

    /// Renders a response that holds a form with a CSRF token (``CSRFCookie``). A request without the cookie
    /// gets a new token, rendered into its forms; the cookie is set only when the response is a `200` page (an
    /// error, a redirect or a thrown error sets nothing). This is the only place tokens are handed out, so
    /// requests for anything without a form (JSON, static files, fragments without forms, redirects, errors)
    /// never set the cookie.
    func withFormSession(_ context: DashboardContext, _ render: (_ csrfToken: String) async throws -> HTTPResponse) async throws -> HTTPResponse {
        if let existing = context.csrfToken { return try await render(existing) }
        let token = CSRFCookie.randomHexPair().first
        var response = try await render(token)
        guard response.status == .ok else { return response }
        response.fields.append(name: "Set-Cookie", value: CSRFCookie.setCookie(token: token))
        return response
    }

    /// Renders a template from a typed page model as an HTML response.
    func html(_ template: String, page: some MustacheRenderable, status: HTTPStatus = .ok) throws -> HTTPResponse {
        guard case .object(let typed) = page.mustacheValue else { return try html(template, TemplateData(), status: status) }
        return try html(template, typed, status: status)
    }

    /// Renders a template from typed data (no conversion) as an HTML response.
    func html(_ template: String, _ data: TemplateData, status: HTTPStatus = .ok) throws -> HTTPResponse {
        HTTPResponse(status: status, fields: ["Content-Type": "text/html; charset=utf-8"], body: try templates.renderUTF8(template, data))
    }

    /// Data every page shares: the CSRF token (the request's session's, or `csrfToken` for a
    /// page with forms, see ``withFormSession(_:_:)``), the catalog name and the active navigation item.
    func pageData(_ context: DashboardContext, nav: String, csrfToken: String? = nil) -> TemplateData {
        chrome(context, nav: nav, csrfToken: csrfToken).data
    }

    /// ``pageData(_:nav:csrfToken:)`` as a value, for a typed page model.
    func chrome(_ context: DashboardContext, nav: String, csrfToken: String? = nil) -> PageChrome {
        PageChrome(csrfToken: csrfToken ?? self.csrfToken(context), catalogName: catalogName, nav: nav)
    }

    // MARK: Errors

    /// The storage's errors, by what a person can do about them: 503, nothing was changed
    /// (``StorageUnavailable/problem``). A moved database file is not logged again
    /// (`DatabaseConfiguration.onFault` logged it once, when the writer found it).
    /// Every other error is left to the chain (`nil`: a 500 with the request ID).
    static func storageFailure(_ error: any Error) -> (any HTTPResponseError)? {
        guard let unavailable = StorageUnavailable.of(error) else { return nil }
        let (status, title, message) = unavailable.problem
        return HTTPError(status, title: title, message: message, isLogged: !unavailable.isFileMoved)
    }

    /// The answer an error gets, as ``MiddlewareChain`` gives it: its own, the storage's, or `nil` for a 500.
    static func knownError(_ error: any Error) -> (any HTTPResponseError)? {
        (error as? any HTTPResponseError) ?? storageFailure(error)
    }
}

/// The web's reading of the core's errors: a missing install or transaction is 404, an unknown product
/// 422, a state that forbids the action 409, a bad value 400 (RFC 9110 §15.5).
extension TipJarError: HTTPResponseError {
    /// The status the error answers with.
    public var status: HTTPStatus {
        switch self {
        case .installNotFound, .transactionNotFound: .notFound
        case .unknownProduct: .unprocessableContent
        case .purchaseInProgress, .installBeingDeleted, .productNotLoaded, .noPurchaseSheet, .transactionNotPending, .transactionNotInterrupted, .alreadyRefunded: .conflict
        case .invalidValue: .badRequest
        }
    }

    /// `Not found`, `Unknown product`, `Conflict` or `Bad value`.
    public var title: String {
        switch self {
        case .installNotFound, .transactionNotFound: "Not found"
        case .unknownProduct: "Unknown product"
        case .purchaseInProgress, .installBeingDeleted, .productNotLoaded, .noPurchaseSheet, .transactionNotPending, .transactionNotInterrupted, .alreadyRefunded: "Conflict"
        case .invalidValue: "Bad value"
        }
    }

    /// The error's description.
    public var message: String { description }
}

/// A malformed request value (form field, JSON body, path parameter) → 400 (or the given status).
struct RequestError: HTTPResponseError, Sendable {
    var status: HTTPStatus = .badRequest
    var message: String
    var title: String { status == .notFound ? "Not found" : "Bad request" }
}
