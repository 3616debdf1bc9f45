/// What the server calls with each request: a ``MiddlewareChain`` (an app's middlewares and its throwing
/// ``Router``), ``StaticFiles``, or a `Router<BasicRequestContext>`. It never throws: the chain has already
/// turned every error into an answer.
///
/// Called where ``HTTPServerConfiguration/responderPlacement`` puts it (by default the server's I/O thread, between
/// its polls), one request at a time per connection; requests from different connections interleave at their
/// suspension points, or run in parallel on another executor.
public protocol HTTPResponder: Sendable {
    /// Produces the response for `request`.
    /// - Parameter request: the complete, validated request (body included).
    /// - Returns: the response; for HEAD the server strips the body but keeps its Content-Length.
    func respond(to request: HTTPRequest) async -> HTTPResponse
}

/// An ``HTTPResponder`` backed by a closure.
public struct ClosureResponder: HTTPResponder {
    let handler: @Sendable (HTTPRequest) async -> HTTPResponse

    /// Wraps a closure.
    /// - Parameter handler: called for each request.
    public init(_ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        self.handler = handler
    }

    /// Calls the closure.
    /// - Parameter request: the request.
    /// - Returns: the closure's response.
    public func respond(to request: HTTPRequest) async -> HTTPResponse { await handler(request) }
}

extension ClosureResponder: RouterFallback {
    /// Calls the closure (it never throws).
    /// - Parameter request: the request.
    /// - Returns: the closure's response.
    public func answer(_ request: HTTPRequest) async throws -> HTTPResponse { await handler(request) }
}
