import Synchronization

/// What a committed change touched, named so that a reader waits only for its own (GRDB's `DatabaseRegion` names
/// tables and rows; these name the domain's parts). A storage reports the keys of every unit of work after its
/// commit (the rules are `Tests/TipJarStorageRules/ChangeKeyRules.swift`); the timeline reports its install's key
/// for every event.
public enum ChangeKey: Hashable, Sendable {
    /// One install: its row (hearts, label, running), its ledger, the transactions it bought, its timeline events.
    case install(String)
    /// One Apple Account: its storefront, its installs, its transactions and refund requests.
    case account(String)
    /// The store as a whole: its settings and the timeline's store-wide events.
    case store
    /// The App Store Server Notifications queue and its settings.
    case notifications

    /// What an install's page and live channel show: the install, its account (another device's purchase, the
    /// account's storefront) and the store.
    /// - Parameters:
    ///   - installID: the install.
    ///   - accountID: the Apple Account it is signed in with.
    public static func shown(installID: String, accountID: String) -> Set<ChangeKey> {
        [.install(installID), .account(accountID), .store]
    }
}

/// What a reader depends on: every change, or only those that touch one of its keys.
public enum ChangeRegion: Hashable, Sendable {
    /// Any change at all (a list of every install, the overview).
    case everything
    /// Changes that touch one of these keys.
    case keys(Set<ChangeKey>)

    /// An install as its page shows it (``ChangeKey/shown(installID:accountID:)``).
    /// - Parameters:
    ///   - installID: the install.
    ///   - accountID: the Apple Account it is signed in with.
    public static func install(_ installID: String, accountID: String) -> ChangeRegion {
        .keys(ChangeKey.shown(installID: installID, accountID: accountID))
    }
}

/// The one record of changes in the core: every committed unit of work of the storage and every timeline event
/// reports what it touched (``ChangeKey``) here, after the change is visible to every reader and before its caller
/// is answered. Readers that keep what they read (the dashboard's page cache, its live channels, the notification
/// sender) ask whether their keys moved since a sequence number, or wait for a change to their keys, so no writer
/// tells any of them anything, and a change to one install wakes none of the others.
///
/// Each report takes the next sequence number, and the log keeps which number last touched each key. So that its
/// memory does not grow with the installs, past ``keyLimit`` keys it forgets them all and counts its last number as
/// a change of every key: each reader looks once more, none misses a change. A change reported as touching
/// everything (``changedEverything()``) counts for every key the same way.
public final class ChangeLog: Sendable {
    /// Who is woken: a stream's iterator, or a call on the reporting thread.
    private enum Watcher: Sendable {
        case stream(AsyncStream<Void>.Continuation)
        case call(@Sendable () -> Void)

        func wake() {
            switch self {
            case .stream(let continuation): continuation.yield()
            case .call(let call): call()
            }
        }
    }

    private struct Watchers {
        var next: UInt64 = 0
        /// Watchers of every change.
        var ofEverything: [UInt64: Watcher] = [:]
        /// Watchers by the keys they watch.
        var byKey: [ChangeKey: [UInt64: Watcher]] = [:]
        var count = 0
    }

    private struct Changes {
        /// The sequence number of the last change of each key changed since ``everything``.
        var last: [ChangeKey: UInt64] = [:]
        /// The sequence number of the last change that counts for every key.
        var everything: UInt64 = 0
    }

    /// How many keys the log remembers before it counts a change of every key instead.
    public let keyLimit: Int

    private let sequence = Atomic<UInt64>(0)
    private let recorded = Mutex(Changes())
    private let watchers = Mutex(Watchers())
    private let signals = Atomic<Int>(0)

    /// Creates a log at sequence number zero.
    /// - Parameter keyLimit: how many keys it remembers (default 16,384) before it forgets them all.
    public init(keyLimit: Int = 16_384) {
        self.keyLimit = keyLimit
    }

    /// The sequence number of the last change: it only grows, and grows after the change is visible.
    public var value: UInt64 { sequence.load(ordering: .acquiring) }

    /// How many ``changes(of:)`` and ``changes()`` streams are watched.
    public var watcherCount: Int { watchers.withLock { $0.count } }

    /// How many signals the log has handed to its watchers, all streams (for tests and diagnostics): a change wakes
    /// each of its watchers once, at once, and no other.
    public var signalCount: Int { signals.load(ordering: .relaxed) }

