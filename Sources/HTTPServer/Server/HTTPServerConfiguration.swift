/// Everything needed to run an ``HTTPServer``.
public struct HTTPServerConfiguration: Sendable {
    /// The address to bind: an IPv4 or IPv6 literal (`127.0.0.1`, `::1`, `0.0.0.0`, `::`) or a host
    /// name; `localhost` always means `127.0.0.1`. Default `127.0.0.1`.
    public var host: String
    /// The TCP port; 0 picks an ephemeral port (``HTTPServer/start()`` returns it). Default 8080.
    public var port: Int
    /// Parser size limits (see ``HTTPLimits`` for defaults).
    public var limits: HTTPLimits
    /// Deadlines (see ``HTTPTimeouts`` for defaults).
    public var timeouts: HTTPTimeouts
    /// Maximum simultaneously open connections. When they are all open, a new connection takes the
    /// slot of an idle one (see ``maxConnectionsPerAddress``), or, when none is idle, gets a canned
    /// `503 Service Unavailable` with `Connection: close`. Default 4096.
    public var maxConnections: Int
    /// Maximum simultaneously open connections from one client address (an IPv4 address, or an
    /// IPv6 /64 prefix). Beyond it new connections from that address get the same canned 503 as
    /// over ``maxConnections``, so one client cannot take every slot. When the whole table is full,
    /// a new connection first closes an idle connection (no request in progress) of the address
    /// holding the most connections, and is shed only if there is none. Default 512.
    public var maxConnectionsPerAddress: Int
    /// Maximum connections being answered that canned 503 at once (each holds a descriptor until
    /// the answer is written and the linger ends); beyond it a new connection over a cap is closed
    /// at once, unanswered. Default 1024.
    public var maxShedConnections: Int
    /// Cap on the response bytes all connections together hold unsent (bodies shared with the
    /// ``StaticFiles`` cache not counted, since they are not copied per response). Each connection
    /// holds at most one response and stops reading while it is unsent (back-pressure); when a
    /// response leaves the total above this cap, the connections whose output has waited longest
    /// for the client to read are reset until it is below. The bytes queued for an open stream
    /// (``HTTPBodyStream/maxBacklog``) count too, so all streams' backlogs together stay inside
    /// this cap. Default 32 MiB (33554432).
    public var maxUnsentOutputBytes: Int
    /// Most ``HTTPBodyStream`` responses (server-sent event streams) open at once. A stream holds its
    /// connection slot for as long as it is open and is never idle, so the idle-connection rule of
    /// ``maxConnections`` cannot free it; this budget keeps the other slots for ordinary requests. A
    /// stream over it (or over ``maxStreamsPerAddress``) is answered `503 Service Unavailable` with
    /// `Retry-After: 1` and `Connection: close` instead (RFC 9110 §15.6.4, §10.2.3), which an
    /// `EventSource` retries by itself (WHATWG HTML, "Server-sent events", reestablish the
    /// connection). Streams count toward ``maxConnections`` and ``maxConnectionsPerAddress`` as well.
    /// Default 1024.
    public var maxStreams: Int
    /// Most streams one client address (an IPv4 address, or an IPv6 /64 prefix) may hold open at
    /// once; see ``maxStreams``. Default 64.
    public var maxStreamsPerAddress: Int
    /// `listen(2)` backlog. Default 511.
    public var backlog: Int
    /// Authorities (`host[:port]`, port defaulting to 80) accepted in `Host` and absolute-form targets;
    /// others get 421 and the connection closes (DNS-rebinding defence). `nil` (default) derives the list
    /// from ``host`` and the bound port: the bound address (plus `localhost`/`127.0.0.1`/`[::1]` for
    /// loopback binds); for a wildcard bind (`0.0.0.0`, `::`) the loopback names and ``machineNames``;
    /// plus ``additionalHosts`` in both cases. Set, it replaces all of that.
    public var allowedHosts: [String]?
    /// More names (or addresses) accepted in `Host` besides the derived ones, e.g. a DNS name of this
    /// machine: `name` (with the bound port) or `name:port`. Default none.
    public var additionalHosts: [String]
    /// The machine's own names and addresses, accepted in `Host` on a wildcard bind (with the bound
    /// port). `nil` (default) reads them when the server starts: the host name (`gethostname(2)`)
    /// and every interface address (`getifaddrs(3)`).
    public var machineNames: [String]?
    /// Fields every answer carries unless it has its own of that name, added by the serializer: the responder's
    /// answers, those given on the I/O thread, streams' heads and the server's own (framing errors
    /// 400/413/414/421/431/501/505, timeouts 408, load shedding 503). An application puts its security headers here
    /// so that they are on every answer, whatever road it took. Default: none.
    public var responseDefaults: ResponseDefaults
    /// Where the responder's tasks run (SE-0417 task executor preference). Default ``ResponderPlacement/eventLoop``.
    public var responderPlacement: ResponderPlacement = .eventLoop

