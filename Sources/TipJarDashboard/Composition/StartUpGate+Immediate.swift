import HTTPServer

extension StartUpGate: ImmediateResponder {
    /// The answer the gate gives at once, on the server's I/O thread, for a `GET` or `HEAD`: the 503 while it is
    /// closed (``unavailable(_:)``, which reads and writes nothing), then whatever the dashboard answers at once
    /// (`Dashboard+Immediate.swift`); `nil` for every other request, which takes ``respond(to:)``.
    /// - Parameter request: the complete request.
    /// - Returns: the prepared answer, or `nil` for the normal path.
    public func immediateResponse(to request: HTTPRequest) -> PreparedResponse? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        guard responder.withLock({ $0 != nil }) else { return PreparedResponse(unavailable(request)) }
        return immediate.withLock({ $0 })?.immediateResponse(to: request)
    }

    /// Once the gate is open, what the dashboard answers from a head before its body is read (the admin token's 401);
    /// `nil` while it is closed, when the body is read and the 503 given as to any request.
    /// - Parameter head: the request's head, its body empty.
    /// - Returns: the prepared answer, or `nil` to read the body.
    public func answerBeforeBody(_ head: HTTPRequest) -> PreparedResponse? {
        immediate.withLock({ $0 })?.answerBeforeBody(head)
    }
}
