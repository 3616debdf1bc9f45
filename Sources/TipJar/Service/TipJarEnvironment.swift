import Foundation

/// Every effect the core performs, as small `Sendable` closures injected at start-up, so tests
/// control time, identifiers and waiting.
public struct TipJarEnvironment: Sendable {
    /// The current time (UTC).
    public var now: @Sendable () -> Date
    /// Waits for a simulated latency; tests pass a no-op or a recorder.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// A fresh install identifier.
    public var makeInstallID: @Sendable () -> String
    /// The transaction ID that follows the given one (the store seeds it with the largest saved ID).
    public var nextTransactionID: @Sendable (UInt64) -> UInt64
    /// Structured log sink: a constant message and metadata such as `install.id`.
    public var log: @Sendable (_ message: String, _ metadata: [String: String]) -> Void

    /// Creates an environment from its parts.
    public init(
        now: @escaping @Sendable () -> Date,
        sleep: @escaping @Sendable (Duration) async throws -> Void,
        makeInstallID: @escaping @Sendable () -> String,
        nextTransactionID: @escaping @Sendable (UInt64) -> UInt64 = { $0 + 1 },
        log: @escaping @Sendable (_ message: String, _ metadata: [String: String]) -> Void
    ) {
        self.now = now
        self.sleep = sleep
        self.makeInstallID = makeInstallID
        self.nextTransactionID = nextTransactionID
        self.log = log
    }

    /// The real clock, `Task.sleep`, random UUIDs and a log on standard error.
    public static let live = TipJarEnvironment(
        now: { Date() },
        sleep: { try await Task.sleep(for: $0) },
        makeInstallID: { UUID.random().uuidString.lowercased() },
        log: { message, metadata in
            // `write(contentsOf:)` throws where `write(_:)` would trap on a reader that went away (EPIPE).
            try? FileHandle.standardError.write(contentsOf: Data((logLine(message, metadata) + "\n").utf8))
        }
    )

    /// One log line, as ``live`` writes it: `tipjar: <message> key=value …`, keys sorted.
    /// - Parameters:
    ///   - message: The constant message.
    ///   - metadata: Its fields.
    /// - Returns: The line, without a newline.
    public static func logLine(_ message: String, _ metadata: [String: String]) -> String {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "tipjar: \(message) \(fields)"
    }
}
