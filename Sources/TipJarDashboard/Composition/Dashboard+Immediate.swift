import HTTPServer

extension Dashboard: ImmediateResponder {
    /// The answer given at once, on the server's I/O thread, by the routes' own middlewares
    /// (``HTTPServer/MiddlewareChain/immediateResponse(to:)``): a stored page, a file in memory, a refusal; `nil` for the
    /// normal path.
    /// - Parameter request: the complete request.
    /// - Returns: the prepared answer, or `nil`.
    public func immediateResponse(to request: HTTPRequest) -> PreparedResponse? {
        chain.immediateResponse(to: request)
    }

    /// The answer given from a head before its body is read: a refusal of the middlewares in front of every route, the
    /// admin token's 401 (``HTTPServer/MiddlewareChain/answerBeforeBody(_:)``).
    /// - Parameter head: the request's head, its body empty.
    /// - Returns: the prepared answer, or `nil` to read the body.
    public func answerBeforeBody(_ head: HTTPRequest) -> PreparedResponse? {
        chain.answerBeforeBody(head)
    }
}
