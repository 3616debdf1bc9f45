import HTTPServer
import Mustache

/// What one dashboard request carries from ``Dashboard``'s middlewares to its route handler: the route
/// parameters, the session its cookie names (looked up once, by ``SessionCheck``), the format its errors are answered
/// in and its form fields, both set by the area (route group) its path is in (``DashboardArea``).
struct DashboardContext: RequestContext {
    /// The route parameters the router captured.
    var parameters = RouteParameters()
    /// The CSRF token of the request's cookie (``CSRFCookie``), or `nil`; a page that needs one hands it out
    /// (``PageRenderer/withFormSession(_:_:)``).
    var csrfToken: String?
    /// The fields of an `application/x-www-form-urlencoded` body (the first of a repeated name), decoded once by the
    /// pages' area (``DashboardArea/pages``); empty for the JSON APIs, whose bodies are JSON.
    var form: [String: String] = [:]
    /// Whether the request asks for a fragment (`X-Fragment: 1`, README "Domain rules": Three layers of feedback).
    let wantsFragment: Bool
    /// The format errors are answered in: the area of the request's path sets it (``DashboardArea``).
    var errorFormat = ErrorFormat.page
    let errorPages: ErrorPages

    /// The formats of an error answer.
    enum ErrorFormat: Sendable {
        /// The error page, or the alert fragment for `X-Fragment: 1`.
        case page
        /// `{"error": …}`.
        case json
        /// Apple's `{"errorCode": …, "errorMessage": …}` (``AppStoreServerAPIError``).
        case appStoreServerAPI
    }

    init(request: HTTPRequest, errorPages: ErrorPages) {
        wantsFragment = request.fields["X-Fragment"] == "1"
        self.errorPages = errorPages
    }

    /// The form fields of `request`'s body: the first value of each name.
    static func form(of request: HTTPRequest) -> [String: String] {
        guard !request.body.isEmpty else { return [:] }
        var fields: [String: String] = [:]
        for (name, value) in FormURLEncoding.decode(request.body) where fields[name] == nil { fields[name] = value }
        return fields
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
        errorPages.response(for: error, to: request, format: errorFormat, wantsFragment: wantsFragment)
    }
}

/// Error answers, in the request's format (its area's, ``DashboardContext/ErrorFormat``): `{"error": …}` for the JSON
/// API, Apple's error body for the App Store Server API, the alert fragment (`Templates/fragments/error.mustache`) for
/// `X-Fragment: 1`, otherwise the error page (`Templates/pages/error.mustache`) with the status and the request ID, so a
/// person can find the log line.
struct ErrorPages: Sendable {
    let templates: TemplateSource
    let catalogName: String

    func response(
        for error: any HTTPResponseError, to request: HTTPRequest, format: DashboardContext.ErrorFormat, wantsFragment: Bool
    ) -> HTTPResponse {
        var response: HTTPResponse
        switch format {
        case .appStoreServerAPI:
            if let apple = error as? AppStoreServerAPIError { return apple.response }
            // A 401 that is not Apple's is the admin token's; here `Authorization` holds the JWT, so say where it goes.
            let message = error.status == .unauthorized ? AppStoreServerAPIError.adminTokenMessage : error.message
            response = AppStoreServerAPIError(status: error.status, code: AppStoreServerAPIError.code(forStatus: error.status), message: message).response
        case .json:
            response = JSONBody.response(["error": error.message], status: error.status)
        case .page:
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
