/// Answers given on the I/O thread for ``EventLoop``: a request the responder can answer at once
/// (``ImmediateResponder``) is written from here, without a task, its jobs and its answer's way back
/// through the ``Inbox``, or a head serialized field by field.
extension EventLoop {
    /// Writes the immediate answer to `request` when the responder has one (``ImmediateResponder``).
    /// - Parameters:
    ///   - connection: the connection, in ``Connection/State/responding(_:)``.
    ///   - inFlight: what its state holds of the request.
    ///   - request: the request as the responder would get it.
    /// - Returns: whether it was answered (else it goes to the responder the normal way).
    func answersImmediately(_ connection: Connection, _ inFlight: Connection.InFlight, _ request: HTTPRequest) -> Bool {
        guard let immediate, let prepared = immediate.immediateResponse(to: request) else { return false }
        counters.answeredOnLoop += 1
        respond(connection, inFlight, prepared)
        return true
    }

    /// Answers the request whose body is about to be read from its head alone, when the responder has an answer that
    /// no body can change (``ImmediateResponder/answerBeforeBody(_:)``), and closes the connection after it: the body is
    /// never read (what arrives is discarded while the connection lingers), so a client that sends it slowly holds no
    /// slot for it.
    /// - Parameter connection: a connection in ``Connection/State/reading`` whose parser has just finished a head that
    ///   announces a body.
    /// - Returns: whether it was answered.
    func answersBeforeBody(_ connection: Connection) -> Bool {
        guard let immediate, var head = connection.parser.bodyHead else { return false }
        head.remoteAddress = connection.remoteAddress
        head.requestID = Self.requestID(connection: connection.serial, request: requestCounter &+ 1)
        guard let prepared = immediate.answerBeforeBody(head) else { return false }
        requestCounter &+= 1
        let inFlight = Connection.InFlight(
            method: head.method, target: head.target, requestID: head.requestID, isHead: head.method == "HEAD",
            http10: head.version == .http1_0, keepAlive: false, started: now)
        connection.state = .responding(inFlight)
        counters.answeredOnLoop += 1
        respond(connection, inFlight, prepared)
        return true
    }

    /// Writes `prepared` as ``respond(_:_:_:close:)`` writes a response: the same head (its stored bytes,
    /// this second's `Date`, the `Connection` field), the same access log line, the same close decision.
    func respond(_ connection: Connection, _ inFlight: Connection.InFlight, _ prepared: PreparedResponse) {
        let keepAlive = inFlight.keepAlive && !draining
        let output = ResponseSerializer.serialize(
            prepared, isHead: inFlight.isHead, keepAlive: keepAlive, http10: inFlight.http10, dateLine: date.fieldLine(),
            defaults: configuration.responseDefaults)
        logAnswer(connection, inFlight, status: prepared.status.code, bytes: output.bodyBytes)
        startWrite(connection, output, close: !keepAlive)
    }

    /// Whether queued pipelined connections can take their turn now, so the loop should not sleep in
    /// `epoll_wait`: an answer given on this thread frees its slot at once, and the connections it let
    /// queue up wait for the loop's next turn rather than being served inside the one that queued them.
    var hasPipelinedTurns: Bool {
        pipelineHead < pipelineQueue.count && pipelinedInFlight < Self.pipelinedLimit
    }
}
