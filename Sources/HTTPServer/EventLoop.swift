#if canImport(Glibc)
import Glibc
#endif

/// The epoll loop: one dedicated thread owns the listening socket and every connection.
/// Sockets are non-blocking and edge-triggered; complete requests go to the responder in a `Task`,
/// whose response comes back through the ``Inbox`` and is written by this thread.
///
/// `@unchecked Sendable`: the instance is handed to its thread once; all mutable state is touched
/// only on that thread, except ``inbox`` (a `Mutex`-protected, `Sendable` queue).
final class EventLoop: @unchecked Sendable {
    let configuration: HTTPServerConfiguration
    let responder: any HTTPResponder
    let accessLog: (@Sendable (AccessLogEntry) -> Void)?
    let inbox = Inbox()
    let epfd: Int32
    let listenFD: Int32
    let allowedHosts: Set<String>?
    let onStop: @Sendable () -> Void

    var connections: [Connection?] = []
    var openCount = 0
    var shedCount = 0
    var serial: UInt64 = 0
    var requestCounter: UInt64 = 0
    var date = HTTPDate()
    var now: UInt64 = Socket.now()
    var lastSweep: UInt64 = 0
    var draining = false
    var drainDeadline: UInt64 = .max
    var listening = true
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    let t: (idle: UInt64, head: UInt64, body: UInt64, write: UInt64, linger: UInt64)

    init(configuration: HTTPServerConfiguration, responder: any HTTPResponder,
         accessLog: (@Sendable (AccessLogEntry) -> Void)?, listenFD: Int32, boundPort: Int,
         onStop: @escaping @Sendable () -> Void) {
        self.configuration = configuration
        self.responder = responder
        self.accessLog = accessLog
        self.listenFD = listenFD
        self.onStop = onStop
        allowedHosts = HostValidator.allowList(for: configuration, port: boundPort)
        let timeouts = configuration.timeouts
        t = (timeouts.idle.nanoseconds, timeouts.head.nanoseconds, timeouts.body.nanoseconds,
             timeouts.write.nanoseconds, timeouts.linger.nanoseconds)
        epfd = SystemCalls.epollCreate1(SystemCalls.cloexec)
        SystemCalls.epollAdd(epfd, listenFD, events: SystemCalls.EPOLLIN)
        SystemCalls.epollAdd(epfd, inbox.eventFD, events: SystemCalls.EPOLLIN)
    }

    deinit { readBuffer.deallocate() }

    /// Runs until shutdown completes.
    func run() {
        let maxEvents = 512
        let events = UnsafeMutableRawPointer.allocate(byteCount: maxEvents * SystemCalls.eventStride, alignment: 8)
        defer { events.deallocate() }
        while true {
            let n = SystemCalls.epollWait(epfd, events, Int32(maxEvents), 100)
            now = Socket.now()
            if n > 0 {
                for i in 0..<Int(n) {
                    let base = events + i * SystemCalls.eventStride
                    let flags = base.loadUnaligned(as: UInt32.self)
                    let fd = Int32(truncatingIfNeeded: base.loadUnaligned(fromByteOffset: SystemCalls.eventDataOffset, as: UInt64.self))
                    if fd == listenFD {
                        if listening { acceptAll() }
                    } else if fd == inbox.eventFD {
                        handleInbox()
                    } else if let connection = connection(fd) {
                        handleEvent(connection, flags: flags)
                    }
                }
            }
            if now &- lastSweep >= 100_000_000 {
                lastSweep = now
                sweep()
            }
            if draining && openCount == 0 && shedCount == 0 { break }
        }
        close(epfd)
        close(inbox.eventFD)
        onStop()
    }

    @inline(__always) func connection(_ fd: Int32) -> Connection? {
        Int(fd) < connections.count ? connections[Int(fd)] : nil
    }

    // MARK: accepting

