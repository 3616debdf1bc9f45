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
    /// Where every event reports its install's key (``ChangeKey/install(_:)``, or ``ChangeKey/store`` for a
    /// store-wide one).
    public let changeLog: ChangeLog
    private let perInstall: Int
    private let overall: Int
    private let maximumInstalls: Int
    private let storeWide: Int

    /// Creates an empty timeline with the given bounds (`storeWide`: how many store-wide events,
    /// such as store settings changes, are kept apart from the install events), reporting its changes to `changeLog`
    /// (the storage's, so that one log names every change; a log of its own by default).
    public init(
        perInstall: Int = 50, overall: Int = 200, maximumInstalls: Int = 10_000, storeWide: Int = 1_000, changeLog: ChangeLog = ChangeLog()
    ) {
        self.changeLog = changeLog
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
            Self.append(event, to: &events.recent, keeping: overall)
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
            Self.append(event, to: &events.byInstall[id, default: []], keeping: perInstall)
        }
    }

    /// Appends `event`, keeping at least the newest `bound` events: the older ones are dropped once a quarter of
    /// `bound` more has piled up, so that an append does not shift the whole array each time (``events(installID:limit:)``
    /// reads only the newest `bound`).
    private static func append(_ event: InstallEvent, to events: inout [InstallEvent], keeping bound: Int) {
        events.append(event)
        if events.count > bound + max(1, bound / 4) { events.removeFirst(events.count - bound) }
    }

    /// An install's events (or everyone's when `installID` is nil), newest first, at most `limit`.
    public func events(installID: String?, limit: Int) -> [InstallEvent] {
        events.withLock { events in
            let selected = installID.map { events.byInstall[$0] ?? [] } ?? events.recent
            return Array(selected.suffix(min(limit, installID == nil ? overall : perInstall)).reversed())
        }
    }

    /// The change log's sequence number (``ChangeLog/value``): it only grows, and it grows after a change is
    /// visible, so a reader that finds it unchanged around a read knows nothing happened meanwhile.
    public var changeCount: UInt64 { changeLog.value }

    /// A signal after every change to `installID` (or, with `nil`, after every change the log records): each event
    /// appended for it and each ``noteChange(installID:)``, with the storage's commits that touched it when the log
    /// is the storage's. Store-wide events are ``ChangeKey/store``'s, which a watcher of an install asks
    /// ``ChangeLog/changes(of:)`` for. Signals that arrive before the last one was taken collapse into one, so a burst
    /// costs the watcher one look. The watcher ends when the stream is no longer iterated.
    public func changes(of installID: String?) -> AsyncStream<Void> {
        installID.map { changeLog.changes(of: [.install($0)]) } ?? changeLog.changes()
    }

    /// How many streams watch the change log (each ends when it is no longer iterated).
    public var watcherCount: Int { changeLog.watcherCount }

    /// Reports a change of `installID` (``ChangeKey/store`` when `nil`, a store-wide change) without recording an
    /// event: for changes the timeline does not list, such as the state an install's load reached.
    public func noteChange(installID: String?) {
        changeLog.changed(CollectionOfOne(installID.map(ChangeKey.install) ?? .store))
    }
}
