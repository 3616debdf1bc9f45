import Foundation

/// The queue of App Store Server Notifications (``ServerNotification``) and its settings. The SQLite storage
/// implements it (`SQLiteTipJarStorage+Notifications.swift`), recording each event in the same write as what caused
/// it; a storage that does not implement it sends no notifications.
///
/// Every state change names the state it expects (compare-and-set): of two senders racing for one notification
/// exactly one claims it, and an attempt is recorded only by the sender holding the claim, so a notification answered
/// 2xx is never sent again.
public protocol ServerNotificationStorage: Sendable {
    /// The saved settings (a new database: no URL, time scale 1).
    nonisolated(nonsending) func notificationSettings() async throws -> NotificationSettings
    /// Saves the settings. From then on events are queued only while a URL is set.
    nonisolated(nonsending) func save(_ settings: NotificationSettings) async throws
    /// Queues a notification made outside an event of the store (`TEST`, a resend).
    /// - Returns: it, with its ``ServerNotification/id``.
    nonisolated(nonsending) func enqueue(_ notification: ServerNotification) async throws -> ServerNotification
    /// Notifications due at `date` (pending, or sending with an ended lease), oldest first, at most `limit`.
    nonisolated(nonsending) func dueNotifications(at date: Date, limit: Int) async throws -> [ServerNotification]
    /// The earliest ``ServerNotification/nextAttemptAt`` of a pending or sending notification, or `nil`.
    nonisolated(nonsending) func nextNotificationDue() async throws -> Date?
    /// Claims `notification` for one attempt until `leaseUntil`, only while it is in the state it was read in (same
    /// state, attempt count and due date), fixing its UUID and payload if it has none yet.
    /// - Returns: the claimed notification, or `nil` when another sender won (nothing changed).
    nonisolated(nonsending) func claim(
        _ notification: ServerNotification, uuid: String, payload: String, leaseUntil: Date
    ) async throws -> ServerNotification?
    /// Records the attempt of a claimed notification and its next state: `delivered` for a success, else `pending`
    /// until `retryAt`, or `failed` when `retryAt` is `nil`, only while the claim stands (state `sending`, same count).
    /// - Returns: `false` when the claim was lost (nothing recorded).
    nonisolated(nonsending) func record(_ attempt: SendAttempt, of claimed: ServerNotification, retryAt: Date?) async throws -> Bool
    /// The notification with `id`, with its attempts.
    nonisolated(nonsending) func notification(id: Int64) async throws -> ServerNotification?
    /// The `TEST` notification with `token`, with its attempts.
    nonisolated(nonsending) func notification(testToken: String) async throws -> ServerNotification?
    /// Notifications created in `query`'s window that pass its filters, oldest first, with their attempts.
    nonisolated(nonsending) func notifications(matching query: NotificationQuery) async throws -> [ServerNotification]
}

/// A read of the notification history (Apple's `NotificationHistoryRequest`,
/// https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest, and the dashboard's list).
public struct NotificationQuery: Sendable, Equatable {
    /// Created at or after this date (`startDate`); `nil`: no bound.
    public var start: Date?
    /// Created before this date (`endDate`); `nil`: no bound.
    public var end: Date?
    /// Only this `notificationType`.
    public var type: ServerNotification.NotificationType?
    /// Only notifications about this transaction.
    public var transactionID: UInt64?
    /// Only notifications about a transaction of this Apple Account: Apple's `transactionId` filter, "any transaction
    /// that belongs to the customer"
    /// (https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest).
    public var accountID: String?
    /// Only notifications about transactions issued in this environment and app (a `TEST`, which is about no
    /// transaction, and one whose transaction the store no longer keeps, pass): Apple keeps each environment's
    /// history apart.
    public var scope: NotificationScope?
    /// Only notifications with at least one attempt (Apple's history lists what it "attempted to send").
    public var attemptedOnly: Bool
    /// Only notifications not delivered: failed for good or still retrying (`onlyFailures`: "notifications that failed
    /// to reach your server, including those … currently retrying"); one that reached the server on a retry is not one.
    public var onlyFailures: Bool
    /// Notifications after this ID only (a page's end).
    public var afterID: Int64?
    /// At most this many (Apple's history pages hold 20).
    public var limit: Int

    /// Creates a query; by default every notification, at most 100.
    public init(
        start: Date? = nil, end: Date? = nil, type: ServerNotification.NotificationType? = nil, transactionID: UInt64? = nil,
        attemptedOnly: Bool = false, onlyFailures: Bool = false, afterID: Int64? = nil, limit: Int = 100
    ) {
        self.start = start
        self.end = end
        self.type = type
        self.transactionID = transactionID
        self.attemptedOnly = attemptedOnly
        self.onlyFailures = onlyFailures
        self.afterID = afterID
        self.limit = limit
    }
}

/// The environment and app a notification history is read for (``NotificationQuery/scope``).
public struct NotificationScope: Sendable, Equatable {
    /// Only notifications about transactions issued in this environment.
    public var environment: Transaction.Environment
    /// Only notifications about transactions of this app (one saved before bundle IDs were kept counts as this app's).
    public var appBundleID: String

    /// Creates a scope.
    public init(environment: Transaction.Environment, appBundleID: String) {
        self.environment = environment
        self.appBundleID = appBundleID
    }
}
