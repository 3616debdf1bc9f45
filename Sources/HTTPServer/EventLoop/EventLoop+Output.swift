#if canImport(Glibc)
import Glibc
#endif

/// Responses, writing, closing, deadlines and shutdown for ``EventLoop``.
extension EventLoop {
    /// Handles the inbox's messages: `messages`, or those the eventfd announced.
    func handleInbox(_ messages: [Inbox.Message]? = nil) {
        for message in messages ?? inbox.drain() {
            switch message {
            case .response(let fd, let serial, let response, let pipelined):
                if pipelined { pipelinedInFlight -= 1 }
                guard let connection = connection(fd), connection.serial == serial,
                    case .responding(let inFlight) = connection.state
                else { continue }
                respond(connection, inFlight, response)
            case .shutdown(let deadline):
                beginDrain(deadline: deadline)
            case .streamChunk(let fd, let serial, let bytes):
                guard let connection = connection(fd), connection.serial == serial,
                    case .streaming(let stream) = connection.state
                else { continue }
                queueStreamBytes(connection, stream, bytes)
            case .statistics(let reply):
                reply(statistics())
            }
        }
    }

    /// Writes the responder's answer (or opens its stream); with `close`, the connection closes after it.
    func respond(_ connection: Connection, _ inFlight: Connection.InFlight, _ response: HTTPResponse, close: Bool = false) {
        let keepAlive = inFlight.keepAlive && !draining && !close && response.stream == nil  // a stream's body ends with the connection
        let output = ResponseSerializer.serialize(
            response, isHead: inFlight.isHead, keepAlive: keepAlive, http10: inFlight.http10, dateLine: date.fieldLine(),
            defaults: configuration.responseDefaults)
        // A client that sent its FIN with (or after) the request gets the head and the close, not a
        // stream held open for a peer that will send nothing more (RFC 9293 §3.6).
        if let stream = response.stream, !inFlight.isHead, !draining, response.status.code == 200,
            !connection.peerShutdown, !connection.peerClosed
        {
            guard admitsStream(connection) else {
                Self.endUnwritten(stream.chunks)
                respond(connection, inFlight, streamRefusal(), close: true)
                return
            }
            logAnswer(connection, inFlight, status: response.status.code, bytes: 0)
            startStream(connection, head: output.bytes, stream)
            return
        }
        // Not streamed (HEAD, an error status, shutdown, FIN): end the producer's stream.
        if let unused = response.stream?.chunks { Self.endUnwritten(unused) }
        logAnswer(connection, inFlight, status: response.status.code, bytes: output.bodyBytes)
        startWrite(connection, output, close: !keepAlive)
    }

    /// Answers a framing error (or timeout) with `Connection: close`, then closes (never resynchronise).
    func sendError(_ connection: Connection, _ error: HTTPParseError) {
        let output = ResponseSerializer.serialize(
            HTTPResponse.status(error.status), isHead: false, keepAlive: false, http10: false, dateLine: date.fieldLine(),
            defaults: configuration.responseDefaults)
        requestCounter &+= 1
        accessLog?(
            AccessLogEntry(
                method: "-", target: "-", status: error.status.code, bytes: output.bodyBytes, durationMilliseconds: 0,
                requestID: Self.requestID(connection: connection.serial, request: requestCounter),
                remoteAddress: connection.remoteAddress))
        startWrite(connection, output, close: true)
    }

    /// Starts writing `output`. Input is not read until it is all sent; if it cannot all be sent now
    /// and the owned bytes of unsent output exceed the cap, the connections that have waited longest
    /// for their client to read are reset (``HTTPServerConfiguration/maxUnsentOutputBytes``).
    func startWrite(_ connection: Connection, _ output: ResponseSerializer.Output, close: Bool) {
        let outgoing = Connection.Outgoing(output, now: now)
        unsentOutputBytes += outgoing.countedBytes
        connection.state = .writing(outgoing, closes: close, deadline: now &+ t.write)
        flush(connection)
        if case .writing = connection.state, !isClosed(connection), unsentOutputBytes > configuration.maxUnsentOutputBytes {
            resetStalledWriters(sparing: connection)
        }
    }

