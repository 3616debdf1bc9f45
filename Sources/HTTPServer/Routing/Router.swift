/// Routes requests by method and path pattern to handlers.
///
/// Patterns are absolute paths whose segments are literals or `:name` parameters, e.g.
/// `/installs/:id/purchases`. Matching is on the decoded ``HTTPRequest/path``, segment by segment
/// (empty segments and a trailing slash are ignored). Rules:
/// - no pattern matches the path → ``fallback`` (e.g. ``StaticFiles``), else 404;
/// - a pattern matches but not the method → 405 with `Allow` (RFC 9110 §15.5.6);
/// - its own 404, 405 and 501 (and the fallback's) are thrown (``HTTPError/notFound``,
///   ``HTTPError/methodNotAllowed(_:allow:)``, ``HTTPError/notImplemented(_:)``), so the ``MiddlewareChain`` renders
///   them like every other error, in the request's format;
/// - `HEAD` is served by the `GET` handler (the server drops the body, RFC 9110 §9.3.2);
/// - `OPTIONS` (and `OPTIONS *`) → 204 with `Allow` (RFC 9110 §9.3.7);
/// - a method it does not recognize (``implements(method:)``, e.g. `BREW`, `get`) → 501 (RFC 9110 §9.1).
///
/// Handlers get the request and its `Context` with ``RequestContext/parameters`` set, and may throw: a
/// ``MiddlewareChain`` turns the error into the answer. A `Router<BasicRequestContext>` is an
/// ``HTTPResponder`` of its own.
public struct Router<Context: RequestContext>: Sendable {
    /// A route handler: gets the request and its context, the captured parameters in ``RequestContext/parameters``.
    public typealias Handler = @Sendable (HTTPRequest, Context) async throws -> HTTPResponse

    typealias Segment = RouteSegment

    struct Route: Sendable {
        let method: String
        let segments: [Segment]
        let handler: Handler
    }

    var table: [Route] = []
    /// The routes' patterns as a tree of segments, so a path is matched in one walk of its segments, not against every
    /// route in turn.
    var trie = RouteTrie()

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

