import Foundation
import Synchronization
import TipJar

/// Delivers the App Store Server Notifications queue (``ServerNotificationStorage``) to the developer's server, off
/// every request path: a purchase only writes its row (in the same commit, `TipJarSchema.v14`), and this sender,
/// which `serve` runs beside its server (``DashboardStack/runNotifications(log:)``), posts it. A dead, slow or hostile server therefore
/// costs a purchase nothing.
///
/// Each due notification is claimed (compare-and-set, so two senders never send one at once) together with its attempt
/// under way, posted as `{"signedPayload": …}`
/// (https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2), and its attempt completed with
/// its next state: delivered on 200–206, else retried on Apple's schedule (``NotificationRetrySchedule``, compressed by
/// the settings' time scale), failed after the fifth retry. At most ``concurrency`` attempts run at once, and a `TEST`
/// notification has a lane of its own, so "Request a Test Notification" never waits behind a backlog.
///
/// An attempt a stopped process left under way is closed as `OTHER` when the sender starts (or when its lease ends) and
/// retried on the schedule from when it started; its body may have reached the server, which Apple also allows for
/// ("Your server may have successfully received the notification on the App Store server's subsequent attempt",
/// https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult): at least once, and never again
/// after a recorded 2xx.
public struct NotificationSender: Sendable {
    let queue: any ServerNotificationStorage
    let transport: any NotificationTransport
    /// The transactions with some IDs, in one read (for `signedTransactionInfo`).
    let transactions: @Sendable ([UInt64]) async throws -> [StoredTransaction]
    let bundleID: String
    /// The store's environment now (for `TEST`).
    let environment: @Sendable () -> String
    let now: @Sendable () -> Date
    /// A new `notificationUUID`, "a unique identifier for the notification"
    /// (https://developer.apple.com/documentation/appstoreservernotifications/notificationuuid), whose version Apple does
    /// not name: version 7 by default (``Foundation/UUID/timeOrdered(at:)``), so the queue's unique index of them grows at
    /// its end.
    let makeUUID: @Sendable () -> String
    /// One attempt's deadline, redirects included.
    let attemptTimeout: TimeInterval
    /// Attempts of the backlog at once (a `TEST` notification takes one more lane of its own).
    let concurrency: Int
    /// Notifications a backlog lane posts at most in one batch, one after the other over one connection.
    let batchSize: Int
    /// How long a step waits after a wake-up for more to gather (``run(changes:log:)``).
    let gathering: Duration

    /// How long a claim holds before the notification counts as cut: an attempt's deadline and a margin for recording
    /// it. A claim left by a stopped process is closed at once when the sender starts; the lease only matters if an
    /// attempt outlived its deadline, so it is real time, not scaled.
    var lease: TimeInterval { attemptTimeout + 5 }

    init(
        queue: any ServerNotificationStorage, transport: any NotificationTransport = HTTPNotificationTransport(),
        transactions: @escaping @Sendable ([UInt64]) async throws -> [StoredTransaction], bundleID: String,
        environment: @escaping @Sendable () -> String, now: @escaping @Sendable () -> Date,
        makeUUID: @escaping @Sendable () -> String = { UUID.timeOrdered(at: Date()).uuidString.lowercased() }, attemptTimeout: TimeInterval = 5,
        concurrency: Int = 4, batchSize: Int = 16, gathering: Duration = .milliseconds(5)
    ) {
        self.queue = queue
        self.transport = transport
        self.transactions = transactions
        self.bundleID = bundleID
        self.environment = environment
        self.now = now
        self.makeUUID = makeUUID
        self.attemptTimeout = attemptTimeout
        self.concurrency = max(1, concurrency)
        self.batchSize = max(1, batchSize)
        self.gathering = gathering
    }

    /// The `signedPayload` of `notification` with `uuid`, its transaction (if it has one) found in `stored`.
    func signedPayload(_ notification: ServerNotification, uuid: String, stored: [UInt64: StoredTransaction]) -> String {
        APIModels.signedPayload(
            for: notification, uuid: uuid, stored: notification.transactionID.flatMap { stored[$0] }, bundleID: bundleID,
            environment: environment())
    }

