import HTTPServer

extension Dashboard: ImmediateResponder {
    /// The answer given at once, on the server's I/O thread, when it needs no handler (``ImmediateAnswers``): the same
    /// bytes ``respond(to:)`` would give (but `Date`), or `nil` for the normal path.
    /// - Parameter request: the complete request.
    /// - Returns: the prepared answer, or `nil`.
    public func immediateResponse(to request: HTTPRequest) -> PreparedResponse? {
        immediateAnswers.response(to: request)
    }

    /// The answer given from a head before its body is read: the admin token's 401 (``ImmediateAnswers/answerBeforeBody(_:)``).
    /// - Parameter head: the request's head, its body empty.
    /// - Returns: the prepared answer, or `nil` to read the body.
    public func answerBeforeBody(_ head: HTTPRequest) -> PreparedResponse? {
        immediateAnswers.answerBeforeBody(head)
    }
}
