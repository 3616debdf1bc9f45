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
    /// Notifications due at `date` (pending, or sending with an ended lease), oldest first, at most `limit`; only
    /// `TEST` ones when `onlyTests` (the lane a test notification takes past the backlog).
    nonisolated(nonsending) func dueNotifications(at date: Date, limit: Int, onlyTests: Bool) async throws -> [ServerNotification]
    /// The earliest ``ServerNotification/nextAttemptAt`` of a pending or sending notification, or `nil`.
    nonisolated(nonsending) func nextNotificationDue() async throws -> Date?
    /// Claims `notification` for one attempt until `leaseUntil`, only while it is in the state it was read in (same
    /// state, attempt count and due date), fixing its UUID and payload if it has none yet, and stores `attempt` (an
    /// attempt under way, ``SendAttempt/started(at:url:)``) as its next one in the same write, so an attempt cut by a
    /// crash is still on record.
    /// - Returns: the claimed notification (its ``ServerNotification/attemptCount`` counting `attempt`), or `nil` when
    ///   another sender won (nothing changed).
    nonisolated(nonsending) func claim(
        _ notification: ServerNotification, uuid: String, payload: String, leaseUntil: Date, attempt: SendAttempt
    ) async throws -> ServerNotification?
    /// Completes the attempt under way of a claimed notification with `attempt`'s result, cause and URL (its start
    /// date kept) and sets its next state: `delivered` for a success, else `pending` until `retryAt`, or `failed` when
    /// `retryAt` is `nil`, only while the claim stands (state `sending`, same count).
    /// - Returns: `false` when the claim was lost (nothing recorded).
    nonisolated(nonsending) func record(_ attempt: SendAttempt, of claimed: ServerNotification, retryAt: Date?) async throws -> Bool
    /// Notifications claimed for an attempt (state `sending`), with their attempts: at a sender's start, those a
    /// stopped process left.
    nonisolated(nonsending) func notificationsUnderWay() async throws -> [ServerNotification]
    /// The notification with `id`, with its attempts.
    nonisolated(nonsending) func notification(id: Int64) async throws -> ServerNotification?
    /// The `TEST` notification with `token`, with its attempts.
    nonisolated(nonsending) func notification(testToken: String) async throws -> ServerNotification?
    /// Notifications created in `query`'s window that pass its filters, oldest first (newest first when
    /// ``NotificationQuery/newestFirst``), with their attempts.
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
    /// Only notifications about this transaction (`transactionId`).
    public var transactionID: UInt64?
    /// Only notifications with at least one attempt (Apple's history lists what it "attempted to send").
    public var attemptedOnly: Bool
    /// Only notifications with a failed attempt (`onlyFailures`).
    public var onlyFailures: Bool
    /// Notifications after this ID only (a page's end, oldest first).
    public var afterID: Int64?
    /// Notifications before this ID only (a page's end, newest first).
    public var beforeID: Int64?
    /// Newest first (the dashboard's lists) instead of oldest first (Apple's history).
    public var newestFirst: Bool
    /// At most this many (Apple's history pages hold 20).
    public var limit: Int

    /// Creates a query; by default every notification, at most 100.
    public init(
        start: Date? = nil, end: Date? = nil, type: ServerNotification.NotificationType? = nil, transactionID: UInt64? = nil,
        attemptedOnly: Bool = false, onlyFailures: Bool = false, afterID: Int64? = nil, beforeID: Int64? = nil,
        newestFirst: Bool = false, limit: Int = 100
    ) {
        self.beforeID = beforeID
        self.newestFirst = newestFirst
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

extension ServerNotificationStorage {
    /// Every kind of notification due at `date`, oldest first, at most `limit`.
    public nonisolated(nonsending) func dueNotifications(at date: Date, limit: Int) async throws -> [ServerNotification] {
        try await dueNotifications(at: date, limit: limit, onlyTests: false)
    }
}
