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

    /// Compares names and values in order.
    public static func == (lhs: RouteParameters, rhs: RouteParameters) -> Bool {
        lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }
}
