import Foundation
import HTTPServer
import Synchronization
import TipJar

/// Rendered pages and fragments, kept by the request that asked for them (the fragment header and the request-target:
/// path, install ID, locale-bearing install, `textSize`, `flash` and every other query value), the change log's
/// sequence number read before rendering them and the keys they were rendered from (a ``ChangeRegion``), so a
/// repeated GET of an unchanged page sends stored bytes.
///
/// The ``ChangeLog`` is the core's: the storage reports what every commit touched (whoever wrote: a request, a late
/// delivery, a sheet's timeout) and the timeline every event's install (the service's in-memory state, such as an
/// open purchase sheet, changes only with one), after the change is visible. A stored page is fresh while no change
/// to its region came after its number, so a purchase on one install leaves every other install's page stored; a
/// page that names no region (a list of every install) is fresh only while nothing changed at all. A page is stored
/// only when nothing in its region changed while it rendered, so a change made meanwhile is never hidden; a page
/// whose rendering read the clock or the store's latency (an open purchase sheet that times out, a slow catalog) is
/// not stored at all.
///
/// The CSRF token is never stored: a page is rendered with ``placeholder`` in its place and the request's own token is
/// spliced in on every answer, so no session ever receives another's token. The placeholder is 64 random hex digits
/// made at start-up and never sent.
///
/// A page that shows only what cannot change while the server runs (`/catalog`: the loaded catalog) is kept apart,
/// without a version, by ``unchangingPage(_:path:csrfToken:render:)``: rendered once, whatever is written afterwards.
final class PageCache: Sendable {
    /// A stored page.
    struct Entry {
        /// The change log's sequence number read before it was rendered.
        var version: UInt64
        /// What it was rendered from: it is fresh while none of it changed after ``version``.
        var region: ChangeRegion = .everything
        var fields: HTTPFields
        /// The body split at every placeholder.
        var segments: [[UInt8]]
        var size: Int
        /// Whether it was rendered for a session's token (else for none: `csrfToken` was empty).
        var hasSessionToken = false
        /// Whether its route hands a request without a session a new one (``formPage(_:_:isStorable:render:)``).
        var startsSession = false
        /// Tells this entry from any other stored under the same key.
        var serial: UInt64 = 0
        /// Whether it shows nothing that changes while serving, so it is fresh at every version
        /// (``unchangingPage(_:path:csrfToken:render:)``).
        var isUnchanging = false
        /// Its answer's head (and, for a page whose route starts sessions, the head with the `Set-Cookie` that hands one
        /// out), prepared when it is stored (``prepare(placeholder:)``): the body is its ``segments``, with the asking
        /// session's token spliced in (`PageCache+Immediate.swift`).
        var prepared: PreparedAnswers?

        /// ``prepared`` made from the entry's fields and segments, with the token as long as `placeholder` (or none, for
        /// a page rendered without a session).
        mutating func prepare(placeholder: [UInt8]) {
            let token = hasSessionToken ? placeholder : []
            let bodyByteCount = segments.reduce(0) { $0 + $1.count } + token.count * max(0, segments.count - 1)
            let head = HTTPResponse(status: .ok, fields: fields)
            guard let page = PreparedResponse(head: head, bodyByteCount: bodyByteCount) else { return }
            var startingSession: PreparedResponse?
            if hasSessionToken && startsSession {
                var withCookie = head
                withCookie.fields.append(name: "Set-Cookie", value: SessionIssuer.setCookie(token: String(decoding: placeholder, as: UTF8.self)))
                startingSession = PreparedResponse(head: withCookie, bodyByteCount: bodyByteCount)?.cuttingFieldLines(at: placeholder)
            }
            prepared = PreparedAnswers(page: page, startingSession: startingSession, whole: hasSessionToken ? nil : page.splicing(segments, with: []))
        }
    }

    /// A stored page's prepared heads. A class: an entry is copied out of the table for every request, and this costs
    /// it one retain instead of one per array the heads hold.
    final class PreparedAnswers: Sendable {
        /// The page's head.
        let page: PreparedResponse
        /// For a page whose route starts sessions: the head with `Set-Cookie`, cut where the new token goes.
        let startingSession: PreparedResponse?

        /// For a page rendered without a session: the whole answer, its body the segments as they are (no token goes
        /// between them), made once.
        let whole: PreparedResponse?

