import HTTPServer

/// The headers every response carries, errors included (issue 7): a Content-Security-Policy with
/// no inline script or style, `nosniff`, no framing, no referrer; `no-store` on dynamic responses.
enum SecurityHeaders {
    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// Adds the security headers to `response`; `Cache-Control: no-store` unless it already has a
    /// cache policy (static files do).
    static func apply(to response: inout HTTPResponse) {
        response.fields["Content-Security-Policy"] = contentSecurityPolicy
        response.fields["X-Content-Type-Options"] = "nosniff"
        response.fields["X-Frame-Options"] = "DENY"
        response.fields["Referrer-Policy"] = "no-referrer"
        if response.fields["Cache-Control"] == nil { response.fields["Cache-Control"] = "no-store" }
        if response.fields["Content-Type"] == nil, !response.body.isEmpty {
            response.fields["Content-Type"] = "text/plain; charset=utf-8"
        }
    }
}
