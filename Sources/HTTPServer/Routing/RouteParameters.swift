/// Values captured by `:name` segments of a ``Router`` pattern.
public struct RouteParameters: Sendable, Equatable {
    var pairs: [(name: String, value: String)]

    /// Creates parameters (mainly for tests).
    /// - Parameter pairs: `(name, value)` pairs.
    public init(_ pairs: [(name: String, value: String)] = []) { self.pairs = pairs }

    /// The decoded segment captured for `:name`, or `nil`.
    /// - Parameter name: the parameter name without the colon.
    public subscript(_ name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// The decoded segment captured for `:name`, or an error that answers by itself: 400 when the route has
    /// no such parameter (the request cannot be read as this route expects).
    /// - Parameter name: the parameter name without the colon.
    /// - Returns: the captured value.
    /// - Throws: ``RouteParameterError`` (400) when nothing was captured for `name`.
    public func require(_ name: String) throws(RouteParameterError) -> String {
        guard let value = self[name] else { throw RouteParameterError(name: name, value: nil, message: nil) }
        return value
    }

    /// The segment captured for `:name` read as a `T` (e.g. `UInt64`), or an error that answers by itself:
    /// 400 when nothing was captured, 404 when the segment is not a `T` (no resource can have that name).
    /// - Parameters:
    ///   - name: the parameter name without the colon.
    ///   - type: the type to read it as, through `LosslessStringConvertible.init(_:)`.
    ///   - notFound: the 404's message (default: says which segment names nothing).
    /// - Returns: the value.
    /// - Throws: ``RouteParameterError``.
    public func require<T: LosslessStringConvertible>(_ name: String, as type: T.Type, notFound: String? = nil) throws(RouteParameterError) -> T {
        let text = try require(name)
        guard let value = T(text) else { throw RouteParameterError(name: name, value: text, message: notFound) }
        return value
    }

    /// Compares names and values in order.
    public static func == (lhs: RouteParameters, rhs: RouteParameters) -> Bool {
        lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}

/// A route parameter ``RouteParameters/require(_:)`` could not give: 400 when the route captured nothing
/// under that name, 404 when the captured segment cannot name anything (RFC 9110 §15.5.5).
public struct RouteParameterError: HTTPResponseError, Sendable, Equatable {
    /// The parameter's name.
    public let name: String
    /// The captured segment that is not of the wanted type, or `nil` when nothing was captured.
    public let value: String?
    let customMessage: String?

    init(name: String, value: String?, message: String?) {
        self.name = name
        self.value = value
        customMessage = message
    }

    /// 400 when nothing was captured, else 404.
    public var status: HTTPStatus { value == nil ? .badRequest : .notFound }
    /// `Bad request` or `Not found`.
    public var title: String { value == nil ? "Bad request" : "Not found" }
    /// What is missing or names nothing.
    public var message: String {
        if let customMessage { return customMessage }
        return value == nil ? "The path has no \(name) segment." : "Nothing has that \(name)."
    }
}
