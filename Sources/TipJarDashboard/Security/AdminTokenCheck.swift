import Foundation
import HTTPServer

/// Admin-token sign-in for a dashboard bound to a non-loopback address:
/// `Authorization: Bearer <token>` for scripts; for browsers a `?token=` link is exchanged for a
/// session cookie and redirected to the same URL without the token, on this origin only.
/// Tokens are compared in constant time.
struct AdminTokenCheck: RouterMiddleware {
    enum Result: Equatable { case allowed, redirect(location: String, cookie: String), refused }

    /// The cookie that marks a browser signed in with the admin token.
    static let cookieName = "tipjar_admin"
    let token: String

    func check(_ request: HTTPRequest) -> Result {
        if let sent = request.fields["Authorization"].flatMap(Self.bearerCredentials), CSRFCookie.constantTimeEquals(sent, token) {
            return .allowed
        }
        if let cookie = CSRFCookie.cookie(named: Self.cookieName, in: request.fields["Cookie"]),
            CSRFCookie.constantTimeEquals(cookie, token)
        {
            return .allowed
        }
        // Query names are compared decoded, so `%74oken=` signs in exactly as `token=` does.
        if request.method == "GET", let sent = request.queryValue("token"), CSRFCookie.constantTimeEquals(sent, token) {
            let others = request.queryItems.filter { $0.name != "token" }
            var location = Self.sameOriginPath(request.path)
            if !others.isEmpty {
                location += "?" + others.map { "\(percentEncoded($0.name))=\(percentEncoded($0.value))" }.joined(separator: "&")
            }
            return .redirect(location: location, cookie: "\(Self.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict")
        }
        return .refused
    }

    /// Lets a signed-in request through, answers a `?token=` link with its redirect and cookie, refuses
    /// anything else with 401 and the Bearer challenge.
    func handle(
        _ request: HTTPRequest, context: DashboardContext,
        next: (HTTPRequest, DashboardContext) async -> HTTPResponse
    ) async throws -> HTTPResponse {
        switch check(request) {
        case .allowed:
            return await next(request, context)
        case .redirect(let location, let cookie):
            var response = HTTPResponse.redirect(to: location)
            response.fields.append(name: "Set-Cookie", value: cookie)
            return response
        case .refused:
            throw Self.refusal
        }
    }

    /// The same check at once, on the I/O thread (it reads only the head): a signed-in request goes on, one without the
    /// token is refused; a `?token=` link, whose redirect sets a cookie, takes a task.
    func immediateStep(_ request: HTTPRequest, context: inout DashboardContext) -> ImmediateStep {
        switch check(request) {
        case .allowed: .pass
        case .redirect: .needsTask
        case .refused: .refuse(Self.refusal)
        }
    }

    /// What a request without the token is refused with: 401 and the Bearer challenge.
    static let refusal = HTTPError(
        .unauthorized, title: "Sign-in required",
        message: "This dashboard needs its admin token: open the link printed at start-up, or send Authorization: Bearer.",
        fields: ["WWW-Authenticate": challenge])

    /// The `WWW-Authenticate` challenge of a 401 (RFC 9110 §11.6.1, §15.5.2: a 401 must carry one), for the
    /// Bearer scheme (RFC 6750 §3).
    static let challenge = #"Bearer realm="tipjar""#

    /// The token of an `Authorization: Bearer <token>` value (RFC 6750 §2.1): the scheme name compared
    /// case-insensitively (RFC 9110 §11.1: `bearer`, `BEARER`), one or more spaces after it.
    /// - Parameter authorization: the field value.
    /// - Returns: the credentials, or `nil` for another scheme or none.
    static func bearerCredentials(_ authorization: String) -> String? {
        let scheme = authorization.prefix { $0 != " " }
        guard scheme.lowercased() == "bearer" else { return nil }
        let credentials = authorization[scheme.endIndex...].drop { $0 == " " }
        return credentials.isEmpty ? nil : String(credentials)
    }

    /// `path` (decoded) as a `Location` that can only lead to this origin: an absolute path
    /// (RFC 3986 §4.2 `path-absolute`) that starts with a single `/`, percent-encoded. Anything
    /// else becomes `/`: a network-path reference `//host/…` (RFC 3986 §4.2) names another host,
    /// browsers read `\` as `/` in `http` URLs (https://url.spec.whatwg.org/#special-authority-slashes-state),
    /// and a scheme would make it absolute.
    static func sameOriginPath(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: ";")
        guard path.hasPrefix("/"), !path.hasPrefix("//"), !path.hasPrefix("/\\"),
            let encoded = path.addingPercentEncoding(withAllowedCharacters: allowed),
            encoded.hasPrefix("/"), !encoded.hasPrefix("//")
        else { return "/" }
        return encoded
    }

    private func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}
