import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server (RFC 9110, RFC 9112) on non-blocking sockets driven by epoll on one dedicated
/// thread. Complete requests are handed to the ``HTTPResponder`` in a task, which by default runs on that thread too
/// (``ResponderPlacement``);
/// each connection handles one request at a time (pipelined requests are answered in order).
///
/// Every response carries `Date` and `Content-Length` (no chunked responses; an ``HTTPBodyStream`` body is
/// delimited by the connection's close instead) and `Connection: close`
/// when the server closes afterwards. Framing errors are answered (400/413/414/431/501/505) and the
/// connection is closed. See ``HTTPServerConfiguration`` for limits and deadlines.
public final class HTTPServer: Sendable {
    struct State {
        var loop: EventLoop?
        var port: Int?
        var running: HTTPServerConfiguration?
        var started = false
        var stopped = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The configuration the server was created with.
    public let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let accessLog: (@Sendable (AccessLogEntry) -> Void)?
    let state = Mutex(State())

    /// Creates a server; nothing happens until ``start()``.
    /// - Parameters:
    ///   - configuration: address, port, limits, deadlines, connection cap.
    ///   - responder: produces responses (e.g. a ``Router``).
    ///   - accessLog: called on the I/O thread once per response with an ``AccessLogEntry``; keep it fast.
    public init(
        configuration: HTTPServerConfiguration = HTTPServerConfiguration(), responder: any HTTPResponder,
        accessLog: (@Sendable (AccessLogEntry) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.responder = responder
        self.accessLog = accessLog
    }

    /// Binds, listens and starts the I/O thread. Returns once the socket accepts connections.
    /// - Returns: the bound TCP port (useful with port 0).
    /// - Throws: ``HTTPServerError`` if the host cannot be resolved or bind/listen fails, or if already started.
    public func start() throws -> Int {
        try state.withLock { (state: inout State) throws(HTTPServerError) in
            if state.started { throw .alreadyStarted }
            state.started = true
        }
        signal(SIGPIPE, SIG_IGN)  // belt and braces; sends also use MSG_NOSIGNAL
        let listener: (fd: Int32, port: Int)
        do {
            listener = try Socket.listen(host: configuration.host, port: configuration.port, backlog: configuration.backlog)
        } catch {
            state.withLock { $0.started = false }
            throw error
        }
        // Every connection is a descriptor: the caps fit the limit, so `accept4` does not run out.
        let running = configuration.fitted(toDescriptorLimit: DescriptorLimit.current ?? .max)
        let loop = EventLoop(
            configuration: running, responder: responder, accessLog: accessLog, listenFD: listener.fd,
            boundPort: listener.port,
            onStop: { [self] in
                let waiters = state.withLock { s in
                    s.stopped = true
                    s.loop = nil
                    let w = s.waiters
                    s.waiters = []
                    return w
                }
                for waiter in waiters { waiter.resume() }
            })
        state.withLock {
            $0.loop = loop
            $0.port = listener.port
            $0.running = running
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(loop).toOpaque()
        let created = pthread_create(
            &thread, nil,
            { argument in
                let loop = Unmanaged<EventLoop>.fromOpaque(argument!).takeRetainedValue()
                loop.run()
                return nil
            }, context)
        guard created == 0 else {
            Unmanaged<EventLoop>.fromOpaque(context).release()
            throw HTTPServerError.system(call: "pthread_create", errno: created)
        }
        pthread_detach(thread)
        return listener.port
    }

    /// The configuration in force once started: ``configuration`` with its connection caps cut to
    /// the descriptor limit (``HTTPServerConfiguration/fitted(toDescriptorLimit:)``); `nil` before.
    public var runningConfiguration: HTTPServerConfiguration? { state.withLock { $0.running } }

    /// The bound port once started, else `nil`.
    public var port: Int? { state.withLock { $0.port } }

    /// Graceful shutdown: stop accepting, close idle connections, let in-flight requests finish
    /// (their responses carry `Connection: close`), then close everything still open at the deadline.
    /// Returns when the I/O thread has stopped.
    /// - Parameter timeout: the longest to wait for in-flight requests (default 10 s).
    public func shutdown(timeout: Duration = .seconds(10)) async {
        let loop = state.withLock { $0.loop }
        guard let loop else { return }
        loop.inbox.post(.shutdown(deadline: Socket.now() &+ timeout.nanoseconds))
        await waitUntilStopped()
    }

    /// What the I/O thread holds right now (connections, buffered input, unsent output) and what its
    /// caps have done so far; `nil` when the server is not running.
    func statistics() async -> ConnectionStatistics? {
        guard let loop = state.withLock({ $0.loop }) else { return nil }
        return await withCheckedContinuation { continuation in
            loop.inbox.post(.statistics { continuation.resume(returning: $0) })
        }
    }

    /// Suspends until the server has stopped (returns immediately if it never started or already stopped).
    public func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if s.stopped || !s.started { return true }
                s.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
