/// The one place a session starts, for the routes (``PageRenderer/withFormSession(_:_:)``, in a task) and for a stored
/// form page answered on the I/O thread (``PageCache/immediateAnswer(to:)``): a new token of 64 hex digits from the
/// CSPRNG (``CSRFCookie/randomTokenBytes()``) and the cookie that hands it out, `HttpOnly` and `SameSite=Strict`
/// (RFC 6265 §4.1, https://datatracker.ietf.org/doc/html/draft-ietf-httpbis-rfc6265bis §4.1.2.7).
enum SessionIssuer {
    /// A new session's token.
    static func newToken() -> [UInt8] { CSRFCookie.randomTokenBytes() }

    /// The `Set-Cookie` value that hands `token` out.
    static func setCookie(token: String) -> String { CSRFCookie.setCookie(token: token) }
}
