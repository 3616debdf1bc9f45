/// Every change a ``TipJarStorage`` committed, as one count: a thin view of its ``ChangeLog`` for a reader written
/// before changes were named by key. It only grows, and grows after the change is visible to every reader, before
/// the writer's caller is answered. A reader that needs only some changes waits on
/// ``ChangeLog/changes(of:)`` instead, which a change elsewhere does not wake.
public struct CommitCounter: Sendable {
    /// The log it counts.
    public let log: ChangeLog

    /// A count of `log`'s changes.
    public init(_ log: ChangeLog) {
        self.log = log
    }

    /// The changes so far (``ChangeLog/value``).
    public var value: UInt64 { log.value }

    /// A signal after every change from now on (``ChangeLog/changes()``). Signals that arrive before the last one was
    /// taken collapse into one. The stream ends its watch when it is no longer iterated.
    public func changes() -> AsyncStream<Void> { log.changes() }

    /// How many streams watch the log.
    public var watcherCount: Int { log.watcherCount }
}
