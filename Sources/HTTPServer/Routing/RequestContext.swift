/// What travels with one request from ``MiddlewareChain`` through the middlewares to its handler (the
/// shape of Hummingbird's `RequestContext`): the route parameters the ``Router`` captured, and whatever
/// an application's middlewares attach (a session, a decoded form). A middleware hands its successor
/// a changed copy.
public protocol RequestContext: Sendable {
    /// The values the ``Router`` captured for the matched route's `:name` segments; set before the handler runs.
    var parameters: RouteParameters { get set }
    /// Renders an error that knows its status, or the chain's ``InternalServerError``, as the answer to
    /// `request`. The default is the error's message as `text/plain` with its status and fields.
    /// - Parameters:
    ///   - error: the error to answer.
    ///   - request: the request that failed.
    /// - Returns: the answer.
    func response(for error: any HTTPResponseError, to request: HTTPRequest) -> HTTPResponse
}

extension RequestContext {
    /// The error's message as `text/plain`, with its status and fields (and the request ID of a 500).
    /// - Parameters:
    ///   - error: the error to answer.
    ///   - request: the request that failed.
    /// - Returns: the answer.
    public func response(for error: any HTTPResponseError, to request: HTTPRequest) -> HTTPResponse {
        let id = (error as? InternalServerError).map { " (request ID \($0.requestID))" } ?? ""
        var response = HTTPResponse.text(error.message + id, status: error.status)
        for (name, value) in error.fields { response.fields[name] = value }
        return response
    }
}

/// A ``RequestContext`` with nothing but the route parameters.
public struct BasicRequestContext: RequestContext {
    /// The captured route parameters.
    public var parameters: RouteParameters

    /// Creates a context.
    /// - Parameter parameters: the route parameters (the router sets them; default none).
    public init(parameters: RouteParameters = RouteParameters()) { self.parameters = parameters }
}
