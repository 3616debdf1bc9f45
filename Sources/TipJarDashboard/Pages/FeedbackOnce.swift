import HTTPServer
import TipJar

/// The no-JavaScript path's feedback is shown once: the redirect after a form post carries, beside the
/// feedback's name (``Feedback/query``), a random marker (`once=`, 16 hex digits); the page that shows the feedback
/// hands the browser a cookie holding that marker, and a page whose marker the cookie already holds (a reload, Back)
/// shows none. So reloading `?feedback=purchased` never says "One more heart." again.
///
/// Stateless on the server, and safe against cross-site requests: the marker only ever hides feedback, the
/// feedback itself is still looked up by name (no text from a URL is shown), and the cookie is `HttpOnly`,
/// `SameSite=Strict` and scoped to the install's page (RFC 6265 §4.1.2; SameSite: RFC 6265bis §5.5.7). A URL
/// without a marker (typed, or from an older page) shows its feedback as before.
enum FeedbackOnce {
    /// The cookie that remembers the last marker shown on an install's page.
    static let cookieName = "tipjar_feedback_shown"

    /// `&once=…`, a fresh marker for a redirect's query.
    static func marker() -> String { "&once=" + CSRFCookie.randomToken().prefix(16) }

    /// The feedback the page at `request` shows, and the `Set-Cookie` value that marks it shown (`nil` when there
    /// is nothing to mark).
    /// - Parameters:
    ///   - request: the install page's request (`feedback=…&once=…`, and the `Cookie` field).
    ///   - installID: the install, whose page path scopes the cookie.
    ///   - locale: the install's language.
    static func feedback(_ request: HTTPRequest, installID: String, locale: AppLocale) -> (feedback: Feedback?, setCookie: String?) {
        guard let feedback = Feedback.fromQuery(request, locale: locale) else { return (nil, nil) }
        guard let marker = request.queryValue("once"), marker.utf8.count == 16,
            marker.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return (feedback, nil) }
        if CSRFCookie.cookie(named: cookieName, in: request.fields["Cookie"]) == marker { return (nil, nil) }
        return (feedback, "\(cookieName)=\(marker); Path=/installs/\(installID); Max-Age=3600; HttpOnly; SameSite=Strict")
    }
}
