import Foundation
import HTTPServer

/// Admin-token sign-in for a dashboard bound to a non-loopback address (issue 7):
/// `Authorization: Bearer <token>` for scripts; for browsers a `?token=` link is exchanged for a
/// session cookie and redirected to the clean URL. Tokens are compared in constant time.
struct AdminTokenCheck {
    enum Result { case allowed, redirect(location: String, cookie: String), refused }

    /// The cookie that marks a browser signed in with the admin token.
    static let cookieName = "tipjar_admin"
    let token: String
    let sessions: SessionStore

    func check(_ request: HTTPRequest) async -> Result {
        if let authorization = request.fields["Authorization"], authorization.hasPrefix("Bearer "),
           SessionStore.constantTimeEquals(String(authorization.dropFirst(7)), token) {
            return .allowed
        }
        if let cookie = SessionStore.cookie(named: Self.cookieName, in: request.fields["Cookie"]),
           SessionStore.constantTimeEquals(cookie, token) {
            return .allowed
        }
        if request.method == "GET", let sent = request.queryValue("token"), SessionStore.constantTimeEquals(sent, token) {
            let others = request.queryItems.filter { $0.name != "token" }
            var location = request.path
            if !others.isEmpty {
                location += "?" + others.map { "\(percentEncoded($0.name))=\(percentEncoded($0.value))" }.joined(separator: "&")
            }
            return .redirect(location: location, cookie: "\(Self.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict")
        }
        return .refused
    }

    private func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}
