#if canImport(Glibc)
import Glibc
#endif

/// The epoll loop: one dedicated thread owns the listening socket and every connection.
/// Sockets are non-blocking and edge-triggered; complete requests go to the responder in a `Task`,
/// whose response comes back through the ``Inbox`` and is written by this thread, unless the responder
/// answers them at once on this thread (``ImmediateResponder``, `EventLoop+Immediate.swift`). By default that task
/// runs on this thread too, between polls (``EventLoopExecutor``).
///
/// `@unchecked Sendable`: the instance is handed to its thread once; all mutable state is touched
/// only on that thread, except ``inbox`` (a `Mutex`-protected, `Sendable` queue) and ``executor``'s queue of jobs.
final class EventLoop: @unchecked Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    /// The responder, when it can also answer on this thread (``ImmediateResponder``).
    let immediate: (any ImmediateResponder)?
    let accessLog: (@Sendable (AccessLogEntry) -> Void)?
    let inbox: Inbox
    /// Runs the responders' tasks on this loop's thread (``ResponderPlacement/eventLoop``).
    let executor: EventLoopExecutor
    let epfd: Int32
    let listenFD: Int32
    let allowedHosts: Set<String>?
    let onStop: @Sendable () -> Void

    var connections: [Connection?] = []
    var openCount = 0
    /// Connections writing an ``HTTPBodyStream`` (``HTTPServerConfiguration/maxStreams``).
    var openStreams = 0
    /// The most connections open at a sweep since the heap was last trimmed
    /// (``releaseFreedMemoryAfterDeparture()``).
    var peakOpenSinceTrim = 0
    var shedCount = 0
    /// Open connections per client address (entries removed when they reach zero).
    var peers: [String: Peer] = [:]
    /// Owned bytes of every unsent response (see ``HTTPServerConfiguration/maxUnsentOutputBytes``).
    var unsentOutputBytes = 0
    /// What admission control and the output cap did, for ``ConnectionStatistics``.
    var counters = ConnectionStatistics.Counters()
    /// Connections whose next request was already sent before their last answer was read
    /// (pipelined), waiting for a slot; ``pipelineHead`` is the first not yet taken.
    var pipelineQueue: [Connection] = []
    var pipelineHead = 0
    /// Pipelined requests with the responder now (at most ``pipelinedLimit``).
    var pipelinedInFlight = 0
    /// Whether ``dispatchPipelined()`` is running (it does not run inside itself).
    var isDispatchingPipelined = false
    var serial: UInt64 = 0
    var requestCounter: UInt64 = 0
    var date = HTTPDate()
    /// The connections a full table could give up for a newcomer, from the table's last walk (``admit(_:)``).
    var closable: ClosableConnections?
    /// The load-shedding 503 for connections over a cap, made once per second of its `Date` line.
    var shedAnswer: (dateLine: [UInt8], output: ResponseSerializer.Output)?
    var now: UInt64 = Socket.now()
    var lastSweep: UInt64 = 0
    var draining = false
    var drainDeadline: UInt64 = .max
    var listening = true
    /// When accepting resumes after running out of descriptors (``pauseAccepting()``), or `nil`.
    var acceptResumeTime: UInt64?
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    let t: (idle: UInt64, head: UInt64, body: UInt64, write: UInt64, linger: UInt64, firstByte: UInt64)

    init(
        configuration: HTTPServerConfiguration, responder: any HTTPResponder,
        accessLog: (@Sendable (AccessLogEntry) -> Void)?, listenFD: Int32, boundPort: Int,
        onStop: @escaping @Sendable () -> Void
    ) {
        self.configuration = configuration
        self.responder = responder
        immediate = responder as? any ImmediateResponder
        self.accessLog = accessLog
        self.listenFD = listenFD
        self.onStop = onStop
        inbox = Inbox()
        executor = EventLoopExecutor(inbox: inbox)
        allowedHosts = HostValidator.allowList(for: configuration, port: boundPort)
        let timeouts = configuration.timeouts
        t = (
            timeouts.idle.nanoseconds, timeouts.head.nanoseconds, timeouts.body.nanoseconds,
            timeouts.write.nanoseconds, timeouts.linger.nanoseconds, timeouts.firstByte.nanoseconds
        )
        epfd = SystemCalls.epollCreate()
        SystemCalls.epollAdd(epfd, listenFD, events: SystemCalls.EPOLLIN)
        SystemCalls.epollAdd(epfd, inbox.eventFD, events: SystemCalls.EPOLLIN)
    }

    deinit { readBuffer.deallocate() }

    /// A sweep has run since the last connection closed (its memory trim included).
    var sweptWithNothingOpen = false

    /// Whether the loop may wait for an event without a timeout: no connection is open and a sweep ran since the last
    /// one closed, nothing is shed or paused, and it is not draining. A new connection, an inbox message (a response, a
    /// shutdown) or a stream's bytes are events, so an idle server's I/O thread sleeps instead of waking ten times a
    /// second.
    var isAsleep: Bool {
        sweptWithNothingOpen && openCount == 0 && shedCount == 0 && acceptResumeTime == nil && !draining
            && pipelineHead >= pipelineQueue.count
    }

    /// Runs until shutdown completes.
    func run() {
        executor.bindToCurrentThread()
        let events = SystemCalls.EpollEvents(capacity: 512)
        while true {
            let n = events.wait(epfd, timeoutMilliseconds: hasPipelinedTurns || executor.hasJobs ? 0 : isAsleep ? -1 : 100)
            now = Socket.now()
            if n > 0 {
                for i in 0..<Int(n) {
                    let (fd, flags) = events[i]
                    if fd == listenFD {
                        if listening { acceptWaiting() }
                    } else if fd == inbox.eventFD {
                        handleInbox()
                    } else if let connection = connection(fd) {
                        handleEvent(connection, flags: flags)
                    }
                }
            }
            // The responders' jobs this turn's events woke, then the answers they gave (posted without a wake-up).
            executor.runJobs()
            let answered = inbox.takeMessages()
            if !answered.isEmpty { handleInbox(answered) }
            if now &- lastSweep >= 100_000_000 {
                lastSweep = now
                sweep()
                sweptWithNothingOpen = openCount == 0
            }
            if openCount > 0 { sweptWithNothingOpen = false }
            if acceptResumeTime != nil { resumeAcceptingIfDue() }
            if pipelineHead < pipelineQueue.count { dispatchPipelined() }
            if draining && openCount == 0 && shedCount == 0 { break }
        }
        close(epfd)
        inbox.close()
        executor.stop()
        onStop()
    }

    @inline(__always) func connection(_ fd: Int32) -> Connection? {
        Int(fd) < connections.count ? connections[Int(fd)] : nil
    }

    // MARK: events

    func handleEvent(_ connection: Connection, flags: UInt32) {
        if flags & (SystemCalls.EPOLLERR | SystemCalls.EPOLLHUP) != 0 && flags & SystemCalls.EPOLLIN == 0 {
            closeConnection(connection)
            return
        }
        if flags & (SystemCalls.EPOLLIN | SystemCalls.EPOLLRDHUP | SystemCalls.EPOLLHUP) != 0 {
            connection.readPending = true
            if flags & (SystemCalls.EPOLLRDHUP | SystemCalls.EPOLLHUP) != 0 { connection.peerShutdown = true }
        }
        switch connection.state {
        case .streaming:
            if flags & SystemCalls.EPOLLOUT != 0 { flush(connection) }
            if connection.readPending && !isClosed(connection) { discardInput(connection) }
        case .writing:
            if flags & SystemCalls.EPOLLOUT != 0 { flush(connection) }  // on completion this goes on to the next request itself
        case .reading:
            if !connection.queued { processInput(connection) }  // a queued one is read in its turn
        case .lingering:
            if connection.readPending { discardInput(connection) }
        case .responding:
            break  // read later: one request at a time (back-pressure)
        }
    }

    func isClosed(_ connection: Connection) -> Bool {
        self.connection(connection.fd) !== connection
    }

    /// Parses buffered input while the connection is in ``Connection/State/reading``, reading more
    /// only when the parser needs it. After the client's FIN (it sends nothing more, RFC 9293 §3.6),
    /// the complete requests already received are answered one by one, and the connection closes
    /// when only a partial request (or nothing) is left: an incomplete request is dropped without an
    /// answer, which RFC 9112 §8 allows.
    func processInput(_ connection: Connection, pipelined: Bool = false) {
        while case .reading = connection.state {
            let event: HTTPRequestParser.Event
            do {
                event = try connection.parser.nextEvent()
            } catch {
                sendError(connection, error)
                return
            }
            switch event {
            case .continueExpected:
                if answersBeforeBody(connection) { return }
                let line = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
                _ = line.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            case .request(let parsed):
                dispatch(connection, parsed, pipelined: pipelined)
                return
            case .needsMore:
                let phase = connection.parser.phase
                if phase != connection.phase {
                    connection.phase = phase
                    connection.phaseStart = now
                    if phase == .body, answersBeforeBody(connection) { return }
                }
                if connection.peerClosed {
                    closeConnection(connection)
                    return
                }
                guard connection.readPending else { return }  // wait for epoll
                guard readChunk(connection) else { return }
            }
        }
    }

    /// One `recv` into the parser: at most 4 KiB while between requests or in a head (so at most
    /// that much of a pipelined request is read ahead), up to 64 KiB of an expected body. Clears
    /// ``Connection/readPending`` when the socket is drained: on EAGAIN, EOF, or a short read unless
    /// the client's FIN was reported (then read on until EOF). Returns false if the connection closed.
    func readChunk(_ connection: Connection) -> Bool {
        let want = min(readBuffer.count, max(4 * 1024, connection.parser.pendingBodyBytes ?? 0))
        while true {
            let n = recv(connection.fd, readBuffer.baseAddress, want, 0)
            if n > 0 {
                connection.receivedAny = true
                connection.parser.append(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]))
                if n < want && !connection.peerShutdown { connection.readPending = false }
                return true
            }
            if n == 0 {
                connection.peerClosed = true
                connection.readPending = false
                return true
            }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK {
                connection.readPending = false
                return true
            }
            closeConnection(connection)
            return false
        }
    }

    func dispatch(_ connection: Connection, _ parsed: HTTPRequestParser.ParsedRequest, pipelined: Bool) {
        requestCounter &+= 1
        var request = parsed.request
        request.remoteAddress = connection.remoteAddress
        request.requestID = Self.requestID(connection: connection.serial, request: requestCounter)
        let inFlight = Connection.InFlight(
            method: request.method, target: request.target, requestID: request.requestID,
            isHead: request.method == "HEAD", http10: request.version == .http1_0,
            keepAlive: parsed.keepAlive, started: now)
        connection.state = .responding(inFlight)
        if answersImmediately(connection, inFlight, request) { return }
        if pipelined { pipelinedInFlight += 1 }
        let fd = connection.fd, serial = connection.serial
        let responder = self.responder, inbox = self.inbox, loop = self.executor
        let respond: @Sendable () async -> Void = { [request] in
            let response = await responder.respond(to: request)
            inbox.post(.response(fd: fd, serial: serial, response: response, pipelined: pipelined), fromLoop: loop.isLoopThread)
        }
        // A task made with an executor preference, even `nil`, carries a preference record that every `await` looks
        // up under the task's status lock (Swift's `AsyncTask::getPreferredTaskExecutor`); without one, none.
        switch configuration.responderPlacement {
        case .eventLoop: Task(executorPreference: executor, operation: respond)
        case .executor(let chosen): Task(executorPreference: chosen, operation: respond)
        case .globalExecutor: Task(operation: respond)
        }
    }
}