    /// The body posted: `{"signedPayload": …}`. A compact JWS is base64url parts and dots (RFC 7515 §7.1), which JSON
    /// takes as they are; anything else goes through `JSONEncoder`.
    static func body(_ signedPayload: String) -> Data {
        func isCompact(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
                || byte == 0x2E
        }
        // Checked and copied on the string's contiguous UTF-8 (a native string's already is): this runs for every
        // notification posted.
        var payload = signedPayload
        let compact = payload.withUTF8 { bytes -> Data? in
            guard bytes.allSatisfy(isCompact) else { return nil }
            var body = Data(capacity: bytes.count + 21)
            body.append(contentsOf: #"{"signedPayload":""#.utf8)
            body.append(bytes)
            body.append(contentsOf: #""}"#.utf8)
            return body
        }
        if let compact { return compact }
        struct Body: Encodable { var signedPayload: String }
        return (try? JSONEncoder().encode(Body(signedPayload: signedPayload))) ?? Data()
    }

    /// A notification claimed for one attempt, with where it is posted.
    struct Claimed: Sendable {
        var notification: ServerNotification
        var url: URL
        var timeScale: Int
        /// When it was due before the claim (where it goes back to if it is released unposted).
        var dueAt: Date
    }

    /// A claimed notification whose lane ended: its attempt's outcome, or `nil` when it was not posted (its batch
    /// stopped before it).
    struct Finished: Sendable {
        var claimed: Claimed
        var outcome: NotificationAttemptOutcome?
        var endedAt: Date
    }

    /// Claims `notifications` for an attempt to `url` each, in one write; a `sending` one (its lease ended, its sender
    /// gone) is closed as cut instead.
    /// - Returns: the claims won (one another sender won is left out).
    func claim(_ notifications: [ServerNotification], url: URL, settings: NotificationSettings) async throws -> [Claimed] {
        try await settle([], claiming: notifications, url: url, settings: settings, batch: 1)
    }

    /// One write for a step of ``run(changes:log:)``: records what the lanes ended with (an attempt's outcome, or the
    /// notification given back unposted), and claims `notifications` for an attempt to `url` each, leased for a batch of
    /// `batch` attempts; a `sending` one (its lease ended, its sender gone) is closed as cut instead.
    /// - Returns: the claims won (one another sender won is left out).
    func settle(
        _ finished: [Finished], claiming notifications: [ServerNotification], url: URL?, settings: NotificationSettings?, batch: Int
    ) async throws -> [Claimed] {
        var records: [NotificationRecord] = []
        var releases: [NotificationRelease] = []
        for item in finished {
            let notification = item.claimed.notification
            guard let outcome = item.outcome else {
                releases.append(NotificationRelease(notification, dueAt: item.claimed.dueAt))
                continue
            }
            let started = notification.attempts.last?.date ?? item.endedAt
            let retry =
                outcome.result == .success
                ? nil
                : NotificationRetrySchedule.nextAttempt(after: started, attemptsMade: notification.attemptCount, timeScale: item.claimed.timeScale)
            let attempt = SendAttempt(date: started, result: outcome.result, url: outcome.url, detail: outcome.detail, endedAt: item.endedAt)
            records.append(NotificationRecord(attempt, of: notification, retryAt: retry))
        }
        var claims: [NotificationClaim] = []
        let started = now()
        if let url, let settings {
            // The transactions of the notifications signed now, in one read.
            let unsigned = notifications.filter { $0.signedPayload == nil && $0.state != .sending }.compactMap(\.transactionID)
            var stored: [UInt64: StoredTransaction] = [:]
            for transaction in try await transactions(unsigned) { stored[transaction.transaction.id] = transaction }
            for notification in notifications {
                if notification.state == .sending {
                    try await closeCut(notification, timeScale: settings.timeScale)
                    continue
                }
                let uuid = notification.notificationUUID ?? makeUUID()
                var payload = notification.signedPayload ?? ""
                if notification.signedPayload == nil { payload = signedPayload(notification, uuid: uuid, stored: stored) }
                claims.append(NotificationClaim(notification, uuid: uuid, payload: payload, attempt: .started(at: started, url: url.absoluteString)))
            }
        }
        let leaseUntil = started.addingTimeInterval(attemptTimeout * Double(max(1, batch) - 1) + lease)
        let claimed = try await queue.settle(records, releasing: releases, claiming: claims, leaseUntil: leaseUntil)
        guard let url, let settings else { return [] }
        var dueAt: [Int64: Date] = [:]
        dueAt.reserveCapacity(notifications.count)
        for notification in notifications where dueAt[notification.id] == nil { dueAt[notification.id] = notification.nextAttemptAt }
        return claimed.map { Claimed(notification: $0, url: url, timeScale: settings.timeScale, dueAt: dueAt[$0.id] ?? $0.nextAttemptAt) }
    }

    /// Claims one notification (``claim(_:url:settings:)``).
    func claim(_ notification: ServerNotification, url: URL, settings: NotificationSettings) async throws -> Claimed? {
        try await claim([notification], url: url, settings: settings).first
    }

    /// Posts a claimed notification and completes its attempt. - Returns: whether the attempt was recorded.
    func attempt(_ claimed: Claimed) async throws -> Bool {
        let notification = claimed.notification
        let started = notification.attempts.last?.date ?? now()
        let outcome = await transport.post(Self.body(notification.signedPayload ?? ""), to: claimed.url, timeout: attemptTimeout)
        let retry =
            outcome.result == .success
            ? nil
            : NotificationRetrySchedule.nextAttempt(after: started, attemptsMade: notification.attemptCount, timeScale: claimed.timeScale)
        let attempt = SendAttempt(date: started, result: outcome.result, url: outcome.url, detail: outcome.detail, endedAt: now())
        return try await queue.record(attempt, of: notification, retryAt: retry)
    }

    /// Closes the attempt a stopped sender left under way as `OTHER`, and schedules the retry from when it started.
    func closeCut(_ notification: ServerNotification, timeScale: Int) async throws {
        let started = notification.attempts.last { !$0.hasEnded }?.date ?? notification.attempts.last?.date ?? now()
        let attempt = SendAttempt(
            date: started, result: .other, detail: HTTPNotificationTransport.cutShort, endedAt: now())
        let retry = NotificationRetrySchedule.nextAttempt(after: started, attemptsMade: notification.attemptCount, timeScale: timeScale)
        _ = try await queue.record(attempt, of: notification, retryAt: retry)
    }

    /// Closes every attempt a stopped process left under way (``closeCut(_:timeScale:)``). - Returns: how many.
    @discardableResult
    public func closeCutAttempts() async throws -> Int {
        let settings = try await queue.notificationSettings()
        let cut = try await queue.notificationsUnderWay()
        for notification in cut { try await closeCut(notification, timeScale: settings.timeScale) }
        return cut.count
    }

    /// The URL notifications go to now, or `nil` when none is set (or it does not parse). Its host was checked when it
    /// was saved, and the addresses it resolves to are checked at every attempt (``HTTPNotificationTransport``).
    /// `last` keeps the previous answer, so the URL is parsed only when the setting changes.
    func destination(_ settings: NotificationSettings, last: inout (text: String, url: URL?)?) -> URL? {
        guard let text = settings.url else { return nil }
        if let last, last.text == text { return last.url }
        let url = try? NotificationURLPolicy(allowsLinkLocal: true).checked(text)
        last = (text, url)
        return url
    }

    /// The notifications of `plan` to claim now: due `TEST` ones for `testLanes` free lanes, then others for
    /// `backlogLanes`, none already `inFlight`.
    static func picks(_ plan: NotificationSendingPlan, testLanes: Int, backlogLanes: Int, inFlight: Set<Int64>) -> [ServerNotification] {
        var taken = inFlight
        var picks: [ServerNotification] = []
        for notification in plan.dueTests where picks.count < testLanes && taken.insert(notification.id).inserted {
            picks.append(notification)
        }
        var backlog = 0
        for notification in plan.due where backlog < backlogLanes && taken.insert(notification.id).inserted {
            picks.append(notification)
            backlog += 1
        }
        return picks
    }

    /// One pass: the due `TEST` notifications, then the backlog's, each attempted once, at most ``concurrency`` at a time
    /// (none while no URL is set).
    /// - Returns: the attempts recorded.
    @discardableResult
    public func sendDue(limit: Int = 50) async throws -> Int {
        let plan = try await queue.sendingPlan(at: now(), tests: limit, others: limit)
        var parsed: (text: String, url: URL?)?
        guard let url = destination(plan.settings, last: &parsed) else { return 0 }
        let claims = try await claim(
            Self.picks(plan, testLanes: limit, backlogLanes: limit, inFlight: []), url: url, settings: plan.settings)
        return try await withThrowingTaskGroup(of: Bool.self) { group in
            var recorded = 0
            var running = 0
            for claimed in claims {
                if running == concurrency, let done = try await group.next() {
                    recorded += done ? 1 : 0
                    running -= 1
                }
                group.addTask { try await attempt(claimed) }
                running += 1
            }
            for try await done in group { recorded += done ? 1 : 0 }
            return recorded
        }
    }

    /// Sends until the task is cancelled. It first closes what a stopped process left under way, then sleeps until
    /// `changes` says the queue or its settings changed (a notification queued, the settings saved), a lane ends, or the next retry
    /// falls due, and wakes for nothing else: an idle server's sender costs nothing, and a receiver that never answers
    /// holds one of the ``concurrency`` lanes for one deadline, never a thread's CPU.
    ///
    /// Each step is one read (``ServerNotificationStorage/sendingPlan(at:tests:others:)``; none while every lane is
    /// busy) and one write (``ServerNotificationStorage/settle(_:releasing:claiming:leaseUntil:)``) that records what the
    /// lanes ended with and claims what they take next. A backlog lane takes up to ``batchSize`` notifications and posts
    /// them one after the other over one connection, stopping at the first attempt that is not a success (the rest go
    /// back to the queue as they were), so a backlog costs a request each, not a write, a read and a connection each.
    /// Lanes batch only after a batch all of whose attempts succeeded: until then, and after any failure, each takes one.
    /// When the task is cancelled, the lanes' attempts end at once as cut, and are recorded before this returns.
    public func run(changes: ChangeLog, log: @escaping @Sendable (String) -> Void = { _ in }) async {
        let signal = WakeSignal()
        // Woken on the committing thread: a purchase that queues a notification sets a flag, and resumes the sender
        // only if it waits (no task switch a purchase while the sender is busy or gathering).
        let observation = changes.observe([.notifications]) { signal.wake() }
        defer { observation.cancel() }
        let lanes = Lanes()
        var parsed: (text: String, url: URL?)?
        await withTaskGroup(of: Void.self) { group in
            do {
                try await closeCutAttempts()
            } catch {
                log("tipjar: notifications: \(error)")
            }
            while !Task.isCancelled {
                var wakeAt: Date?
                let (finished, testLanes, backlogLanes, inFlight, isHealthy) = lanes.state.withLock { lanes in
                    defer { lanes.finished = [] }
                    return (lanes.finished, 1 - lanes.tests, concurrency - lanes.backlog, lanes.ids, lanes.isHealthy)
                }
                // Batches only while the server answers: a server that just failed gets one notification a lane.
                let batchSize = isHealthy ? batchSize : 1
                do {
                    var picks: [ServerNotification] = []
                    var url: URL?
                    var settings: NotificationSettings?
                    if testLanes > 0 || backlogLanes > 0 {
                        let plan = try await queue.sendingPlan(at: now(), tests: testLanes, others: backlogLanes * batchSize + inFlight.count)
                        if let destination = destination(plan.settings, last: &parsed) {
                            picks = Self.picks(plan, testLanes: testLanes, backlogLanes: backlogLanes * batchSize, inFlight: inFlight)
                            (url, settings) = (destination, plan.settings)
                            wakeAt = plan.nextDue
                        }
                    }
                    let backlogPicks = picks.count - min(testLanes, picks.count { $0.type == .test })
                    let batch = max(1, min(batchSize, backlogPicks))
                    let claimed = try await settle(finished, claiming: picks, url: url, settings: settings, batch: batch)
                    let (tests, backlog) = Self.lanes(for: claimed, testLanes: testLanes, backlogLanes: backlogLanes, batchSize: batchSize)
                    lanes.state.withLock { lanes in
                        lanes.ids.subtract(finished.map(\.claimed.notification.id))
                        lanes.ids.formUnion(claimed.map(\.notification.id))
                        lanes.tests += tests.count
                        lanes.backlog += backlog.count
                    }
                    for (batch, isTest) in tests.map({ ($0, true) }) + backlog.map({ ($0, false) }) {
                        group.addTask { await post(batch, isTest: isTest, lanes: lanes, signal: signal) }
                    }
                } catch {
                    log("tipjar: notifications: \(error)")
                    lanes.state.withLock { $0.finished = finished + $0.finished }  // recorded at the next step
                    wakeAt = now().addingTimeInterval(1)
                }
                await signal.wait(timeout: wakeAt.map { max(0, $0.timeIntervalSince(now())) })
                // What else comes meanwhile (the next purchases, lanes ending) joins this step: under load a step takes
                // many notifications instead of one each; a lone notification waits this long more.
                if gathering > .zero { try? await Task.sleep(for: gathering) }
            }
            group.cancelAll()
            await group.waitForAll()
            // The lanes' last attempts (cut by the stop, or ended meanwhile) are on record before the sender stops.
            let finished = lanes.state.withLock { lanes in
                defer { lanes.finished = [] }
                return lanes.finished
            }
            do {
                _ = try await settle(finished, claiming: [], url: nil, settings: nil, batch: 1)
            } catch {
                log("tipjar: notifications: \(error)")
            }
        }
    }

    /// The batches of the lanes `claimed` starts: each `TEST` one alone in a free `TEST` lane, then the rest in order,
    /// in batches of `batchSize` (the last one shorter), at most `backlogLanes` of them. A lane is opened only when the
    /// ones before it are full: a server that keeps up gets one connection and one hop thread's wake-up for what a step
    /// gathered, not four; a backlog still fills every lane.
    static func lanes(for claimed: [Claimed], testLanes: Int, backlogLanes: Int, batchSize: Int) -> (tests: [[Claimed]], backlog: [[Claimed]]) {
        var tests: [[Claimed]] = []
        var rest: [Claimed] = []
        for item in claimed {
            if item.notification.type == .test && tests.count < testLanes { tests.append([item]) } else { rest.append(item) }
        }
        guard !rest.isEmpty, backlogLanes > 0 else { return (tests, []) }
        var backlog: [[Claimed]] = []
        var start = 0
        while start < rest.count, backlog.count < backlogLanes {
            // The last lane takes what is left, as the claim's lease counted (at most `batchSize` a lane).
            let size = backlog.count == backlogLanes - 1 ? rest.count - start : min(max(1, batchSize), rest.count - start)
            backlog.append(Array(rest[start..<(start + size)]))
            start += size
        }
        return (tests, backlog)
    }

    /// One lane: posts `batch` and hands what it ended with to the next step.
    func post(_ batch: [Claimed], isTest: Bool, lanes: Lanes, signal: WakeSignal) async {
        guard let url = batch.first?.url else { return }
        let outcomes = await transport.postAll(batch.map { Self.body($0.notification.signedPayload ?? "") }, to: url, timeout: attemptTimeout)
        let ended = now()
        lanes.state.withLock { lanes in
            for (index, claimed) in batch.enumerated() {
                lanes.finished.append(Finished(claimed: claimed, outcome: index < outcomes.count ? outcomes[index] : nil, endedAt: ended))
            }
            if isTest { lanes.tests -= 1 } else { lanes.backlog -= 1 }
            lanes.isHealthy = outcomes.count == batch.count && outcomes.allSatisfy { $0.result == .success }
        }
        signal.wake()
    }
}

/// The sender's lanes in use: batches of the backlog, `TEST` attempts, the notifications they hold (until what they
/// ended with is recorded), and what ended lanes hand to the next step.
final class Lanes: Sendable {
    let state = Mutex<(backlog: Int, tests: Int, ids: Set<Int64>, finished: [NotificationSender.Finished], isHealthy: Bool)>(
        (0, 0, [], [], false))
}

/// A wake-up that is never lost: ``wake()`` before ``wait(timeout:)`` makes the wait return at once; many wake-ups
/// while nobody waits count as one.
final class WakeSignal: Sendable {
    private let state = Mutex<(pending: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))

    func wake() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.pending = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns at the next wake-up (at once if one came since the last wait), after `timeout` seconds, or when the task
    /// is cancelled.
    func wait(timeout: TimeInterval?) async {
        let timer = timeout.map { seconds in
            Task { [self] in
                try? await Task.sleep(for: .seconds(seconds))
                if !Task.isCancelled { wake() }
            }
        }
        defer { timer?.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    if state.pending {
                        state.pending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            wake()
        }
    }
}
