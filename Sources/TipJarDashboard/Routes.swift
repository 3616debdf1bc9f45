import Foundation
import HTTPServer
import Mustache
import TipJar
import TipJarSQLite

/// The dashboard's routes: pages and fragments (`Routes+Pages`, `Routes+Actions`) and the JSON API
/// (`Routes+API`), with the one place where errors become responses.
struct Routes: Sendable {
    let templates: TemplateSource
    let service: TipJarService
    let storage: any TipJarStorage
    let sessions: SessionStore
    /// Rendered pages by request and data version; see ``PageCache``.
    let pageCache: PageCache
    let catalogName: String
    /// The scenario files offered for download on `/store`, read once from `Public/scenarios/`.
    let scenarioDownloads: [ScenarioDownload]
    /// The server in front of the dashboard, which a scenario run from `/store` is sent to.
    let ownServer: OwnServer
    /// The admin token a scenario run sends as `Authorization: Bearer`, or `nil`.
    let adminToken: String?
    let log: @Sendable (_ message: String, _ metadata: [String: String]) -> Void

    func register(in router: inout Router) {
        registerPages(in: &router)
        registerLiveEvents(in: &router)
        registerActions(in: &router)
        registerPurchaseSheet(in: &router)
        registerAPI(in: &router)
        registerSessionControls(in: &router)
        registerHistory(in: &router)
        registerDownloads(in: &router)
        registerScenarioRuns(in: &router)
    }

    // MARK: Request helpers

    /// Whether the request asks for a fragment (`X-Fragment: 1`, README "Domain rules" 12).
    static func wantsFragment(_ request: HTTPRequest) -> Bool { request.fields["X-Fragment"] == "1" }

    /// The CSRF token of the request's session (empty when it has none). Never starts a session.
    func csrfToken(_ request: HTTPRequest) -> String {
        guard let id = SessionStore.sessionID(fromCookie: request.fields["Cookie"]) else { return "" }
        return sessions.token(forSession: id) ?? ""
    }

    /// Renders a response that holds a form with a CSRF token. A request without a live session
    /// gets a new one, rendered with its token; the session is stored, and its cookie set, only
    /// when the response is a `200` page (an error, a redirect or a thrown error stores nothing).
    /// This is the only place sessions start, so requests for anything without a form (JSON,
    /// static files, fragments without forms, redirects, errors) never add one.
    func withFormSession(_ request: HTTPRequest, _ render: (_ csrfToken: String) async throws -> HTTPResponse) async throws -> HTTPResponse {
        let existing = csrfToken(request)
        if !existing.isEmpty { return try await render(existing) }
        let (id, token) = SessionStore.randomHexPair()
        var response = try await render(token)
        guard response.status == .ok else { return response }
        sessions.insert(id: id, token: token)
        response.fields.append(name: "Set-Cookie", value: SessionStore.setCookie(id: id))
        return response
    }

    /// The URL-encoded form fields of a POST body.
    static func form(_ request: HTTPRequest) -> [String: String] {
        var fields: [String: String] = [:]
        for (name, value) in FormURLEncoding.decode(request.body) where fields[name] == nil { fields[name] = value }
        return fields
    }

    /// Renders a template as an HTML response.
    func html(_ template: String, _ data: [String: Any], status: HTTPStatus = .ok) throws -> HTTPResponse {
        guard case .object(let typed) = MustacheValue(data) else { return try html(template, TemplateData(), status: status) }
        return try html(template, typed, status: status)
    }

    /// Renders a template from typed data (no conversion) as an HTML response.
    func html(_ template: String, _ data: TemplateData, status: HTTPStatus = .ok) throws -> HTTPResponse {
        HTTPResponse(status: status, fields: ["Content-Type": "text/html; charset=utf-8"], body: try templates.renderUTF8(template, data))
    }

    /// Data every page shares: the CSRF token (the request's session's, or `csrfToken` for a
    /// page with forms, see ``withFormSession(_:_:)``), the catalog name and the active navigation item.
    func pageData(_ request: HTTPRequest, nav: String, csrfToken: String? = nil) -> [String: Any] {
        ["csrfToken": csrfToken ?? self.csrfToken(request), "catalogName": catalogName, "nav": [nav: true]]
    }

