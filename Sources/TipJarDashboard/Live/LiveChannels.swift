import Synchronization
import TipJar

/// The live channels of the installs being watched: one per install and text size shown (the ledger's links carry
/// the size), shared by every open `GET /installs/{id}/events` stream of it. A channel renders its event once on start and once
/// after each change to the keys it watches (``ChangeLog/changes(of:)``: the install, its account, so another
/// device's delivery reaches it, and the store), whose signals collapse while a render runs; a change to another
/// install or account wakes no channel but theirs.
/// It hands the bytes to every subscribed stream when they differ from the last event, so a change costs
/// one render however many pages watch, and a render that shows nothing new sends nothing.
/// No writer signals the channel: a late delivery, a sheet's timeout or a clear reaches every open page. A stream that joins a running channel gets the last event at once. The channel
/// ends, with its task and its timeline watcher, when its last stream leaves, and ends its streams
/// when a render finds nothing (the install was deleted).
///
/// `Sendable` by a `Mutex` around the channel table; renders run outside the lock.
final class LiveChannels: Sendable {
    /// Renders a channel's event, or `nil` when there is none to show (the install is gone).
    typealias Render = @Sendable (_ channel: String) async -> [UInt8]?

    private struct Channel {
        /// Tells this channel from a later one of the same install.
        let generation: UInt64
        var subscribers: [UInt64: AsyncStream<[UInt8]>.Continuation] = [:]
        /// The last event rendered, for a stream that joins.
        var latest: [UInt8]?
        var task: Task<Void, Never>?
        /// Renders started for it.
        var renders = 0
    }

    private let changeLog: ChangeLog
    private let channels = Mutex<[String: Channel]>([:])
    private let nextID = Atomic<UInt64>(0)
    private let renders = Atomic<Int>(0)

    /// Creates an empty set of channels over the core's change log (the storage's, which the timeline reports to).
    init(changeLog: ChangeLog) {
        self.changeLog = changeLog
    }

    /// How many renders the channels have started, all installs (for tests and diagnostics).
    var renderCount: Int { renders.load(ordering: .relaxed) }

    /// How many renders the open channel `installID` (an install's, at the default text size) has started (0 when none
    /// is open).
    func renderCount(of installID: String) -> Int { channels.withLock { $0[installID]?.renders ?? 0 } }

    /// Installs with a channel open, and the streams subscribed to them.
    var openCounts: (channels: Int, subscribers: Int) {
        channels.withLock { channels in (channels.count, channels.values.reduce(0) { $0 + $1.subscribers.count }) }
    }

    /// A stream of a channel's events: the current one, then one after each change. It holds only
    /// the newest event not yet taken (a slow reader skips to the latest, which replaces the page's
    /// fragments whole). Ending its iteration unsubscribes it.
    /// - Parameters:
    ///   - installID: the channel: the install to watch, and the text size when it is not the default.
    ///   - keys: the changes that may touch its event (``ChangeKey/shown(installID:accountID:)``), used when this
    ///     call opens the channel.
    ///   - render: how the channel renders an event, used when this call opens the channel.
    func subscribe(installID: String, keys: Set<ChangeKey>, render: @escaping Render) -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream<[UInt8]>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = nextID.add(1, ordering: .relaxed).newValue
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id, from: installID) }
        channels.withLock { channels in
            if var channel = channels[installID] {
                if let latest = channel.latest { continuation.yield(latest) }
                channel.subscribers[id] = continuation
                channels[installID] = channel
            } else {
                var channel = Channel(generation: id, subscribers: [id: continuation])
                channel.task = Task { [weak self] in await self?.run(installID: installID, keys: keys, generation: id, render: render) }
                channels[installID] = channel
            }
        }
        return stream
    }

    /// The channel's loop: render, hand out, wait for the next change.
    private func run(installID: String, keys: Set<ChangeKey>, generation: UInt64, render: Render) async {
        // Watched before the first render, so a change during it is not missed.
        var changes = changeLog.changes(of: keys).makeAsyncIterator()
        repeat {
            if Task.isCancelled { return }
            renders.add(1, ordering: .relaxed)
            channels.withLock { channels in
                if channels[installID]?.generation == generation { channels[installID]?.renders += 1 }
            }
            guard let event = await render(installID) else {
                close(installID: installID, generation: generation)
                return
            }
            guard deliver(event, to: installID, generation: generation) else { return }
        } while await changes.next() != nil
    }

    /// Hands `event` to every subscriber of the channel; `false` when the channel is gone.
    private func deliver(_ event: [UInt8], to installID: String, generation: UInt64) -> Bool {
        let subscribers = channels.withLock { channels -> [AsyncStream<[UInt8]>.Continuation]? in
            guard channels[installID]?.generation == generation else { return nil }
            if channels[installID]?.latest == event { return [] }
            channels[installID]?.latest = event
            return channels[installID].map { Array($0.subscribers.values) }
        }
        guard let subscribers else { return false }
        for continuation in subscribers { continuation.yield(event) }
        return true
    }

    /// Ends the channel and its streams (outside the lock: finishing calls their `onTermination`).
    private func close(installID: String, generation: UInt64) {
        let subscribers = channels.withLock { channels -> [AsyncStream<[UInt8]>.Continuation] in
            guard let channel = channels[installID], channel.generation == generation else { return [] }
            channels[installID] = nil
            return Array(channel.subscribers.values)
        }
        for continuation in subscribers { continuation.finish() }
    }

    private func unsubscribe(_ id: UInt64, from installID: String) {
        let task = channels.withLock { channels -> Task<Void, Never>? in
            guard var channel = channels[installID], channel.subscribers.removeValue(forKey: id) != nil else { return nil }
            guard channel.subscribers.isEmpty else {
                channels[installID] = channel
                return nil
            }
            channels[installID] = nil
            return channel.task
        }
        task?.cancel()
    }
}
