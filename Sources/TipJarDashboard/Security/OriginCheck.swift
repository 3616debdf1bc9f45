import HTTPServer

/// The checks every unsafe request passes before its handler runs, by the middleware of its area (``FormOriginCheck`` for
/// the pages, ``JSONOriginCheck`` for the JSON APIs):
/// - forms and fragments: the CSRF cookie's token sent back (`csrfToken` field or
///   `X-CSRF-Token` header), and `Sec-Fetch-Site: same-origin` or, when that is absent, an
///   `Origin` equal to ours (a page on `http://localhost:3000` is same-site, not same-origin), and a body of
///   `Content-Type: application/x-www-form-urlencoded` (415 otherwise);
/// - JSON endpoints: `Content-Type: application/json` for any message body (a PATCH:
///   `application/merge-patch+json`; 415 otherwise), and
///   no cross-origin browser context (`Sec-Fetch-Site` / `Origin`, when sent, must be ours). Scripts
///   without a browser send neither and need no cookie. No CORS headers are ever sent, so a
///   cross-origin page cannot send JSON here without a preflight we never answer.
enum OriginCheck {
    /// Checks one unsafe request to a JSON endpoint: its body's content type and that no other origin's page sent it.
    /// - Parameter request: the request.
    /// - Throws: `HTTPError` 403 or 415 (rendered in the request's format).
    static func checkJSON(_ request: HTTPRequest) throws(HTTPError) {
        let fetchSite = request.fields["Sec-Fetch-Site"]?.lowercased()
        let origin = request.fields["Origin"]
        let contentType = request.fields["Content-Type"]
        if !request.body.isEmpty || contentType != nil {
            // A PATCH is a JSON Merge Patch (RFC 7396 §4), the one patch format the API takes (RFC 5789 §2.2: an
            // unsupported patch document is 415).
            if request.method == "PATCH" {
                guard contentType.map(mediaType) == StorePatch.mergePatchMediaType else {
                    var fields = HTTPFields()
                    fields["Accept-Patch"] = StorePatch.mergePatchMediaType  // RFC 5789 §3.1
                    throw HTTPError(
                        .unsupportedMediaType, title: "Unsupported media type",
                        message: "PATCH takes Content-Type: application/merge-patch+json (RFC 7396).", fields: fields)
                }
            } else {
                guard contentType.map(mediaType) == "application/json" else {
                    throw HTTPError(
                        .unsupportedMediaType, title: "Unsupported media type",
                        message: "JSON endpoints take Content-Type: application/json.")
                }
            }
        }
        if let fetchSite, fetchSite != "same-origin", fetchSite != "none" { throw forbidden }
        if let origin, origin != "http://" + (request.fields["Host"] ?? "") { throw forbidden }
    }

    /// Checks one unsafe form or fragment request: sent by a page of this origin, a form body, and the session's CSRF token.
    /// - Parameters:
    ///   - request: the request.
    ///   - context: its context: its cookie's token and its decoded form.
    /// - Throws: `HTTPError` 403 or 415 (rendered in the request's format).
    static func checkForm(_ request: HTTPRequest, context: DashboardContext) throws(HTTPError) {
        let ourOrigin = "http://" + (request.fields["Host"] ?? "")
        let fetchSite = request.fields["Sec-Fetch-Site"]?.lowercased()
        let origin = request.fields["Origin"]
        if let fetchSite {
            guard fetchSite == "same-origin" else { throw forbidden }
        } else {
            guard origin == ourOrigin else { throw forbidden }
        }
        // A form body is read as application/x-www-form-urlencoded (https://html.spec.whatwg.org/#url-encoded-form-data);
        // any other body (text/plain, multipart/form-data) would be read as no fields at all: 415 (RFC 9110 §15.5.16).
        let contentType = request.fields["Content-Type"]
        if !request.body.isEmpty || contentType != nil {
            guard contentType.map(mediaType) == "application/x-www-form-urlencoded" else {
                throw HTTPError(
                    .unsupportedMediaType, title: "Unsupported media type",
                    message: "Forms take Content-Type: application/x-www-form-urlencoded.")
            }
        }
        let sent = request.fields["X-CSRF-Token"] ?? context.form["csrfToken"]
        guard let cookieToken = context.csrfToken, let sent, CSRFCookie.constantTimeEquals(sent, cookieToken) else {
            throw HTTPError(
                .forbidden, title: "Session expired",
                message: "This form's security token is missing or out of date. Reload the page and try again.")
        }
    }

    /// The media type of a `Content-Type` field value (RFC 9110 §8.3.1): `type/subtype` before any
    /// parameters, without the surrounding whitespace (space, tab), lowercased.
    static func mediaType(_ value: String) -> String {
        var type = value.prefix { $0 != ";" }
        while let first = type.first, first == " " || first == "\t" { type.removeFirst() }
        while let last = type.last, last == " " || last == "\t" { type.removeLast() }
        return type.lowercased()
    }

    private static let forbidden = HTTPError(.forbidden, title: "Forbidden", message: "Only pages of this dashboard may change its state.")
}

/// Whether `method` is safe (RFC 9110 §9.2.1: GET, HEAD, OPTIONS): every other, DELETE included, is checked before its
/// handler runs. Three short names compared, not a set hashed: this runs for every request, on the I/O thread too.
func isSafe(_ method: String) -> Bool { method == "GET" || method == "HEAD" || method == "OPTIONS" }

/// The pages' middleware, in front of each of their handlers: reads the request's CSRF cookie (``CSRFCookie``) into the
/// context, then holds every unsafe request to ``OriginCheck/checkForm(_:context:)``. A request no handler takes is
/// answered 404, 405 (with Allow) or 501 by the router without acting, so it is not checked.
struct FormOriginCheck: RouterMiddleware {
    func handle(
        _ request: HTTPRequest, context: DashboardContext,
        next: (HTTPRequest, DashboardContext) async -> HTTPResponse
    ) async throws -> HTTPResponse {
        var context = context
        context.csrfToken = CSRFCookie.token(fromCookie: request.fields["Cookie"])
        if !isSafe(request.method) { try OriginCheck.checkForm(request, context: context) }
        return await next(request, context)
    }

    /// At once, on the I/O thread: a safe request goes on (no handler runs there, so its session is left to the step that
    /// answers, ``PageCache/immediateAnswer(to:)``, which reads it as bytes); an unsafe one takes a task.
    func immediateStep(_ request: HTTPRequest, context: inout DashboardContext) -> ImmediateStep {
        isSafe(request.method) ? .pass : .needsTask
    }
}

/// The JSON APIs' middleware, in front of each of their handlers: every unsafe request passes
/// ``OriginCheck/checkJSON(_:)``.
struct JSONOriginCheck: RouterMiddleware {
    func handle(
        _ request: HTTPRequest, context: DashboardContext,
        next: (HTTPRequest, DashboardContext) async -> HTTPResponse
    ) async throws -> HTTPResponse {
        if !isSafe(request.method) { try OriginCheck.checkJSON(request) }
        return await next(request, context)
    }

    /// At once, on the I/O thread: a safe request goes on; an unsafe one takes a task.
    func immediateStep(_ request: HTTPRequest, context: inout DashboardContext) -> ImmediateStep {
        isSafe(request.method) ? .pass : .needsTask
    }
}
