import Foundation
import Synchronization

/// The service's recent history per install, in memory: tip jar state changes (`ready` /
/// `unavailable`, recorded only when a load reaches a different state than the last), purchases
/// opening and closing, launches, migrations and store actions. Diagnostic only, so it costs no
/// disk write; the durable record is the ledger.
/// Bounded: the last `perInstall` events of at most `maximumInstalls` installs, and the last
/// `overall` events of all.
///
/// A `Mutex`-protected class rather than an actor: appending is a few array operations, and a
/// purchase appends twice, so a lock held for microseconds is cheaper than an executor hop.
public final class Timeline: Sendable {
    private struct Events {
        var byInstall: [String: [InstallEvent]] = [:]
        var installOrder: [String] = []
        var recent: [InstallEvent] = []
        /// Store-wide events (no install), kept apart so a busy server's install events do not push them out.
        var storeWide: [InstallEvent] = []
        /// When the newest store-wide event that was dropped happened.
        var storeWideDroppedUntil: Date?
    }

    private let events = Mutex(Events())
    private let changeCounter = Atomic<UInt64>(0)
    /// Who waits for changes: a watcher of one install (or of every install, key `nil`).
    private let watchers = Mutex<(next: UInt64, all: [UInt64: (installID: String?, continuation: AsyncStream<Void>.Continuation)])>((0, [:]))
    private let perInstall: Int
    private let overall: Int
    private let maximumInstalls: Int
    private let storeWide: Int

    /// Creates an empty timeline with the given bounds (`storeWide`: how many store-wide events,
    /// such as store settings changes, are kept apart from the install events).
    public init(perInstall: Int = 50, overall: Int = 200, maximumInstalls: Int = 10_000, storeWide: Int = 1_000) {
        self.perInstall = perInstall
        self.overall = overall
        self.maximumInstalls = maximumInstalls
        self.storeWide = storeWide
    }

    /// The store-wide events (no install), oldest first, and whether every one since `date` is
    /// still there (none dropped at or after it).
    public func storeWideEvents(since date: Date) -> (events: [InstallEvent], isComplete: Bool) {
        events.withLock { events in
            (events.storeWide.filter { $0.at >= date }, events.storeWideDroppedUntil.map { $0 < date } ?? true)
        }
    }

    /// Records an event, dropping the oldest beyond the bounds, and signals ``changes(of:)``.
    public func append(_ event: InstallEvent) {
        defer { noteChange(installID: event.installID) }
        events.withLock { events in
            events.recent.append(event)
            if events.recent.count > overall { events.recent.removeFirst(events.recent.count - overall) }
            guard let id = event.installID else {
                events.storeWide.append(event)
                if events.storeWide.count > storeWide {
                    events.storeWideDroppedUntil = events.storeWide.removeFirst().at
                }
                return
            }
            if events.byInstall[id] == nil {
                events.installOrder.append(id)
                if events.installOrder.count > maximumInstalls { events.byInstall[events.installOrder.removeFirst()] = nil }
            }
            events.byInstall[id, default: []].append(event)
            if let count = events.byInstall[id]?.count, count > perInstall { events.byInstall[id]?.removeFirst(count - perInstall) }
        }
    }

    /// An install's events (or everyone's when `installID` is nil), newest first, at most `limit`.
    public func events(installID: String?, limit: Int) -> [InstallEvent] {
        events.withLock { events in
            let selected = installID.map { events.byInstall[$0] ?? [] } ?? events.recent
            return Array(selected.suffix(limit).reversed())
        }
    }

    /// How many changes the timeline has signalled (``noteChange(installID:)``, which every ``append(_:)`` calls
    /// once its event is in): it only grows, and it grows after the change is visible, so a reader that finds it
    /// unchanged around a read knows nothing it signals happened meanwhile.
    public var changeCount: UInt64 { changeCounter.load(ordering: .acquiring) }

    /// A signal after every change to `installID` (or, with `nil`, to any install): each event appended
    /// for it, each store-wide event (store settings, a deletion), and each ``noteChange(installID:)``.
    /// Signals that arrive before the last one was taken collapse into one, so a burst costs the
    /// watcher one look. The watcher ends when the stream is no longer iterated.
    public func changes(of installID: String?) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = watchers.withLock { watchers in
            watchers.next += 1
            watchers.all[watchers.next] = (installID, continuation)
            return watchers.next
        }
        continuation.onTermination = { [weak self] _ in _ = self?.watchers.withLock { $0.all.removeValue(forKey: id) } }
        return stream
    }

    /// How many ``changes(of:)`` streams are still watched (each ends when it is no longer iterated).
    public var watcherCount: Int { watchers.withLock { $0.all.count } }

    /// Signals the watchers of `installID` (all of them when `nil`, a store-wide change) without
    /// recording an event: for changes the timeline does not list, such as a ledger row committed.
    public func noteChange(installID: String?) {
        changeCounter.add(1, ordering: .releasing)
        let selected = watchers.withLock { watchers in
            watchers.all.values.filter { installID == nil || $0.installID == nil || $0.installID == installID }.map(\.continuation)
        }
        for continuation in selected { continuation.yield() }
    }
}
