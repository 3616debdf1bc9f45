/// Per-connection state. Owned and mutated only by the event-loop thread.
final class Connection {
    /// Where the connection is between a request and its answer. Each state carries what only it uses,
    /// so nothing of a finished state is left behind to be read by mistake in the next.
    enum State {
        /// Waiting for (more of) the next request.
        case reading
        /// A request is with the responder.
        case responding(InFlight)
        /// A response is being written; with `closes`, the connection half-closes after it
        /// (``lingering(deadline:)``). `deadline` is when the whole response must be sent, monotonic ns.
        case writing(Outgoing, closes: Bool, deadline: UInt64)
        /// Half-closed after a closing response; discarding input until EOF or `deadline`, monotonic ns.
        case lingering(deadline: UInt64)
        /// Writing an ``HTTPBodyStream``; input is discarded.
        case streaming(Stream)
    }

    /// Bytes being written and how far they have gone: a response, or a stream's current chunk.
    final class Outgoing {
        let output: ResponseSerializer.Output
        /// How much of ``output`` is sent.
        var offset = 0
        /// When the last byte went out (or the write began), monotonic ns.
        var lastProgress: UInt64
        /// What this write still counts in the loop's unsent output (``HTTPServerConfiguration/maxUnsentOutputBytes``):
        /// ``ResponseSerializer/Output/ownedByteCount`` until it is released, then 0, so it is released once.
        var countedBytes: Int

        init(_ output: ResponseSerializer.Output, now: UInt64) {
            self.output = output
            lastProgress = now
            countedBytes = output.ownedByteCount
        }
    }

    /// An open ``HTTPBodyStream``: what waits to be written and when something last went out.
    final class Stream {
        let heartbeat: [UInt8]
        let heartbeatInterval: UInt64
        let maxBacklog: Int
        /// The chunk (first the head) being written, if any.
        var outgoing: Outgoing?
        /// Chunks that arrived while ``outgoing`` was still being written, oldest first, each
        /// as the producer yielded it: a chunk the producer hands to many streams stays one buffer.
        var backlog: [[UInt8]] = []
        /// Where the next chunk to write is in ``backlog``.
        var backlogHead = 0
        /// Bytes of ``backlog`` from ``backlogHead`` on (counted in the loop's unsent output).
        var backlogBytes = 0
        /// The producer's chunks ended: close once everything is written.
        var ended = false
        /// When the last chunk or heartbeat was queued, monotonic ns.
        var lastQueued: UInt64
        /// The task reading the producer's chunks; cancelled when the connection closes.
        var task: Task<Void, Never>?

        init(_ body: HTTPBodyStream, now: UInt64) {
            heartbeat = body.heartbeat
            heartbeatInterval = body.heartbeatInterval.nanoseconds
            maxBacklog = body.maxBacklog
            lastQueued = now
        }
    }

    /// What the access log and serializer need about the in-flight request.
    struct InFlight {
        let method: String
        let target: String
        let requestID: String
        let isHead: Bool
        let http10: Bool
        let keepAlive: Bool
        let started: UInt64
    }

    let fd: Int32
    let serial: UInt64
    let remoteAddress: String
    /// The client address this connection counts against (``HTTPServerConfiguration/maxConnectionsPerAddress``).
    let peer: Peer
    var parser: HTTPRequestParser
    var state: State = .reading
    /// The socket may hold input not read yet: epoll reported readiness since the last read that
    /// came back short, empty or with EAGAIN. Input is only read in ``State/reading``, one request
    /// at a time, so a client that sends faster than it reads waits in its own socket buffers.
    var readPending = false
    /// epoll reported EPOLLRDHUP: the client sent its FIN, so read until EOF instead of stopping at
    /// a short read (edge-triggered epoll reports the FIN only once).
    var peerShutdown = false
    /// `recv` returned 0: complete requests still buffered are answered, then the connection closes.
    var peerClosed = false
    /// At least one byte arrived on this connection (see ``HTTPTimeouts/firstByte``).
    var receivedAny = false
    /// In ``EventLoop/pipelineQueue``: its input is left alone until its turn.
    var queued = false
    /// Connection was accepted over a cap and only gets a 503.
    let shed: Bool
    var phase: HTTPRequestParser.Phase = .idle
    /// When ``phase`` was entered, monotonic ns.
    var phaseStart: UInt64
    /// Last time the connection became idle (or was accepted), monotonic ns.
    var lastActivity: UInt64
    /// Input thrown away in ``State/streaming`` and ``State/lingering``: past 4 MiB the connection closes.
    var discardedBytes = 0

    init(fd: Int32, serial: UInt64, remoteAddress: String, peer: Peer, parser: HTTPRequestParser, now: UInt64, shed: Bool) {
        self.fd = fd
        self.serial = serial
        self.remoteAddress = remoteAddress
        self.peer = peer
        self.parser = parser
        self.phaseStart = now
        self.lastActivity = now
        self.shed = shed
    }

    /// No request in progress and nothing to send: closing it loses nothing.
    var isIdle: Bool {
        guard case .reading = state else { return false }
        return !shed && parser.bufferedByteCount == 0 && parser.phase == .idle
    }

    /// A request is arriving: its head or body is partly received and nothing is with the responder yet (a
    /// connection waiting in the pipeline queue holds a whole request, and is not counted).
    var isReceivingRequest: Bool {
        guard case .reading = state, !shed, !queued else { return false }
        return parser.phase != .idle
    }

    /// Answered with a closing response, half-closed, and only waiting for the client's close (``State/lingering(deadline:)``).
    var isLingering: Bool {
        guard case .lingering = state else { return false }
        return true
    }

    /// The write under way, in ``State/writing`` or ``State/streaming``.
    var outgoing: Outgoing? {
        switch state {
        case .writing(let outgoing, _, _): outgoing
        case .streaming(let stream): stream.outgoing
        case .reading, .responding, .lingering: nil
        }
    }
}

/// One client address and how many open connections it has. Owned by the event-loop thread.
final class Peer {
    /// The address (IPv4) or /64 prefix (IPv6) connections are counted by.
    let key: String
    /// Open (not shed) connections from this address.
    var open = 0
    /// Of those, the ones writing an ``HTTPBodyStream`` (``HTTPServerConfiguration/maxStreamsPerAddress``).
    var streams = 0
    /// The turn of the loop (its monotonic time) in which a full table had no connection to close for this address's
    /// next one; the table is not searched again for it in that turn.
    var noRoomTurn: UInt64 = 0

    init(key: String) { self.key = key }
}
