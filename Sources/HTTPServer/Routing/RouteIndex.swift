import Synchronization

/// What ``MiddlewareChain`` resolves a request with, built once from a ``Router``: its tree of patterns, each node's
/// routes by method and `Allow` value, each route's pattern and group, the groups' prefixes, and the set of methods the
/// router recognizes. Not generic (a final class of its own, not a member of `MiddlewareChain<Context>`), so the walk runs
/// specialized code on the I/O thread, with no generic metadata looked up per request.
@usableFromInline
final class RouteIndex: Sendable {
    /// What one walk of the route tree finds for a request.
    @usableFromInline
    enum Resolution: Sendable {
        /// Route number `route`, with the parameters its pattern captured.
        case route(Int, RouteParameters)
        /// A method the router does not recognize: 501.
        case notImplemented
        /// No route's pattern fits the path: the fallback, or 404.
        case unmatched
        /// Patterns fit but none of this method: 405 with this `Allow`, or 204 for `OPTIONS`.
        case otherMethods(allow: String)
        /// `OPTIONS *` (RFC 9110 §9.3.7).
        case everyMethod
    }

    let trie: RouteTrie
    /// Each route's pattern, by its number.
    let patterns: [[RouteSegment]]
    /// Each route's group.
    let routeGroups: [Int]
    /// Whether each route's pattern has a parameter (its resolution then carries what the path captured).
    let capturesParameters: [Bool]
    /// Each group's prefix, by its number (the root's is empty).
    let prefixes: [[String]]
    /// Per node of the route tree: its routes by method (the first added of each; a few pairs, searched in order, where
    /// comparing short method names costs less than hashing them), and its `Allow` value.
    let endpoints: [(byMethod: [(method: String, route: Int)], allow: String)]
    /// Every method the router recognizes (``Router/standardMethods`` and the routes' own), computed once.
    let methods: Set<String>
    /// ``methods`` as a list, for the check every request passes (about ten short names: compared, not hashed).
    let methodList: [String]
    /// The `Allow` value of `OPTIONS *`.
    let allowEverything: String
    /// Recent resolutions, by method and path: a path asked for again costs one hash look-up instead of splitting it
    /// and walking the tree. At most
    /// ``memoLimit``, all forgotten at once past it (a flood of distinct paths only empties it).
    private let memo = Mutex<[MemoKey: (Resolution, Int)]>([:])
    /// How many resolutions ``memo`` keeps.
    static let memoLimit = 1_024

    struct MemoKey: Hashable {
        let method: String
        let path: String
    }

    init<Context>(_ router: Router<Context>) {
        trie = router.trie
        patterns = router.table.map(\.segments)
        routeGroups = router.table.map { router.group(ofPattern: $0.segments) }
        capturesParameters = router.table.map { route in
            route.segments.contains { if case .parameter = $0 { true } else { false } }
        }
        prefixes = router.groups.map(\.prefix)
        var endpoints: [(byMethod: [(method: String, route: Int)], allow: String)] = []
        for node in 0..<router.trie.nodeCount {
            var byMethod: [(method: String, route: Int)] = []
            for route in router.trie.routes(endingAt: node) where !byMethod.contains(where: { $0.method == router.table[route].method }) {
                byMethod.append((router.table[route].method, route))
            }
            endpoints.append((byMethod, Self.allowValue(Set(byMethod.map(\.method)))))
        }
        self.endpoints = endpoints
        let routeMethods = Set(router.table.map(\.method))
        methods = Router<Context>.standardMethods.union(routeMethods)
        methodList = Array(methods)
        allowEverything = Self.allowValue(routeMethods)
    }

    /// The route `method` and `path` reach and the group whose context setup applies, in one walk of the route tree.
    /// - Parameters:
    ///   - method: the request's method.
    ///   - path: the request's decoded path.
    ///   - capturing: whether to capture the route's parameters (for its handler), else they are left empty.
    /// - Returns: what the request reaches, and its group's number.
    ///
    /// A remembered resolution answers both kinds of call, unless its route has parameters it was remembered without
    /// (by the I/O thread's walk) and they are asked for: a request that the I/O thread walked and then handed to a task
    /// is not walked again when its route captures nothing.
    @usableFromInline
    func resolve(method: String, path: String, capturing: Bool = true) -> (Resolution, group: Int) {
        let key = MemoKey(method: method, path: path)
        if let known = memo.withLock({ $0[key] }) {
            guard capturing, case .route(let route, let parameters) = known.0, capturesParameters[route], parameters.pairs.isEmpty
            else { return known }
            return walk(method: method, path: path, capturing: true)
        }
        let resolved = walk(method: method, path: path, capturing: capturing)
        memo.withLock { memo in
            if memo.count >= Self.memoLimit { memo.removeAll(keepingCapacity: true) }
            memo[key] = resolved
        }
        return resolved
    }

    /// ``resolve(method:path:capturing:)`` by a walk of the route tree.
    func walk(method: String, path: String, capturing: Bool) -> (Resolution, group: Int) {
        if path == "*" { return (.everyMethod, 0) }
        let parts = RouteSegment.parts(of: path)
        guard methodList.contains(method) else { return (.notImplemented, group(ofPath: parts)) }
        let nodes = trie.nodes(matching: parts)
        guard !nodes.isEmpty else { return (.unmatched, group(ofPath: parts)) }
        var best: Int?
        for node in nodes {
            if let route = Self.route(of: method, in: endpoints[node].byMethod), route < best ?? .max { best = route }
        }
        if best == nil, method == "HEAD" {
            for node in nodes {
                if let route = Self.route(of: "GET", in: endpoints[node].byMethod), route < best ?? .max { best = route }
            }
        }
        if let best { return (.route(best, capturing ? RouteSegment.capture(patterns[best], parts) : RouteParameters()), routeGroups[best]) }
        let allow = nodes.count == 1 ? endpoints[nodes[0]].allow : Self.allowValue(Set(nodes.flatMap { endpoints[$0].byMethod.map(\.method) }))
        return (.otherMethods(allow: allow), routeGroups[endpoints[nodes[0]].byMethod.map(\.route).min() ?? 0])
    }

    /// The route of `method` among a node's pairs.
    private static func route(of method: String, in pairs: [(method: String, route: Int)]) -> Int? {
        for pair in pairs where pair.method == method { return pair.route }
        return nil
    }

    /// The group a path with these segments is in: the longest prefix it lies below (with at least one segment after
    /// it), else the root (as ``Router`` places a route, `group(ofPattern:)`).
    func group(ofPath parts: [Substring]) -> Int {
        var best = 0
        for (index, prefix) in prefixes.enumerated()
        where parts.count > prefix.count && prefix.count > prefixes[best].count && zip(prefix, parts).allSatisfy({ $0 == $1 }) {
            best = index
        }
        return best
    }

    /// Whether any route, of any method, matches the path.
    func hasRoute(forPath path: String) -> Bool {
        !trie.nodes(matching: RouteSegment.parts(of: path)).isEmpty
    }

    /// The `Allow` value for `methods`: with HEAD when GET is there, and OPTIONS, sorted.
    static func allowValue(_ methods: Set<String>) -> String {
        var all = methods
        if all.contains("GET") { all.insert("HEAD") }
        all.insert("OPTIONS")
        return all.sorted().joined(separator: ", ")
    }
}