        init(page: PreparedResponse, startingSession: PreparedResponse?, whole: PreparedResponse?) {
            self.page = page
            self.startingSession = startingSession
            self.whole = whole
        }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// The unchanging pages, by key: one per route and fragment header, never evicted.
        var unchanging: [String: Entry] = [:]
        var order: [String] = []
        var bytes = 0
        var hits = 0
        var serials: UInt64 = 0
    }

    /// Stands for the CSRF token in a stored page: 64 random hex digits, the length of a real token.
    let placeholder: String
    let placeholderBytes: [UInt8]
    private let changeLog: ChangeLog
    private let enabled: Atomic<Bool>
    private let state = Mutex(State())
    private let byteLimit: Int
    private let entryLimit: Int

    /// Creates an empty cache.
    /// - Parameters:
    ///   - changeLog: the core's change log (the storage's, which the timeline reports to as well).
    ///   - isEnabled: `false` renders every page (templates re-read on every request).
    ///   - byteLimit: most body bytes kept; the oldest pages go first.
    ///   - entryLimit: most pages kept.
    init(changeLog: ChangeLog, isEnabled: Bool, byteLimit: Int = 8 << 20, entryLimit: Int = 2_000) {
        self.changeLog = changeLog
        self.enabled = Atomic(isEnabled)
        self.byteLimit = byteLimit
        self.entryLimit = entryLimit
        placeholder = CSRFCookie.randomToken()
        placeholderBytes = Array(placeholder.utf8)
    }

    /// The change log's sequence number right now.
    var version: UInt64 { changeLog.value }

    /// How many answers came from stored bytes.
    var hits: Int { state.withLock { $0.hits } }

    /// Turns the cache on or off (off: every page is rendered, nothing is stored).
    func setEnabled(_ isEnabled: Bool) { enabled.store(isEnabled, ordering: .relaxed) }

    /// The page for `request`: stored bytes with `csrfToken` spliced in when nothing it shows has changed, else
    /// `render`'s answer, stored when it is a `200` without cookies, `isStorable` (asked after rendering) holds and
    /// nothing in `region` changed while it rendered.
    /// - Parameters:
    ///   - request: the GET (or HEAD) request.
    ///   - csrfToken: the token this answer carries (empty for a request without a session).
    ///   - startsSession: whether the route hands a request without a session a new one (stored with the entry).
    ///   - region: what the page is rendered from, asked after rendering, before storing (default: everything).
    ///   - isStorable: whether what was just rendered may be stored (no clock, no simulated latency).
    ///   - render: renders the page with the token it is given.
    func page(
        _ request: HTTPRequest, csrfToken: String, startsSession: Bool = false, region: () async -> ChangeRegion = { .everything },
        isStorable: () async -> Bool = { true }, render: (_ csrfToken: String) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard enabled.load(ordering: .relaxed) else { return try await render(csrfToken) }
        let key = Self.key(for: request)
        let before = version
        let stored = freshEntry(forKey: key)
        let token = Array(csrfToken.utf8)
        if let stored { return HTTPResponse(status: .ok, fields: stored.fields, body: Self.join(stored.segments, token)) }
        var response = try await render(placeholder)
        let segments = PreparedResponse.cut(response.body, at: placeholderBytes)
        response.body = Self.join(segments, token)
        if response.status == .ok, response.stream == nil, !response.fields.contains("Set-Cookie"), await isStorable() {
            let region = await region()
            if changeLog.isUnchanged(region, since: before) {
                store(
                    Entry(
                        version: before, region: region, fields: response.fields, segments: segments, size: response.body.count,
                        hasSessionToken: !csrfToken.isEmpty, startsSession: startsSession), key: key)
            }
        }
        return response
    }

    /// A page with forms: ``page(_:csrfToken:startsSession:isStorable:render:)`` inside
    /// ``PageRenderer/withFormSession(_:_:)``, so a request without a session gets a new one (its token in the forms,
    /// `Set-Cookie` on the answer). The stored entry says so (``Entry/startsSession``), and the I/O thread answers such a
    /// request the same way (``immediateAnswer(to:)``), both through the one ``SessionIssuer``.
    /// - Parameters:
    ///   - request: the GET (or HEAD) request.
    ///   - context: its context (its session, if any).
    ///   - region: what the page is rendered from (default: everything).
    ///   - isStorable: whether what was just rendered may be stored.
    ///   - render: renders the page with the token it is given.
    func formPage(
        _ request: HTTPRequest, _ context: DashboardContext, region: () async -> ChangeRegion = { .everything },
        isStorable: () async -> Bool = { true }, render: (_ csrfToken: String) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        try await PageRenderer.withFormSession(context) { token in
            try await page(request, csrfToken: token, startsSession: true, region: region, isStorable: isStorable, render: render)
        }
    }

