import HTTPServer

/// The checks every unsafe request passes before routing:
/// - forms and fragments: the synchronizer CSRF token of the session (`csrfToken` field or
///   `X-CSRF-Token` header), and `Sec-Fetch-Site: same-origin` or, when that is absent, an
///   `Origin` equal to ours (a page on `http://localhost:3000` is same-site, not same-origin), and a body of
///   `Content-Type: application/x-www-form-urlencoded` (415 otherwise);
/// - JSON endpoints: `Content-Type: application/json` for any message body (415 otherwise), and
///   no cross-origin browser context (`Sec-Fetch-Site` / `Origin`, when sent, must be ours). Scripts
///   without a browser send neither and need no session. No CORS headers are ever sent, so a
///   cross-origin page cannot send JSON here without a preflight we never answer.
enum OriginCheck {
    static func refusal(for request: HTTPRequest, isAPI: Bool, sessionToken: String?) -> HTTPResponse? {
        let ourOrigin = "http://" + (request.fields["Host"] ?? "")
        let fetchSite = request.fields["Sec-Fetch-Site"]?.lowercased()
        let origin = request.fields["Origin"]
        if isAPI {
            let contentType = request.fields["Content-Type"]
            if !request.body.isEmpty || contentType != nil {
                guard contentType.map(mediaType) == "application/json" else {
                    return Routes.problem(request, status: .unsupportedMediaType, title: "Unsupported media type",
                                          message: "JSON endpoints take Content-Type: application/json.")
                }
            }
            if let fetchSite, fetchSite != "same-origin", fetchSite != "none" { return forbidden(request) }
            if let origin, origin != ourOrigin { return forbidden(request) }
            return nil
        }
        if let fetchSite {
            guard fetchSite == "same-origin" else { return forbidden(request) }
        } else {
            guard origin == ourOrigin else { return forbidden(request) }
        }
        // A form body is read as application/x-www-form-urlencoded (https://html.spec.whatwg.org/#url-encoded-form-data);
        // any other body (text/plain, multipart/form-data) would be read as no fields at all: 415 (RFC 9110 §15.5.16).
        let contentType = request.fields["Content-Type"]
        if !request.body.isEmpty || contentType != nil {
            guard contentType.map(mediaType) == "application/x-www-form-urlencoded" else {
                return Routes.problem(request, status: .unsupportedMediaType, title: "Unsupported media type",
                                      message: "Forms take Content-Type: application/x-www-form-urlencoded.")
            }
        }
        let sent = request.fields["X-CSRF-Token"]
            ?? FormURLEncoding.decode(request.body).first(where: { $0.name == "csrfToken" })?.value
        guard let sessionToken, let sent, SessionStore.constantTimeEquals(sent, sessionToken) else {
            return Routes.problem(request, status: .forbidden, title: "Session expired",
                                  message: "This form's security token is missing or out of date. Reload the page and try again.")
        }
        return nil
    }

    /// The media type of a `Content-Type` field value (RFC 9110 §8.3.1): `type/subtype` before any
    /// parameters, without the surrounding whitespace (space, tab), lowercased.
    static func mediaType(_ value: String) -> String {
        var type = value.prefix { $0 != ";" }
        while let first = type.first, first == " " || first == "\t" { type.removeFirst() }
        while let last = type.last, last == " " || last == "\t" { type.removeLast() }
        return type.lowercased()
    }

    private static func forbidden(_ request: HTTPRequest) -> HTTPResponse {
        Routes.problem(request, status: .forbidden, title: "Forbidden",
                       message: "Only pages of this dashboard may change its state.")
    }
}