    func acceptAll() {
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    SystemCalls.accept4(listenFD, $0, &length, SystemCalls.nonblock | SystemCalls.cloexec)
                }
            }
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return  // EAGAIN, or EMFILE/ENFILE (retried on the next readiness)
            }
            var one: Int32 = 1
            setsockopt(fd, SystemCalls.IPPROTO_TCP, SystemCalls.TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let peer = Socket.addressAndPort(storage)
            let remote = peer.address + ":" + String(peer.port)
            let shed = openCount >= configuration.maxConnections
            if shed && shedCount >= 1024 {
                close(fd)
                continue
            }
            serial &+= 1
            let parser = HTTPRequestParser(limits: configuration.limits, normalizedHosts: allowedHosts)
            let connection = Connection(fd: fd, serial: serial, remoteAddress: remote, parser: parser, now: now, shed: shed)
            if Int(fd) >= connections.count {
                connections.append(contentsOf: repeatElement(nil, count: Int(fd) + 1 - connections.count + 64))
            }
            connections[Int(fd)] = connection
            if shed { shedCount += 1 } else { openCount += 1 }
            SystemCalls.epollAdd(epfd, fd, events: SystemCalls.EPOLLIN | SystemCalls.EPOLLOUT | SystemCalls.EPOLLRDHUP | SystemCalls.EPOLLET)
            if shed {
                // Load shedding: a canned 503 instead of falling over (RFC 9110 §15.6.4).
                var response = HTTPResponse.status(.serviceUnavailable)
                for (name, value) in configuration.serverResponseFields { response.fields[name] = value }
                response.fields["Retry-After"] = "1"
                startWrite(connection, ResponseSerializer.serialize(response, isHead: false, keepAlive: false, http10: false,
                                                                   dateLine: date.fieldLine()).bytes, close: true)
            }
        }
    }

    // MARK: events

    func handleEvent(_ connection: Connection, flags: UInt32) {
        if flags & (SystemCalls.EPOLLERR | SystemCalls.EPOLLHUP) != 0 && flags & SystemCalls.EPOLLIN == 0 {
            closeConnection(connection)
            return
        }
        if flags & SystemCalls.EPOLLOUT != 0, connection.state == .writing {
            flush(connection)
            if connection.state == .writing || isClosed(connection) { return }
        }
        if flags & (SystemCalls.EPOLLIN | SystemCalls.EPOLLRDHUP | SystemCalls.EPOLLHUP | SystemCalls.EPOLLERR) != 0 {
            if connection.state == .lingering {
                discardInput(connection)
                return
            }
            guard readAvailable(connection) else { return }
            if connection.state == .reading { processInput(connection) }
        }
    }

    func isClosed(_ connection: Connection) -> Bool {
        self.connection(connection.fd) !== connection
    }

    /// Reads until EAGAIN, EOF, or the back-pressure cap. Returns false if the connection was closed.
    func readAvailable(_ connection: Connection) -> Bool {
        let cap = 256 * 1024
        while !connection.peerClosed {
            if connection.parser.bufferedByteCount >= cap {
                connection.readBlocked = true
                return true
            }
            let n = recv(connection.fd, readBuffer.baseAddress, readBuffer.count, 0)
            if n > 0 {
                connection.parser.append(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]))
                if n < readBuffer.count { return true }
            } else if n == 0 {
                connection.peerClosed = true
            } else {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { return true }
                closeConnection(connection)
                return false
            }
        }
        return true
    }

    /// Parses buffered input while the connection is in ``Connection/State/reading``.
    func processInput(_ connection: Connection) {
        while connection.state == .reading {
            let event: HTTPRequestParser.Event
            do {
                event = try connection.parser.nextEvent()
            } catch {
                sendError(connection, error)
                return
            }
            switch event {
            case .continueExpected:
                let line = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
                _ = line.withUnsafeBytes { send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            case .request(let parsed):
                dispatch(connection, parsed)
                return
            case .needsMore:
                let phase = connection.parser.phase
                if phase != connection.phase {
                    connection.phase = phase
                    connection.phaseStart = now
                }
                if connection.readBlocked {
                    connection.readBlocked = false
                    guard readAvailable(connection) else { return }
                    continue
                }
                if connection.peerClosed { closeConnection(connection) }
                return
            }
        }
    }

    func dispatch(_ connection: Connection, _ parsed: HTTPRequestParser.ParsedRequest) {
        requestCounter &+= 1
        var request = parsed.request
        request.remoteAddress = connection.remoteAddress
        request.requestID = String(connection.serial, radix: 16) + "-" + String(requestCounter, radix: 16)
        connection.state = .responding
        connection.inFlight = Connection.InFlight(
            method: request.method, target: request.target, requestID: request.requestID,
            isHead: request.method == "HEAD", http10: request.version == .http1_0,
            keepAlive: parsed.keepAlive, started: now)
        let fd = connection.fd, serial = connection.serial
        let responder = self.responder, inbox = self.inbox
        Task {
            let response = await responder.respond(to: request)
            inbox.post(.response(fd: fd, serial: serial, response: response))
        }
    }
}
