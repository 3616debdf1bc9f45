import HTTPServer

/// The headers every response carries, errors included: a Content-Security-Policy with
/// no inline script or style, `nosniff`, no framing, no referrer; `no-store` on dynamic responses.
public enum SecurityHeaders {
    /// The Content-Security-Policy: only this origin's scripts, styles and images; no plugins,
    /// no `<base>`, forms post only here, never framed.
    public static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// The fields for responses the HTTP server writes by itself (framing errors, timeouts, load
    /// shedding), for `HTTPServerConfiguration.serverResponseFields`.
    public static let fields: HTTPFields = [
        "Content-Security-Policy": contentSecurityPolicy, "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
        "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
    ]

    /// The outermost middleware: every answer the chain gives, errors and refusals included, gets the headers.
    struct Middleware: RouterMiddleware {
        func handle(
            _ request: HTTPRequest, context: DashboardContext,
            next: (HTTPRequest, DashboardContext) async -> HTTPResponse
        ) async throws -> HTTPResponse {
            var response = await next(request, context)
            SecurityHeaders.apply(to: &response)
            return response
        }
    }

    /// Adds the security headers (``fields``, the one list) to `response`; `Cache-Control: no-store` unless it
    /// already has a cache policy (static files do).
    static func apply(to response: inout HTTPResponse) {
        let hasCachePolicy = response.fields["Cache-Control"] != nil
        for (name, value) in fields where !(hasCachePolicy && name == "Cache-Control") { response.fields[name] = value }
        if response.fields["Content-Type"] == nil, !response.body.isEmpty {
            response.fields["Content-Type"] = "text/plain; charset=utf-8"
        }
    }
}