    /// Creates a configuration; every parameter has the documented default.
    /// - Parameters:
    ///   - host: bind address, default `127.0.0.1`.
    ///   - port: TCP port, default 8080 (0 = ephemeral).
    ///   - limits: size limits.
    ///   - timeouts: deadlines.
    ///   - maxConnections: connection cap, default 4096.
    ///   - backlog: listen backlog, default 511.
    ///   - allowedHosts: Host allow-list, default derived.
    ///   - additionalHosts: names accepted besides the derived ones, default none.
    ///   - machineNames: the machine's names and addresses for a wildcard bind, default read at start.
    ///   - responseDefaults: fields for every answer that lacks them, default none.
    ///   - maxConnectionsPerAddress: per-client-address connection cap, default 512.
    ///   - maxUnsentOutputBytes: cap on unsent response bytes over all connections, default 32 MiB.
    ///   - maxShedConnections: cap on connections being answered 503, default 1024.
    ///   - maxStreams: open streamed responses, all addresses, default 1024.
    ///   - maxStreamsPerAddress: open streamed responses per client address, default 64.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, limits: HTTPLimits = HTTPLimits(),
        timeouts: HTTPTimeouts = HTTPTimeouts(), maxConnections: Int = 4096, backlog: Int = 511,
        allowedHosts: [String]? = nil, additionalHosts: [String] = [], machineNames: [String]? = nil,
        responseDefaults: ResponseDefaults = .none,
        maxConnectionsPerAddress: Int = 512, maxUnsentOutputBytes: Int = 32 * 1024 * 1024,
        maxShedConnections: Int = 1024, maxStreams: Int = 1024, maxStreamsPerAddress: Int = 64
    ) {
        self.maxShedConnections = maxShedConnections
        self.maxStreams = maxStreams
        self.maxStreamsPerAddress = maxStreamsPerAddress
        self.responseDefaults = responseDefaults
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.maxUnsentOutputBytes = maxUnsentOutputBytes
        self.host = host
        self.port = port
        self.limits = limits
        self.timeouts = timeouts
        self.maxConnections = maxConnections
        self.backlog = backlog
        self.allowedHosts = allowedHosts
        self.additionalHosts = additionalHosts
        self.machineNames = machineNames
    }

    /// The host, in URL form, that a browser on this machine reaches a server bound to `host` by, and that
    /// the server's `Host` allow-list accepts: `127.0.0.1` for the IPv4 wildcard (`0.0.0.0`, or empty),
    /// `[::1]` for the IPv6 wildcard (`::`, `[::]`; a dual-stack socket, RFC 3493 §5.3) — a browser would send
    /// `Host: 0.0.0.0:PORT`, which names no host and is refused (421); any other IPv6 literal in brackets
    /// (RFC 3986 §3.2.2); any other host as given.
    /// - Parameter host: the bind address, as in ``host``.
    /// - Returns: e.g. `127.0.0.1`, `[::1]`, `192.0.2.7`, `[fe80::1]`.
    public static func urlHost(forBind host: String) -> String {
        switch host {
        case "", "0.0.0.0": return "127.0.0.1"
        case "::", "[::]": return "[::1]"
        default: return host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        }
    }

    /// Whether `name` can be an entry of ``additionalHosts``: a host name or IP literal (RFC 3986
    /// §3.2.2, IPv6 with or without brackets), optionally with `:port` (1...65535).
    /// - Parameter name: the entry, e.g. `tipjar.lan`, `tipjar.lan:8443`, `fe80::1`.
    public static func isValidHost(_ name: String) -> Bool {
        guard let normalized = try? HostValidator.normalize(ArraySlice(HostValidator.authority(name, defaultPort: 80).utf8)),
            let port = normalized.split(separator: ":").last.flatMap({ Int($0) })
        else { return false }
        return (1...65_535).contains(port)
    }
}

/// Connection deadlines. Checked about every 100 ms, so they fire up to that much late.
public struct HTTPTimeouts: Sendable, Equatable {
    /// Keep-alive idle time: a connection with no request in progress is closed silently after this.
    /// Default 15 s.
    public var idle: Duration
    /// A new connection that has sent no byte at all within this time is closed silently (it holds
    /// a slot without asking for anything). Default 5 s.
    public var firstByte: Duration
    /// Whole-head deadline from the first byte of a request to the end of its field section
    /// (slowloris defence); on expiry the server sends 408 and closes. Default 10 s.
    public var head: Duration
    /// Body deadline from the end of the head to the end of the body; on expiry 408 and close. Default 30 s.
    public var body: Duration
    /// Time allowed for a response to drain to a slow reader before the connection is dropped. Default 30 s.
    public var write: Duration
    /// After a closing response the server half-closes and discards input for at most this long
    /// before closing, so the client reliably receives the response (RFC 9112 §9.6). Default 2 s.
    public var linger: Duration

    /// Creates deadlines; every parameter has the documented default.
    /// - Parameters:
    ///   - idle: default 15 s.
    ///   - head: default 10 s.
    ///   - body: default 30 s.
    ///   - write: default 30 s.
    ///   - linger: default 2 s.
    ///   - firstByte: default 5 s.
    public init(
        idle: Duration = .seconds(15), head: Duration = .seconds(10), body: Duration = .seconds(30),
        write: Duration = .seconds(30), linger: Duration = .seconds(2), firstByte: Duration = .seconds(5)
    ) {
        self.idle = idle
        self.firstByte = firstByte
        self.head = head
        self.body = body
        self.write = write
        self.linger = linger
    }
}

extension Duration {
    /// The duration in nanoseconds, clamped to `0...UInt64.max / 2`.
    var nanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        if seconds > 1_000_000_000 { return UInt64.max / 2 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}

/// Where a server runs its responder's tasks (``HTTPServerConfiguration/responderPlacement``).
public enum ResponderPlacement: Sendable {
    /// On the server's I/O thread, between its polls: a request that needs no other thread (an answer from memory, a
    /// point read) crosses none, and one that does (a database write) comes back to this thread, not to another that
    /// must be woken to hand the answer on. A responder's long computation delays every connection's I/O behind it.
    case eventLoop
    /// On Swift's global concurrent executor: responders run in parallel, each request waking a thread of the pool.
    case globalExecutor
    /// On an executor of the application's, e.g. one kept apart from other CPU-bound work in the same process (a test
    /// run starts every test at once on the global executor), so the server's answers do not wait behind that work.
    case executor(any TaskExecutor)
}
