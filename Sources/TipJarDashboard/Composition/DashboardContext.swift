import HTTPServer
import Mustache

/// What one dashboard request carries from ``Dashboard``'s middlewares to its route handler: the route
/// parameters, the session its cookie names (looked up once, by ``SessionAndOriginCheck``), and its form
/// fields, decoded once when the context is made.
struct DashboardContext: RequestContext {
    /// The route parameters the router captured.
    var parameters = RouteParameters()
    /// The CSRF token of the request's cookie (``CSRFCookie``), or `nil`; a page that needs one hands it out
    /// (``PageRenderer/withFormSession(_:_:)``).
    var csrfToken: String?
    /// The fields of an `application/x-www-form-urlencoded` body (the first of a repeated name); empty for
    /// the JSON API, whose bodies are JSON.
    let form: [String: String]
    /// Whether the request asks for a fragment (`X-Fragment: 1`, README "Domain rules": Three layers of feedback).
    let wantsFragment: Bool
    /// Whether the request is for the JSON API (`/api/…`, errors answer `{"error": …}`) or the App Store Server API
    /// (`/inApps/…`, errors answer Apple's `{"errorCode": …, "errorMessage": …}`): JSON bodies, no forms, no CSRF token.
    let isAPI: Bool
    let errorPages: ErrorPages

    init(request: HTTPRequest, errorPages: ErrorPages) {
        isAPI = request.path.hasPrefix("/api/") || request.path.hasPrefix("/inApps/")
        wantsFragment = request.fields["X-Fragment"] == "1"
        var fields: [String: String] = [:]
        if !isAPI {
            for (name, value) in FormURLEncoding.decode(request.body) where fields[name] == nil { fields[name] = value }
        }
        form = fields
        self.errorPages = errorPages
    }

    /// The install ID of the route's `:id`, lowercased (RFC 4122 §3: UUIDs are compared case-insensitively;
    /// ours are stored lowercase), so `/api/installs/{UPPERCASE-UUID}` finds the install.
    /// - Throws: `RouteParameterError` (400) when the route has no `:id`.
    func installID() throws -> String { try parameters.require("id").lowercased() }

    /// The transaction ID of the route's `:tid`.
    /// - Throws: `RouteParameterError`: 404 "No transaction has that ID." when it is not a number.
    func transactionID() throws -> UInt64 { try parameters.require("tid", as: UInt64.self, notFound: "No transaction has that ID.") }

    /// Renders `error` in the request's format (``ErrorPages``).
    func response(for error: any HTTPResponseError, to request: HTTPRequest) -> HTTPResponse {
        errorPages.response(for: error, to: request, isAPI: isAPI, wantsFragment: wantsFragment)
    }
}

/// Error answers, in the request's format: `{"error": …}` under `/api/`, the alert fragment
/// (`Templates/fragments/error.mustache`) for `X-Fragment: 1`, otherwise the error page
/// (`Templates/pages/error.mustache`) with the status and the request ID, so a person can find the log line.
struct ErrorPages: Sendable {
    let templates: TemplateSource
    let catalogName: String

    func response(for error: any HTTPResponseError, to request: HTTPRequest, isAPI: Bool, wantsFragment: Bool) -> HTTPResponse {
        var response: HTTPResponse
        if isAPI, request.path.hasPrefix("/inApps/") {
            // The only 401 the middlewares give is the admin token's; here `Authorization` holds the JWT, so say where it goes.
            let message = error.status == .unauthorized ? AppStoreServerAPIError.adminTokenMessage : error.message
            response = AppStoreServerAPIError(status: error.status, code: AppStoreServerAPIError.code(forStatus: error.status), message: message).response
        } else if isAPI {
            response = JSONBody.response(["error": error.message], status: error.status)
        } else {
            let name: String
            var data: TemplateData = ["title": .string(error.title), "message": .string(error.message)]
            if wantsFragment {
                name = "fragments/error"
                if let alert = error as? ScreenAlert { data["ok"] = .string(alert.ok) }
            } else {
                name = "pages/error"
                data["status"] = .int(error.status.code)
                data["requestID"] = .string(request.requestID)
                data["catalogName"] = .string(catalogName)
                data["csrfToken"] = .string("")
            }
            do {
                response = HTTPResponse(
                    status: error.status, fields: ["Content-Type": "text/html; charset=utf-8"],
                    body: try templates.renderUTF8(name, data))
            } catch _ {
                // Only with --reload-templates can a template stop rendering after start-up: the message, as text.
                response = .text(error.message, status: error.status)
            }
        }
        for (name, value) in error.fields { response.fields[name] = value }
        return response
    }
}
