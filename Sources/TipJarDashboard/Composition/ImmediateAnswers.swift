import HTTPServer
import Synchronization

/// The dashboard's answers that need no handler, given on the server's I/O thread (``HTTPServer/ImmediateResponder``):
/// files of `Public/` already in memory (200 or `304 Not Modified`), pages and JSON the ``PageCache`` holds for the
/// data as it is now, and the admin token's 401. Everything else (`nil`) goes through the middlewares and routes.
///
/// Derived from the declarations the middleware chain uses (``Dashboard/chain(router:adminToken:errorPages:appStoreServerAPIGate:log:)``),
/// not a second copy of them, step by step:
/// 1. only `GET` and `HEAD` without a body: every unsafe method, and OPTIONS, take the chain (its areas' origin and
///    CSRF checks);
/// 2. ``FieldSizeCheck/oversizedField(in:form:)`` finds nothing, or the chain answers (400);
/// 3. ``AdminTokenCheck/check(_:)``: allowed goes on, refused is ``AdminTokenCheck/refusal`` rendered by the same
///    `MiddlewareChain.answer(_:to:)`, in the format of the path's area, a `?token=` link (redirect and cookie) takes the chain;
/// 4. the answer: a stored page when ``PageCache/freshEntry(forKey:where:)`` finds one this request would get with the
///    token the route would splice in (below), else a file when no route matches the path and the file is in memory
///    (``StaticFiles/cachedETag(forPath:)``).
///
/// The security headers are added to these answers as to every other by the server's serializer (``SecurityHeaders/defaults``).
///
/// A stored page rendered with a session's token (``PageCache/Entry/hasSessionToken``) is answered to a request with a
/// session cookie (``CSRFCookie/token(fromCookie:)``), with its token spliced in. To a request without one it is answered only
/// when its route hands out a new session (``PageCache/Entry/startsSession``, ``PageCache/formPage(_:_:isStorable:render:)``),
/// as that route does: a new token (``CSRFCookie/randomTokenBytes()``) in its forms and in the `Set-Cookie` that
/// ``PageRenderer/withFormSession(_:_:)`` adds; any other request without a session takes the chain. A page rendered without
/// a token is answered to a request without a session, and to one with a session only when the page holds no token at all.
///
/// Heads are serialized once (``HTTPServer/PreparedResponse``): per file, and per stored page (kept while its entry is the
/// one stored); the body is the cache's own arrays, sent with a session's token between them (``HTTPServer/PreparedResponse/splicing(_:with:)``),
/// never copied.
final class ImmediateAnswers: Sendable {
    /// A file's two answers.
    struct FileAnswers: Sendable {
        let etag: String
        let ok: PreparedResponse
        let notModified: PreparedResponse
    }

    /// A stored page's answers, with the serial of the entry they were made from. A class: taken out of the table for
    /// every request, it costs one retain instead of one per array it holds.
    final class PageAnswer: Sendable {
        let serial: UInt64
        /// The page, with the placeholder where a session's token goes (none when it holds no token).
        let prepared: PreparedResponse
        /// For a page whose route starts sessions: the page with `Set-Cookie`, the placeholder where the new token goes.
        let startingSession: PreparedResponse?

        init(serial: UInt64, prepared: PreparedResponse, startingSession: PreparedResponse?) {
            self.serial = serial
            self.prepared = prepared
            self.startingSession = startingSession
        }
    }

    let staticFiles: StaticFiles
    let pageCache: PageCache
    let adminToken: AdminTokenCheck?
    let chain: MiddlewareChain<DashboardContext>
    let errorPages: ErrorPages
    /// Whether error pages render without reading templates from disk (not with `--reload-templates`).
    let rendersInMemory: Bool
    private let files = Mutex<[String: FileAnswers]>([:])
    /// Prepared pages by key, and the body bytes they hold beyond the page cache's own.
    private let pages = Mutex<(map: [String: PageAnswer], bytes: Int)>(([:], 0))
    /// Most prepared pages kept, and most bytes of bodies of their own: beyond either, all are dropped at once
    /// (the stale ones with them), so this never holds more than the page cache's own 8 MiB again.
    private let pageLimit = 2_000, pageByteLimit = 8 << 20

    init(
        staticFiles: StaticFiles, pageCache: PageCache, adminToken: String?,
        chain: MiddlewareChain<DashboardContext>, errorPages: ErrorPages, rendersInMemory: Bool
    ) {
        self.staticFiles = staticFiles
        self.pageCache = pageCache
        self.adminToken = adminToken.map { AdminTokenCheck(token: $0) }
        self.chain = chain
        self.errorPages = errorPages
        self.rendersInMemory = rendersInMemory
    }

    /// The answer to `request` if it needs no handler, else `nil` (see the type).
    func response(to request: HTTPRequest) -> PreparedResponse? {
        guard request.method == "GET" || request.method == "HEAD", request.body.isEmpty,
            FieldSizeCheck.oversizedField(in: request, form: [:]) == nil
        else { return nil }
        if let adminToken {
            switch adminToken.check(request) {
            case .allowed: break
            case .redirect: return nil
            case .refused: return rendersInMemory ? refusal(request) : nil
            }
        }
        if let file = files.withLock({ $0[request.path] }) { return file.answer(to: request) }
        if let page = storedPage(request) { return page }
        return file(request)?.answer(to: request)
    }

