import Foundation
import HTTPServer
import Mustache

/// What every page shares: HTML rendering from the templates, the page chrome (CSRF token, catalog name, active
/// navigation item), the form session that hands out CSRF tokens, and the confirmation page of a destructive action.
/// Held by every controller that renders HTML; the JSON API's handlers need none of it.
struct PageRenderer: Sendable {
    /// The templates (`Templates/`).
    let templates: TemplateSource
    /// The catalog's name, shown in every page's chrome.
    let catalogName: String

    // MARK: Sessions

    /// The CSRF token of the request's session (empty when it has none). Never starts a session.
    func csrfToken(_ context: DashboardContext) -> String { context.csrfToken ?? "" }

    /// Renders a response that holds a form with a CSRF token (``CSRFCookie``). A request without the cookie
    /// gets a new token, rendered into its forms; the cookie is set only when the response is a `200` page (an
    /// error, a redirect or a thrown error sets nothing). The routes hand tokens out only through it, and
    /// the page cache hands out a stored form page's new session as this does (``SessionIssuer``); so requests for anything
    /// without a form (JSON, static files, fragments without forms, redirects, errors) never set the cookie.
    func withFormSession(_ context: DashboardContext, _ render: (_ csrfToken: String) async throws -> HTTPResponse) async throws -> HTTPResponse {
        try await Self.withFormSession(context, render)
    }

    /// ``withFormSession(_:_:)``, which needs nothing of the renderer (for ``PageCache/formPage(_:_:isStorable:render:)``).
    static func withFormSession(_ context: DashboardContext, _ render: (_ csrfToken: String) async throws -> HTTPResponse) async throws -> HTTPResponse {
        if let existing = context.csrfToken { return try await render(existing) }
        let token = String(decoding: SessionIssuer.newToken(), as: UTF8.self)
        var response = try await render(token)
        guard response.status == .ok else { return response }
        response.fields.append(name: "Set-Cookie", value: SessionIssuer.setCookie(token: token))
        return response
    }

    // MARK: Rendering

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

    // MARK: Confirmation

    /// The confirmation step of a destructive action (reset, clear, delete; `SKTestSession`'s session controls): what
    /// will happen, a form that posts it, and a way back. A plain GET page whose form posts, so it needs no JavaScript.
    func confirmPage(
        _ context: DashboardContext, title: String, message: String, action: String, button: String,
        cancel: String
    ) async throws -> HTTPResponse {
        try await withFormSession(context) { csrfToken in
            var data = pageData(context, nav: "", csrfToken: csrfToken)
            data["confirm"] = [
                "title": .string(title), "message": .string(message), "action": .string(action), "button": .string(button),
                "cancel": .string(cancel),
            ]
            return try html("pages/confirm", data)
        }
    }
}