    /// Records a committed change that touched `keys` and wakes their watchers (and the watchers of every change).
    /// Called after the change is visible to every reader, never before.
    /// - Parameter keys: what it touched; empty for a change that touched nothing a reader shows.
    public func changed(_ keys: some Collection<ChangeKey>) {
        recorded.withLock { changes in
            let number = sequence.add(1, ordering: .releasing).newValue
            for key in keys { changes.last[key] = number }
            if changes.last.count > keyLimit {
                changes.last.removeAll()
                changes.everything = number
            }
        }
        let woken = watchers.withLock { watchers -> [UInt64: Watcher] in
            var woken = watchers.ofEverything
            guard !watchers.byKey.isEmpty else { return woken }  // a server with no page open: nothing else to look up
            for key in keys {
                guard let ofKey = watchers.byKey[key] else { continue }
                woken.merge(ofKey) { first, _ in first }
            }
            return woken
        }
        guard !woken.isEmpty else { return }
        signals.add(woken.count, ordering: .relaxed)
        for watcher in woken.values { watcher.wake() }
    }

    /// Records a committed change whose reach is not named (a store that forgot every transaction, a database found
    /// damaged): every region counts it and every watcher wakes.
    public func changedEverything() {
        recorded.withLock { changes in
            changes.everything = sequence.add(1, ordering: .releasing).newValue
            changes.last.removeAll()
        }
        let woken = watchers.withLock { watchers in
            var woken = watchers.ofEverything
            for ofKey in watchers.byKey.values { woken.merge(ofKey) { first, _ in first } }
            return woken
        }
        signals.add(woken.count, ordering: .relaxed)
        for watcher in woken.values { watcher.wake() }
    }

    /// Whether no change to `region` was recorded after sequence number `number` (read from ``value`` before the
    /// reads it guards).
    /// - Parameters:
    ///   - region: what the reader depends on.
    ///   - number: the ``value`` read before reading.
    public func isUnchanged(_ region: ChangeRegion, since number: UInt64) -> Bool {
        switch region {
        case .everything:
            return value == number
        case .keys(let keys):
            return recorded.withLock { changes in
                changes.everything <= number && keys.allSatisfy { (changes.last[$0] ?? 0) <= number }
            }
        }
    }

    /// A signal after every change that touches one of `keys` (or everything) from now on. Signals that arrive before
    /// the last one was taken collapse into one, so a burst of changes costs the watcher one look. The stream ends
    /// its watch when it is no longer iterated.
    /// - Parameter keys: the keys to watch.
    public func changes(of keys: Set<ChangeKey>) -> AsyncStream<Void> {
        watch(keys)
    }

    /// A signal after every change from now on, collapsed like ``changes(of:)``'s.
    public func changes() -> AsyncStream<Void> {
        watch(nil)
    }

    /// Calls `wake` after every change that touches one of `keys` (or everything) from now on, on the thread that
    /// reports the change, until the returned observation is cancelled. For a watcher that only needs to know (a flag
    /// set, a waiter resumed), a change then costs no task switch; `wake` must be quick and never block.
    public func observe(_ keys: Set<ChangeKey>, _ wake: @escaping @Sendable () -> Void) -> ChangeObservation {
        let id = add(.call(wake), keys)
        return ChangeObservation { [weak self] in self?.unwatch(id, keys) }
    }

    private func watch(_ keys: Set<ChangeKey>?) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = add(.stream(continuation), keys)
        continuation.onTermination = { [weak self] _ in self?.unwatch(id, keys) }
        return stream
    }

    private func add(_ watcher: Watcher, _ keys: Set<ChangeKey>?) -> UInt64 {
        watchers.withLock { watchers in
            watchers.next += 1
            watchers.count += 1
            if let keys {
                for key in keys { watchers.byKey[key, default: [:]][watchers.next] = watcher }
            } else {
                watchers.ofEverything[watchers.next] = watcher
            }
            return watchers.next
        }
    }

    private func unwatch(_ id: UInt64, _ keys: Set<ChangeKey>?) {
        watchers.withLock { watchers in
            watchers.count -= 1
            guard let keys else {
                watchers.ofEverything[id] = nil
                return
            }
            for key in keys {
                watchers.byKey[key]?[id] = nil
                if watchers.byKey[key]?.isEmpty == true { watchers.byKey[key] = nil }
            }
        }
    }
}

/// A watch of the change log by ``ChangeLog/observe(_:_:)``, until ``cancel()``.
public final class ChangeObservation: Sendable {
    private let ending: Mutex<(@Sendable () -> Void)?>

    init(_ end: @escaping @Sendable () -> Void) {
        ending = Mutex(end)
    }

    /// Ends the watch (a second call does nothing).
    public func cancel() {
        let end = ending.withLock { ending in
            defer { ending = nil }
            return ending
        }
        end?()
    }

    deinit { cancel() }
}
