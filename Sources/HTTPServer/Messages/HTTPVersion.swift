/// An HTTP protocol version (`HTTP/major.minor`, RFC 9110 §2.5).
public struct HTTPVersion: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The major version digit.
    public let major: Int
    /// The minor version digit.
    public let minor: Int

    /// Creates a version.
    /// - Parameters:
    ///   - major: the major digit (0–9).
    ///   - minor: the minor digit (0–9).
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    /// The wire form, e.g. `HTTP/1.1`.
    public var description: String { "HTTP/\(major).\(minor)" }
}
