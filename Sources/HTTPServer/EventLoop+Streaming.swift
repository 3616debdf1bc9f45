/// Streamed bodies (``HTTPBodyStream``) for ``EventLoop``: the head goes out at once, then each
/// chunk as the producer yields it. One chunk is written at a time; chunks that arrive meanwhile
/// wait in the connection's backlog, which is capped (a client that stops reading is reset rather
/// than buffered for). The connection stays counted in the connection caps until it closes.
extension EventLoop {
    func startStream(_ connection: Connection, head: [UInt8], _ body: HTTPBodyStream) {
        let stream = Connection.Stream(body, now: now)
        connection.stream = stream
        connection.state = .streaming
        connection.closeAfterWrite = true
        let fd = connection.fd, serial = connection.serial, inbox = self.inbox
        stream.task = Task {
            for await chunk in body.chunks {
                if Task.isCancelled { break }
                inbox.post(.streamChunk(fd: fd, serial: serial, bytes: chunk))
            }
            inbox.post(.streamChunk(fd: fd, serial: serial, bytes: nil))
        }
        writeStream(connection, head)
    }

    /// Queues a chunk (or, with `nil`, the end of the stream).
    func queueStreamBytes(_ connection: Connection, _ bytes: [UInt8]?) {
        guard let stream = connection.stream else { return }
        guard let bytes else {
            stream.ended = true
            if connection.output == nil { beginLinger(connection) }
            return
        }
        stream.lastQueued = now
        if connection.output == nil {
            writeStream(connection, bytes)
        } else if stream.backlog.count + bytes.count > stream.maxBacklog {
            closeConnection(connection, reset: true)
        } else {
            stream.backlog.append(contentsOf: bytes)
        }
    }

    func writeStream(_ connection: Connection, _ bytes: [UInt8]) {
        let output = ResponseSerializer.Output(head: bytes, body: [], bodyIsShared: false)
        connection.output = output
        connection.outputOffset = 0
        unsentOutputBytes += output.ownedByteCount
        connection.lastWriteProgress = now
        flush(connection)
    }

    /// The current write completed: the backlog goes next, or the connection closes if the stream ended.
    func streamWritten(_ connection: Connection) {
        guard let stream = connection.stream else { return }
        if !stream.backlog.isEmpty {
            let next = stream.backlog
            stream.backlog = []
            writeStream(connection, next)
        } else if stream.ended {
            beginLinger(connection)
        }
    }
}
