#if canImport(Glibc)
import Glibc
#endif

/// Responses, writing, closing, deadlines and shutdown for ``EventLoop``.
extension EventLoop {
    func handleInbox() {
        for message in inbox.drain() {
            switch message {
            case .response(let fd, let serial, let response):
                guard let connection = connection(fd), connection.serial == serial,
                      connection.state == .responding, let inFlight = connection.inFlight else { continue }
                respond(connection, inFlight, response)
            case .shutdown(let deadline):
                beginDrain(deadline: deadline)
            }
        }
    }

    func respond(_ connection: Connection, _ inFlight: Connection.InFlight, _ response: HTTPResponse) {
        let keepAlive = inFlight.keepAlive && !draining
        let (bytes, bodyBytes) = ResponseSerializer.serialize(
            response, isHead: inFlight.isHead, keepAlive: keepAlive, http10: inFlight.http10, dateLine: date.fieldLine())
        connection.inFlight = nil
        if let accessLog {
            accessLog(AccessLogEntry(
                method: inFlight.method, target: inFlight.target, status: response.status.code, bytes: bodyBytes,
                durationMilliseconds: Double(now &- inFlight.started) / 1_000_000, requestID: inFlight.requestID,
                remoteAddress: connection.remoteAddress))
        }
        startWrite(connection, bytes, close: !keepAlive)
    }

    /// Answers a framing error (or timeout) with `Connection: close`, then closes (never resynchronise).
    func sendError(_ connection: Connection, _ error: HTTPParseError) {
        var response = HTTPResponse.status(error.status)
        for (name, value) in configuration.serverResponseFields { response.fields[name] = value }
        let (bytes, bodyBytes) = ResponseSerializer.serialize(
            response, isHead: false, keepAlive: false, http10: false, dateLine: date.fieldLine())
        requestCounter &+= 1
        accessLog?(AccessLogEntry(
            method: "-", target: "-", status: error.status.code, bytes: bodyBytes, durationMilliseconds: 0,
            requestID: String(connection.serial, radix: 16) + "-" + String(requestCounter, radix: 16),
            remoteAddress: connection.remoteAddress))
        startWrite(connection, bytes, close: true)
    }

    func startWrite(_ connection: Connection, _ bytes: [UInt8], close: Bool) {
        connection.output = bytes
        connection.outputOffset = 0
        connection.closeAfterWrite = close
        connection.state = .writing
        connection.deadline = now &+ t.write
        flush(connection)
    }

    /// Writes pending output; on completion moves on to the next request, lingering close, or close.
    func flush(_ connection: Connection) {
        let total = connection.output.count
        while connection.outputOffset < total {
            let n = connection.output.withUnsafeBytes {
                send(connection.fd, $0.baseAddress! + connection.outputOffset, total - connection.outputOffset, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                connection.outputOffset += n
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return  // wait for EPOLLOUT
            } else {
                closeConnection(connection)
                return
            }
        }
        connection.output = []
        connection.outputOffset = 0
        if connection.closeAfterWrite {
            beginLinger(connection)
            return
        }
        connection.state = .reading
        connection.lastActivity = now
        connection.phase = .idle
        connection.phaseStart = now
        processInput(connection)
    }

    /// Half-closes and discards input until EOF or the linger deadline, so the peer reads the
    /// response instead of a reset (RFC 9112 §9.6).
    func beginLinger(_ connection: Connection) {
        shutdown(connection.fd, Int32(SHUT_WR))
        connection.state = .lingering
        connection.deadline = now &+ t.linger
        discardInput(connection)
    }

    func discardInput(_ connection: Connection) {
        while true {
            let n = recv(connection.fd, readBuffer.baseAddress, readBuffer.count, 0)
            if n > 0 {
                connection.lingerDiscarded += n
                if connection.lingerDiscarded > 4 * 1024 * 1024 {
                    closeConnection(connection)
                    return
                }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
            closeConnection(connection)  // EOF or error
            return
        }
    }

    func closeConnection(_ connection: Connection) {
        guard self.connection(connection.fd) === connection else { return }
        SystemCalls.epollDelete(epfd, connection.fd)
        close(connection.fd)
        connections[Int(connection.fd)] = nil
        if connection.shed { shedCount -= 1 } else { openCount -= 1 }
    }

    /// Enforces deadlines (runs about every 100 ms).
    func sweep() {
        let forced = draining && now >= drainDeadline
        for case let connection? in connections {
            if forced {
                closeConnection(connection)
                continue
            }
            switch connection.state {
            case .reading:
                switch connection.phase {
                case .idle:
                    if draining || now &- connection.lastActivity >= t.idle { closeConnection(connection) }
                case .head:
                    if now &- connection.phaseStart >= t.head { sendError(connection, .timeout) }
                case .body:
                    if now &- connection.phaseStart >= t.body { sendError(connection, .timeout) }
                }
            case .responding:
                break
            case .writing, .lingering:
                if now >= connection.deadline { closeConnection(connection) }
            }
        }
    }

    /// Stops accepting; idle connections close now, in-flight ones after their response.
    func beginDrain(deadline: UInt64) {
        guard !draining else { return }
        draining = true
        drainDeadline = deadline
        if listening {
            listening = false
            SystemCalls.epollDelete(epfd, listenFD)
            close(listenFD)
        }
        lastSweep = 0
    }
}