    /// Resets writers (responses and streams with a write under way), longest-waiting first, until
    /// unsent output is back under the cap.
    func resetStalledWriters(sparing keep: Connection?) {
        var writers: [(connection: Connection, lastProgress: UInt64)] = []
        for case let connection? in connections where connection !== keep {
            if let outgoing = connection.outgoing { writers.append((connection, outgoing.lastProgress)) }
        }
        writers.sort { $0.lastProgress < $1.lastProgress }
        for (writer, _) in writers {
            guard unsentOutputBytes > configuration.maxUnsentOutputBytes else { return }
            counters.resetForOutputMemory += 1
            closeConnection(writer, reset: true)
        }
    }

    /// Writes pending output; on completion moves on to the next request, lingering close, or close.
    func flush(_ connection: Connection) {
        guard let outgoing = connection.outgoing else { return }
        let total = outgoing.output.count
        while outgoing.offset < total {
            let n = Self.sendOutput(connection.fd, outgoing.output, from: outgoing.offset)
            if n > 0 {
                outgoing.offset += n
                outgoing.lastProgress = now
            } else if n < 0 && errno == EINTR {
                continue
            } else if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                return  // wait for EPOLLOUT
            } else {
                closeConnection(connection)
                return
            }
        }
        release(outgoing)
        switch connection.state {
        case .streaming(let stream):
            stream.outgoing = nil
            streamWritten(connection, stream)
            return
        case .writing(_, closes: true, _):
            beginLinger(connection)
            return
        case .writing, .reading, .responding, .lingering:
            break
        }
        connection.state = .reading
        connection.lastActivity = now
        connection.phase = .idle
        connection.phaseStart = now
        if connection.parser.bufferedByteCount > 0 || connection.readPending {
            enqueuePipelined(connection)  // sent before this answer was read: wait for a slot
        } else {
            processInput(connection)
        }
    }

    /// One `sendmsg(2)` of what is left of the output's parts (at most ``maxVectors`` of them), gathered from
    /// where each part is kept, without joining them into one buffer.
    static func sendOutput(_ fd: Int32, _ output: ResponseSerializer.Output, from offset: Int) -> Int {
        let parts = output.parts
        let (first, skip) = firstUnsent(parts, offset: offset)
        let count = min(parts.count - first, maxVectors)
        guard count > 0 else { return 0 }
        return withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) { vectors in
            // Each part's bytes are pinned while the call below runs: one `withUnsafeBytes` per part, nested.
            func gather(_ index: Int) -> Int {
                guard index < count else {
                    var message = msghdr()
                    message.msg_iov = vectors.baseAddress
                    message.msg_iovlen = count
                    return sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
                }
                return parts[first + index].withUnsafeBytes { bytes in
                    let start = index == 0 ? skip : 0
                    vectors[index] = iovec(iov_base: bytes.baseAddress.map { UnsafeMutableRawPointer(mutating: $0 + start) }, iov_len: bytes.count - start)
                    return gather(index + 1)
                }
            }
            return gather(0)
        }
    }

    /// The first part not wholly sent at `offset`, and how much of it is: computed apart so that what `gather` captures
    /// is constant (a captured `var` would be boxed on the heap for every call).
    static func firstUnsent(_ parts: [[UInt8]], offset: Int) -> (index: Int, sent: Int) {
        var index = 0, sent = offset
        while index < parts.count && sent >= parts[index].count {
            sent -= parts[index].count
            index += 1
        }
        return (index, sent)
    }

    /// The most parts one `sendmsg(2)` gathers (Linux allows `IOV_MAX`, 1,024); the rest go in the next call.
    static let maxVectors = 64

    /// Takes a write's bytes out of the loop's unsent output, once.
    func release(_ outgoing: Connection.Outgoing) {
        unsentOutputBytes -= outgoing.countedBytes
        outgoing.countedBytes = 0
    }

    /// Half-closes and discards input until EOF or the linger deadline, so the peer reads the
    /// response instead of a reset (RFC 9112 §9.6).
    func beginLinger(_ connection: Connection) {
        shutdown(connection.fd, Int32(SHUT_WR))
        endStream(connection)
        connection.state = .lingering(deadline: now &+ t.linger)
        closable?.noteLingering(connection, now: now)
        discardInput(connection)
    }

    func discardInput(_ connection: Connection) {
        while true {
            let n = recv(connection.fd, readBuffer.baseAddress, readBuffer.count, 0)
            if n > 0 {
                connection.discardedBytes += n
                if connection.discardedBytes > 4 * 1024 * 1024 {
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

    /// Closes and forgets `connection`. With `reset`, the close sends a TCP RST and drops whatever
    /// the kernel still holds unsent (`SO_LINGER` with a zero timeout, socket(7)).
    func closeConnection(_ connection: Connection, reset: Bool = false) {
        guard self.connection(connection.fd) === connection else { return }
        if let outgoing = connection.outgoing { release(outgoing) }
        endStream(connection)
        SystemCalls.epollDelete(epfd, connection.fd)
        if reset {
            var option = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection.fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        }
        close(connection.fd)
        connections[Int(connection.fd)] = nil
        if connection.shed {
            shedCount -= 1
        } else {
            openCount -= 1
            connection.peer.open -= 1
            if connection.peer.open == 0 { peers[connection.peer.key] = nil }
        }
    }

    /// Enforces deadlines (runs about every 100 ms).
    func sweep() {
        releaseFreedMemoryAfterDeparture()
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
                    if (draining && !connection.queued) || now &- connection.lastActivity >= (connection.receivedAny ? t.idle : t.firstByte) {
                        if !connection.receivedAny && !draining { counters.closedWithoutFirstByte += 1 }
                        closeConnection(connection)
                    }
                case .head:
                    if now &- connection.phaseStart >= t.head { sendError(connection, .timeout) }
                case .body:
                    if now &- connection.phaseStart >= t.body { sendError(connection, .timeout) }
                }
            case .responding:
                break
            case .writing(_, _, let deadline), .lingering(let deadline):
                if now >= deadline { closeConnection(connection) }
            case .streaming(let stream):
                if draining {
                    closeConnection(connection)  // shutdown ends every stream
                } else if let outgoing = stream.outgoing {
                    if now &- outgoing.lastProgress >= t.write { closeConnection(connection, reset: true) }
                } else if now &- stream.lastQueued >= stream.heartbeatInterval {
                    queueStreamBytes(connection, stream, stream.heartbeat)
                }
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

    /// A request's ID: its connection's serial and the loop's request count, in hex, e.g. `1a-3f2` (written into one
    /// string: this runs for every request).
    static func requestID(connection: UInt64, request: UInt64) -> String {
        String(unsafeUninitializedCapacity: 33) { buffer in
            func hex(_ value: UInt64, at start: Int) -> Int {
                let digits = max(1, (64 - value.leadingZeroBitCount + 3) / 4)
                for place in 0..<digits {
                    let nibble = UInt8((value >> (4 * UInt64(digits - 1 - place))) & 0xF)
                    buffer[start + place] = nibble < 10 ? 0x30 + nibble : 0x61 - 10 + nibble
                }
                return start + digits
            }
            let dash = hex(connection, at: 0)
            buffer[dash] = UInt8(ascii: "-")
            return hex(request, at: dash + 1)
        }
    }

    /// The access log line of an answer, once it is handed to the socket: the request, the status, the body bytes
    /// and the time since its head arrived.
    func logAnswer(_ connection: Connection, _ inFlight: Connection.InFlight, status: Int, bytes: Int) {
        guard let accessLog else { return }
        accessLog(
            AccessLogEntry(
                method: inFlight.method, target: inFlight.target, status: status, bytes: bytes,
                durationMilliseconds: Double(now &- inFlight.started) / 1_000_000, requestID: inFlight.requestID,
                remoteAddress: connection.remoteAddress))
    }
}
