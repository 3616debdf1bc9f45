import Synchronization

/// How many units of work a ``TipJarStorage`` has committed: it only grows, and it grows after the commit is
/// visible to every reader, before the writer's caller is answered. Readers of the storage that keep what they
/// read (the dashboard's page cache, its live channels) compare it around a read, or wait for it to move, so no
/// writer has to tell them anything: a write made outside a request (a late delivery, a sheet that timed out,
/// `SKTestSession.clearTransactions()`) reaches them like any other.
///
/// A `Mutex`-protected table of watchers beside an atomic count: ``committed()`` is a few instructions when
/// nobody watches.
public final class CommitCounter: Sendable {
    private let count = Atomic<UInt64>(0)
    private let watchers = Mutex<(next: UInt64, all: [UInt64: AsyncStream<Void>.Continuation])>((0, [:]))

    /// Creates a counter at zero.
    public init() {}

    /// The commits so far.
    public var value: UInt64 { count.load(ordering: .acquiring) }

    /// Called by the storage after each commit (never before it): counts it and wakes every ``changes()`` stream.
    public func committed() {
        count.add(1, ordering: .releasing)
        let continuations = watchers.withLock { Array($0.all.values) }
        for continuation in continuations { continuation.yield() }
    }

    /// A signal after every commit from now on. Signals that arrive before the last one was taken collapse into
    /// one, so a burst of commits costs the watcher one look. The stream ends its watch when it is no longer
    /// iterated.
    public func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = watchers.withLock { watchers in
            watchers.next += 1
            watchers.all[watchers.next] = continuation
            return watchers.next
        }
        continuation.onTermination = { [weak self] _ in _ = self?.watchers.withLock { $0.all.removeValue(forKey: id) } }
        return stream
    }

    /// How many ``changes()`` streams are watched.
    public var watcherCount: Int { watchers.withLock { $0.all.count } }
}
