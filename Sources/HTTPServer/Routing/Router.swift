/// The routes of an application, by method and path pattern, in groups that each bring their middlewares (the shape of
/// Hummingbird's `Router` with its `RouterGroup`s): what ``MiddlewareChain`` builds its responders from, once.
///
/// Patterns are absolute paths whose segments are literals or `:name` parameters, e.g.
/// `/installs/:id/purchases`. Matching is on the decoded ``HTTPRequest/path``, segment by segment
/// (empty segments and a trailing slash are ignored). Rules (``MiddlewareChain/respond(to:)``):
/// - a method the router does not recognize (``standardMethods`` and the routes' own, e.g. `BREW`, `get`) → 501
///   (RFC 9110 §9.1), before any middleware;
/// - no pattern matches the path → ``fallback`` (e.g. ``StaticFiles``), else 404;
/// - a pattern matches but not the method → 405 with `Allow` (RFC 9110 §15.5.6);
/// - `HEAD` is served by the `GET` handler (the server drops the body, RFC 9110 §9.3.2);
/// - `OPTIONS` (and `OPTIONS *`) → 204 with `Allow` (RFC 9110 §9.3.7);
/// - its own 404, 405 and 501 (and the fallback's) are thrown (``HTTPError/notFound``,
///   ``HTTPError/methodNotAllowed(_:allow:)``, ``HTTPError/notImplemented(_:)``) and answered like every other error,
///   in the format of the group the path is in.
///
/// Middlewares: the router's own (``add(middleware:)``) run for every request but a 501; a group's
/// (``group(_:middlewares:context:)``) run, after them, only in front of the handlers of the group's routes.
///
/// Handlers get the request and its `Context` with ``RequestContext/parameters`` set, and may throw: the
/// ``MiddlewareChain`` turns the error into the answer. A `Router<BasicRequestContext>` is an
/// ``HTTPResponder`` of its own.
public struct Router<Context: RequestContext>: Sendable {
    /// A route handler: gets the request and its context, the captured parameters in ``RequestContext/parameters``.
    public typealias Handler = @Sendable (HTTPRequest, Context) async throws -> HTTPResponse
    /// What a group does to the context of every request it answers, before any middleware runs (the error format of its
    /// answers, a decoded body): the shape of Hummingbird's child request contexts.
    public typealias ContextSetup = @Sendable (inout Context, HTTPRequest) -> Void

    typealias Segment = RouteSegment

    struct Route: Sendable {
        let method: String
        let segments: [Segment]
        let handler: Handler
    }

    /// A path prefix with its middlewares and context setup.
    struct Group: Sendable {
        /// The prefix's segments (literals); the root group has none.
        let prefix: [String]
        let middlewares: [any RouterMiddleware<Context>]
        let setup: ContextSetup?
    }

    var table: [Route] = []
    /// The routes' patterns as a tree of segments, so a path is matched in one walk of its segments, not against every
    /// route in turn.
    var trie = RouteTrie()
    /// The middlewares in front of every route, outermost first.
    public private(set) var middlewares: [any RouterMiddleware<Context>] = []
    /// The groups; the first is the root (every path not below another group's prefix).
    var groups: [Group] = [Group(prefix: [], middlewares: [], setup: nil)]

    /// Every route's method and pattern, in the order they were added (`:name` parameters as written): a read-only
    /// listing, e.g. for a test that checks which part of an application registers which route.
    public var routes: [(method: String, pattern: String)] {
        table.map { route in
            let parts = route.segments.map { segment -> String in
                switch segment {
                case .literal(let text): text
                case .parameter(let name): ":" + name
                }
            }
            return (method: route.method, pattern: "/" + parts.joined(separator: "/"))
        }
    }

    /// Answers requests whose path matches no route (e.g. ``StaticFiles``); `nil` → 404.
    public var fallback: (any RouterFallback)?

    /// Creates an empty router.
    /// - Parameter fallback: responder for unmatched paths (default none → 404).
    public init(fallback: (any RouterFallback)? = nil) { self.fallback = fallback }

    /// Adds a middleware in front of every route (after those added before it), and of the router's own answers
    /// (404, 405, `OPTIONS`, the fallback's); not of a 501.
    /// - Parameter middleware: the middleware.
    public mutating func add(middleware: any RouterMiddleware<Context>) { middlewares.append(middleware) }

