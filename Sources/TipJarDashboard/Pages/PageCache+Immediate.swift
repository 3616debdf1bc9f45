import HTTPServer

extension PageCache {
    /// The stored answer `request` would get from its route, given at once on the server's I/O thread: the entry stored
    /// under its key while nothing it shows has changed (``freshEntry(forKey:where:)``), its head prepared when it was
    /// stored (``Entry/prepared``), the body its segments with the asking session's token between them, nothing copied.
    ///
    /// A page rendered with a session's token (``Entry/hasSessionToken``) answers a request with a session cookie
    /// (``CSRFCookie/tokenBytes(fromCookie:)``), its token spliced in; a request without one only when its route hands out
    /// a new session (``Entry/startsSession``, ``formPage(_:_:isStorable:render:)``), as that route does: a new token from
    /// the ``SessionIssuer`` in its forms and in its `Set-Cookie`. A page rendered without a token answers a request
    /// without a session, and one with a session only when the page holds no token at all.
    /// - Parameter request: a `GET` or `HEAD` without a body (any other gets `nil`).
    /// - Returns: the prepared answer, or `nil` to take the route.
    func immediateAnswer(to request: HTTPRequest) -> PreparedResponse? {
        guard request.method == "GET" || request.method == "HEAD", request.body.isEmpty else { return nil }
        let session = CSRFCookie.tokenBytes(fromCookie: request.fields["Cookie"])
        guard
            let entry = freshEntry(
                forKey: Self.key(for: request),
                where: { entry in
                    entry.prepared != nil
                        && (entry.hasSessionToken ? (session != nil || entry.startsSession) : (session == nil || entry.segments.count == 1))
                }),
            let prepared = entry.prepared
        else { return nil }
        guard entry.hasSessionToken else { return prepared.whole }
        if let session { return prepared.page.splicing(entry.segments, with: session) }
        return prepared.startingSession?.splicing(entry.segments, with: SessionIssuer.newToken())
    }

    /// The middleware in front of every route of the pages and the JSON API that may answer from the cache: at once, on
    /// the I/O thread, the stored answer (``immediateAnswer(to:)``); in a task it passes the request on to the route, which
    /// answers through the cache itself (``page(_:csrfToken:startsSession:region:isStorable:render:)``).
    struct StoredAnswers: RouterMiddleware {
        let pageCache: PageCache

        func handle(
            _ request: HTTPRequest, context: DashboardContext,
            next: (HTTPRequest, DashboardContext) async -> HTTPResponse
        ) async throws -> HTTPResponse {
            await next(request, context)
        }

        func immediateStep(_ request: HTTPRequest, context: inout DashboardContext) -> ImmediateStep {
            pageCache.immediateAnswer(to: request).map { .answer($0) } ?? .needsTask
        }
    }
}
