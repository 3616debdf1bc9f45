/// Streamed bodies (``HTTPBodyStream``) for ``EventLoop``: the head goes out at once, then each
/// chunk as the producer yields it. One chunk is written at a time; chunks that arrive meanwhile
/// wait in the connection's backlog, which is capped per stream (``HTTPBodyStream/maxBacklog``) and,
/// with every other unsent response, in total (``HTTPServerConfiguration/maxUnsentOutputBytes``): a
/// client that stops reading is reset rather than buffered for. A stream holds its connection slot
/// until it closes, so streams have a budget of their own (``HTTPServerConfiguration/maxStreams``,
/// ``HTTPServerConfiguration/maxStreamsPerAddress``) that leaves the other slots to ordinary requests.
extension EventLoop {
    /// Whether `connection` may turn its response into a stream now: `false` when it, or the loop, is
    /// at its stream budget (counted in ``ConnectionStatistics/Counters/refusedStreamOverBudget``).
    func admitsStream(_ connection: Connection) -> Bool {
        guard openStreams < configuration.maxStreams, connection.peer.streams < configuration.maxStreamsPerAddress else {
            counters.refusedStreamOverBudget += 1
            return false
        }
        return true
    }

    /// The answer to a stream over its budget: 503 with `Retry-After: 1` (RFC 9110 §15.6.4, §10.2.3),
    /// which an `EventSource` retries by itself (the server's ``ResponseDefaults`` added as to every answer).
    func streamRefusal() -> HTTPResponse {
        var response = HTTPResponse.status(.serviceUnavailable)
        response.fields["Retry-After"] = "1"
        return response
    }

    /// Ends the producer of a stream that is not written (a HEAD, an error status, shutdown, a refusal,
    /// a client that already sent its FIN): its `AsyncStream` ends, which calls its `onTermination`.
    static func endUnwritten(_ chunks: AsyncStream<[UInt8]>) {
        Task { for await _ in chunks {} }.cancel()
    }

    func startStream(_ connection: Connection, head: [UInt8], _ body: HTTPBodyStream) {
        let stream = Connection.Stream(body, now: now)
        connection.state = .streaming(stream)
        openStreams += 1
        connection.peer.streams += 1
        let fd = connection.fd, serial = connection.serial, inbox = self.inbox
        stream.task = Task {
            for await chunk in body.chunks {
                if Task.isCancelled { break }
                inbox.post(.streamChunk(fd: fd, serial: serial, bytes: chunk))
            }
            inbox.post(.streamChunk(fd: fd, serial: serial, bytes: nil))
        }
        writeStream(connection, stream, head)
    }

    /// Queues a chunk (or, with `nil`, the end of the stream). The chunk is written at once when
    /// nothing else is being written; otherwise it waits, and the stream is reset when what it holds
    /// unsent (``queuedStreamBytes(_:)``) passes its ``HTTPBodyStream/maxBacklog``, or the
    /// longest-stalled writers are when all unsent output passes the total cap.
    func queueStreamBytes(_ connection: Connection, _ stream: Connection.Stream, _ bytes: [UInt8]?) {
        guard let bytes else {
            stream.ended = true
            if stream.outgoing == nil { beginLinger(connection) }
            return
        }
        stream.lastQueued = now
        if stream.outgoing == nil {
            writeStream(connection, stream, bytes)
        } else {
            stream.backlog.append(bytes)
            stream.backlogBytes += bytes.count
            unsentOutputBytes += bytes.count
            if queuedStreamBytes(stream) > stream.maxBacklog {
                counters.resetStreamOverBacklog += 1
                closeConnection(connection, reset: true)
                return
            }
        }
        if !isClosed(connection) && stream.outgoing != nil && unsentOutputBytes > configuration.maxUnsentOutputBytes {
            resetStalledWriters(sparing: nil)
        }
    }

    /// The bytes the server holds for a stream's client: what is left of the chunk being written
    /// plus the backlog behind it.
    func queuedStreamBytes(_ stream: Connection.Stream) -> Int {
        let writing = stream.outgoing.map { $0.output.count - $0.offset } ?? 0
        return writing + stream.backlogBytes
    }

    func writeStream(_ connection: Connection, _ stream: Connection.Stream, _ bytes: [UInt8]) {
        let outgoing = Connection.Outgoing(ResponseSerializer.Output(head: bytes, body: [], bodyIsShared: false), now: now)
        stream.outgoing = outgoing
        unsentOutputBytes += outgoing.countedBytes
        flush(connection)
    }

    /// The current write completed: the next chunk of the backlog goes next, or the connection
    /// closes if the stream ended.
    func streamWritten(_ connection: Connection, _ stream: Connection.Stream) {
        if stream.backlogHead < stream.backlog.count {
            let next = stream.backlog[stream.backlogHead]
            stream.backlogHead += 1
            if stream.backlogHead == stream.backlog.count {
                stream.backlog.removeAll()
                stream.backlogHead = 0
            }
            stream.backlogBytes -= next.count
            unsentOutputBytes -= next.count
            writeStream(connection, stream, next)
        } else if stream.ended {
            beginLinger(connection)
        }
    }

    /// Forgets the stream of a connection that closes or half-closes after it: its budget, its backlog,
    /// its producer. The caller then closes the connection or moves it to ``Connection/State/lingering(deadline:)``;
    /// a connection not streaming is left alone.
    func endStream(_ connection: Connection) {
        guard case .streaming(let stream) = connection.state else { return }
        stream.task?.cancel()
        if let outgoing = stream.outgoing { release(outgoing) }
        unsentOutputBytes -= stream.backlogBytes
        stream.backlog = []
        stream.backlogBytes = 0
        openStreams -= 1
        connection.peer.streams -= 1
    }
}