    /// Declares a group: the routes whose patterns lie below `prefix` (`/api` holds `/api/installs`, not `/api` itself)
    /// get `middlewares` after the router's own, and every request whose path lies below it gets its context set up by
    /// `setup`; `/` (or the empty prefix) is the root group, for every path below no other. The longest prefix wins,
    /// whatever order the groups and routes are declared in: the responders are built once, from all of them
    /// (``MiddlewareChain``).
    /// - Parameters:
    ///   - prefix: literal segments, e.g. `/api`.
    ///   - middlewares: outermost first.
    ///   - setup: what the group does to each request's context first.
    public mutating func group(_ prefix: String, middlewares: [any RouterMiddleware<Context>] = [], context setup: ContextSetup? = nil) {
        let segments = prefix.split(separator: "/").map(String.init)
        let group = Group(prefix: segments, middlewares: middlewares, setup: setup)
        if let index = groups.firstIndex(where: { $0.prefix == segments }) { groups[index] = group } else { groups.append(group) }
    }

    /// Adds a route.
    /// - Parameters:
    ///   - method: the method token, case-sensitive (e.g. `GET`).
    ///   - pattern: an absolute path pattern; `:name` segments capture.
    ///   - handler: called for matching requests.
    public mutating func add(_ method: String, _ pattern: String, handler: @escaping Handler) {
        let segments = Self.segments(of: pattern)
        trie.insert(segments, route: table.count)
        table.append(Route(method: method, segments: segments, handler: handler))
    }

    /// Adds a `GET` route (also answers `HEAD`).
    /// - Parameters:
    ///   - pattern: path pattern.
    ///   - handler: the handler.
    public mutating func get(_ pattern: String, handler: @escaping Handler) { add("GET", pattern, handler: handler) }
    /// Adds a `POST` route.
    /// - Parameters:
    ///   - pattern: path pattern.
    ///   - handler: the handler.
    public mutating func post(_ pattern: String, handler: @escaping Handler) { add("POST", pattern, handler: handler) }
    /// Adds a `PUT` route.
    /// - Parameters:
    ///   - pattern: path pattern.
    ///   - handler: the handler.
    public mutating func put(_ pattern: String, handler: @escaping Handler) { add("PUT", pattern, handler: handler) }
    /// Adds a `PATCH` route (RFC 5789).
    /// - Parameters:
    ///   - pattern: path pattern.
    ///   - handler: the handler.
    public mutating func patch(_ pattern: String, handler: @escaping Handler) { add("PATCH", pattern, handler: handler) }
    /// Adds a `DELETE` route.
    /// - Parameters:
    ///   - pattern: path pattern.
    ///   - handler: the handler.
    public mutating func delete(_ pattern: String, handler: @escaping Handler) { add("DELETE", pattern, handler: handler) }

    /// The methods RFC 9110 §9.3 defines, and `PATCH` (RFC 5789): a request with one of them that no route
    /// takes is 404 or 405 with `Allow`, as for any path.
    public static var standardMethods: Set<String> { standardHTTPMethods }

    /// The middlewares of the group a route with `pattern` belongs to (``group(_:middlewares:context:)``), which run after
    /// the router's own in front of its handler.
    /// - Parameter pattern: a route pattern.
    /// - Returns: the group's middlewares, outermost first.
    public func middlewares(ofRoutePattern pattern: String) -> [any RouterMiddleware<Context>] {
        groups[group(ofPattern: Self.segments(of: pattern))].middlewares
    }

    /// A pattern's segments.
    static func segments(of pattern: String) -> [Segment] {
        pattern.split(separator: "/").map { part -> Segment in
            part.hasPrefix(":") ? .parameter(String(part.dropFirst())) : .literal(String(part))
        }
    }

    /// The group a route with these segments belongs to: the longest prefix its leading literals match, with at least
    /// one segment after it; else the root.
    func group(ofPattern segments: [Segment]) -> Int {
        var best = 0
        for (index, group) in groups.enumerated()
        where segments.count > group.prefix.count && group.prefix.count > groups[best].prefix.count
            && zip(group.prefix, segments).allSatisfy({ prefix, segment in segment == .literal(prefix) })
        {
            best = index
        }
        return best
    }

    /// A response with an `Allow` field (``RouteIndex/allowValue(_:)``).
    static func allowResponse(_ status: HTTPStatus, allow: String) -> HTTPResponse {
        var response = status == .noContent ? HTTPResponse(status: status) : HTTPResponse.status(status)
        response.fields["Allow"] = allow
        return response
    }

}

extension Router: HTTPResponder where Context == BasicRequestContext {
    /// Routes `request` through a ``MiddlewareChain`` built from this router: a thrown error is answered as the
    /// chain answers it (its status and message, or a 500 with the request ID), logged nowhere. Builds the chain for
    /// each request: for tests and small servers; an application builds its ``MiddlewareChain`` once.
    /// - Parameter request: the request.
    /// - Returns: the answer.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        await MiddlewareChain(router: self, makeContext: { _ in BasicRequestContext() }).respond(to: request)
    }
}

