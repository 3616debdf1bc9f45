/// Per-connection state. Owned and mutated only by the event-loop thread.
final class Connection {
    enum State {
        /// Waiting for (more of) the next request.
        case reading
        /// A request is with the responder.
        case responding
        /// A response is partially written; waiting for EPOLLOUT.
        case writing
        /// Half-closed after a closing response; discarding input until EOF or the linger deadline.
        case lingering
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
    var parser: HTTPRequestParser
    var state: State = .reading
    var inFlight: InFlight?
    var output: [UInt8] = []
    var outputOffset = 0
    var closeAfterWrite = false
    var peerClosed = false
    /// Reading paused because too much pipelined input is buffered (back-pressure).
    var readBlocked = false
    /// Connection was accepted over the cap and only gets a 503.
    let shed: Bool
    var phase: HTTPRequestParser.Phase = .idle
    /// When ``phase`` was entered, monotonic ns.
    var phaseStart: UInt64
    /// Last time the connection became idle, monotonic ns.
    var lastActivity: UInt64
    /// Deadline for ``State/writing`` or ``State/lingering``, monotonic ns.
    var deadline: UInt64 = 0
    var lingerDiscarded = 0

    init(fd: Int32, serial: UInt64, remoteAddress: String, parser: HTTPRequestParser, now: UInt64, shed: Bool) {
        self.fd = fd
        self.serial = serial
        self.remoteAddress = remoteAddress
        self.parser = parser
        self.phaseStart = now
        self.lastActivity = now
        self.shed = shed
    }
}