    /// Adds a route.
    /// - Parameters:
    ///   - method: the method token, case-sensitive (e.g. `GET`).
    ///   - pattern: an absolute path pattern; `:name` segments capture.
    ///   - handler: called for matching requests.
    public mutating func add(_ method: String, _ pattern: String, handler: @escaping Handler) {
        let segments = pattern.split(separator: "/").map { part -> Segment in
            part.hasPrefix(":") ? .parameter(String(part.dropFirst())) : .literal(String(part))
        }
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

    /// Routes `request` as described on the type.
    /// - Parameters:
    ///   - request: the request.
    ///   - context: its context; the handler gets it with the captured parameters.
    /// - Returns: the handler's response, the fallback's, or 204 with Allow for OPTIONS.
    /// - Throws: what the handler or the fallback throws; ``HTTPError/notFound``, ``HTTPError/methodNotAllowed(_:allow:)``
    ///   or ``HTTPError/notImplemented(_:)``.
    public func respond(to request: HTTPRequest, context: Context) async throws -> HTTPResponse {
        if request.path == "*" {
            var allowed = Set(table.map(\.method))
            allowed.insert("OPTIONS")
            return Self.allowResponse(.noContent, methods: allowed)
        }
        guard implements(method: request.method) else { throw HTTPError.notImplemented(request.method) }
        let parts = RouteSegment.parts(of: request.path)
        var methods = Set<String>()
        var getMatch: (Route, RouteParameters)?
        for index in trie.routes(matching: parts) {
            let route = table[index]
            guard let parameters = RouteSegment.match(route.segments, parts) else { continue }
            if route.method == request.method { return try await Self.run(route, request, context, parameters) }
            if route.method == "GET" { getMatch = (route, parameters) }
            methods.insert(route.method)
        }
        if methods.isEmpty {
            if let fallback { return try await fallback.answer(request) }
            throw HTTPError.notFound
        }
        if request.method == "HEAD", let (route, parameters) = getMatch {
            return try await Self.run(route, request, context, parameters)
        }
        if request.method == "OPTIONS" { return Self.allowResponse(.noContent, methods: methods) }
        throw HTTPError.methodNotAllowed(request.method, allow: Self.allowValue(methods))
    }

    private static func run(_ route: Route, _ request: HTTPRequest, _ context: Context, _ parameters: RouteParameters) async throws -> HTTPResponse {
        var context = context
        context.parameters = parameters
        return try await route.handler(request, context)
    }

    /// The methods RFC 9110 §9.3 defines, and `PATCH` (RFC 5789): a request with one of them that no route
    /// takes is 404 or 405 with `Allow`, as for any path.
    public static var standardMethods: Set<String> { standardHTTPMethods }

    /// Whether the router recognizes a method: one of ``standardMethods`` or the method of a route. Any other
    /// is answered 501 (RFC 9110 §9.1: "An origin server that receives a request method that is
    /// unrecognized or not implemented SHOULD respond with the 501 (Not Implemented) status code").
    /// - Parameter method: the method token, case-sensitive (e.g. `GET`; `get` is another method).
    /// - Returns: `false` when ``respond(to:context:)`` answers 501.
    public func implements(method: String) -> Bool {
        Self.standardMethods.contains(method) || table.contains { $0.method == method }
    }

    /// Whether a route of exactly this method matches the path, i.e. whether ``respond(to:context:)`` would run a
    /// handler (every other request is answered 404, 405 or by the fallback, without acting).
    /// - Parameters:
    ///   - method: the method token, e.g. `DELETE`.
    ///   - path: the request path.
    /// - Returns: `true` when a handler would run.
    public func hasHandler(method: String, path: String) -> Bool {
        trie.routes(matching: RouteSegment.parts(of: path)).contains { table[$0].method == method }
    }

    /// Whether any route, of any method, matches the path: when none does, ``respond(to:context:)`` hands the
    /// request to ``fallback`` (or answers 404).
    /// - Parameter path: the request path.
    /// - Returns: `true` when the router itself answers (a handler, 405 or OPTIONS).
    public func hasRoute(forPath path: String) -> Bool {
        !trie.routes(matching: RouteSegment.parts(of: path)).isEmpty
    }

    /// A response with an `Allow` field listing `methods` (plus HEAD when GET is present, and OPTIONS).
    static func allowResponse(_ status: HTTPStatus, methods: Set<String>) -> HTTPResponse {
        var response = status == .noContent ? HTTPResponse(status: status) : HTTPResponse.status(status)
        response.fields["Allow"] = allowValue(methods)
        return response
    }

    /// The `Allow` value for `methods`: with HEAD when GET is there, and OPTIONS, sorted.
    static func allowValue(_ methods: Set<String>) -> String {
        var all = methods
        if all.contains("GET") { all.insert("HEAD") }
        all.insert("OPTIONS")
        return all.sorted().joined(separator: ", ")
    }
}

extension Router: HTTPResponder where Context == BasicRequestContext {
    /// Routes `request` through a ``MiddlewareChain`` with no middlewares: a thrown error is answered as the
    /// chain answers it (its status and message, or a 500 with the request ID), logged nowhere.
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
}

/// ``Router/standardMethods``, stored once (a generic type cannot hold a static stored property).
let standardHTTPMethods: Set<String> = ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"]

/// A segment of a route pattern: a literal, or a `:name` parameter that captures. Not nested in the
/// generic ``Router``, so matching runs specialized code (as a member of `Router<Context>` it looked up
/// generic metadata on every request).
enum RouteSegment: Sendable, Equatable {
    case literal(String)
    case parameter(String)

    /// The parameters `parts` capture, or `nil` when they do not fit `segments`.
    static func match(_ segments: [RouteSegment], _ parts: [Substring]) -> RouteParameters? {
        guard matches(segments, parts) else { return nil }
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

    /// Whether `parts` fit `segments`, without capturing.
    static func matches(_ segments: [RouteSegment], _ parts: [Substring]) -> Bool {
        guard segments.count == parts.count else { return false }
        for index in segments.indices {
            if case .literal(let literal) = segments[index], literal != parts[index] { return false }
        }
        return true
    }
}

/// Route patterns as a tree: each node is a path position, with a child per literal segment and one for any parameter
/// (`:name`, whatever its name); a route's index sits on the node its last segment reaches. Matching a path walks its
/// segments once, trying the literal child and the parameter child at each step.
struct RouteTrie: Sendable {
    struct Node: Sendable {
        var literals: [String: Int] = [:]
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
            case .literal(let text): nodes[current].literals[text] = created
            case .parameter: nodes[current].parameter = created
            }
            current = created
        }
        nodes[current].routes.append(route)
    }

    /// The numbers of the routes whose patterns fit `parts`, in the order they were added (the first added wins, as
    /// when the routes were tried one by one).
    func routes(matching parts: [Substring]) -> [Int] {
        var found: [Int] = []
        collect(from: 0, parts[...], into: &found)
        if found.count > 1 { found.sort() }
        return found
    }

    private func collect(from node: Int, _ rest: ArraySlice<Substring>, into found: inout [Int]) {
        guard let first = rest.first else {
            found += nodes[node].routes
            return
        }
        if let literal = nodes[node].literals[String(first)] { collect(from: literal, rest.dropFirst(), into: &found) }
        if let parameter = nodes[node].parameter { collect(from: parameter, rest.dropFirst(), into: &found) }
    }
}
