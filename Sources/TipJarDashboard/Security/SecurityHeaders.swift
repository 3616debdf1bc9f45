import HTTPServer

/// The headers every response carries, errors included: a Content-Security-Policy with
/// no inline script or style, `nosniff`, no framing, no referrer; `no-store` unless the answer has a cache policy of its
/// own (static files do); `text/plain` for a body that names no type.
///
/// They are the server's ``HTTPServer/ResponseDefaults`` (``DashboardStack/server(_:accessLog:)``): the serializer adds
/// each to every answer it writes that lacks it, whatever road the answer took (a route, the I/O thread, the server's
/// own errors, a stream); an answer given in process gets them the same way (``DashboardStack/respond(to:)``).
public enum SecurityHeaders {
    /// The Content-Security-Policy: only this origin's scripts, styles and images; no plugins,
    /// no `<base>`, forms post only here, never framed.
    public static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// The fields, in the order they are sent.
    public static let fields: HTTPFields = [
        "Content-Security-Policy": contentSecurityPolicy, "X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY",
        "Referrer-Policy": "no-referrer", "Cache-Control": "no-store",
    ]

    /// ``fields`` as the server's defaults, with `text/plain; charset=utf-8` for a body that names no type
    /// (`nosniff` would otherwise leave it untyped).
    public static let defaults = ResponseDefaults(fields, untypedBodyContentType: "text/plain; charset=utf-8")
}
