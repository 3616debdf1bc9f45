import Foundation
import TipJar

/// Delivers the App Store Server Notifications queue (``ServerNotificationStorage``) to the developer's server, off
/// every request path: a purchase only writes its row (in the same commit, `TipJarSchema.v14`), and this sender,
/// started by `serve` (``DashboardStack/startNotifications()``), posts it. A dead or slow server therefore costs a
/// purchase nothing.
///
/// Each due notification is claimed (compare-and-set, so two senders never send one at once), posted once as
/// `{"signedPayload": …}` (https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2),
/// and its attempt recorded with its next state: delivered on 200–206, else retried on Apple's schedule
/// (``NotificationRetrySchedule``, compressed by the settings' time scale), failed after the fifth retry. A sender
/// that dies mid-attempt leaves a claim whose lease (``lease``) ends; the notification is then sent again, which Apple
/// also does ("Your server may have successfully received the notification on the App Store server's subsequent
/// attempt", https://developer.apple.com/documentation/appstoreserverapi/sendattemptresult): at least once, and never
/// again after a recorded 2xx.
public struct NotificationSender: Sendable {
    let queue: any ServerNotificationStorage
    let transport: any NotificationTransport
    /// The transaction with an ID (for `signedTransactionInfo`).
    let transaction: @Sendable (UInt64) async throws -> StoredTransaction?
    let bundleID: String
    /// The store's environment now (for `TEST`).
    let environment: @Sendable () -> String
    let now: @Sendable () -> Date
    let makeUUID: @Sendable () -> String
    /// One attempt's timeout.
    let attemptTimeout: TimeInterval
    /// How long a claim holds before another sender may take the notification.
    let lease: TimeInterval

    init(
        queue: any ServerNotificationStorage, transport: any NotificationTransport = URLSessionNotificationTransport(),
        transaction: @escaping @Sendable (UInt64) async throws -> StoredTransaction?, bundleID: String,
        environment: @escaping @Sendable () -> String, now: @escaping @Sendable () -> Date,
        makeUUID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }, attemptTimeout: TimeInterval = 5,
        lease: TimeInterval = 60
    ) {
        self.queue = queue
        self.transport = transport
        self.transaction = transaction
        self.bundleID = bundleID
        self.environment = environment
        self.now = now
        self.makeUUID = makeUUID
        self.attemptTimeout = attemptTimeout
        self.lease = lease
    }

    /// The `signedPayload` of `notification` with `uuid`.
    func signedPayload(_ notification: ServerNotification, uuid: String) async throws -> String {
        let stored = try await notification.transactionID.asyncMap(transaction) ?? nil
        return APIModels.signedPayload(for: notification, uuid: uuid, stored: stored, bundleID: bundleID, environment: environment())
    }

    /// The body posted: `{"signedPayload": …}`.
    static func body(_ signedPayload: String) -> Data {
        struct Body: Encodable { var signedPayload: String }
        return (try? JSONEncoder().encode(Body(signedPayload: signedPayload))) ?? Data()
    }

    /// One pass: one attempt for each notification due now (none while no URL is set).
    /// - Returns: the attempts recorded.
    @discardableResult
    public func sendDue(limit: Int = 50) async throws -> Int {
        let settings = try await queue.notificationSettings()
        guard let text = settings.url, let url = URL(string: text) else { return 0 }
        var recorded = 0
        for notification in try await queue.dueNotifications(at: now(), limit: limit) {
            let uuid = notification.notificationUUID ?? makeUUID()
            var payload = notification.signedPayload ?? ""
            if notification.signedPayload == nil { payload = try await signedPayload(notification, uuid: uuid) }
            guard
                let claimed = try await queue.claim(notification, uuid: uuid, payload: payload, leaseUntil: now().addingTimeInterval(lease)),
                let sent = claimed.signedPayload
            else { continue }
            let attemptDate = now()
            let result = await transport.post(Self.body(sent), to: url, timeout: attemptTimeout)
            let retry =
                result == .success
                ? nil : NotificationRetrySchedule.nextAttempt(after: attemptDate, attemptsMade: claimed.attemptCount + 1, timeScale: settings.timeScale)
            if try await queue.record(SendAttempt(date: attemptDate, result: result), of: claimed, retryAt: retry) { recorded += 1 }
        }
        return recorded
    }

    /// Sends until the task is cancelled: a pass whenever the storage committed something (an event queued, the
    /// settings changed) or a retry fell due, looking every `interval` (a read of an atomic counter; the queue is read
    /// only when one of the two happened).
    public func run(commits: CommitCounter, interval: Duration = .milliseconds(50), log: @escaping @Sendable (String) -> Void = { _ in }) async {
        var seen: UInt64?
        var nextDue: Date?
        while !Task.isCancelled {
            let commitsNow = commits.value
            if seen != commitsNow || (nextDue.map { $0 <= now() } ?? false) {
                seen = commitsNow
                do {
                    try await sendDue()
                    nextDue = try await queue.nextNotificationDue()
                } catch {
                    log("tipjar: notifications: \(error)")
                    nextDue = now().addingTimeInterval(1)
                }
            }
            try? await Task.sleep(for: interval)
        }
    }
}

extension Optional {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