    /// A page that shows only what cannot change while the server runs, such as the loaded catalog: rendered once and
    /// then sent from stored bytes (with `csrfToken` spliced in) whatever the storage or the timeline do, so a change
    /// elsewhere never renders it again. Stored under `path` whatever the request's query (the route must not read
    /// it), so there is one entry per route and fragment header, kept outside the byte and entry limits.
    /// - Parameters:
    ///   - request: the GET (or HEAD) request.
    ///   - path: the route's path, e.g. `/catalog`: the request-target the page is stored under.
    ///   - csrfToken: the token this answer carries (empty for a request without a session).
    ///   - render: renders the page with the token it is given; it may read nothing that changes while serving.
    func unchangingPage(
        _ request: HTTPRequest, path: String, csrfToken: String, render: (_ csrfToken: String) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard enabled.load(ordering: .relaxed) else { return try await render(csrfToken) }
        let key = Self.key(for: request, target: path)
        let token = Array(csrfToken.utf8)
        if let stored = freshEntry(forKey: key) { return HTTPResponse(status: .ok, fields: stored.fields, body: Self.join(stored.segments, token)) }
        var response = try await render(placeholder)
        let segments = PreparedResponse.cut(response.body, at: placeholderBytes)
        response.body = Self.join(segments, token)
        if response.status == .ok, response.stream == nil, !response.fields.contains("Set-Cookie") {
            var entry = Entry(
                version: version, fields: response.fields, segments: segments, size: response.body.count, hasSessionToken: !csrfToken.isEmpty)
            entry.isUnchanging = true
            entry.prepare(placeholder: placeholderBytes)
            state.withLock { state in
                state.serials += 1
                entry.serial = state.serials
                state.unchanging[key] = entry
            }
        }
        return response
    }

    /// The key a request's page is stored under: whether it asks for a fragment, and its request-target.
    /// - Parameters:
    ///   - request: the request.
    ///   - target: the request-target to use instead of the request's (``unchangingPage(_:path:csrfToken:render:)``).
    static func key(for request: HTTPRequest, target: String? = nil) -> String {
        (request.fields["X-Fragment"] == "1" ? "F " : "P ") + (target ?? request.target)
    }

    /// The freshness check, in one place: the page stored under `key` if nothing in its region changed since it was
    /// rendered (counted as a hit), else `nil`; always `nil` while the cache is off.
    /// - Parameters:
    ///   - key: ``key(for:)`` of the request.
    ///   - isUsable: whether the caller can answer with the entry (else it is not counted and `nil` is returned).
    func freshEntry(forKey key: String, where isUsable: (Entry) -> Bool = { _ in true }) -> Entry? {
        guard enabled.load(ordering: .relaxed) else { return nil }
        return state.withLock { state in
            // The versioned table first (every page but the unchanging ones); the other is asked only when not empty.
            guard let entry = state.entries[key] ?? (state.unchanging.isEmpty ? nil : state.unchanging[key]),
                entry.isUnchanging || changeLog.isUnchanged(entry.region, since: entry.version), isUsable(entry)
            else { return nil }
            state.hits += 1
            return entry
        }
    }

    private func store(_ entry: Entry, key: String) {
        var entry = entry
        entry.prepare(placeholder: placeholderBytes)
        state.withLock { state in
            state.serials += 1
            entry.serial = state.serials
            if let old = state.entries.updateValue(entry, forKey: key) {
                state.bytes -= old.size
            } else {
                state.order.append(key)
            }
            state.bytes += entry.size
            while state.bytes > byteLimit || state.entries.count > entryLimit, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                if let removed = state.entries.removeValue(forKey: oldest) { state.bytes -= removed.size }
            }
        }
    }

    /// The segments joined with `token` between each two.
    static func join(_ segments: [[UInt8]], _ token: [UInt8]) -> [UInt8] {
        guard segments.count > 1 else { return segments.first ?? [] }
        var body: [UInt8] = []
        body.reserveCapacity(segments.reduce(0) { $0 + $1.count } + token.count * (segments.count - 1))
        for (index, segment) in segments.enumerated() {
            if index > 0 { body.append(contentsOf: token) }
            body.append(contentsOf: segment)
        }
        return body
    }
}