/// What a ``Router`` asks about a path no route matches (``StaticFiles`` is one): an answer, or a thrown error
/// (``HTTPError/notFound``) that the ``MiddlewareChain`` renders in the request's format.
public protocol RouterFallback: Sendable {
    /// The answer for `request`.
    /// - Throws: an ``HTTPResponseError`` when there is nothing to send (404, 405).
    func answer(_ request: HTTPRequest) async throws -> HTTPResponse

    /// The answer ``answer(_:)`` gives `request`, when it can be given at once on the server's I/O thread (never
    /// blocking, never awaiting: bytes already in memory), else `nil` (the default) to take a task.
    func immediateAnswer(_ request: HTTPRequest) -> PreparedResponse?
}

extension RouterFallback {
    /// No answer at once: every request takes a task.
    public func immediateAnswer(_ request: HTTPRequest) -> PreparedResponse? { nil }
}

/// ``Router/standardMethods``, stored once (a generic type cannot hold a static stored property).
let standardHTTPMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]

/// A segment of a route pattern: a literal, or a `:name` parameter that captures. Not nested in the
/// generic ``Router``, so matching runs specialized code (as a member of `Router<Context>` it looked up
/// generic metadata on every request).
enum RouteSegment: Sendable, Equatable {
    case literal(String)
    case parameter(String)

    /// The parameters `parts` capture for `segments`, which they fit (the trie's walk found them).
    static func capture(_ segments: [RouteSegment], _ parts: [Substring]) -> RouteParameters {
        var captured: [(name: String, value: String)] = []
        for index in segments.indices {
            if case .parameter(let name) = segments[index] { captured.append((name: name, value: String(parts[index]))) }
        }
        return RouteParameters(captured)
    }

    /// A path's non-empty segments between `/`s (RFC 3986 §3.3). Cut on the UTF-8 bytes: `/` is one byte that
    /// never occurs inside another character's encoding, so this gives `split(separator: "/")`'s segments
    /// without its grapheme-by-grapheme walk, except
    /// that a `/` followed by a combining mark still separates (for `Character`s it is part of one grapheme).
    static func parts(of path: String) -> [Substring] {
        var parts: [Substring] = []
        let utf8 = path.utf8
        parts.reserveCapacity(utf8.reduce(1) { $1 == UInt8(ascii: "/") ? $0 + 1 : $0 })  // one allocation, not one per doubling
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: "/") {
                if start != index { parts.append(path[start..<index]) }
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if start != utf8.endIndex { parts.append(path[start..<utf8.endIndex]) }
        return parts
    }

}

/// Route patterns as a tree: each node is a path position, with a child per literal segment and one for any parameter
/// (`:name`, whatever its name); a route's index sits on the node its last segment reaches. Matching a path walks its
/// segments once, trying the literal child and the parameter child at each step.
struct RouteTrie: Sendable {
    struct Node: Sendable {
        var literals: [String: Int] = [:]
        /// The UTF-8 length of the longest key of ``literals``: a longer segment (an ID) is no literal, so it is not
        /// made a `String` to be looked up.
        var longestLiteral = 0
        var parameter: Int?
        var routes: [Int] = []
    }

    private var nodes = [Node()]

    /// Adds route number `route` with these segments.
    mutating func insert(_ segments: [RouteSegment], route: Int) {
        var current = 0
        for segment in segments {
            let next: Int?
            switch segment {
            case .literal(let text): next = nodes[current].literals[text]
            case .parameter: next = nodes[current].parameter
            }
            if let next {
                current = next
                continue
            }
            nodes.append(Node())
            let created = nodes.count - 1
            switch segment {
            case .literal(let text):
                nodes[current].literals[text] = created
                nodes[current].longestLiteral = max(nodes[current].longestLiteral, text.utf8.count)
            case .parameter: nodes[current].parameter = created
            }
            current = created
        }
        nodes[current].routes.append(route)
    }

    /// How many nodes the tree has (node numbers run from 0).
    var nodeCount: Int { nodes.count }

    /// The routes that end on node `node`, in the order they were added.
    func routes(endingAt node: Int) -> [Int] { nodes[node].routes }

    /// The numbers of the nodes where a route whose pattern fits `parts` ends: usually one; two or more where a literal
    /// and a parameter both fit (`/installs/new`, `/installs/:id`).
    func nodes(matching parts: [Substring]) -> [Int] {
        var found: [Int] = []
        found.reserveCapacity(2)
        collect(from: 0, parts[...], into: &found)
        return found
    }

    private func collect(from node: Int, _ rest: ArraySlice<Substring>, into found: inout [Int]) {
        guard let first = rest.first else {
            if !nodes[node].routes.isEmpty { found.append(node) }
            return
        }
        if first.utf8.count <= nodes[node].longestLiteral, let literal = nodes[node].literals[String(first)] {
            collect(from: literal, rest.dropFirst(), into: &found)
        }
        if let parameter = nodes[node].parameter { collect(from: parameter, rest.dropFirst(), into: &found) }
    }
}