    // MARK: Errors

    /// Runs a handler, turning every error into a response: the detail goes to the log with the
    /// request ID; the client gets a generic, safe message.
    func handling(_ request: HTTPRequest, _ body: () async throws -> HTTPResponse) async -> HTTPResponse {
        do {
            return try await body()
        } catch {
            let (status, title, message) = describe(error)
            // A moved database file is logged once, when the writer finds it (`DatabaseConfiguration.onFault`).
            if status.code >= 500, (error as? DatabaseError)?.isFileMoved != true {
                log("request failed", ["request.id": request.requestID, "error": String(describing: error), "path": request.path])
            }
            return Self.problem(request, status: status, title: title, message: message)
        }
    }

    func describe(_ error: any Error) -> (HTTPStatus, String, String) {
        switch error {
        case let error as TipJarError:
            switch error {
            case .installNotFound, .transactionNotFound: return (.notFound, "Not found", error.description)
            case .unknownProduct: return (.unprocessableContent, "Unknown product", error.description)
            case .purchaseInProgress, .noPurchaseSheet, .transactionNotPending, .transactionNotInterrupted, .alreadyRefunded:
                return (.conflict, "Conflict", error.description)
            case .invalidValue: return (.badRequest, "Bad value", error.description)
            }
        case let error as RequestError:
            return (error.status, error.status == .notFound ? "Not found" : "Bad request", error.message)
        case let error as DatabaseError where error.isFileMoved:
            return (.serviceUnavailable, "Database file moved",
                    "\(error.path ?? "The database file") was deleted, renamed or replaced while the server was running. Nothing was changed: a write now could not survive a crash. Restart the server.")
        case let error as DatabaseError where error.isCorrupt:
            return (.serviceUnavailable, "Database damaged",
                    "The database file is damaged. Nothing was changed; stop the server and run tipjar check-database on the file.")
        case let error as DatabaseError where error.isBusy || error.isLocked:
            return (.serviceUnavailable, "Database busy",
                    "The database is locked by another process. Nothing was changed; try again in a moment.")
        case let error as DatabaseError where error.isFull:
            return (.serviceUnavailable, "Disk full", "The database is full. Nothing was changed; free some space and try again.")
        case let error as DatabaseError where error.isReadOnly:
            return (.serviceUnavailable, "Read-only database", "The database file is read-only. Nothing was changed.")
        default:
            return (.internalServerError, "Something went wrong", "The dashboard hit an unexpected error. Nothing was changed.")
        }
    }

    /// A problem response in the request's format: `{"error": …}` under `/api/`, an alert fragment
    /// for `X-Fragment: 1`, otherwise a small HTML page. The request ID is included so a person can
    /// find the log line.
    static func problem(_ request: HTTPRequest, status: HTTPStatus, title: String, message: String) -> HTTPResponse {
        if request.path.hasPrefix("/api/") {
            return JSONBody.response(["error": message], status: status)
        }
        let body: String
        if wantsFragment(request) {
            body = """
                <div id="feedback" class="feedback" aria-live="polite"><dialog id="alert" class="alert" open aria-labelledby="alert-title">\
                <h2 id="alert-title">\(escape(title))</h2><p>\(escape(message))</p>\
                <form method="dialog"><button type="submit" class="primary" autofocus>OK</button></form></dialog></div>
                """
        } else {
            body = """
                <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
                <title>\(escape(title)) · Tip Jar Dashboard</title><link rel="stylesheet" href="/app.css"></head><body><main id="main">\
                <h1>\(escape(title))</h1><p>\(escape(message))</p><p class="muted">Status \(status.code) · request ID <code>\(escape(request.requestID))</code></p>\
                <p><a href="/">Back to the overview</a></p></main></body></html>
                """
        }
        var response = HTTPResponse.html(body, status: status)
        response.fields["Content-Type"] = "text/html; charset=utf-8"
        return response
    }

    /// HTML-escapes `& < > " '`.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}

/// A malformed request value (form field, JSON body, path parameter) → 400 (or the given status).
struct RequestError: Error, Sendable {
    var status: HTTPStatus = .badRequest
    var message: String
}