    /// The answer to a request that announces a body, from its head alone (``HTTPServer/ImmediateResponder/answerBeforeBody(_:)``):
    /// the admin token's 401 when the head carries no token, which no body can bring (``AdminTokenCheck/check(_:)`` reads the
    /// `Authorization` field, the cookie and the query, all in the head). Only where the chain would reach that check with
    /// this head: a method the router knows (else 501 first) and no oversized query value (else 400 first). `nil` otherwise:
    /// the body is read and the complete request answered as usual.
    /// - Parameter head: the request's head, its body empty.
    /// - Returns: the 401, or `nil`.
    func answerBeforeBody(_ head: HTTPRequest) -> PreparedResponse? {
        guard let adminToken, rendersInMemory, chain.implements(method: head.method),
            FieldSizeCheck.oversizedField(in: head, form: [:]) == nil, adminToken.check(head) == .refused
        else { return nil }
        return refusal(head)
    }

    /// The 401 the chain gives a request without the admin token.
    func refusal(_ request: HTTPRequest) -> PreparedResponse? {
        PreparedResponse(chain.answer(AdminTokenCheck.refusal, to: request))
    }

    /// The stored page this request would get from its route, when the page cache holds one for the data as it is.
    func storedPage(_ request: HTTPRequest) -> PreparedResponse? {
        let session = CSRFCookie.tokenBytes(fromCookie: request.fields["Cookie"])
        let key = PageCache.key(for: request)
        guard
            let entry = pageCache.freshEntry(
                forKey: key,
                where: { entry in
                    entry.hasSessionToken ? (session != nil || entry.startsSession) : (session == nil || entry.segments.count == 1)
                })
        else { return nil }
        let kept = pages.withLock { $0.map[key] }.flatMap { $0.serial == entry.serial ? $0 : nil } ?? keep(entry, key: key)
        guard let kept else { return nil }
        guard entry.hasSessionToken else { return kept.prepared }
        if let session { return kept.prepared.splicing(entry.segments, with: session) }
        // What `PageRenderer.withFormSession` does for a request without a session: a new token in its forms and its cookie.
        return kept.startingSession?.splicing(entry.segments, with: CSRFCookie.randomTokenBytes())
    }

    /// Prepares the answers for a stored page and keeps them while its entry is the one stored: with the session's
    /// token spliced in (or none), and, for a page whose route starts sessions, the same with `Set-Cookie` handing out a
    /// new one, prepared with the page cache's placeholder where the token goes.
    func keep(_ entry: PageCache.Entry, key: String) -> PageAnswer? {
        let placeholder = entry.hasSessionToken ? Array(pageCache.placeholder.utf8) : []
        let response = HTTPResponse(status: .ok, fields: entry.fields, body: PageCache.join(entry.segments, placeholder))
        var startingSession: PreparedResponse?
        if entry.hasSessionToken && entry.startsSession {
            var withCookie = response
            withCookie.fields.append(name: "Set-Cookie", value: CSRFCookie.setCookie(token: pageCache.placeholder))
            startingSession = PreparedResponse(withCookie)?.cuttingFieldLines(at: placeholder)
        }
        let bodyIsShared = entry.segments.count == 1  // joined, one segment is the cache's own array
        guard let prepared = PreparedResponse(response, bodyIsShared: bodyIsShared) else { return nil }
        let answer = PageAnswer(serial: entry.serial, prepared: prepared, startingSession: startingSession)
        let ownBytes = bodyIsShared ? 0 : prepared.bodyByteCount
        pages.withLock { pages in
            if pages.map.count >= pageLimit || pages.bytes + ownBytes > pageByteLimit { pages = ([:], 0) }
            pages.bytes += ownBytes
            pages.map[key] = answer
        }
        return answer
    }

    /// The answers for a file no route claims, once its bytes are in memory; kept for good (the files are read once).
    func file(_ request: HTTPRequest) -> FileAnswers? {
        let path = request.path
        guard !chain.hasRoute(forPath: path), let etag = staticFiles.cachedETag(forPath: path) else { return nil }
        let plain = HTTPRequest(method: "GET", target: path, path: path, query: "")
        var conditional = plain
        conditional.fields["If-None-Match"] = etag
        guard let ok = staticFiles.response(for: plain), let notModified = staticFiles.response(for: conditional),
            ok.status == .ok, notModified.status == .notModified
        else { return nil }
        guard let okPrepared = PreparedResponse(ok), let notModifiedPrepared = PreparedResponse(notModified) else { return nil }
        let answers = FileAnswers(etag: etag, ok: okPrepared, notModified: notModifiedPrepared)
        files.withLock { $0[path] = answers }
        return answers
    }
}

extension ImmediateAnswers.FileAnswers {
    /// 304 when the request's `If-None-Match` matches (``StaticFiles/ifNoneMatch(_:matches:)``), else 200.
    func answer(to request: HTTPRequest) -> PreparedResponse {
        if let condition = request.fields["If-None-Match"], StaticFiles.ifNoneMatch(condition, matches: etag) { return notModified }
        return ok
    }
}
